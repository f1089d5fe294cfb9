"""GET /player/{id}/packages: what a player bought that still stands, for perk plugins.

A line counts when the player received it (not a gift they sent) in a payment that is still
complete (refunds and chargebacks take it away). Newest first, one entry per payment line.
"""

from __future__ import annotations

from webstore import keys
from webstore.domain.payment_status import PaymentStatus
from webstore.errors import Invalid
from webstore.operator import schemas
from webstore.operator.players import player_id
from webstore.repo.payments import PaymentRecord
from webstore.repo.players import PlayerRepository
from webstore.services import Services

PAYMENTS_READ = 500


def active_packages_view(
    payments: list[PaymentRecord], username_id: int, package_id: int | None
) -> list[schemas.ActivePackage]:
    """Pure: the standing lines of these payments that went to the player."""
    return [
        schemas.ActivePackage(
            txn_id=payment.transaction_id,
            date=payment.created_at.isoformat(),
            quantity=line.quantity,
            package=schemas.ActivePackageRef(id=line.package_id, name=line.name),
        )
        for payment in payments
        if payment.status is PaymentStatus.COMPLETE
        for line in payment.lines
        if line.username_id == username_id and package_id in (None, line.package_id)
    ]


def active_packages(
    services: Services, account_id: int, ref: str, package: str | None
) -> list[schemas.ActivePackage]:
    """A pointer GetItem (UUID or username) and one GSI1 Query of the player's payments."""
    package_id = None
    if package is not None:
        if not (package.isascii() and package.isdigit()) or not 1 <= int(package) <= keys.INT32_MAX:
            raise Invalid("package must be a package id", field="package")
        package_id = int(package)
    username_id = player_id(services, account_id, ref)
    _, payments = PlayerRepository(services.table).with_payments(account_id, username_id, PAYMENTS_READ)
    return active_packages_view(payments, username_id, package_id)
