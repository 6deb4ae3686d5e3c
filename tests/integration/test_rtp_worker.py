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
from rgs.journal.migrate import SCHEMA
from rgs.rtp.expected import round_figures
from rgs.rtp.play import play_rounds
from rgs.rtp.report import groups
from rgs.rtp.sheets import par_figures
from rgs.rtp.stats import Tally, summarise
from rgs.rtp.worker import RtpWorker
from rgs.variants import VARIANTS

RULES = VARIANTS["classic-resplit"]
T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


async def _pool(url: str) -> asyncpg.Pool:
    return await asyncpg.create_pool(url, min_size=1, max_size=2,
                                     server_settings={"search_path": SCHEMA})


async def _solo(conn: asyncpg.Connection, i: int, events: tuple[object, ...], *,
                status: str = "settled", forced: tuple[str, ...] = ()) -> None:
    key = f"pk-{i % 3}"
    await conn.execute(
        "INSERT INTO rounds (player_key, round_id, session_id, operator_id, brand_id, "
        "player_id, currency, variant, seq, status, forced_cards, total_staked, total_paid, "
        "finished_at) VALUES ($1, $2, 's', 'op', 'brand-a', 'p', 'EUR', $3, 1, $4, $5, 0, 0, "
        "$6)", key, f"r{i:03d}", RULES.id, status, list(forced),
        T0 + timedelta(seconds=i) if status == "settled" else None)
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
        want = Tally.of(f for f in (round_figures(RULES, ev, par_figures(RULES))
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
