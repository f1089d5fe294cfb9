"""The route table: every operation module of every interface, found by walking the packages.

Adding an operation is adding one module that defines `ROUTE`, `endpoint` and `handler`;
the local server, the CDK stack, the OpenAPI documents and the infra tests all read this.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from functools import cache

from functions.runtime import Endpoint, Interface, Route

PACKAGES = {Interface.STOREFRONT: "functions.storefront", Interface.OPERATOR: "functions.operator"}


@dataclass(frozen=True)
class Operation:
    module: str  # e.g. functions.storefront.get_basket
    route: Route
    endpoint: Endpoint

    @property
    def handler_path(self) -> str:
        return f"{self.module}.handler"


@cache
def operations(interface: Interface | None = None) -> tuple[Operation, ...]:
    found: list[Operation] = []
    for each, package_name in PACKAGES.items():
        if interface is not None and each is not interface:
            continue
        package = importlib.import_module(package_name)
        for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
            module = importlib.import_module(f"{package_name}.{info.name}")
            route = getattr(module, "ROUTE", None)
            if route is None:
                continue
            if route.interface is not each:
                raise ValueError(
                    f"{module.__name__} declares interface {route.interface}, lives under {each}"
                )
            found.append(Operation(module.__name__, route, module.endpoint))
    return tuple(found)
