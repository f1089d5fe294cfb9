"""Retry backoff for webhook messages.

SQS retries a failed message when its visibility timeout runs out; by default that is the same
delay every time. Before reporting a record as failed, the dispatch function sets the message's
visibility timeout from its receive count, so retries back off exponentially:
30 s, 1 min, 2 min, 4 min, 8 min, 16 min, 32 min, then hourly (with jitter so a recovering
receiver is not hit by every message at once). The retry budget is `MAX_RECEIVES` receipts, the
queue's `maxReceiveCount` (its redrive policy): about five hours of retries, so a receiver down for
an afternoon loses nothing; past it SQS moves the message to the dead-letter queue. The local
stack follows the same schedule (`next_retry_delay`).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cached_property
from typing import Any

from aws_lambda_powertools import Logger
from botocore.exceptions import BotoCoreError, ClientError

logger = Logger(child=True)

BASE_SECONDS = 30
CAP_SECONDS = 3600
# Receipts before a message goes to the dead-letter queue: 30 s … 32 min, then hourly; ~5 h in all.
MAX_RECEIVES = 12


def retry_delay_seconds(receive_count: int, *, jitter: random.Random | None = None) -> int:
    """Delay before the next try after `receive_count` receipts: doubling, capped, ±10% jitter."""
    exponent = min(max(receive_count, 1) - 1, 16)
    delay = min(BASE_SECONDS * 2**exponent, CAP_SECONDS)
    spread = (jitter or random).uniform(-0.1, 0.1)
    return max(1, min(round(delay * (1 + spread)), 43_200))  # SQS allows at most 12 hours


def next_retry_delay(receive_count: int, *, jitter: random.Random | None = None) -> int | None:
    """Seconds before the next try after `receive_count` failed tries, or None once the budget
    (`MAX_RECEIVES`) is spent: the schedule SQS follows in AWS, for the local stack."""
    if receive_count >= MAX_RECEIVES:
        return None
    return retry_delay_seconds(receive_count, jitter=jitter)


def queue_url_from_arn(arn: str) -> str:
    """arn:aws:sqs:<region>:<account>:<name> → the queue URL (no GetQueueUrl round trip)."""
    parts = arn.split(":")
    if len(parts) != 6 or parts[2] != "sqs":
        raise ValueError(f"not an SQS queue ARN: {arn}")
    _, partition, _, region, account, name = parts
    domain = "amazonaws.com.cn" if partition == "aws-cn" else "amazonaws.com"
    return f"https://sqs.{region}.{domain}/{account}/{name}"


class SqsVisibilityBackoff:
    """Sets a failed message's next visibility; best effort (the queue's default applies otherwise).
    The SQS client is made on the first failure: most batches never need it."""

    def __init__(self, client_factory: Callable[[], Any]) -> None:
        self._client_factory = client_factory

    @cached_property
    def client(self) -> Any:
        return self._client_factory()

    def postpone(self, queue_arn: str, receipt_handle: str, receive_count: int) -> int | None:
        delay = retry_delay_seconds(receive_count)
        try:
            self.client.change_message_visibility(
                QueueUrl=queue_url_from_arn(queue_arn), ReceiptHandle=receipt_handle, VisibilityTimeout=delay
            )
        except (ClientError, BotoCoreError, ValueError) as error:
            logger.warning("could not postpone the retry", extra={"error": str(error)})
            return None
        return delay
