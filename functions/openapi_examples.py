"""Each operation's description, tags and examples in the OpenAPI documents (functions/openapi.py
applies them), so Swagger's "Try it out" starts from a request that makes sense.

- description: the operation module's docstring (one place: the module says what it does);
- tags: by what the path is about (RULES; an operation no rule matches fails the test);
- examples: every path and query parameter by name, every JSON request body by operationId,
  and a success body for the operations that take no input. Values are the demo store's
  (shared/webstore/demo/store.json); tests/unit/test_openapi_documents.py checks each example
  against its schema.
"""

from __future__ import annotations

import inspect
import re
import sys
from collections.abc import Iterable
from typing import Any

from fastapi.routing import APIRoute
from pydantic import BaseModel
from pydantic.json_schema import models_json_schema
from starlette.routing import BaseRoute

from functions.declarations import Interface
from webstore.operator import schemas as operator_schemas

REF = "#/components/schemas/{model}"

# (interface, path pattern, tag), the first match wins.
RULES: tuple[tuple[Interface, str, str], ...] = (
    (Interface.STOREFRONT, r"^/(auth|checkout)/", "Hosted pages"),
    (Interface.STOREFRONT, r"^/webhooks/", "Payment processor webhooks"),
    (Interface.STOREFRONT, r"^/discord/interactions/", "Discord"),
    (Interface.STOREFRONT, r"/(coupons|giftcards|creator-codes)(/remove)?$", "Basket discounts"),
    (Interface.STOREFRONT, r"/dynamic-packages$|/tiers/|/ident/", "Players"),
    (Interface.STOREFRONT, r"/baskets", "Baskets"),
    (Interface.STOREFRONT, r"/(categories|packages)", "Catalog"),
    (Interface.STOREFRONT, r"^/api/accounts/\{token\}(/pages|/sidebar)?$", "Store"),
    (Interface.OPERATOR, r"^/(information|listing)$", "Server set-up"),
    (Interface.OPERATOR, r"^/queue", "Command queue"),
    (Interface.OPERATOR, r"^/events$", "Player events"),
    (Interface.OPERATOR, r"^/payments", "Payments"),
    (Interface.OPERATOR, r"^/recurring-payments/", "Subscriptions"),
    (Interface.OPERATOR, r"^/checkout$", "Payments"),
    (Interface.OPERATOR, r"^/(package|packages)(/|$)", "Packages"),
    (Interface.OPERATOR, r"^/(user|player)/", "Players"),
    (Interface.OPERATOR, r"^/bans$", "Players"),
    (Interface.OPERATOR, r"^/coupons", "Coupons"),
    (Interface.OPERATOR, r"^/gift-cards", "Gift cards"),
    (Interface.OPERATOR, r"^/(sales|community_goals)", "Sales and goals"),
)

TOKEN = "1-8f14e45fceea167a5a36dedd4bea2543"
BASKET = "1-c9f0f895fb98ab9159f51fd0297e236d"
TRANSACTION = "tbx-1-4f3a9b2c"

PARAMETERS: dict[str, Any] = {
    "token": TOKEN,
    "basket_ident": BASKET,
    "basketIdent": BASKET,
    "package": "10",
    "package_id": "pkg_2_10",
    "category": "items",
    "tier_id": "1",
    "usernameId": 1,
    "includePackages": True,
    "returnUrl": "http://localhost:3000/basket",
    "ip_address": "203.0.113.7",
    "ipAddress": "203.0.113.7",
    "transaction": TRANSACTION,
    "reference": TRANSACTION,  # a subscription is named by the transaction that started it
    "coupon_id": "1",
    "code": "WELCOME10",
    "community_goal": 1,
    "gift_card_id": "1",
    "player_id": 1,
    "player": "Steve",
    "user": "Steve",
    "username": "Steve",
    "game_type": "1",
    "verbose": True,
    "limit": 10,
    "paged": 1,
    "page": 1,
    "after": 1,
    "before": 3,
    "idempotency-key": "manual-2025-06-01-steve-1",
    "stripe-signature": "t=1748800000,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd",
    "x-signature-ed25519": "5f" * 64,  # Discord's Ed25519 signature, hex
    "x-signature-timestamp": "1748800000",
}

