"""The gateway table in docs/decisions.md is the one in code (webstore/domain/gateways.py)."""

from __future__ import annotations

import re
from pathlib import Path

from webstore.checkout.gateway import SandboxGateway
from webstore.checkout.stripe_gateway import StripeGateway
from webstore.domain.gateways import GATEWAYS, MANUAL, SANDBOX, STRIPE, UNKNOWN_GATEWAY_ID, gateway_id
from webstore.payments.order import Order

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_decisions_lists_exactly_the_gateways_in_code() -> None:
    rows = re.findall(r"^\s*\| (\d+) \| (\w+) \|", (DOCS / "decisions.md").read_text(), re.MULTILINE)
    assert [(int(i), name) for i, name in rows] == [(g.id, g.name) for g in GATEWAYS]


def test_ids_are_distinct_and_every_source_uses_the_table() -> None:
    ids = {g.id for g in GATEWAYS}
    assert len(ids) == len(GATEWAYS) and UNKNOWN_GATEWAY_ID not in ids
    assert (SandboxGateway.gateway_id, SandboxGateway.name) == (SANDBOX.id, SANDBOX.name)
    assert Order.model_fields["gateway"].default == MANUAL.name
    assert (StripeGateway.gateway_id, StripeGateway.name) == (STRIPE.id, STRIPE.name)
    assert [gateway_id(name) for name in ("Manual", "Sandbox", "Stripe", "PayPal")] == [
        1,
        2,
        3,
        UNKNOWN_GATEWAY_ID,
    ]
    assert "gateway id 2" in (DOCS / "checkout.md").read_text()
