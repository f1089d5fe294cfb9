"""Every order a basket accepts can be recorded: the basket's bound (record_size) holds the
payment record, measured as fulfilment stores it, inside the item limit (issue 10, item 1)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.unit.payments.support import NOW, RECIPIENTS, STEVE, demo_view, order
from tests.unit.test_basket import add, basket, package
from webstore import record_size
from webstore.basket import MAX_QUANTITY
from webstore.catalog import CommandTrigger, PackageCommand
from webstore.errors import Invalid
from webstore.payments import planning
from webstore.payments.order import OrderLine
from webstore.repo.store import StoreView


def heavy_package(package_id: int, text: int) -> object:
    """A package whose commands are as long as allowed, on every trigger, using a variable."""
    commands = [
        PackageCommand(server_id=1, command=("x" * (text - 8)) + "{target}", trigger=trigger)
        for trigger in (CommandTrigger.PURCHASE, CommandTrigger.REFUND, CommandTrigger.CHARGEBACK)
    ]
    return package(package_id, commands=commands, variables=["target"])


def largest_accepted(view_package: object, variables: dict[str, str]) -> int:
    """Add one at a time until the basket refuses: how many it accepts."""
    b = basket(username="Steve", username_id=STEVE.id)
    add(b, view_package, 1, variable_data=variables)  # type: ignore[arg-type]
    while b.lines[0].quantity < MAX_QUANTITY:
        try:
            b.set_quantity(b.lines[0], view_package, b.lines[0].quantity + 1)  # type: ignore[arg-type]
        except Invalid as refused:
            assert refused.field == "quantity" and "fit" in refused.detail
            break
    return b.lines[0].quantity


def measured(view: StoreView, package_id: int, quantity: int, variables: dict[str, str]) -> int:
    """The payment record fulfilment would write, with its purchase plan and then a refund's."""
    paid = order(
        OrderLine(package_id=package_id, quantity=quantity, paid_price=Decimal(1), variables=variables)
    )
    lines = planning.payment_lines(paid, view, STEVE, RECIPIENTS)
    payment = planning.new_payment(paid, "USD", STEVE, lines, [], 1, NOW)
    for trigger in (CommandTrigger.PURCHASE, CommandTrigger.REFUND):
        commands = planning.commands_for(lines, view, trigger, NOW)
        commands = planning.with_ids(commands, range(10**9, 10**9 + len(commands)), payment.id)
        planning.plan_commands(payment, trigger.value, commands, 90)
        if trigger is CommandTrigger.PURCHASE:
            planning.check_recordable(payment)  # fulfilment's own check passes
    return len(payment.model_dump_json().encode())


@pytest.mark.parametrize(("text", "value"), [(40, "Steve"), (2000, "Steve"), (300, "v" * 500)])
def test_the_largest_order_a_basket_accepts_fits_in_one_item(text: int, value: str) -> None:
    heavy = heavy_package(77, text)
    view = demo_view()
    view.packages.append(heavy)  # type: ignore[arg-type]
    variables = {"target": value}
    accepted = largest_accepted(heavy, variables)
    assert accepted >= 1
    assert measured(view, 77, accepted, variables) < record_size.ITEM_LIMIT


def test_a_thousand_of_a_two_command_package_is_refused_at_add_to_basket() -> None:
    """The demo's Diamond Sword: 1,000 units used to reach fulfilment and fail to store."""
    sword = demo_view().package(10)
    assert sword is not None
    b = basket(username="Steve", username_id=STEVE.id)
    with pytest.raises(Invalid) as refused:
        add(b, sword, 1000)
    assert refused.value.field == "quantity"
    assert "at most" in refused.value.detail