REQUEST_BODIES: dict[str, Any] = {
    "receiveDiscordInteraction": {"type": 2, "data": {"name": "link"}},
    "addBasketPackage": {"package_id": "pkg_2_10", "quantity": 1},
    "applyCoupon": {"coupon_code": "WELCOME10"},
    "removeCoupon": {"coupon_code": "WELCOME10"},
    "applyCreatorCode": {"creator_code": "STEVE"},
    "removeCreatorCode": {"creator_code": "STEVE"},
    "applyGiftCard": {"card_number": "GIFT-0000-0000-0001"},
    "removeGiftCard": {"card_number": "GIFT-0000-0000-0001"},
    "createBasket": {
        "username": "Steve",
        "complete_url": "http://localhost:3000/thanks",
        "cancel_url": "http://localhost:3000/basket",
        "complete_auto_redirect": True,
        "custom": {"discord_id": "123456789"},
    },
    "createDynamicPackage": {
        "username": "Steve",
        "category_id": 4,
        "packages": [{"name": "Starter bundle for Steve", "price": "3.50", "slug": "starter-steve"}],
    },
    "removeBasketPackage": {"package_id": "pkg_2_10"},
    "updateBasketPackageQuantity": {"quantity": 2},
    "updateTier": {"package_id": 2},
    "createBan": {"user": "Griefer123", "reason": "Griefing spawn", "ip": "203.0.113.9"},
    "createPayment": {
        "ign": "Steve",
        "packages": [{"id": 10, "options": {}}],
        "price": 2.5,
        "note": "Paid in person",
    },
    "createPaymentNote": {"note": "Refund requested by email"},
    "updatePackage": {"price": 2.99, "disabled": False},
    "updatePayment": {"status": "refund"},
    "createCoupon": {
        "code": "SUMMER20",
        "effective_on": "cart",
        "discount_type": "percentage",
        "discount_percentage": 20,
        "redeem_unlimited": False,
        "expire_limit": 50,
    },
    "createGiftCard": {"amount": 10, "note": "Event prize", "expires_at": "2026-12-31T23:59:59Z"},
    "topUpGiftCard": {"amount": "5.00"},
    "createCheckoutLink": {"username": "Steve", "package_id": 10},
    "deleteCommands": {"ids": [1, 2]},
    "createEvents": [
        {
            "username_id": "8667ba71b85a4004af54457a9734eed7",
            "username": "Steve",
            "event_type": "server.join",
            "event_date": "2025-06-01T18:00:00Z",
            "ip": "203.0.113.7",
        }
    ],
}

EVENT_FIELDS = ("username_id", "username", "event_type", "event_date", "ip")
# Operations that read their body themselves (JSON or a form: webstore.operator.bodies), so
# FastAPI cannot see it: its schema, declared here. Form bodies carry the same fields.
MANUAL_BODIES: dict[str, type[BaseModel] | dict[str, Any]] = {
    # Discord's interaction, read raw (the signature covers the bytes): PING or a command.
    "receiveDiscordInteraction": {
        "type": "object",
        "properties": {"type": {"type": "integer"}, "data": {"type": "object"}},
        "required": ["type"],
    },
    "createCoupon": operator_schemas.CouponCreate,
    "createGiftCard": operator_schemas.GiftCardCreate,
    "topUpGiftCard": operator_schemas.GiftCardTopUp,
    "createCheckoutLink": operator_schemas.CheckoutLinkRequest,
    "deleteCommands": {
        "type": "object",
        "properties": {"ids": {"type": "array", "items": {"type": "integer"}}},
        "required": ["ids"],
    },
    "createEvents": {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                name: {"type": "string"}
                for name in ("username_id", "username", "event_type", "event_date", "ip")
            },
            "required": ["username_id", "event_type"],
        },
    },
}

