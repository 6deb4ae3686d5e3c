"""``rgs report freebets`` on a real PostgreSQL journal: each grant's granted, used, expired,
left, paid and status, one brand's or all, granted within the days given, as CSV and JSON."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import asyncpg
import pytest
import pytest_asyncio

from rgs.journal.audit import open_pool
from rgs.journal.freebets import PostgresFreeBets
from rgs.service.freebets import FreeBetGrant, FreeBetUse

pytestmark = pytest.mark.asyncio(loop_scope="session")

NOW = datetime.now(UTC).replace(microsecond=0)
DAY = timedelta(days=1)


@pytest_asyncio.fixture(loop_scope="session")
async def pool(rgs_database_url: str) -> AsyncIterator[asyncpg.Pool]:
    p = await open_pool(rgs_database_url, max_size=2)
    yield p
    await p.execute("DELETE FROM free_bet_table_uses WHERE operator_id = 'op-r'")
    await p.execute("DELETE FROM free_bet_grants WHERE operator_id = 'op-r'")
    await p.close()


def _grant(grant_id: str, brand: str, *, granted: datetime, expires: datetime) -> FreeBetGrant:
    return FreeBetGrant(operator_id="op-r", grant_id=grant_id, brand_id=brand, player_id="p-1",
                        currency="EUR", value=1000, count=3, expires_at=expires,
                        granted_at=granted)


def _cli(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rgs", "report", "freebets", "--operator",
                           "op-r", "--database-url", url, *args], capture_output=True,
                          text=True, timeout=120, check=False, env=dict(os.environ))


async def test_the_cli_reports_each_grants_usage(pool: asyncpg.Pool, rgs_database_url: str
                                                ) -> None:
    store = PostgresFreeBets(pool)
    await store.put_grant(_grant("active", "brand-a", granted=NOW - DAY, expires=NOW + DAY))
    await store.put_grant(_grant("lapsed", "brand-a", granted=NOW - 3 * DAY,
                                 expires=NOW - DAY))
    await store.put_grant(_grant("revoked", "brand-b", granted=NOW - DAY, expires=NOW + DAY))
    await store.revoke("op-r", "revoked", NOW)
    for n, (grant_id, paid) in enumerate([("active", 3000), ("active", 0), ("lapsed", 1500)]):
        await store.record_use(FreeBetUse(
            operator_id="op-r", grant_id=grant_id, round_id=f"r{n}", player_key="op-r/p-1",
            seat=1, value=1000, used_at=NOW - DAY, table_id="vip-1"))
        await store.record_paid(f"r{n}", paid, "op-r/p-1")

    done = _cli(rgs_database_url, "--json")
    assert done.returncode == 0, done.stderr
    rows = {r["grant_id"]: r for r in json.loads(done.stdout)["grants"]}
    figures = {g: (r["granted"], r["used"], r["expired"], r["left"], r["paid"], r["status"])
               for g, r in rows.items()}
    assert figures == {"active": (3, 2, 0, 1, 3000, "active"),
                       "lapsed": (3, 1, 2, 0, 1500, "expired"),
                       "revoked": (3, 0, 0, 0, 0, "revoked")}

    one_brand = _cli(rgs_database_url, "--brand", "brand-a", "--csv",
                     "--from", (NOW - DAY).date().isoformat(), "--to", NOW.date().isoformat())
    assert one_brand.returncode == 0, one_brand.stderr
    lines = list(csv.DictReader(io.StringIO(one_brand.stdout)))
    assert [(r["grant_id"], r["used"], r["paid"], r["status"]) for r in lines] == [
        ("active", "2", "3000", "active")]

    backwards = _cli(rgs_database_url, "--from", NOW.date().isoformat(),
                     "--to", (NOW - DAY).date().isoformat())
    assert backwards.returncode != 0 and "--to" in backwards.stderr
