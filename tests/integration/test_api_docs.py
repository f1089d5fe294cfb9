"""The deployed `/docs` (docs/deploy.md, "API docs"): Swagger UI's page through each JSON
interface's `$default` function, its script, stylesheet and icon from the platform's own
address (the shop's distribution, which serves what the deploy uploads), no other host."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from swagger_ui_bundle import swagger_ui_path

from functions import api_docs, unmatched
from infra.aws.edge import hashed_files
from tests.support.invocation import invoke
from webstore.services import get_services


@pytest.mark.parametrize(
    "handler", [unmatched.storefront_handler, unmatched.operator_handler, unmatched.admin_handler]
)
def test_the_docs_page_loads_swagger_ui_from_the_platform_only(
    handler: object, tmp_path: Path, demo: object
) -> None:
    del demo
    page = invoke(handler, "GET", "/docs")
    assert page.status == 200 and "SwaggerUIBundle" in page.body
    shop = get_services().settings.shop_url.rstrip("/")
    hosts = set(re.findall(r"https?://[^/\"'\s]+", page.body))
    assert hosts == {shop}, hosts  # no CDN, no third party
    linked = re.findall(rf"{re.escape(shop)}/(static/[^\"'\s]+)", page.body)
    assert sorted(Path(link).name for link in linked) == sorted(api_docs.FILES)
    # Each is what the deploy uploads under that key (static/ is the upload's prefix), byte for
    # byte the pinned package's file.
    uploaded = hashed_files(tmp_path)
    for link in linked:
        served = uploaded / link.removeprefix("static/")
        assert served.read_bytes() == (swagger_ui_path / served.name).read_bytes() != b""


def test_the_version_named_in_the_code_is_the_pinned_packages() -> None:
    assert Path(str(swagger_ui_path)).name == f"swagger-ui-{api_docs.SWAGGER_UI_VERSION}"
    pinned = Path("constraints.txt").read_text()
    assert "swagger-ui-bundle-v2==" in pinned
