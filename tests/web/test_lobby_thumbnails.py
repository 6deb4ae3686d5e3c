"""The browser edge serves each variant's lobby thumbnail at the path ListVariants and
ListTables give (issue 28), as SVG under the edge's content security policy."""

from __future__ import annotations

import httpx
import pytest
from web_stack import Web

from rgs.variants import VARIANTS
from rgs.variants.catalogue import thumbnail_url

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_the_edge_serves_every_variants_thumbnail(web: Web) -> None:
    async with httpx.AsyncClient(base_url=web.base_url, timeout=10) as client:
        for variant in VARIANTS:
            got = await client.get(thumbnail_url(variant))
            assert got.status_code == 200, variant
            assert got.headers["content-type"] == "image/svg+xml"
            assert got.headers["x-content-type-options"] == "nosniff"
            assert got.text.startswith("<svg ") and "<script" not in got.text
        missing = await client.get("/thumbnails/no-such-variant.svg")
    assert missing.status_code == 404
