"""``rgs play`` read at 80 columns (issue 30, item 9): a whole round — a split, side bets,
insurance, hints on, its fairness — in every language fits 80 columns, and no hash is ever
split across two lines (shortened to a prefix… in the table's lines, whole on a line of its
own where ``f`` shows it); a table's help offers only the side bets that table has."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from rgs.client import i18n, render
from rgs.client import table_render as draw
from rgs.client.table import TablePlayer, help_text, side_words
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.table.v1 import table_pb2 as tb
from rgs.locales import LANGUAGES

SEED, COMMIT, NEXT = (hashlib.sha256(w.encode()).hexdigest() for w in ("s", "c", "n"))
HASHES = (SEED, COMMIT, NEXT)
#: A run of hex digits with a letter in it, not part of a round id (a UUID's groups are
#: joined by -).
_HEX = re.compile(r"(?<![0-9a-f-])(?=[0-9]*[a-f])[0-9a-f]{6,}(?![0-9a-f-])")


@pytest.fixture(autouse=True)
def _english_after() -> Iterator[None]:
    yield
    i18n.use("en")


def _fair(*, settled: bool = True) -> bj.Fairness:
    return bj.Fairness(verifiable=True, commitment=COMMIT, client_seed="", round_number=123456,
                       decks=8, server_seed=SEED if settled else "",
                       next_commitment=NEXT if settled else "")


def _split_round(*, settled: bool) -> bj.RoundView:
    """A split of eights with big stakes, a double on the first hand, side bets, insurance."""
    ev = [bj.AllowedAction(action=bj.ACTION_HIT, expected_value=-0.2154),
          bj.AllowedAction(action=bj.ACTION_STAND, expected_value=-0.4813),
          bj.AllowedAction(action=bj.ACTION_DOUBLE, cost=250000, expected_value=-0.1021,
                           best=True),
          bj.AllowedAction(action=bj.ACTION_SURRENDER, expected_value=-0.5),
          bj.AllowedAction(action=bj.ACTION_CASH_OUT, offer=123456, fair_value=125000,
                           expected_value=-0.5062)]
    outcome = bj.OUTCOME_WIN if settled else bj.OUTCOME_UNSPECIFIED
    hands = [bj.Hand(index=0, cards=["8S", "3D", "TH"], total=21, stake=500000, doubled=True,
                     from_split=True, outcome=outcome, payout=1000000 if settled else 0),
             bj.Hand(index=1, cards=["8C", "AH", "2D", "4S", "3C"], total=18, soft=False,
                     stake=250000, from_split=True,
                     outcome=bj.OUTCOME_PUSH if settled else bj.OUTCOME_UNSPECIFIED,
                     payout=250000 if settled else 0, allowed=[] if settled else ev)]
    box = bj.Box(seat=1, stake=250000, hands=hands, insurance_stake=125000,
                 insurance_payout=0,
                 side_bets=[bj.SideBetResult(kind=bj.SIDE_BET_KIND_PERFECT_PAIRS, stake=10000,
                                             line="mixed_pair", payout=60000, settled=True),
                            bj.SideBetResult(kind=bj.SIDE_BET_KIND_TWENTY_ONE_PLUS_THREE,
                                             stake=10000, settled=settled)])
    view = bj.RoundView(round_id="0193a9c2-7d4e-7b1a-9c3f-5e2d1a0b9c8d", variant_id="vip-platinum",
                        currency="EUR", status=(bj.ROUND_STATUS_SETTLED if settled
                                                else bj.ROUND_STATUS_PLAYER_TURN),
                        boxes=[box], dealer_cards=["TD", "7S"] if settled else ["TD"],
                        dealer_hole_hidden=not settled, dealer_total=17 if settled else 10,
                        total_staked=1145000, total_paid=1310000 if settled else 60000,
                        balance=123456789, result=bj.RESULT_CLASS_WIN,
                        session=bj.SessionPosition(elapsed_s=40000, total_staked=99999900,
                                                   total_paid=88888800, net_position=-11111100),
                        fair=_fair(settled=settled))
    if not settled:
        view.to_act.seat, view.to_act.hand = 1, 1
    return view


def _screen(language: str) -> str:
    """All ``rgs play`` writes for the round: open, the decision with hints, settled, ``f``."""
    i18n.use(language)
    playing, done = _split_round(settled=False), _split_round(settled=True)
    allowed = list(playing.boxes[0].hands[1].allowed)
    return "\n".join([
        render.table(playing), render.hints_legend(),
        render.choices(allowed, "EUR") + "  > ",
        render.table(done), render.verdict(done),
        render.verdict(bj.RoundView(currency="EUR", total_staked=100, total_paid=100,
                                    result=bj.RESULT_CLASS_RETURN_EQUAL)),
        render.fairness_full(done.round_id, done.fair),
    ])


def _assert_80_columns_and_whole_hashes(text: str) -> None:
    lines = text.splitlines()
    wide = [line for line in lines if len(line) > render.WIDTH]
    assert wide == [], f"lines over {render.WIDTH} columns: {wide}"
    for line in lines:
        for m in _HEX.finditer(line):
            run, after = m.group(), line[m.end():m.end() + 1]
            whole = run in HASHES
            shortened = after == "…" and any(h.startswith(run) for h in HASHES)
            assert whole or shortened, f"a hash split or cut without a mark: {line!r}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_whole_round_with_a_split_hints_and_fairness_fits_80_columns(language: str) -> None:
    text = _screen(language)
    _assert_80_columns_and_whole_hashes(text)
    # Every hash is there whole once, for `f` (each on its own line, nothing else on it).
    for h in HASHES:
        assert "    " + h in text.splitlines()


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_fair_block_takes_at_most_two_lines(language: str) -> None:
    i18n.use(language)
    assert 1 <= len(render.fairness(_fair(settled=True))) <= 2
    assert 1 <= len(render.fairness(_fair(settled=False))) <= 2


def test_a_push_says_the_stake_is_back_and_the_check_says_how_a_player_gets_a_recall() -> None:
    assert render.verdict(bj.RoundView(currency="EUR", total_staked=500, total_paid=500,
                                       result=bj.RESULT_CLASS_RETURN_EQUAL)) == \
        "Push: your stake is back."
    whole = " ".join(render.fairness_full("r1", _fair()).split())
    assert "ask the casino's support for the round's recall" in whole
    assert "rgs verify recall.json" in whole
    assert "<recall.json>" not in whole


def _table(*kinds: bj.SideBetKind.ValueType) -> tb.TableInfo:
    info = tb.TableInfo(table_id="vip-1", variant_id="vip-platinum", seats=7, currency="EUR",
                        main_min=1000, main_max=500000)
    info.lobby.features.side_bets.extend(kinds)
    return info


def test_a_tables_help_lists_only_its_own_side_bets_and_explains_hot_players() -> None:
    vip = _table(bj.SIDE_BET_KIND_PERFECT_PAIRS, bj.SIDE_BET_KIND_TWENTY_ONE_PLUS_THREE)
    text = help_text(vip)
    assert "[pp 1] [21+3 1] [seed WORD]" in text and "20+" not in text
    assert "won N in a row" in text and "Hot Players" in text
    assert side_words(vip) == {"pp": "perfect_pairs", "21+3": "twenty_one_plus_three"}
    bare = help_text(_table())
    assert "  bet 10 [seed WORD]" in bare and "side bets" not in bare
    for language in LANGUAGES:
        i18n.use(language)
        _assert_80_columns_and_whole_hashes(help_text(vip))


async def test_a_side_bet_the_table_does_not_have_is_refused_before_anything_is_sent() -> None:
    player = TablePlayer(stub=None, token="t", ask=input, say=print,  # type: ignore[arg-type]
                         table=_table(bj.SIDE_BET_KIND_PERFECT_PAIRS))
    player.snap = tb.TableSnapshot(table_id="vip-1", seats=[tb.Seat(
        seat=3, player=tb.TablePlayer(display_name="Bob", you=True))])
    with pytest.raises(ValueError, match="'20\\+' is not a side bet at this table; its side "
                                         "bets: pp"):
        await player.command(["bet", "10", "20+", "1"])


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_shared_table_and_its_events_fit_80_columns(language: str) -> None:
    i18n.use(language)
    fair = tb.TableFairness(verifiable=True, commitment=COMMIT, round_number=98765, decks=8,
                            client_seed=NEXT, server_seed=SEED, next_commitment=NEXT)
    snap = tb.TableSnapshot(
        table_id="vip-platinum-1", round_no=98765, phase=tb.TABLE_PHASE_PLAYING,
        round_id="0193a9c2-7d4e-7b1a-9c3f-5e2d1a0b9c8d", next_commitment=NEXT,
        seats=[tb.Seat(seat=1, player=tb.TablePlayer(display_name="A Very Long Name 1"),
                       hot=12),
               tb.Seat(seat=2, player=tb.TablePlayer(display_name="Bob", you=True))],
        bets=[tb.SeatBet(seat=1, stake=500000, perfect_pairs=10000, twenty_one_plus_three=10000,
                         twenty_plus=10000, deal_now=True)],
        fair=tb.TableFairness(verifiable=True, commitment=COMMIT, round_number=98765,
                              client_seed=NEXT),
        last_round=tb.LastRound(round_id="0193a9c2-0000-7b1a-9c3f-5e2d1a0b9c8d", fair=fair),
        round=_split_round(settled=False))
    text = draw.shared_table(snap, seats=3, currency="EUR", now=datetime.now(UTC),
                             balance=123456789)
    events = [draw.table_event(tb.TableEvent(seq=1, betting_opened=tb.BettingOpened(fair=fair)),
                               "EUR"),
              draw.table_event(tb.TableEvent(seq=2, round_finished=tb.RoundFinished(fair=fair)),
                               "EUR")]
    shown = "\n".join([text, *(render.fit(f"  · {e}") for e in events if e),
                       draw.fairness_full(snap.last_round)])
    _assert_80_columns_and_whole_hashes(shown)
    assert len(draw.fairness_lines(snap)) <= 2
