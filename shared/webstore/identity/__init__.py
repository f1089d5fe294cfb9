"""Player identity: who a username is on the store's platform (docs/players.md, "Player identity").

`port` is the port (a username → the account it names, or None); `offline` and `mojang` are
its adapters (offline-mode Minecraft: the offline UUID of the name; online-mode Minecraft:
Mojang's public profile lookup); `identify` picks one by the store's `online_mode` and keeps
the answer in the user registry (`webstore.repo.users`).
"""
