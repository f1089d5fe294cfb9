"""The `payment.*` webhook subject against the platform's published PaymentSubject (its Checkout
API schema, as the official Node SDK's generated models carry it), field by field, for the
delivery the issue counted differences in: a manual payment. Where the published shape is
itself inconsistent the decision is in docs/compatibility.md (Webhooks)."""

from __future__ import annotations

from typing import Any

from tests.integration.operator.support import manual_payment
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from webstore.services import get_services


def _completed() -> dict[str, Any]:
    published = get_services().publisher.published  # type: ignore[attr-defined]
    completed = [e for e in published if e.type == "payment.completed"]  # earlier tests' too
    return dict(completed[-1].subject)


def test_a_manual_payment_subject_has_the_published_types(demo: DemoStore, invoke: Invoke) -> None:
    manual_payment(invoke, demo.server_secret, ign="Steve", packages=[{"id": 10}], price=2.5)
    subject = _completed()
    # `custom`: an object (never null), `{}` when the basket carried none.
    assert subject["custom"] == {}
    # One-off payment: no subscription, so no reference (null, not "").
    assert subject["recurring_payment_reference"] is None
    customer = subject["customer"]
    # Strings as typed, empty for a manual payment (no buyer e-mail or address was given).
    assert customer["email"] == "" and customer["ip"] == ""
    assert isinstance(customer["first_name"], str) and isinstance(customer["marketing_consent"], bool)
    # The player as the platform's webstore deliveries carry it: `{id, username}` (ids strings).
    assert set(customer["username"]) == {"id", "username"} and customer["username"]["username"] == "Steve"
    assert isinstance(customer["username"]["id"], str)
    [product] = subject["products"]
    assert product["username"] == customer["username"]
    assert product["custom"] is None and product["expires_at"] is None
    assert isinstance(product["variables"], list)
