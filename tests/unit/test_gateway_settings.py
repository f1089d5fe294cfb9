"""The catalog's `gateways` section: Stripe keys checked and sealed, and which gateway a store
may pay with in which stage."""

from __future__ import annotations

from functools import partial

import pytest
from pydantic import ValidationError

from webstore.gateway_settings import GatewaysSection, StoredGateways, stripe_webhook_url
from webstore.sealing import open_sealed, seal
from webstore.secret_box import SecretBox

TEST_KEYS = {
    "publishable_key": "pk_test_abcdefgh1",
    "secret_key": "sk_test_abcdefgh1",
    "webhook_secret": "whsec_abcdefgh1",
}
LIVE_KEYS = {
    "publishable_key": "pk_live_abcdefgh1",
    "secret_key": "sk_live_abcdefgh1",
    "webhook_secret": "whsec_abcdefgh1",
}


def test_keys_of_one_mode_are_accepted_and_sealed() -> None:
    box = SecretBox(lambda: "stage-key")
    stored = GatewaysSection.model_validate({"stripe": TEST_KEYS}).sealed(partial(seal, box))
    assert stored.stripe is not None and stored.stripe.test_mode
    assert stored.stripe.publishable_key == "pk_test_abcdefgh1"
    assert "sk_test" not in stored.model_dump_json() and "whsec_" not in stored.model_dump_json()
    assert open_sealed(box, stored.stripe.secret_key_sealed) == "sk_test_abcdefgh1"
    assert open_sealed(box, stored.stripe.webhook_secret_sealed) == "whsec_abcdefgh1"
    assert "sk_test" not in repr(GatewaysSection.model_validate({"stripe": TEST_KEYS}))


@pytest.mark.parametrize(
    "section",
    [
        {"stripe": {**TEST_KEYS, "secret_key": "sk_live_abcdefgh1"}},  # mixed modes
        {"stripe": {**TEST_KEYS, "publishable_key": "sk_test_abcdefgh1"}},  # a secret as publishable
        {"stripe": {**TEST_KEYS, "webhook_secret": "abcdefgh1"}},
        {"stripe": LIVE_KEYS, "sandbox": True},  # the sandbox beside live keys
        {"stripe": TEST_KEYS, "paypal": {}},
    ],
)
def test_bad_sections_are_refused(section: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        GatewaysSection.model_validate(section)


def test_test_keys_may_sit_beside_the_sandbox() -> None:
    assert GatewaysSection.model_validate({"stripe": TEST_KEYS, "sandbox": True}).sandbox is True


def test_production_refuses_the_sandbox_unless_the_store_opts_in() -> None:
    assert StoredGateways().sandbox_allowed(production=False)
    assert not StoredGateways().sandbox_allowed(production=True)
    assert not StoredGateways(sandbox=False).sandbox_allowed(production=True)
    assert StoredGateways(sandbox=True).sandbox_allowed(production=True)


def test_the_webhook_url_is_the_store_route() -> None:
    assert (
        stripe_webhook_url("https://shop.example/", "1-abc") == "https://shop.example/webhooks/stripe/1-abc"
    )
