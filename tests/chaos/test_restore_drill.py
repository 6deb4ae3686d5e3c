"""The restore drill, for real (ops/restore_drill.py): WAL archived during play of solo rounds
and a shared table's rounds, a base backup, a point-in-time restore into a new cluster,
``rgs audit journal`` consistent on it (every solo and table round replayed from its events),
and the reconcile step: the only differences with the wallet are its movements after the point
(``missing_in_rgs``, to settle with the operator) and calls the point cut through. Then a table
round of the restored journal is tampered with, and the audit names it.

In CI a short run (4 s of play, 2 players and the table); the full one (20 s, 4 players) is
marked slow: ``bash .ci/test tests/chaos/test_restore_drill.py -m slow``."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "ops"))

import pgcluster
import restore_drill

from support.databases import SANDBOX_WALLET_TEMPLATE

pytestmark = [pytest.mark.asyncio(loop_scope="session"),
              pytest.mark.skipif(pgcluster.available() is not None,
                                 reason=str(pgcluster.available()))]


async def _tamper_a_settled_table_round(restored: pgcluster.Cluster) -> dict[str, Any]:
    """One player's recorded share of a settled table round paid one cent more than its
    events say; the audit's answer."""
    rid = restored.psql("SELECT round_id FROM rgs.table_rounds WHERE status = 'settled' "
                        "ORDER BY round_no LIMIT 1", "rgs")
    if not rid:
        return {"tampered": None}
    restored.psql(f"UPDATE rgs.table_round_players SET paid = paid + 1 WHERE round_id = '{rid}' "
                  "AND player_key = (SELECT min(player_key) FROM rgs.table_round_players "
                  f"WHERE round_id = '{rid}')", "rgs")
    code, report = restore_drill.audit(restored.db_url("rgs"))
    return {"tampered": rid, "audit_exit": code, "audit": report}


async def _drill(fresh_database: Callable[[str], Awaitable[str]], *, seconds: float,
                 players: int) -> dict[str, Any]:
    wallet_db = await fresh_database(SANDBOX_WALLET_TEMPLATE)
    root = pgcluster.workspace("rgs-restore-")
    try:
        report = await restore_drill.drill(root=root, wallet_db=wallet_db, seconds=seconds,
                                           players=players,
                                           after_restore=_tamper_a_settled_table_round)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"\nrestore drill: {report}")
    assert report["rounds_played"] == report["rounds_at_end"] > report["rounds_restored"] > 0
    assert report["audit_exit"] == 0 and report["audit"]["consistent"], report["audit"]
    assert report["audit"]["rounds"] == report["rounds_restored"]
    # The table's rounds were restored and replayed too.
    assert report["table_bets"] > 0 and report["audit"]["table_rounds"] > 0
    # What the restore lost is the wallet's movements after the point, each reported.
    assert set(report["reconcile_mismatches"]) <= {"missing_in_rgs", "still_open"}
    assert report["reconcile_mismatches"].get("missing_in_rgs", 0) > 0
    assert report["reconcile_exit"] == 1
    return report


async def test_a_short_point_in_time_restore_audits_clean_and_names_a_tampered_table_round(
        fresh_database: Callable[[str], Awaitable[str]]) -> None:
    report = await _drill(fresh_database, seconds=4, players=2)
    after = report["after"]
    assert after["tampered"], "no settled table round was restored"
    assert after["audit_exit"] == 1 and not after["audit"]["consistent"]
    assert any(after["tampered"] in p and "players' shares" in p
               for p in after["audit"]["first_problems"]), after["audit"]


@pytest.mark.slow
async def test_a_point_in_time_restore_audits_clean_and_reconciles_to_what_it_lost(
        fresh_database: Callable[[str], Awaitable[str]]) -> None:
    await _drill(fresh_database, seconds=20, players=4)
