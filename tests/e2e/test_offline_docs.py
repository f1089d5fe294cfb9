"""Issue 15 item 10: the local `/docs` works offline: Swagger UI's page links only assets the
stack serves itself (infra/swagger.py), and each of them is there."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.e2e


def test_docs_use_only_local_assets(local_stack: dict[str, Any]) -> None:
    storefront = local_stack["headless_url"].split("/api/")[0]
    with httpx.Client(timeout=10) as http:
        for root in (storefront, local_stack["plugin_url"]):
            page = http.get(f"{root}/docs")
            assert page.status_code == 200
            links = re.findall(r"""(?:src|href)=['"]([^'"]+)['"]""", page.text)
            assert links and all(link.startswith("/docs/assets/") for link in links), links
            assert "cdn." not in page.text and "https://" not in page.text
            for link in links:
                asset = http.get(root + link)
                assert asset.status_code == 200, link
                assert len(asset.content) > 500
            assert "/openapi.json" in page.text
            assert http.get(f"{root}/openapi.json").json()["tags"]
