"""Subscriptions over time: what fulfilment adds for subscription and timed lines, and the
processor that renews, retries and ends them when their schedule items come due
(`processor.run_due`). The records and the schedule are in `webstore.recurring`."""
