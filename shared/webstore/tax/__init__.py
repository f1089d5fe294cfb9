"""Tax, a port beside the gateway port (docs/tax-model.md).

What a basket's lines owe in tax for a buyer's country: `manual` (the owner's rates by country,
pure, also the sandbox's) or `stripe_tax` (Stripe Tax through the official `stripe` library).
Pricing (`webstore.pricing`) asks for one tax per line; rounding is per line, as Stripe does.
"""
