"""Domain types that use cases and repositories share, below both (nothing here imports a use
case or a repository; lint-imports keeps it so):

- `payment_status`: the one payment-status type (wire ids, descriptions, events, allowed
  transitions).
- `gateways`: the one table of gateway ids and names (Manual, Sandbox, Stripe).
- `roles`: the control panel's staff roles (what each may do is `webstore.admin.roles`).

The catalog's models (`webstore.catalog`, `webstore.model`), the player records
(`webstore.players`) and the basket (`webstore.basket`) are domain types of the same kind.
"""
