"""The gateways a payment can come from, and the ids admin tools show for them.

The one table of gateway ids (docs/decisions.md): a payment stores its gateway's name; the id in
the operator interface's `gateway {id, name}` is looked up here. Ids never change once given;
a new adapter gets the next one.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GatewayKind:
    id: int
    name: str


MANUAL = GatewayKind(1, "Manual")  # recorded by an admin tool (POST /payments)
SANDBOX = GatewayKind(2, "Sandbox")  # the hosted checkout's sandbox gateway
STRIPE = GatewayKind(3, "Stripe")  # the store owner's Stripe account (checkout.stripe_gateway)
GATEWAYS = (MANUAL, SANDBOX, STRIPE)
UNKNOWN_GATEWAY_ID = 0  # a stored name not in the table (no adapter records one today)

_BY_NAME = {gateway.name: gateway.id for gateway in GATEWAYS}


def gateway_id(name: str) -> int:
    """The id of the gateway a payment names; UNKNOWN_GATEWAY_ID for a name not in the table."""
    return _BY_NAME.get(name, UNKNOWN_GATEWAY_ID)
