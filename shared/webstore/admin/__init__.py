"""The owner's control panel (issue 16): staff, sessions, roles and the pages' use cases.

HTTP-free, like the rest of `webstore`: the handlers under `functions/admin` parse, call these
and return the page. docs/panel.md describes the panel and its security model.
"""
