"""The pure helpers of ``bench/tables.py``'s crowd scene: the fan-out figures merged between
client processes, the Bet Behind presets and which refusals a player retries."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from table_clients import Seen, bet_key, fanout, hist_pct, histogram, retryable
from table_crowd import preset, streams_needed

from rgs.generated.table.v1 import table_pb2 as tb


def test_merged_histograms_give_the_quantiles_of_all_the_values() -> None:
    a = histogram([float(v) for v in range(0, 500)])
    b = histogram([float(v) for v in range(500, 1000)] + [1234.5, 5678.0])
    merged = {k: a.get(k, 0) + b.get(k, 0) for k in {*a, *b}}
    assert sum(merged.values()) == 1002
    assert hist_pct(merged, 0.5) == 501.0
    assert hist_pct(merged, 0.99) == 991.0
    assert hist_pct(merged, 1.0) == 5670.0  # past 1 s, 10 ms buckets
    assert hist_pct({}, 0.5) != hist_pct({}, 0.5)  # NaN: nothing measured


def test_fanout_times_each_watcher_sight_from_the_bets_answer() -> None:
    seen = Seen()
    k1, k2 = bet_key("behind_placed", 1, "behind-1"), bet_key("behind_placed", 2, "behind-2")
    seen.bets[5][k1] += [10.0105, 10.2505]  # two watchers
    seen.bets[5][k2] += [9.990]           # seen before its answer came back: 0
    seen.bets[5][bet_key("behind_placed", 3, "x")] += [11.0]  # never answered: not timed
    seen.rounds[5]["round_finished"] += [20.0, 20.5]
    out = fanout(seen, 5, {k1: 10.0, k2: 10.0})
    assert out["bets"] == {10: 1, 250: 1, 0: 1}
    assert out["bet_events"] == 4
    assert out["rounds"] == {"round_finished": [20.0, 20.5]}
    assert fanout(seen, 5, {k1: 10.0})["bet_events"] == 0  # a round is reported once


def test_presets_cover_every_combination_in_turn() -> None:
    combos = {(p["follow_double"], p["follow_split"], p["insurance"])
              for p in map(preset, range(12))}
    assert len(combos) == 12
    assert {c[2] for c in combos} == {tb.BEHIND_INSURANCE_NEVER, tb.BEHIND_INSURANCE_ALWAYS,
                                      tb.BEHIND_INSURANCE_ASK}


def test_only_busy_and_shed_refusals_are_retried() -> None:
    assert retryable("RESOURCE_EXHAUSTED OVERLOADED")
    assert retryable("ABORTED TABLE_BUSY")
    assert retryable("UNAVAILABLE")
    assert not retryable("FAILED_PRECONDITION BETTING_CLOSED")
    assert not retryable("DEADLINE_EXCEEDED")


def test_streams_needed_grow_with_the_crowd_per_process() -> None:
    args = argparse.Namespace(watchers=1000, behind=1000, client_procs=2,
                              streams_per_conn=10, replicas=2)
    assert streams_needed(args) == 100 + 64
    args.client_procs = 1
    assert streams_needed(args) == 200 + 64
