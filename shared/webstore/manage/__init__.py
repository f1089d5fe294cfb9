"""A subscription after its purchase: the player's manage page (reached by a signed link),
cancellation at the end of the paid period and its undo, and the operator's view of it
(docs/subscriptions.md, "Cancellation")."""