# The success bodies of the operations that take no input (the demo store's, trimmed).
RESPONSES: dict[str, Any] = {
    "receiveDiscordInteraction": {
        "type": 4,
        "data": {"content": "Link your Discord account to the store here: https://…", "flags": 64},
    },
    "getInformation": {
        "account": {
            "id": 1,
            "domain": "http://localhost:3000",
            "name": "Demo Craft",
            "currency": {"iso_4217": "USD", "symbol": "$"},
            "online_mode": True,
            "game_type": "Minecraft",
            "log_events": False,
        },
        "server": {"id": 1, "name": "Survival"},
    },
    "getDuePlayers": {
        "meta": {"execute_offline": True, "next_check": 60, "more": False},
        "players": [{"id": 1, "name": "Steve", "uuid": "8667ba71b85a4004af54457a9734eed7"}],
    },
    "getBans": {"data": []},
    "getSales": {"data": []},
    "getGiftCards": {
        "data": [
            {
                "id": 1,
                "code": "GIFT-0000-0000-0001",
                "balance": {"starting": "10.00", "remaining": "10.00", "currency": "USD"},
                "note": "",
                "void": False,
                "created_at": "2024-01-01T00:00:00+00:00",
                "expires_at": None,
            }
        ]
    },
    "getOfflineCommands": {
        "meta": {"limited": False},
        "commands": [
            {
                "id": 7,
                "command": "eco give Steve 1000",
                "payment": 3,
                "package": 11,
                "conditions": {"delay": 0, "slots": 0},
                "player": {"id": 1, "name": "Steve", "uuid": "8667ba71b85a4004af54457a9734eed7"},
            }
        ],
    },
    "getListing": {
        "categories": [
            {
                "id": 2,
                "order": 2,
                "name": "Items",
                "only_subcategories": False,
                "gui_item": "",
                "packages": [
                    {
                        "id": 10,
                        "order": 1,
                        "name": "Diamond Sword",
                        "price": 2.5,
                        "image": "https://example.invalid/sword.png",
                        "gui_item": "",
                        "sale": {"active": False, "discount": 0.0},
                    }
                ],
                "subcategories": [],
            }
        ]
    },
    "getCommunityGoals": [
        {
            "id": 1,
            "created_at": "2024-01-01 00:00:00",
            "updated_at": "2024-01-01 00:00:00",
            "account": 1,
            "name": "New spawn",
            "description": "<p>Help us build a new spawn.</p>",
            "image": "",
            "target": "250.00",
            "current": "0.00",
            "repeatable": 0,
            "last_achieved": None,
            "times_achieved": 0,
            "status": "active",
            "sale": 0,
        }
    ],
}


def tag_of(interface: Interface, path: str) -> str | None:
    return next((tag for each, pattern, tag in RULES if each is interface and re.search(pattern, path)), None)


def description_of(route: APIRoute) -> str:
    """The operation module's docstring, without its leading `METHOD path — ` (the document
    shows both already)."""
    module = sys.modules.get(route.endpoint.__module__)
    text = inspect.cleandoc(module.__doc__ or "") if module else ""
    return re.sub(r"^(GET|POST|PUT|PATCH|DELETE) \S+( \([^)]*\))?( —|:)? ?", "", text, count=1).strip()


def _declare_body(document: dict[str, Any], operation: dict[str, Any], shape: Any) -> None:
    """A request body the handler parses itself, declared (JSON; forms carry the same fields)."""
    if isinstance(shape, dict):
        schema = shape
    else:
        refs, definitions = models_json_schema([(shape, "validation")], ref_template=REF)
        document["components"].setdefault("schemas", {}).update(definitions.get("$defs", {}))
        schema = refs[(shape, "validation")]
    operation["requestBody"] = {"required": True, "content": {"application/json": {"schema": schema}}}


def describe(document: dict[str, Any], routes: Iterable[BaseRoute], interface: Interface) -> None:
    """Add descriptions, tags and examples to the document's operations (in place)."""
    descriptions = {
        route.operation_id: description_of(route)
        for route in routes
        if isinstance(route, APIRoute) and route.include_in_schema
    }
    tags: set[str] = set()
    for path, item in document.get("paths", {}).items():
        for operation in item.values():
            operation_id = operation.get("operationId", "")
            if descriptions.get(operation_id):
                operation["description"] = descriptions[operation_id]
            tag = tag_of(interface, path)
            if tag:
                operation["tags"] = [tag]
                tags.add(tag)
            if operation_id in MANUAL_BODIES and "requestBody" not in operation:
                _declare_body(document, operation, MANUAL_BODIES[operation_id])
            for parameter in operation.get("parameters", []):
                if parameter["name"] in PARAMETERS:
                    parameter["example"] = PARAMETERS[parameter["name"]]
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if body is not None and operation_id in REQUEST_BODIES:
                body["example"] = REQUEST_BODIES[operation_id]
            success = next((r for s, r in operation.get("responses", {}).items() if s.startswith("2")), None)
            if success and operation_id in RESPONSES:
                success.setdefault("content", {}).setdefault("application/json", {})["example"] = RESPONSES[
                    operation_id
                ]
    document["tags"] = [{"name": tag} for tag in sorted(tags)]
