"""docs/architecture.md shows the route table as functions/routes.py declares it."""

from __future__ import annotations

from functions.routes import DOC, document_with_route_table, route_table_markdown


def test_the_route_table_in_the_architecture_page_is_current() -> None:
    document = DOC.read_text()
    assert document_with_route_table(document) == document, (
        f"{DOC.name} shows an old route table: regenerate it with `python -m functions.routes`"
    )


def test_the_table_lists_every_function() -> None:
    table = route_table_markdown()
    assert "`getInformation`" in table and "`getBasket`" in table
    assert "`dispatch_webhook`" in table and "`basket_expired`" in table
