"""The environment every test and benchmark runs with: AWS under moto, the test table, the
in-process bus, quiet Powertools. Set before the functions import (their Powertools objects and
settings read it)."""

from __future__ import annotations

import os

TABLE = "webstore-test"

TEST_ENVIRONMENT = {
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SECURITY_TOKEN": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "WEBSTORE_TABLE_NAME": TABLE,
    "WEBSTORE_REGION": "us-east-1",
    "WEBSTORE_EVENTS": "local",
    "WEBSTORE_WEBHOOK_KEY": "test-webhook-sealing-key",
    "WEBSTORE_STOREFRONT_URL": "https://shop.test",
    "WEBSTORE_OPERATOR_URL": "https://plugin.test",
    # The players' shop: the demo store's (account 1), at the demo store's `webstore_url`.
    "WEBSTORE_SHOP_URL": "http://127.0.0.1:8083",
    "WEBSTORE_SHOP_STORE_ID": "1",
    # argon2id with 1 MiB: a staff sign-in costs milliseconds in tests (64 MiB deployed).
    "WEBSTORE_PASSWORD_HASH_MEMORY_KIB": "1024",
    "POWERTOOLS_TRACE_DISABLED": "true",
    "POWERTOOLS_METRICS_NAMESPACE": "webstore-tests",
    "POWERTOOLS_SERVICE_NAME": "webstore-tests",
    "POWERTOOLS_LOG_LEVEL": "WARNING",
}


def use_test_environment() -> None:
    os.environ.update(TEST_ENVIRONMENT)
