"""Fixtures of the infra tests (the synthesized app: tests/support/cdk.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from functions import routes


@pytest.fixture(scope="session")
def route_table() -> tuple[routes.Operation, ...]:
    return routes.operations()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test in this folder is marked `infra` (`-m "not infra"` leaves out the CDK synths)."""
    here = Path(__file__).parent
    for item in items:
        if here in item.path.parents:
            item.add_marker(pytest.mark.infra)
