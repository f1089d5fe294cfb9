"""Payments: what a paid order becomes, and what happens to it afterwards.

- `order`: what a payment source hands over (Order, OrderLine).
- `planning`: pure rules (lines, commands per trigger, tiers, goals, stats, chunking).
- `recording`: `fulfil`, the transaction that records a payment through the repositories.
- `changes`: status changes, reassignment and notes of a recorded payment.
- `subject` and `events`: the webhook subjects and the events a payment publishes.

The payment-status type and the gateway table are domain types the repositories store too:
`webstore.domain.payment_status` and `webstore.domain.gateways`.
"""
