"""How large a payment's record grows: the store accepts only orders it can record.

A payment is one item (DynamoDB: at most 400 KB), holding its lines and the plan of every
command its triggers queue (purchase at once; refund or chargeback later, on the same item).
The bound here is an upper estimate computed from the catalog, so the basket refuses an order
too large to record (4xx at add-to-basket) before anything is charged; fulfilment measures the
real record before writing it as the last line of defence (a refusal there is refunded).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from webstore.catalog import Package

ITEM_LIMIT = 400_000  # DynamoDB's item size limit, bytes
# What an order's lines and command plans may take: the rest of the item is left to the
# payment's own fields, `custom` (storefront.inputs caps it), notes and later plans' growth.
ORDER_RECORD_BUDGET = 250_000
# The payment record as fulfilment measures it before writing (its purchase plan only): above
# this, it is refused (the hosted checkout then refunds), keeping room for later plans and notes.
RECORD_LIMIT = 300_000
# A stored queued command besides its text: attribute names, ids, the trigger, server, a
# 36-character uuid, a username of up to 64 characters and an ISO timestamp (measured ~330).
COMMAND_OVERHEAD = 450
# A payment line besides its variables: names (200), prices, ids, username, uuid.
LINE_OVERHEAD = 1_000
_PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_]+)\}")


def command_bytes(text: str, variables: Mapping[str, str]) -> int:
    """The stored size of one command's text after its variables are filled (an upper bound:
    each placeholder counted as its value plus the placeholder itself)."""
    filled = len(text.encode())
    for name in _PLACEHOLDER.findall(text):
        filled += len(variables.get(name, "").encode())
    return filled


def unit_bytes(package: Package, variables: Mapping[str, str]) -> int:
    """What one unit of the package adds to its payment's record: every command of every
    trigger (a refund or chargeback adds its plan to the same item later)."""
    return sum(command_bytes(c.command, variables) + COMMAND_OVERHEAD for c in package.commands)


def line_bytes(unit: int, quantity: int, variables: Mapping[str, str]) -> int:
    """One line of an order: its own fields and `quantity` units."""
    own = LINE_OVERHEAD + sum(len(k.encode()) + len(v.encode()) for k, v in variables.items())
    return own + unit * quantity
