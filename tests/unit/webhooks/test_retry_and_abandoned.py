"""Retry backoff schedule, queue URLs from ARNs, and which stream removals are abandonments."""

from __future__ import annotations

import random

import pytest

from webstore.webhooks.abandoned import abandoned_event, is_ttl_removal
from webstore.webhooks.retry import CAP_SECONDS, queue_url_from_arn, retry_delay_seconds


def test_the_backoff_doubles_from_30_seconds_up_to_an_hour() -> None:
    rng = random.Random(1)
    for count, nominal in [(1, 30), (2, 60), (3, 120), (4, 240), (8, 3600), (50, 3600)]:
        delay = retry_delay_seconds(count, jitter=rng)
        assert nominal * 0.9 - 1 <= delay <= nominal * 1.1 + 1
    assert max(retry_delay_seconds(n) for n in range(1, 100)) <= CAP_SECONDS * 1.1 + 1
    assert retry_delay_seconds(0) >= 1


def test_queue_urls_come_from_arns() -> None:
    assert (
        queue_url_from_arn("arn:aws:sqs:eu-west-1:123456789012:webhooks")
        == "https://sqs.eu-west-1.amazonaws.com/123456789012/webhooks"
    )
    with pytest.raises(ValueError):
        queue_url_from_arn("arn:aws:sns:eu-west-1:123456789012:topic")


def test_only_removals_by_the_ttl_process_count() -> None:
    ttl = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}
    assert is_ttl_removal("REMOVE", ttl)
    assert not is_ttl_removal("REMOVE", None)
    assert not is_ttl_removal("REMOVE", {})
    assert not is_ttl_removal("MODIFY", ttl)


def test_a_basket_without_optional_fields_still_makes_an_event() -> None:
    event = abandoned_event(
        {"entity": "basket", "ident": "1-ab", "account_id": 1, "notify_abandoned": True, "complete": False}
    )
    assert event is not None
    assert event.subject == {
        "ident": "1-ab",
        "username": None,
        "username_id": None,
        "email": None,
        "custom": None,
        "created_at": None,
        "expired_at": None,
    }


def test_images_without_an_ident_or_account_are_ignored() -> None:
    assert abandoned_event({"entity": "basket", "notify_abandoned": True, "account_id": 1}) is None
    assert abandoned_event({"entity": "basket", "notify_abandoned": True, "ident": "1-ab"}) is None
