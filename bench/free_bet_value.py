"""The PAR sheet's free-bet value against the production engine: N rounds of a variant dealt from
a seeded shoe, played by the sheet's own strategy (as ``rgs par V --check-rounds`` plays it),
each credited as a free-bet round is (:func:`rgs.service.freebets.free_bet_credit`: the payout
less the free stake, taken from what the first hand returns); prints the observed value, its
standard error and the sheet's figure, and how many standard errors apart they are.

Run: ``.venv/bin/python bench/free_bet_value.py [--variant classic-resplit] [--rounds 200000]
[--seed 1]``. Single process, bounded by --rounds; prints figures, asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time

from rgs.engine import BoxBet, Round, Shoe, ShoeSource, VerifiedBets
from rgs.math.basic_strategy import BasicStrategyPlayer
from rgs.math.par import PAR_DIR
from rgs.math.strategy_tables import (
    load_power_double_choices,
    load_strategy,
    load_two_card_strategy,
)
from rgs.service.freebets import free_bet_credit
from rgs.variants import VARIANTS


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--variant", default="classic-resplit", choices=sorted(VARIANTS))
    p.add_argument("--rounds", type=int, default=200_000)
    p.add_argument("--seed", type=int, default=1)
    ns = p.parse_args()
    rules = VARIANTS[ns.variant]
    player = BasicStrategyPlayer(rules, load_strategy(rules.id),
                                 load_power_double_choices(rules.id),
                                 load_two_card_strategy(rules.id))
    stake = max(100, rules.limits.main_min)
    bets = VerifiedBets(rules=rules, boxes=(BoxBet(seat=1, stake=stake),))
    pick = random.Random(ns.seed)._randbelow  # type: ignore[attr-defined]
    full = Shoe.of_decks(rules.decks).cards()
    total = total_sq = 0.0
    started = time.perf_counter()
    for _ in range(ns.rounds):
        rnd = Round.deal(rules, ShoeSource(Shoe(full), pick), bets)
        player.play(rnd)
        view = rnd.view()
        # The player's gain: the credit, less what they staked beyond the free stake.
        gain = (free_bet_credit(view, 1, stake) - (view.total_staked - stake)) / stake
        total += gain
        total_sq += gain * gain
    seconds = time.perf_counter() - started
    mean = total / ns.rounds
    stderr = math.sqrt(max(0.0, total_sq / ns.rounds - mean * mean) / ns.rounds)
    sheet = json.loads((PAR_DIR / f"{rules.id}.json").read_text("utf-8"))["free_bet_value"]
    z = (100 * mean - sheet) / (100 * stderr) if stderr else 0.0
    print(f"variant={rules.id} rounds={ns.rounds} seed={ns.seed} seconds={seconds:.1f}")
    print(f"free bet value observed {100 * mean:.4f}% +- {100 * stderr:.4f} (1 s.e.), "
          f"PAR sheet {sheet:.4f}%, difference {z:+.2f} s.e.")


if __name__ == "__main__":
    main()
