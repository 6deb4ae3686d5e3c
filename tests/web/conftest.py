"""Browser-edge fixtures: one stack for the module run (a sandbox wallet per operator and one
RGS process in test mode with its browser edge on) over real PostgreSQL databases."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest_asyncio
from web_stack import Web, running_web

from support.databases import DatabaseTemplates


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def web(database_templates: DatabaseTemplates, tmp_path_factory: object
              ) -> AsyncIterator[Web]:
    logs = Path(tmp_path_factory.mktemp("web"))  # type: ignore[attr-defined]
    async with running_web(database_templates, logs) as running:
        yield running
