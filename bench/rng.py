"""Throughput of the certified RNG: raw DRBG bytes/s, below(n) calls/s and card draws/s, and
the cost of provably fair card orders (a round's DRBG instantiated from its seeds).

Run: ``.venv/bin/python bench/rng.py [--seconds S]``. Prints figures only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from rgs.engine import BoxBet, Round, Shoe, VerifiedBets
from rgs.rng import CertifiedRng, RngSettings
from rgs.rng.fair import card_order, fair_source
from rgs.variants import find_variant


def _rate(work: Callable[[], int], seconds: float) -> float:
    """Units of work per second, repeating ``work`` (which returns its unit count) for a while."""
    work()  # warm-up
    done, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        done += work()
    return done / elapsed


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=2.0, help="time per figure")
    seconds = parser.parse_args().seconds

    rng = CertifiedRng()
    pr = CertifiedRng(RngSettings(prediction_resistance=True))
    vip = find_variant("vip-platinum")
    bets = VerifiedBets(rules=vip, boxes=tuple(
        BoxBet(seat=s, stake=vip.limits.main_min) for s in range(1, vip.max_boxes + 1)))

    def raw() -> int:
        rng.raw(65536)
        return 65536

    def raw_pr() -> int:
        pr.raw(4096)
        return 4096

    def below() -> int:
        b = rng.below
        for _ in range(10_000):
            b(416)
        return 10_000

    def draws() -> int:
        source = rng.card_source_for_decks(8)
        for _ in range(416):
            source.draw()
        return 416

    def shuffles() -> int:
        rng.shuffled_shoe(8)
        return 1

    def rounds() -> int:
        for _ in range(100):
            Round.deal(vip, rng.card_source(Shoe.of_decks(8)), bets)
        return 100

    seed = bytes(range(32))

    def fair_restores() -> int:
        # What a fair round costs each Act: a DRBG from its seeds, then its first cards again.
        for i in range(100):
            source = fair_source(seed, "client", i + 1, 8)
            for _ in range(12):
                source.draw()
        return 100

    def fair_orders() -> int:
        card_order(seed, "client", 1, 8)
        return 1

    def fair_rounds() -> int:
        for i in range(100):
            Round.deal(vip, fair_source(seed, "client", i + 1, 8), bets)
        return 100

    rows = [
        ("DRBG raw output (64 KiB Generate requests)", raw, "bytes/s"),
        ("DRBG raw output, prediction resistance (4 KiB requests)", raw_pr, "bytes/s"),
        ("below(416) (unbiased index into a full 8-deck shoe)", below, "calls/s"),
        ("card draws (ShoeSource.draw emptying 8-deck shoes)", draws, "draws/s"),
        ("full 8-deck Fisher-Yates shuffles", shuffles, "shoes/s"),
        ("Round.deal, vip-platinum, 7 boxes (16 cards)", rounds, "rounds/s"),
        ("fair: DRBG from a round's seeds + 12 draws (per Act)", fair_restores, "rounds/s"),
        ("fair: whole 8-deck card order", fair_orders, "shoes/s"),
        ("fair: Round.deal, vip-platinum, 7 boxes", fair_rounds, "rounds/s"),
    ]
    for label, work, unit in rows:
        print(f"{label:<60} {_rate(work, seconds):>14,.0f} {unit}")


if __name__ == "__main__":
    main()
