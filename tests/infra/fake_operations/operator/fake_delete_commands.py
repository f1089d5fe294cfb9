"""Test-only operator operation (see fake_get_basket)."""

from functions.runtime import WRITE, Interface, Route, lambda_handler

ROUTE = Route(
    interface=Interface.OPERATOR,
    method="DELETE",
    path="/queue",
    operation_id="fakeDeleteCommands",
    access=WRITE,
    status_code=204,
)


async def endpoint() -> None:
    return None


handler = lambda_handler(ROUTE, endpoint)
