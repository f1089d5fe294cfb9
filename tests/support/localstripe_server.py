"""localstripe (a stateful fake Stripe server, PyPI), with what it lacks for our adapter filled in.

Run as `python -m tests.support.localstripe_server --port N`; the tests start it (fixture
`localstripe` in tests/integration/stripe/conftest.py) and point the official `stripe` library
at it. What localstripe 1.15.10 lacks, and what this adds (docs/stripe.md, "Testing"):

- Idempotency keys are ignored: a retried create makes a second object. Added: a response cache
  by `Idempotency-Key` (per method and path), as Stripe answers a retry with the first result.
- PaymentIntent refuses `description`, `receipt_email`, `setup_future_usage` and
  `automatic_payment_methods`: accepted (description kept; a method confirmed with
  `setup_future_usage` is attached to the intent's customer, as Stripe saves it).
- Confirming with `payment_method` (what Stripe.js does) is "Not implemented": accepted.
- An off-session confirmation of a card that needs authentication leaves the intent in
  `requires_action`; Stripe answers 402 `authentication_required` with the intent: so here.
- Charges have no `disputed`, and a second full refund is not refused: both as Stripe.
- No disputes at all (the webhook tests sign `charge.dispute.*` events themselves).
- Any API key is accepted, and there is no `GET /v1/account`. Added: a key whose body starts with
  `revoked` is refused as Stripe refuses an unknown key (401 `Invalid API Key provided`), and
  `GET /v1/account` answers an account (`acct_localstripe`; `charges_enabled` false for a key
  whose body starts with `inactive`, an account not activated yet).
- No webhook endpoints API. Added: `POST /v1/webhook_endpoints` (url, enabled_events; the
  signing secret in the answer, as Stripe shows it on creation; from then on localstripe's own
  events of those types are delivered there, signed with that secret, as Stripe delivers them)
  and `GET /v1/webhook_endpoints` (the list, without secrets).
- No Stripe Tax: added by tests/support/localstripe_tax.py (calculations, transactions and
  reversals, registrations).
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
from typing import Any

from aiohttp import web
from localstripe import resources, server, webhooks
from localstripe.errors import UserError

from tests.support import localstripe_tax

_replies: dict[tuple[str, str, str], tuple[int, bytes]] = {}


@web.middleware
async def idempotency(request: web.Request, handler: Any) -> web.StreamResponse:
    key = request.headers.get("Idempotency-Key")
    if not key or request.method != "POST":
        return await handler(request)
    cache_key = (key, request.method, request.path)
    if cache_key in _replies:
        status, body = _replies[cache_key]
        return web.Response(
            status=status, body=body, content_type="application/json", headers={"Idempotent-Replayed": "true"}
        )
    response = await handler(request)
    if isinstance(response, web.Response) and response.body is not None:
        _replies[cache_key] = (response.status, bytes(response.body))  # type: ignore[arg-type]
    return response


def _key_body(request: web.Request) -> str:
    """`sk_test_revoked…` → `revoked…`: the part after the key's prefix and mode."""
    key = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
    return key.split("_", 2)[2] if key.count("_") >= 2 else ""


@web.middleware
async def revoked_keys(request: web.Request, handler: Any) -> web.StreamResponse:
    if _key_body(request).startswith("revoked"):
        key = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        error = {
            "message": f"Invalid API Key provided: {key[:8]}****{key[-4:]}",
            "type": "invalid_request_error",
        }
        return web.json_response({"error": error}, status=401)
    return await handler(request)


async def account(request: web.Request) -> web.StreamResponse:
    return web.json_response(
        {
            "id": "acct_localstripe",
            "object": "account",
            "charges_enabled": not _key_body(request).startswith("inactive"),
            "details_submitted": True,
            "country": "US",
            "default_currency": "usd",
            "settings": {"dashboard": {"display_name": "Localstripe account"}},
        }
    )


_endpoints: list[dict[str, Any]] = []


async def create_endpoint(request: web.Request) -> web.StreamResponse:
    data = await request.post()
    events = [v for k, v in data.items() if k.startswith("enabled_events")]
    if not data.get("url") or not events:
        error = {"message": "Missing required param: url or enabled_events.", "type": "invalid_request_error"}
        return web.json_response({"error": error}, status=400)
    endpoint = {
        "id": f"we_{secrets.token_hex(12)}",
        "object": "webhook_endpoint",
        "url": data["url"],
        "enabled_events": events,
        "api_version": data.get("api_version"),
        "status": "enabled",
        "livemode": False,
    }
    _endpoints.append(endpoint)
    secret = f"whsec_{secrets.token_hex(16)}"
    webhooks.register_webhook(endpoint["id"], str(data["url"]), secret, events)
    return web.json_response({**endpoint, "secret": secret})


