"""PATCH {headless_url}/tiers/{tierId} — change a player's tier (Basic auth) → {success, message}."""

from typing import Annotated

from fastapi import Path

from functions.deps import TOKEN_PREFIX, BasicAuthDep, ServicesDep
from functions.runtime import WRITE, Access, Interface, Route, lambda_handler
from webstore.storefront import schemas
from webstore.storefront.requests import TierChangeRequest
from webstore.storefront.tiers import change_tier
from webstore.validation import PathRef

ROUTE = Route(
    Interface.STOREFRONT,
    "PATCH",
    f"{TOKEN_PREFIX}/tiers/{{tier_id}}",
    "updateTier",
    WRITE | {Access.GATEWAY_KEY},  # an upgrade charges through the store's gateway
    "Change a player's tier (an upgrade is charged now, a downgrade takes effect at the next renewal)",
    timeout_seconds=25,  # an upgrade charges the saved payment method
)


async def endpoint(
    token: str,
    body: TierChangeRequest,
    svc: ServicesDep,
    credentials: BasicAuthDep,
    tier_id: Annotated[PathRef, Path(max_length=12)],
) -> schemas.TierChange:
    return change_tier(svc, token, tier_id, body.package_id, credentials)


handler = lambda_handler(ROUTE, endpoint)
