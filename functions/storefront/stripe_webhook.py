"""POST /webhooks/stripe/{token} — the store's Stripe webhook endpoint (docs/stripe.md): the
signature verified with the store's sealed signing secret, each event handled once."""

from typing import Annotated

from fastapi import Header, Path, Request

from functions.deps import ServicesDep
from functions.runtime import WRITE, Access, Interface, Route, lambda_handler
from webstore.checkout import processor_events
from webstore.storefront import schemas

ROUTE = Route(
    Interface.STOREFRONT,
    "POST",
    "/webhooks/stripe/{token}",
    "receiveStripeWebhook",
    WRITE | {Access.GATEWAY_KEY},
    "Stripe webhook events of a store",
    timeout_seconds=25,
)


async def endpoint(
    token: Annotated[str, Path(max_length=80)],
    request: Request,
    svc: ServicesDep,
    stripe_signature: Annotated[str | None, Header(max_length=2000)] = None,
) -> schemas.StripeWebhookReceived:
    payload = await request.body()
    outcome = processor_events.receive(svc, token, payload, stripe_signature)
    return schemas.StripeWebhookReceived(
        received=True, id=outcome.event_id, type=outcome.type, result=outcome.result
    )


handler = lambda_handler(ROUTE, endpoint)
