"""Fixtures for every test: AWS under moto, the table, the demo store, Lambda invocation.

The helpers behind them live in tests/support/ (scripts import them from there too)."""

from __future__ import annotations

from tests.support.environment import TABLE, use_test_environment

# Before the functions import: their Powertools objects and settings read the environment.
use_test_environment()

import functools
import importlib
from collections.abc import Iterator

import boto3
import botocore.session
import pytest

from infra.embedded import EmbeddedStore, as_a_store
from tests.support import invocation
from tests.support.demo import DemoStore, import_other_store, restore_demo
from tests.support.invocation import Invoke
from tests.support.lambda_events import Response
from tests.support.name_service import JEB, NOTCH, StandInNameService, running_name_service
from webstore import db
from webstore import services as services_module
from webstore.catalog_import import ImportResult
from webstore.db import Table, create_table
from webstore.operator import auth

# Still importable from here for tests written before tests/support/ (other branches); new
# tests import them from tests/support/.
__all__ = ["TABLE", "DemoStore", "Invoke", "Response"]


@pytest.fixture(scope="session", autouse=True)
def access_guard() -> Iterator[None]:
    """Every event consumer runs under the access guard wherever a test calls its `handler`
    (HTTP handlers: through `invoke`); side reads (`start_read`) keep the caller's context."""
    from functions.routes import consumers
    from tests.support.access_guard import ContextExecutor, enforcing

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(db, "_reads", ContextExecutor(db._reads))
        for each in consumers():
            module = importlib.import_module(each.module)
            guarded = enforcing(module.handler, each.consumer.name, each.consumer.function_access)
            patch.setattr(module, "handler", guarded)
        yield


@pytest.fixture(scope="session", autouse=True)
def one_botocore_loader() -> Iterator[None]:
    """One loader of the AWS service models for the whole session: moto resets boto3's default
    session on every `mock_aws`, and each new session would parse the models' JSON again
    (~0.1 s of CPU per test). The models are read-only data, the same for every session."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(botocore.session, "create_loader", functools.cache(botocore.session.create_loader))
        yield


@pytest.fixture(scope="session", autouse=True)
def moto_as_a_store() -> Iterator[None]:
    """moto's table as the local stack runs it (infra/embedded.py): a transaction undoes only the
    items it touched instead of copying every table once per action, and each DynamoDB call is
    atomic, as in DynamoDB (moto is not thread-safe inside a call: a Query on an index iterates
    the table while a side read's thread or a concurrent request may be adding items); threads
    interleave between calls as concurrent Lambda instances would."""
    with as_a_store(EmbeddedStore()):
        yield


@pytest.fixture(autouse=True)
def fresh_auth_cache() -> Iterator[None]:
    """Verified secrets and blocked addresses are cached per process; tests start clean (the
    demo store keeps its secrets from test to test: tests/support/demo.py)."""
    auth.cache.clear()
    yield
    auth.cache.clear()


@pytest.fixture
def name_service(monkeypatch: pytest.MonkeyPatch) -> Iterator[StandInNameService]:
    """The stand-in Mojang profile lookup (knows Notch and jeb_), set as the services' identity
    base URL with a short timeout (tests/support/name_service.py)."""
    with running_name_service(NOTCH, JEB) as service:
        monkeypatch.setenv("WEBSTORE_IDENTITY_BASE_URL", service.base_url)
        monkeypatch.setenv("WEBSTORE_IDENTITY_TIMEOUT_SECONDS", "0.5")
        service.hang_seconds = 1.5
        services_module.reset()
        yield service
    services_module.reset()


@pytest.fixture
def aws() -> Iterator[None]:
    from moto import mock_aws

    with mock_aws():
        services_module.reset()
        yield
    services_module.reset()


@pytest.fixture
def table(aws: None) -> Table:
    client = boto3.client("dynamodb", region_name="us-east-1")
    create_table(client, TABLE)
    return Table(client, TABLE)


@pytest.fixture
def demo(table: Table) -> DemoStore:
    """The demo store in a fresh table (tests/support/demo.py: written back from the first
    import of the session; importing a catalog is tested as such in its own tests)."""
    return restore_demo(table)


@pytest.fixture
def other_store(demo: DemoStore) -> ImportResult:
    """A second store (account 2) beside the demo store."""
    return import_other_store(demo.table)


@pytest.fixture
def invoke() -> Invoke:
    """invoke(handler, method, path, body=..., query=..., headers=...) -> Response, under the
    access guard (tests/support/invocation.py)."""
    return invocation.invoke


@pytest.fixture(autouse=True)
def unbranded_pages() -> Iterator[None]:
    """Each test starts unbranded, as each request does (a page use case run outside a request
    names its store's brand for the rest of the thread's context)."""
    from webstore.html.player import brand_scope

    with brand_scope():
        yield
