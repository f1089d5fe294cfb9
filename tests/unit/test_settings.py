"""Settings fail fast: a function without a required setting refuses to start, naming it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import ValidationError

from functions.observability import consumer_handler, powertools_handler
from webstore.settings import MissingSettings, Settings, get_settings, load_settings


@pytest.fixture(autouse=True)
def fresh_settings() -> Iterator[None]:
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def test_the_test_environment_has_every_required_setting() -> None:
    assert load_settings().missing() == []


def test_a_missing_setting_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WEBSTORE_TABLE_NAME")
    monkeypatch.delenv("WEBSTORE_OPERATOR_URL")
    with pytest.raises(MissingSettings, match="WEBSTORE_TABLE_NAME, WEBSTORE_OPERATOR_URL"):
        get_settings()


def test_there_are_no_localhost_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("TABLE_NAME", "STOREFRONT_URL", "OPERATOR_URL", "EVENT_BUS_NAME", "EVENTS"):
        monkeypatch.delenv(f"WEBSTORE_{name}", raising=False)
    settings = Settings()
    assert settings.storefront_url == settings.operator_url == ""
    assert settings.missing() == [
        "WEBSTORE_TABLE_NAME", "WEBSTORE_STOREFRONT_URL", "WEBSTORE_OPERATOR_URL", "WEBSTORE_EVENT_BUS_NAME"
    ]  # fmt: skip


def test_the_bus_is_required_only_when_events_go_to_eventbridge(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WEBSTORE_EVENT_BUS_NAME", raising=False)
    monkeypatch.setenv("WEBSTORE_EVENTS", "local")
    assert Settings().missing() == []
    monkeypatch.setenv("WEBSTORE_EVENTS", "eventbridge")
    assert Settings().missing() == ["WEBSTORE_EVENT_BUS_NAME"]


def test_in_lambda_a_function_fails_its_cold_start(monkeypatch: pytest.MonkeyPatch) -> None:
    """Handlers are built at import: in Lambda that is when the settings are read and checked."""
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "webstore-test")
    monkeypatch.delenv("WEBSTORE_STOREFRONT_URL")

    def handle(event: dict[str, Any], context: Any) -> None:
        return None

    with pytest.raises(MissingSettings, match="WEBSTORE_STOREFRONT_URL"):
        powertools_handler(lambda: handle, "getBasket")  # type: ignore[arg-type,return-value]
    with pytest.raises(MissingSettings, match="WEBSTORE_STOREFRONT_URL"):
        consumer_handler(handle)


def test_outside_lambda_nothing_is_read_at_import(monkeypatch: pytest.MonkeyPatch) -> None:
    """CDK synth imports every function module without the functions' environment."""
    monkeypatch.delenv("AWS_LAMBDA_FUNCTION_NAME", raising=False)
    monkeypatch.delenv("WEBSTORE_STOREFRONT_URL")

    def handle(event: dict[str, Any], context: Any) -> None:
        return None

    consumer_handler(handle)


def test_values_are_read_as_pydantic_settings_read_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """Prefixed, names in any case, typed by the model, unknown ones ignored, arguments first."""
    monkeypatch.setenv("webstore_region", "eu-central-1")
    monkeypatch.setenv("WEBSTORE_ALLOW_PRIVATE_WEBHOOKS", "true")
    monkeypatch.setenv("WEBSTORE_NEXT_CHECK_OVERRIDE", "15")
    monkeypatch.setenv("WEBSTORE_WEBHOOK_KEY", "key-material")
    monkeypatch.setenv("WEBSTORE_NOT_A_SETTING", "ignored")
    monkeypatch.setenv("OTHER_TABLE_NAME", "not ours")
    settings = Settings(max_body_bytes=1024)
    assert settings.region == "eu-central-1"
    assert settings.allow_private_webhooks is True
    assert settings.next_check_override == 15
    assert settings.max_body_bytes == 1024
    assert settings.webhook_key is not None
    assert settings.webhook_key.get_secret_value() == "key-material"
    assert "key-material" not in repr(settings)
    assert Settings(table_name="given").table_name == "given"


def test_a_malformed_value_is_refused_naming_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBSTORE_EVENTS", "carrier-pigeon")
    with pytest.raises(ValidationError, match="events"):
        get_settings()
