"""The shop's look and templates in the catalog file (`shop`): `webstore export` writes them,
`webstore import` restores them into a fresh store (same look, same templates, the same bytes
exported again, a second import changing nothing); a wrong look value or a template that does
not render stops the import (exit 2) naming the field, nothing written. Through the CLI against
a DynamoDB endpoint on loopback, and in-process through the shop's pages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import boto3

from functions.shop import get_home
from tests.integration.test_catalog_export import TABLE_NAME, cli, endpoint
from tests.support.demo import DemoStore, demo_catalog_data
from tests.support.shop import ShopClient
from webstore.catalog_export import export_catalog
from webstore.catalog_import import import_catalog, parse_catalog
from webstore.db import Table, create_table
from webstore.repo.shop_theme import ShopThemeRepository
from webstore.services import get_services

__all__ = ["endpoint"]  # the fixture, shared with the export's tests

INDEX = (
    '{% extends "layout.html" %}{% block content %}'
    '<h1 id="own">{{ store.name }} from the catalog</h1>{% endblock %}'
)
SHOP = {
    "look": {
        "logo": "https://cdn.example.com/logo.png",
        "favicon": "https://cdn.example.com/favicon.png",
        "primary_color": "#8A2BE2",
        "hero_text": "Season 4",
        "header_style": "centered",
        "maintenance_allow": "Notch 203.0.113.7",
        "login": "hosted",
    },
    "templates": {"index.html": INDEX},
}


def table(endpoint: str) -> Table:
    client = boto3.client(
        "dynamodb",
        region_name="us-east-1",
        endpoint_url=endpoint,
        aws_access_key_id="local",
        aws_secret_access_key="local",
    )
    return Table(client, TABLE_NAME)


def fresh(endpoint: str) -> None:
    """An empty table again: the next import makes a fresh store."""
    client = table(endpoint).client
    client.delete_table(TableName=TABLE_NAME)
    create_table(client, TABLE_NAME)


def test_export_then_import_into_a_fresh_store_keeps_the_look_and_the_templates(
    endpoint: str, tmp_path: Path
) -> None:
    source = tmp_path / "store.json"
    source.write_text(json.dumps(demo_catalog_data() | {"shop": SHOP}))
    first = cli(endpoint, "import", str(source))
    assert first.returncode == 0, first.stderr
    assert "~shop look and templates" in first.stdout

    exported = tmp_path / "exported.json"
    assert cli(endpoint, "export", str(exported), "--store", "1").returncode == 0
    shop = json.loads(exported.read_text())["shop"]
    assert shop["templates"] == {"index.html": INDEX}
    assert shop["look"] == SHOP["look"] | {
        "primary_color": "#8a2be2",
        "maintenance_allow": "203.0.113.7/32, Notch",
    }
    before = ShopThemeRepository(table(endpoint)).live(1)

    fresh(endpoint)
    assert ShopThemeRepository(table(endpoint)).live(1).revision == 0
    restored = cli(endpoint, "import", str(exported))
    assert restored.returncode == 0, restored.stderr
    after = ShopThemeRepository(table(endpoint)).live(1)
    assert after.look == before.look and after.sources == before.sources

    again = tmp_path / "again.json"
    assert cli(endpoint, "export", str(again), "--store", "1").returncode == 0
    assert again.read_bytes() == exported.read_bytes()
    unchanged = cli(endpoint, "import", str(again))
    assert unchanged.stdout.splitlines()[0] == f"Imported store 1 into {TABLE_NAME}: no changes"
    assert ShopThemeRepository(table(endpoint)).live(1).revision == after.revision


def bad(tmp_path: Path, shop: dict[str, Any]) -> Path:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(demo_catalog_data() | {"shop": shop}))
    return path


def test_a_wrong_colour_stops_the_import_naming_the_field(endpoint: str, tmp_path: Path) -> None:
    refused = cli(endpoint, "import", str(bad(tmp_path, {"look": {"primary_color": "purple"}})))
    assert refused.returncode == 2
    assert (
        "shop.look.primary_color" in refused.stderr and "Brand colour: a colour as #rrggbb" in refused.stderr
    )
    unknown = cli(endpoint, "import", str(bad(tmp_path, {"look": {"wallpaper": "x"}})))
    assert unknown.returncode == 2 and "shop.look.wallpaper: unknown field" in unknown.stderr
    assert cli(endpoint, "export", str(tmp_path / "none.json"), "--store", "1").returncode == 2  # no store


def test_an_unknown_log_in_choice_stops_the_import_naming_the_field(endpoint: str, tmp_path: Path) -> None:
    refused = cli(endpoint, "import", str(bad(tmp_path, {"look": {"login": "discord"}})))
    assert refused.returncode == 2
    assert "shop.look.login" in refused.stderr and '"" (the shop\'s own page) or "hosted"' in refused.stderr
    assert cli(endpoint, "export", str(tmp_path / "none.json"), "--store", "1").returncode == 2  # no store


def test_a_template_that_does_not_render_stops_the_import_and_writes_nothing(
    endpoint: str, tmp_path: Path
) -> None:
    broken = {
        "templates": {
            "index.html": '{% extends "layout.html" %}{% block content %}\n{{ nope }}{% endblock %}'
        }
    }
    refused = cli(endpoint, "import", str(bad(tmp_path, broken)))
    assert refused.returncode == 2
    assert "shop.templates.index.html" in refused.stderr and "line 2" in refused.stderr, refused.stderr
    unknown = cli(endpoint, "import", str(bad(tmp_path, {"templates": {"admin.html": "x"}})))
    assert unknown.returncode == 2 and "no template named admin.html" in unknown.stderr
    assert cli(endpoint, "export", str(tmp_path / "none.json"), "--store", "1").returncode == 2  # no store


def test_the_shop_shows_what_the_catalog_file_says(demo: DemoStore) -> None:
    data = demo_catalog_data() | {"shop": SHOP}
    services = get_services()
    import_catalog(services.table, parse_catalog(data), force=True)
    home = ShopClient().get(get_home.handler, "/")
    assert '<h1 id="own">Demo Craft from the catalog</h1>' in home.body
    assert '<header class="site header-centered" id="site-header">' in home.body
    assert '<link rel="icon" href="https://cdn.example.com/favicon.png">' in home.body
    exported = export_catalog(services.table, 1)
    assert exported.shop is not None and exported.shop.templates == {"index.html": INDEX}
    # A file without `shop` leaves the shop as it is; one with an empty `shop` puts the house's back.
    import_catalog(services.table, parse_catalog(demo_catalog_data()), force=True)
    assert "from the catalog" in ShopClient().get(get_home.handler, "/").body
    import_catalog(services.table, parse_catalog(demo_catalog_data() | {"shop": {}}), force=True)
    body = ShopClient().get(get_home.handler, "/").body
    assert "from the catalog" not in body and "header-banner" in body
    assert export_catalog(services.table, 1).shop is None
    del demo
