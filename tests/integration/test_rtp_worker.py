"""The RTP monitoring's background worker on PostgreSQL (migration 0190): it values every
settled round of the journal, solo and table alike, exactly once across a restart, leaves
unsettled and test-mode rounds alone, and ``rgs rtp report`` reads the figures back."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta

import asyncpg
import pytest

from rgs.cli import main
from rgs.codec import encode_event, event_kind
from rgs.engine import BehindBet
from rgs.journal.migrate import SCHEMA
from rgs.math.hints import HintTables
from rgs.rtp.expected import round_figures
from rgs.rtp.play import SEAT_PLAYER, play_rounds
from rgs.rtp.report import groups
from rgs.rtp.sheets import par_figures
from rgs.rtp.stats import Tally, summarise
from rgs.rtp.worker import Q_SOLO, Q_TABLE, RtpWorker
from rgs.variants import VARIANTS

#: The analysis caches the rounds are valued from.
TABLES = HintTables()

RULES = VARIANTS["classic-resplit"]
VIP = VARIANTS["vip-platinum"]
T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


async def _pool(url: str) -> asyncpg.Pool:
    return await asyncpg.create_pool(url, min_size=1, max_size=2,
                                     server_settings={"search_path": SCHEMA})


async def _solo(conn: asyncpg.Connection, i: int, events: tuple[object, ...], *,
                status: str = "settled", forced: tuple[str, ...] = (),
                channel: str | None = None, key: str = "") -> None:
    key = key or f"pk-{i % 3}"
    await conn.execute(
        "INSERT INTO rounds (player_key, round_id, session_id, operator_id, brand_id, "
        "player_id, currency, variant, seq, status, forced_cards, total_staked, total_paid, "
        "finished_at, channel) VALUES ($1, $2, 's', 'op', 'brand-a', 'p', 'EUR', $3, 1, $4, "
        "$5, 0, 0, $6, $7)", key, f"r{i:03d}", RULES.id, status, list(forced),
        T0 + timedelta(seconds=i) if status == "settled" else None, channel)
    await conn.executemany(
        "INSERT INTO round_events (player_key, round_id, event_no, kind, payload) "
        "VALUES ($1, $2, $3, $4, $5::jsonb)",
        [(key, f"r{i:03d}", n, event_kind(e), encode_event(e))  # type: ignore[arg-type]
         for n, e in enumerate(events)])


async def test_worker_values_each_settled_round_once_across_a_restart(
        rgs_database_url: str) -> str:
    played = [p.events for p in play_rounds(RULES, "basic", 24, seed=7)]
    pool = await _pool(rgs_database_url)
    try:
        async with pool.acquire() as conn:
            for i, ev in enumerate(played[:20]):
                await _solo(conn, i, ev)
            await _solo(conn, 90, played[20], status="player_turn")  # not settled: left alone
            await _solo(conn, 91, played[21], forced=("AS", "KD"))   # test mode: left out
            await conn.execute("INSERT INTO game_tables (table_id, version, state) "
                               "VALUES ('t1', 1, '{}')")
            for j, ev in enumerate(played[22:]):
                await conn.execute(
                    "INSERT INTO table_rounds (table_id, round_id, round_no, variant, status, "
                    "events, finished_at) VALUES ('t1', $1, $2, $3, 'settled', $4::jsonb, $5)",
                    f"tr{j}", j, RULES.id,
                    json.dumps([[event_kind(e), json.loads(encode_event(e))] for e in ev]),
                    T0 + timedelta(seconds=j))
        now = T0 + timedelta(hours=1)
        first = RtpWorker(pool, batch=8)
        assert await first.step(now) == 8 + 2  # one batch of solo rounds, every table round
        restarted = RtpWorker(pool, batch=8)  # a new process: resumes from the cursor
        while await restarted.step(now):
            pass
        async with pool.acquire() as conn:
            keys = [r["round_key"] for r in await conn.fetch(
                "SELECT round_key FROM rtp_rounds ORDER BY source, round_key")]
            cursor = await conn.fetchval("SELECT round_key FROM rtp_cursor WHERE source='solo'")
        assert len(keys) == len(set(keys)) == 22
        assert cursor == "pk-1/r019"
        assert all("r090" not in k and "r091" not in k for k in keys)
        by = await groups(pool, by=("brand", "table"))
        want = Tally.of(f for f in (round_figures(RULES, ev, par_figures(RULES), tables=TABLES)
                                    for ev in played[:20]) if f is not None)
        solo = next(s for s in by if s.labels["brand"] == "brand-a")
        assert solo.rounds == 20
        assert solo.observed == summarise(want).observed
        assert abs(solo.expected - summarise(want).expected) < 1e-9
        table = next(s for s in by if s.labels["table"] == "t1")
        assert table.rounds == 2
        assert await groups(pool, brand="nobody") == []
    finally:
        await pool.close()
    return rgs_database_url


async def test_rgs_rtp_report_prints_the_groups_as_json(rgs_database_url: str,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    await test_worker_values_each_settled_round_once_across_a_restart(rgs_database_url)
    capsys.readouterr()
    argv = ["rtp", "report", "--database-url", rgs_database_url, "--brand", "brand-a",
            "--since", "2026-12-01", "--json"]
    assert await asyncio.to_thread(main, argv) == 0
    out = capsys.readouterr()
    doc = json.loads(out.out)
    assert out.err == ""  # quiet with --json
    assert [(g["brand"], g["variant"], g["rounds"]) for g in doc["groups"]] == [
        ("brand-a", "classic-resplit", 20)]
    assert {"observed", "par", "expected", "difference", "standard_error", "z",
            "plain_z", "hand_check_failures"} <= set(doc["groups"][0])


async def test_rgs_rtp_worker_once_values_what_is_settled_and_sets_the_metrics(
        rgs_database_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    from rgs.rtp.metrics import REGISTRY

    pool = await _pool(rgs_database_url)
    try:
        async with pool.acquire() as conn:
            for i, p in enumerate(play_rounds(RULES, "stand", 5, seed=9)):
                await _solo(conn, i, p.events)
    finally:
        await pool.close()
    argv = ["rtp", "worker", "--database-url", rgs_database_url, "--once", "--idle", "0.1"]
    assert await asyncio.to_thread(main, argv) == 0
    assert "5 rounds read" in capsys.readouterr().err
    labels = {"brand": "brand-a", "variant": RULES.id, "table": "", "stake_band": "1000-9999",
              "channel": "unknown", "window": "start"}
    assert REGISTRY.get_sample_value("rgs_rtp_rounds", labels) == 5
    assert REGISTRY.get_sample_value("rgs_rtp_hand_check_failures", labels) == 0


def _table_events(events: tuple[object, ...]) -> str:
    return json.dumps([[event_kind(e), json.loads(encode_event(e))]  # type: ignore[arg-type]
                       for e in events])


async def test_rounds_land_in_their_channel_and_brand_and_demo_and_test_mode_stay_out(
        rgs_database_url: str) -> None:
    behind = (BehindBet(player="op-b/p2", stake=500),)
    solo = [p.events for p in play_rounds(RULES, "basic", 4, seed=17)]
    played = [*solo, *(p.events for p in play_rounds(VIP, "basic", 2, seed=17, behind=behind))]
    pool = await _pool(rgs_database_url)
    try:
        async with pool.acquire() as conn:
            await _solo(conn, 1, played[0], channel="browser")
            await _solo(conn, 2, played[1], channel="grpc")
            await _solo(conn, 3, played[2])  # a previous release's: no channel
            await _solo(conn, 4, played[3], channel="grpc", key="op/demo~x1")  # demo
            await conn.execute("INSERT INTO game_tables (table_id, version, state) "
                               "VALUES ('t1', 1, '{}')")
            bettors = json.dumps([
                {"player_key": SEAT_PLAYER, "brand_id": "brand-a", "channel": "browser"},
                {"player_key": "op-b/p2", "brand_id": "brand-b", "channel": "grpc"}])
            for j, (ev, fair) in enumerate([(played[4], None),
                                            (played[5], '{"verifiable": false}')]):
                await conn.execute(
                    "INSERT INTO table_rounds (table_id, round_id, round_no, variant, status, "
                    "events, finished_at, bettors, fair) "
                    "VALUES ('t1', $1, $2, $3, 'settled', $4::jsonb, $5, $6::jsonb, $7::jsonb)",
                    f"tr{j}", j, VIP.id, _table_events(ev), T0 + timedelta(seconds=j),
                    bettors, fair)
        worker = RtpWorker(pool)
        while await worker.step(T0 + timedelta(hours=1)):
            pass
        async with pool.acquire() as conn:
            rows = {r["round_key"]: (r["brand_id"], r["table_id"], r["channel"], r["base_stake"])
                    for r in await conn.fetch("SELECT * FROM rtp_rounds")}
        by = {(s.labels["brand"], s.labels["channel"]): s.rounds
              for s in await groups(pool, by=("brand", "channel"))}
    finally:
        await pool.close()
    assert rows == {
        "pk-1/r001": ("brand-a", "", "browser", 1000),
        "pk-2/r002": ("brand-a", "", "grpc", 1000),
        "pk-0/r003": ("brand-a", "", "unknown", 1000),
        "t1/tr0/brand-a/browser": ("brand-a", "t1", "browser", 1000),
        "t1/tr0/brand-b/grpc": ("brand-b", "t1", "grpc", 500),
    }
    assert by == {("brand-a", "browser"): 2, ("brand-a", "grpc"): 1,
                  ("brand-a", "unknown"): 1, ("brand-b", "grpc"): 1}


async def _plan(conn: asyncpg.Connection, query: str, *args: object) -> str:
    rows = await conn.fetch(f"EXPLAIN {query}", *args)
    return "\n".join(r[0] for r in rows)


async def test_the_workers_reads_are_index_range_scans_that_stop_at_the_batch(
        rgs_database_url: str) -> None:
    """EXPLAIN on a journal of 20,000 settled rounds (and as many table rounds): each batch read
    walks index rounds_settled_order (table_rounds_settled_order) from the cursor and stops at
    its LIMIT; without the index the same read scans and sorts every settled round."""
    pool = await _pool(rgs_database_url)
    try:
        async with pool.acquire() as conn:
            await conn.execute("""
                INSERT INTO rounds (player_key, round_id, session_id, operator_id, brand_id,
                    player_id, currency, variant, seq, status, total_staked, total_paid,
                    finished_at)
                SELECT CASE WHEN n % 50 = 0 THEN 'op/open' || n ELSE 'op/p' || (n % 500) END,
                       'r' || n, 's', 'op', 'b', 'p' || (n % 500), 'EUR',
                       'classic-resplit', 3, CASE WHEN n % 50 = 0 THEN 'player_turn'
                       ELSE 'settled' END, 100, 0,
                       CASE WHEN n % 50 = 0 THEN NULL
                       ELSE timestamptz '2026-12-01' + n * interval '1 second' END
                  FROM generate_series(1, 20000) AS n""")
            await conn.execute("INSERT INTO game_tables (table_id, version, state) "
                               "VALUES ('t1', 1, '{}')")
            await conn.execute("""
                INSERT INTO table_rounds (table_id, round_id, round_no, variant, status,
                    events, finished_at)
                SELECT 't1', 'tr' || n, n, 'vip-platinum', 'settled', '[]',
                       timestamptz '2026-12-01' + n * interval '1 second'
                  FROM generate_series(1, 20000) AS n""")
            await conn.execute("ANALYZE rounds; ANALYZE table_rounds; ANALYZE round_events")
            cursor = (datetime(2026, 12, 1, 3, tzinfo=UTC), "op/p1/r1")
            args = (*cursor, datetime(2026, 12, 2, tzinfo=UTC), 200)
            solo = await _plan(conn, Q_SOLO, *args)
            table = await _plan(conn, Q_TABLE, *args)
            print(solo, table, sep="\n\n")
            assert "Index Scan using rounds_settled_order on rounds" in solo
            assert "Index Scan using table_rounds_settled_order on table_rounds" in table
            for plan in (solo, table):
                limit, scan = plan.index("Limit"), plan.index("Index Scan")
                assert limit < scan  # the scan feeds the LIMIT: it stops after the batch
                assert "Seq Scan on rounds" not in plan and "Seq Scan on table_rounds" not in plan
            async with conn.transaction():
                await conn.execute("DROP INDEX rounds_settled_order")
                without = await _plan(conn, Q_SOLO, *args)
                assert "rounds_settled_order" not in without and "Sort" in without
                raise _RollBack
    except _RollBack:
        pass
    finally:
        await pool.close()


class _RollBack(Exception):
    """Leaves the transaction that dropped the index."""
