"""Payments: what a paid order becomes, and what happens to it afterwards.

- `order`: what a payment source hands over (Order, OrderLine).
- `status`: the one payment-status type (wire ids, descriptions, events, allowed transitions).
- `gateways`: the one table of gateway ids and names (Manual, Sandbox).
- `planning`: pure rules (lines, commands per trigger, tiers, goals, stats, chunking).
- `recording`: `fulfil`, the transaction that records a payment through the repositories.
- `changes`: status changes, reassignment and notes of a recorded payment.
- `subject` and `events`: the webhook subjects and the events a payment publishes.

Kept free of imports so that repositories may use `payments.status` and `payments.gateways` without a cycle.
"""
