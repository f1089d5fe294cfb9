"""Domain errors. Each interface maps them once, in the runtime, to its own error body."""

from __future__ import annotations


class DomainError(Exception):
    status = 400
    title = "Bad request"

    def __init__(self, detail: str, *, field: str | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.field = field


class NotFound(DomainError):
    status = 404
    title = "Not found"


class Invalid(DomainError):
    """Input that parsed but breaks a rule (a coupon that has expired, a package not for sale)."""

    status = 422
    title = "Invalid request"


class Unauthorized(DomainError):
    status = 401
    title = "Unauthorized"


class Forbidden(DomainError):
    status = 403
    title = "Forbidden"


class Gone(DomainError):
    """Something that existed and no longer works (a used or expired one-time link)."""

    status = 410
    title = "Gone"


class Conflict(DomainError):
    """A condition the database enforces failed (already paid, limit reached, changed meanwhile)."""

    status = 409
    title = "Conflict"


class Throttled(DomainError):
    status = 429
    title = "Too many requests"

    def __init__(self, detail: str, *, retry_after: int) -> None:
        super().__init__(detail)
        self.retry_after = max(1, retry_after)


class PayloadTooLarge(DomainError):
    """More than a request may carry (the official plugin halves its batch on 413 and retries)."""

    status = 413
    title = "Payload too large"
