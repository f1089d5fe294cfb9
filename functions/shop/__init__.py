"""The players 'shop: one module per page or form (docs/shop.md)."""
