"""The rule of what a sale or coupon applies to, one for every writer (a catalog file, the panel,
the operator's `POST /coupons`): the packages (categories) it names are given exactly when it
applies to packages (categories), and each of them exists. Pure."""

from __future__ import annotations

from collections.abc import Callable, Sequence

# (field, index of the id in it or None, message): the caller names the place its own way.
TargetProblem = tuple[str, int | None, str]


def target_problems(
    applies_to: str,
    packages: Sequence[int],
    categories: Sequence[int],
    *,
    package_exists: Callable[[int], bool],
    category_exists: Callable[[int], bool],
) -> list[TargetProblem]:
    found: list[TargetProblem] = []
    for kind, field, ids, exists in (
        ("package", "packages", packages, package_exists),
        ("category", "categories", categories, category_exists),
    ):
        if applies_to != kind:
            if ids:
                found.append((field, None, f"used only when it applies to a {kind} (type {kind})"))
            continue
        if not ids:
            found.append((field, None, f"required when it applies to a {kind}: name at least one"))
        for index, each in enumerate(ids):
            if not exists(each):
                found.append((field, index, f"{kind} {each} is not in the catalog"))
    return found
