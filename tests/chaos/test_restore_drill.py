"""The restore drill, for real (ops/restore_drill.py): WAL archived during play, a base backup,
a point-in-time restore into a new cluster, ``rgs audit journal`` consistent on it, and the
reconcile step: the only differences with the wallet are its movements after the point
(``missing_in_rgs``, to settle with the operator) and calls the point cut through."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "ops"))

import pgcluster
import restore_drill

from support.databases import SANDBOX_WALLET_TEMPLATE

pytestmark = [pytest.mark.asyncio(loop_scope="session"),
              pytest.mark.skipif(pgcluster.available() is not None,
                                 reason=str(pgcluster.available()))]


async def test_a_point_in_time_restore_audits_clean_and_reconciles_to_what_it_lost(
        fresh_database: Callable[[str], Awaitable[str]]) -> None:
    wallet_db = await fresh_database(SANDBOX_WALLET_TEMPLATE)
    root = pgcluster.workspace("rgs-restore-")
    try:
        report = await restore_drill.drill(
            root=root, wallet_db=wallet_db,
            seconds=float(os.environ.get("RGS_RESTORE_SECONDS", "10")), players=3)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"\nrestore drill: {report}")
    assert report["rounds_played"] == report["rounds_at_end"] > report["rounds_restored"] > 0
    assert report["audit_exit"] == 0 and report["audit"]["consistent"]
    assert report["audit"]["rounds"] == report["rounds_restored"]
    # What the restore lost is the wallet's movements after the point, each reported.
    assert set(report["reconcile_mismatches"]) <= {"missing_in_rgs", "still_open"}
    assert report["reconcile_mismatches"].get("missing_in_rgs", 0) > 0
    assert report["reconcile_exit"] == 1
