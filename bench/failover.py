"""Failover: the seconds players cannot play while the journal's PostgreSQL primary dies and its
streaming standby is promoted (ops/failover_drill.py: two private clusters made here, the RGS
on a multi-host connection string with target_session_attrs=read-write, manual promotion).
Prints the unavailability, the promotion time, rounds, the errors the players retried, and
the money checks (every wallet to the cent, nothing dealt or paid twice, the outbox drained).

    .venv/bin/python bench/failover.py [--seconds 30] [--players 8] [--keep] [--json]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ops"))

import failover_drill
from drill_stack import run_cli

if __name__ == "__main__":
    run_cli(failover_drill.drill, doc=__doc__ or "", workspace="rgs-failover-", seconds=30.0,
            players=8)