async def list_endpoints(request: web.Request) -> web.StreamResponse:
    return web.json_response({"object": "list", "data": _endpoints, "has_more": False, "url": request.path})


def _patch_payment_intents() -> None:
    intent_class: Any = resources.PaymentIntent
    original_init = intent_class.__init__

    def init(self: Any, description: Any = None, receipt_email: Any = None, setup_future_usage: Any = None,
             automatic_payment_methods: Any = None, **kwargs: Any) -> None:  # fmt: skip
        original_init(self, **kwargs)
        self.description = description
        self.receipt_email = receipt_email
        self.setup_future_usage = setup_future_usage

    intent_class.__init__ = init

    original_confirm = intent_class._confirm

    def confirm(self: Any, on_failure_now: Any) -> None:
        original_confirm(self, on_failure_now)
        if self.setup_future_usage and self.customer and self.status == "succeeded":
            method = resources.PaymentMethod._api_retrieve(self.payment_method)
            method.customer = self.customer

    intent_class._confirm = confirm

    def api_confirm(cls: Any, id: str, payment_method: Any = None, **kwargs: Any) -> Any:
        obj = cls._api_retrieve(id)
        if payment_method is not None:
            resources.PaymentMethod._api_retrieve(payment_method)
            obj.payment_method = payment_method
            if obj.status == "requires_payment_method":  # a failed try: the new method is tried afresh
                obj.latest_charge = None
        if obj.status != "requires_confirmation":
            raise UserError(400, "Bad request")
        obj._confirm(on_failure_now=obj._report_failure)
        return obj

    intent_class._api_confirm = classmethod(api_confirm)
    original_create = intent_class._api_create.__func__

    def api_create(cls: Any, confirm: Any = None, off_session: Any = None, **data: Any) -> Any:
        obj = original_create(cls, confirm=confirm, off_session=off_session, **data)
        if resources.try_convert_to_bool(off_session) and obj.status == "requires_action":
            obj.next_action = None
            obj.payment_method = None  # as Stripe leaves it: requires_payment_method
            raise UserError(
                402,
                "This payment requires authentication.",
                {"code": "authentication_required", "type": "card_error", "payment_intent": obj._export()},
            )
        return obj

    intent_class._api_create = classmethod(api_create)
    # The routes were bound to the original functions when the server module was imported.
    for route in list(server.app.router.routes()):
        info = route.resource.get_info() if route.resource else {}
        if info.get("formatter") == "/v1/payment_intents/{id}/confirm":
            route._handler = server.api_extra(intent_class._api_confirm, "/v1/payment_intents/{id}/confirm")
        if info.get("path") == "/v1/payment_intents" and route.method == "POST":
            route._handler = server.api_create(intent_class, "/v1/payment_intents")


def _patch_charges() -> None:
    charge_class: Any = resources.Charge
    original_init = charge_class.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        self.disputed = False

    charge_class.__init__ = init
    refund_class: Any = resources.Refund
    original_refund = refund_class.__init__

    def refund(self: Any, charge: Any = None, payment_intent: Any = None, **kwargs: Any) -> None:
        charge_id = charge
        if charge_id is None and payment_intent is not None:
            latest = resources.PaymentIntent._api_retrieve(payment_intent).latest_charge
            charge_id = latest.id if latest is not None else None
        if charge_id is not None:
            paid = resources.Charge._api_retrieve(charge_id)
            if paid.amount_refunded >= paid.amount:
                raise UserError(400, "Charge already refunded", {"code": "charge_already_refunded"})
        original_refund(self, charge=charge, payment_intent=payment_intent, **kwargs)

    refund_class.__init__ = refund


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args(argv)
    _patch_payment_intents()
    _patch_charges()
    server.app.middlewares.insert(0, idempotency)
    server.app.middlewares.insert(0, revoked_keys)
    server.app.router.add_get("/v1/account", account)
    server.app.router.add_post("/v1/webhook_endpoints", create_endpoint)
    server.app.router.add_get("/v1/webhook_endpoints", list_endpoints)
    localstripe_tax.install(server.app)  # Stripe Tax (tests/support/localstripe_tax.py)
    server.store.dump_to_disk = lambda *a, **k: None  # type: ignore[method-assign]  # in memory only
    print(json.dumps({"listening": args.port}), flush=True)
    web.run_app(server.app, host="127.0.0.1", port=args.port, access_log=None, print=None)


if __name__ == "__main__":
    main(sys.argv[1:])
