"""What the RTP monitoring's background valuation costs per settled round, and what it sees.

Plays seeded rounds through the engine (rgs.rtp.play), then times
:func:`rgs.rtp.expected.round_figures` (the rebuild, every decision's exact values, the
per-hand check) on rounds the caches have not seen (a first pass) and again warm, in CPU time
of this process (not wall-clock: the figure holds on a shared machine). ``--behind N`` puts N
Bet Behinds on the box (variants with Bet Behind: vip-platinum), every other one following
doubles and splits, and values each bettor's share as the worker does. Prints, per
player: observed, decision-adjusted expected and PAR return, the residual's standard deviation
per round for both checks, and the rounds each check needs to flag the injected faults
(6:5 blackjack, dealer hits soft 17) at the alert's z-score with 90% power.

Run: ``.venv/bin/python bench/rtp.py [--variant V] [--rounds N] [--player P ...]
[--behind N]``. Prints figures only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import replace
from fractions import Fraction

from rgs.engine import BehindBet
from rgs.math.analysis import analyse_main
from rgs.math.hints import HintTables
from rgs.rtp.expected import RoundFigures, party_figures, round_figures
from rgs.rtp.play import PLAYERS, play_rounds
from rgs.rtp.sheets import par_figures
from rgs.rtp.stats import Tally, rounds_to_flag, summarise
from rgs.variants import VARIANTS, find_variant

#: The analysis caches the rounds are valued from.
TABLES = HintTables()

#: The injected faults: what the wrong engine plays.
FAULTS: dict[str, dict[str, object]] = {
    "6:5 blackjack": {"blackjack_pays": Fraction(6, 5)},
    "dealer hits soft 17": {"dealer_hits_soft_17": True},
}

#: The alert's band (ops/prometheus/rtp_rules.yml, docs/rtp-monitoring.md).
Z_ALERT = 4.5


def _sd(figs: list[RoundFigures], plain: bool) -> float:
    xs = [(f.observed_net - (f.par_net if plain else f.expected_net)) / f.base_stake
          for f in figs]
    m = sum(xs) / len(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--variant", default="classic-resplit", choices=sorted(VARIANTS))
    parser.add_argument("--rounds", type=int, default=4000)
    parser.add_argument("--player", nargs="*", default=["basic", "stand", "no-double"],
                        choices=sorted(PLAYERS))
    parser.add_argument("--behind", type=int, default=0, help="Bet Behinds on the box")
    ns = parser.parse_args()
    rules = find_variant(ns.variant)
    par = par_figures(rules)
    behind = tuple(BehindBet(player=f"bettor-{i}", stake=500 + 100 * i,
                             follow_double=i % 2 == 0, follow_split=i % 2 == 0)
                   for i in range(ns.behind))
    sds = {}
    for player in ns.player:
        events = [p.events for p in play_rounds(rules, player, ns.rounds, seed=2026,
                                                behind=behind)]
        start = time.process_time()
        figs = [round_figures(rules, e, par, tables=TABLES) for e in events]
        cold = (time.process_time() - start) / len(events)
        start = time.process_time()
        for e in events:
            party_figures(rules, e, par, lambda _seat, who: who, tables=TABLES)
        warm = (time.process_time() - start) / len(events)
        ok = [f for f in figs if f is not None]
        s = summarise(Tally.of(ok))
        sds[player] = (_sd(ok, False), _sd(ok, True))
        print(f"{rules.id} {player:9}: {len(events)} rounds ({ns.behind} Bet Behinds), "
              f"CPU {cold * 1e3:6.2f} ms/round first pass, {warm * 1e3:6.2f} ms/round warm "
              f"(by bettor); observed {100 * s.observed:7.3f}% "
              f"expected {100 * s.expected:7.3f}% PAR {100 * s.par:7.3f}%; z {s.z:+5.2f} "
              f"(plain {s.plain_z:+6.2f}); residual sd {sds[player][0]:.3f} "
              f"(plain {sds[player][1]:.3f}); hand-check failures {s.hand_check_failures}")
    base = analyse_main(rules).rtp
    shifts = {name: (analyse_main(replace(rules, **change)).rtp - base) / 100.0
              for name, change in FAULTS.items()}
    for name, change in FAULTS.items():
        wrong = replace(rules, **change)  # the engine plays it; the monitor values the rules
        hit = sum(bool(f and f.faults) for f in (
            round_figures(rules, p.events, par, tables=TABLES)
            for p in play_rounds(rules, "basic", ns.rounds, seed=99, engine_rules=wrong)))
        if hit:
            p = hit / ns.rounds
            print(f"{rules.id} fault {name:19}: per-hand check flags {100 * p:.2f}% of rounds; "
                  f"the first flag within {math.ceil(math.log(0.01) / math.log(1 - p)):,} "
                  "rounds with 99% probability")
    sd_adj, sd_plain = sds.get("basic", next(iter(sds.values())))
    for name, shift in shifts.items():
        print(f"{rules.id} fault {name:19}: {100 * float(shift):+.3f} points; rounds to flag "
              f"at |z| > {Z_ALERT} with 90% power: decision-adjusted "
              f"{rounds_to_flag(float(shift), sd_adj, z=Z_ALERT):,}, plain observed-vs-PAR "
              f"{rounds_to_flag(float(shift), sd_plain, z=Z_ALERT):,} (optimal players only; "
              "with players below PAR the plain check cannot flag a fault that lowers the "
              "return without flagging the players too)")


if __name__ == "__main__":
    main()
