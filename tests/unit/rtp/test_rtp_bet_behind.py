"""Bet Behind stakes in the decision-adjusted expected return (issue 25): a Bet Behind rides
the seat's hands at its own stake and follows a double or a split only as its bettor chose, so
its expected net is the followed hands' values at its stake. Played through the engine at
vip-platinum (the variant with Bet Behind), valued by party (the seat's player, each bettor)."""

from __future__ import annotations

from dataclasses import replace

from rgs.engine import BehindBet, BehindStakeAdded, PlayerActed
from rgs.math.hints import HintTables
from rgs.rtp.expected import RoundFigures, party_figures, round_figures
from rgs.rtp.play import SEAT_PLAYER, play_rounds
from rgs.rtp.sheets import par_figures
from rgs.rtp.stats import Tally, summarise
from rgs.variants import VARIANTS

#: The analysis caches the rounds are valued from.
TABLES = HintTables()

VIP = VARIANTS["vip-platinum"]
PAR = par_figures(VIP)
BAND = 4.5
#: The seat bets 1000; one bettor follows everything at half that, one follows nothing.
EVERYTHING = BehindBet(player="everything", stake=500, follow_double=True, follow_split=True)
NOTHING = BehindBet(player="nothing", stake=700)


def _by_player(player: str, rounds: int, seed: int
               ) -> list[tuple[tuple[object, ...], dict[str, RoundFigures]]]:
    out = []
    for p in play_rounds(VIP, player, rounds, seed=seed, behind=(EVERYTHING, NOTHING)):
        out.append((p.events, party_figures(VIP, p.events, PAR, lambda _s, who: who,
                                            tables=TABLES)))
    return out


def test_a_bet_behind_that_follows_everything_is_the_seat_at_its_stake() -> None:
    for _, parts in _by_player("basic", 300, seed=41):
        seat, follows = parts[SEAT_PLAYER], parts["everything"]
        assert follows.base_stake * 2 == seat.base_stake
        assert follows.observed_net * 2 == seat.observed_net
        assert abs(follows.expected_net * 2 - seat.expected_net) < 1e-6
        assert abs(follows.par_net * 2 - seat.par_net) < 1e-6


def test_the_parts_of_a_round_add_up_to_the_round() -> None:
    for events, parts in _by_player("basic", 100, seed=42):
        whole = round_figures(VIP, events, PAR, tables=TABLES)  # type: ignore[arg-type]
        assert whole is not None
        assert whole.base_stake == sum(p.base_stake for p in parts.values())
        assert whole.observed_net == sum(p.observed_net for p in parts.values())
        assert abs(whole.expected_net - sum(p.expected_net for p in parts.values())) < 1e-6


def test_a_bet_behind_that_follows_no_double_is_valued_at_its_own_share_and_stays_in_band(
        ) -> None:
    # A seat that doubles whenever it may: the bettor who does not follow keeps half the
    # share of every doubled hand, and its expectation must say so or its z-score runs off.
    rounds = _by_player("double", 1500, seed=43)
    doubled = sum(any(isinstance(e, PlayerActed) and e.action.value == "double" for e in ev)
                  for ev, _ in rounds)
    followed = sum(any(isinstance(e, BehindStakeAdded) and e.player == "everything"
                       for e in ev) for ev, _ in rounds)
    assert doubled > 1000 and followed == doubled
    seat = summarise(Tally.of(parts[SEAT_PLAYER] for _, parts in rounds))
    nothing = summarise(Tally.of(parts["nothing"] for _, parts in rounds))
    everything = summarise(Tally.of(parts["everything"] for _, parts in rounds))
    assert abs(everything.expected - seat.expected) < 1e-9
    # Not following its bad doubles saves the bettor points; the valuation sees it...
    assert nothing.expected - seat.expected > 0.10
    # ...so the difference of each stays luck.
    for s in (seat, nothing, everything):
        assert abs(s.z) < BAND, s
        assert s.hand_check_failures == 0


def test_a_dealer_fault_is_a_finding_of_every_bettor_of_the_round() -> None:
    h17 = replace(VIP, dealer_hits_soft_17=True)
    seen = 0
    for p in play_rounds(VIP, "basic", 400, seed=44, behind=(NOTHING,), engine_rules=h17):
        parts = party_figures(VIP, p.events, PAR, lambda _s, who: who, tables=TABLES)
        if parts[SEAT_PLAYER].faults:
            seen += 1
            assert parts["nothing"].faults == parts[SEAT_PLAYER].faults
            assert "where the rules stand" in parts["nothing"].faults[0]
    assert seen
