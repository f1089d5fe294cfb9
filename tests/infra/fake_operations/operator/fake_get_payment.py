"""Test-only operator operation (see fake_get_basket)."""

from functions.runtime import READ, Interface, Route, lambda_handler

ROUTE = Route(
    interface=Interface.OPERATOR,
    method="GET",
    path="/payments/{transaction}",
    operation_id="fakeGetPayment",
    access=READ,
)


async def endpoint(transaction: str) -> dict[str, str]:
    return {"transaction": transaction}


handler = lambda_handler(ROUTE, endpoint)
