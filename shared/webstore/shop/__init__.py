"""The players' shop (docs/shop.md): HTTP-free use cases of the fourth interface.

Pages read everything they show in one round trip (`reads`), turn it into the plain data an
owner's template may see (`context`), and render the store's theme in the sandbox
(`webstore.html.owner`). Forms call the storefront's basket use cases (never their own
pricing or basket rules) and answer a redirect (Post/Redirect/Get).
"""
