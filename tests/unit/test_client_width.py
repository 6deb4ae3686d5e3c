"""``rgs play`` read at 80 columns (issue 30, item 9): a whole round — a split, side bets,
insurance, hints on, its fairness — in every language fits 80 columns, and no hash is ever
split across two lines (shortened to a prefix… in the table's lines, whole on a line of its
own where ``f`` shows it); a table's help offers only the side bets that table has. A shared
table's busy round (issue 28) — every seat, phase and event kind — fits too, in German and
Spanish says no English line, and the table client's modules hold no words of their own."""

from __future__ import annotations

import ast
import asyncio
import hashlib
import inspect
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.table.v1 import table_pb2 as tb
from rgs.locales import LANGUAGES, catalogue
from rgs.terminal import i18n, render
from rgs.terminal import table as table_module
from rgs.terminal import table_render as draw
from rgs.terminal.table import TablePlayer, count_down, help_text, intro, side_words

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


# ---------------------------------------------------------------------- table rounds

LONG_NAME = "A Very Long Display Name"  # the longest a table shows (24 characters)


def _filled(message: Any, *, you: bool, variant: int = 0) -> Any:
    """``message`` with every field set as a busy table would: long names, large amounts,
    seats and hands above 1, enums to their ``variant``-th value, fairness with whole hashes
    (``you``: the player is the caller)."""
    for f in message.DESCRIPTOR.fields:
        if f.message_type is not None:
            if f.message_type.name == "TablePlayer":
                targets = ([getattr(message, f.name).add() for _ in range(2)] if f.is_repeated
                           else [getattr(message, f.name)])
                for target in targets:
                    target.display_name, target.you = LONG_NAME, you
            elif f.message_type.name == "TableFairness":
                getattr(message, f.name).CopyFrom(tb.TableFairness(
                    verifiable=variant != 1, commitment=COMMIT, round_number=98765, decks=8,
                    client_seed=NEXT if variant else "",
                    server_seed=SEED if variant == 2 else "", next_commitment=NEXT))
            elif f.message_type.name == "PlayerResult" and f.is_repeated and variant != 3:
                for mine in (False, True):
                    r = getattr(message, f.name).add(staked=123456789, paid=987654321)
                    r.player.display_name, r.player.you = LONG_NAME, mine
            continue
        if f.is_repeated:
            if f.type in (f.TYPE_INT32, f.TYPE_INT64) and variant != 3:
                getattr(message, f.name).extend([1, 2, 3, 4, 5, 6, 7])
            continue
        if f.enum_type is not None:
            values = [v.number for v in f.enum_type.values if v.number]
            setattr(message, f.name, values[variant % len(values)])
        elif f.type == f.TYPE_BOOL:
            setattr(message, f.name, variant == 0)
        elif f.type == f.TYPE_STRING:
            setattr(message, f.name, {"card": "TH", "line": "straight_flush",
                                      "reason": "seat_released" if variant else "sat_out"
                                      }.get(f.name, "x" * 12))
        elif f.name in ("seat", "hand"):
            if f.name == "seat" and variant == 1 and f.has_presence:
                continue  # no seat: the dealer's
            setattr(message, f.name, 7 if f.name == "seat" else 3)
        elif f.type in (f.TYPE_INT32, f.TYPE_INT64, f.TYPE_UINT32, f.TYPE_UINT64):
            setattr(message, f.name, 123456789 if variant != 3 else 0)
    return message


#: Variants of each event: every value of the largest enum an event has (Action's 12).
_VARIANTS = 12


def _every_event() -> list[tb.TableEvent]:
    """One event of every kind a table sends, about the player and about another, with each
    variant of its enums and fairness."""
    events = []
    for field in tb.TableEvent.DESCRIPTOR.oneofs_by_name["event"].fields:
        for you in (False, True):
            for variant in range(_VARIANTS):
                ev = tb.TableEvent(seq=1)
                _filled(getattr(ev, field.name), you=you, variant=variant)
                getattr(ev, field.name).SetInParent()
                events.append(ev)
    return events


def _busy_snapshot(phase: tb.TablePhase.ValueType) -> tb.TableSnapshot:
    snap = tb.TableSnapshot(
        table_id="vip-platinum-1", round_no=98765, phase=phase, seq=9,
        round_id="0193a9c2-7d4e-7b1a-9c3f-5e2d1a0b9c8d", next_commitment=NEXT,
        seats=[tb.Seat(seat=n, player=tb.TablePlayer(display_name=LONG_NAME, you=n == 1),
                       hot=12, leaving=n == 3, sat_out=2) for n in range(1, 7)],
        bets=[tb.SeatBet(seat=n, stake=500000, perfect_pairs=10000,
                         twenty_one_plus_three=10000, twenty_plus=10000, deal_now=True)
              for n in range(1, 8)],
        behind=[tb.BehindBet(seat=n, player=tb.TablePlayer(display_name=LONG_NAME, you=n == 1),
                             stake=123456789, follow_double=True, follow_split=True,
                             insurance=preset)
                for n, preset in ((1, tb.BEHIND_INSURANCE_ASK), (2, tb.BEHIND_INSURANCE_NEVER),
                                  (3, tb.BEHIND_INSURANCE_ALWAYS))],
        fair=tb.TableFairness(verifiable=True, commitment=COMMIT, round_number=98765,
                              client_seed=NEXT),
        session=bj.SessionPosition(elapsed_s=40000, total_staked=99999900,
                                   total_paid=88888800, net_position=-11111100))
    snap.deadline.FromDatetime(datetime.now(UTC) + timedelta(seconds=30))
    if phase == tb.TABLE_PHASE_PLAYING:
        snap.round.CopyFrom(_split_round(settled=False))
    if phase == tb.TABLE_PHASE_IDLE:  # between rounds: the next commitment, the last seed
        snap.ClearField("fair")
        snap.last_round.CopyFrom(tb.LastRound(
            round_id="0193a9c2-0000-7b1a-9c3f-5e2d1a0b9c8d", fair=tb.TableFairness(
                verifiable=True, commitment=COMMIT, server_seed=SEED, round_number=98764)))
    return snap


def _table_screens(language: str) -> tuple[str, list[str], list[str]]:
    """All ``rgs play --table`` writes during a busy round, as it writes it; the lines said
    through the player's own output (``say``); and the texts made of one catalogue entry
    each (the intro, the help, the count-downs and the events, in the same order in every
    language)."""
    i18n.use(language)
    info = _table(bj.SIDE_BET_KIND_PERFECT_PAIRS, bj.SIDE_BET_KIND_TWENTY_ONE_PLUS_THREE,
                  bj.SIDE_BET_KIND_TWENTY_PLUS)
    info.variant_id, info.table_id, info.seats = "vip-platinum", "vip-platinum-1", 7
    info.main_max, info.betting_seconds, info.decision_seconds = 123456789, 15.5, 12
    said: list[str] = []
    player = TablePlayer(stub=None, token="t", ask=input, say=said.append,  # type: ignore[arg-type]
                         table=info, balance=123456789)
    texts = [intro(info), help_text(info)]
    for phase in (tb.TABLE_PHASE_IDLE, tb.TABLE_PHASE_BETTING, tb.TABLE_PHASE_INSURANCE,
                  tb.TABLE_PHASE_PLAYING):
        player.snap = _busy_snapshot(phase)
        player.draw()
        view = player.snap.round if player.snap.HasField("round") else None
        texts.append("  · " + count_down(10, phase, view))
    texts += [render.fit(f"  · {line}") for ev in _every_event()
              if (line := draw.table_event(ev, "EUR"))]
    texts += _typing_errors(info)
    return "\n".join(texts + said), said, texts


#: Commands typed wrong, with no seat and nothing to decide.
_WRONG = (["bet", "10"], ["sit"], ["sit", "x"], ["leave"], ["behind", "1"],
          ["behind", "1", "5", "ins", "maybe"], ["behind", "1", "5", "zz"], ["ib"], ["x"],
          ["bet", "10", "pp"], ["bet", "10", "zz", "1"], ["bet", "1,234"])


def _typing_errors(info: tb.TableInfo) -> list[str]:
    """What ``rgs play --table`` answers to each of :data:`_WRONG` (as its loop says it)."""
    out = []
    for typed in _WRONG:
        player = TablePlayer(stub=None, token="t", ask=input, say=print,  # type: ignore[arg-type]
                             table=info)
        player.snap = tb.TableSnapshot(table_id=info.table_id)
        if typed[0] == "bet" and len(typed) > 2:  # seated, to reach the side bets' checks
            player.snap.seats.add(seat=2, player=tb.TablePlayer(display_name="B", you=True))
        try:
            asyncio.run(player.command(typed))
        except ValueError as exc:
            out.append(render.fit(i18n.say("tcommand_error", error=exc)))
    assert len(out) == len(_WRONG)
    return out


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_busy_table_round_every_event_and_prompt_fits_80_columns(language: str) -> None:
    """Issue 28: the shared table in every language — seven long names with every bet, a Bet
    Behind with every preset, each phase with its time left, the player's decision, and every
    event kind said about the player and about another — at 80 columns, hashes whole."""
    text, said, _ = _table_screens(language)
    _assert_80_columns_and_whole_hashes(text)
    assert any(draw.phase_word(tb.TABLE_PHASE_PLAYING) in line for line in said)


#: The terminal's texts that spell commands (English words in every language: ``behind``,
#: ``never``), left out of a language's words.
_COMMANDS = frozenset({"table_help", "tables_hint", "side_pairs", "tsit_usage", "tib_usage",
                       "tsit_first", "tbet_usage", "tbehind_usage", "tins_usage",
                       "tpreset_unknown", "ttable_unknown"})


def _vocabulary(language: str) -> set[str]:
    """Every word the clients say in a language (its catalogue's web and terminal words,
    placeholders and the texts that spell commands aside), in lower case."""
    return {w.lower() for section in ("web", "terminal")
            for key, text in catalogue(language)[section].items() if key not in _COMMANDS
            for w in re.findall(r"[^\W\d_]{2,}", re.sub(r"\{\w+\}|Bet Behind", "", text))}


@pytest.mark.parametrize("language", ["de", "es"])
def test_a_table_round_is_said_in_the_language_not_in_english(language: str) -> None:
    """No English of the table survives in German or Spanish: each event of every kind, the
    intro, the count-downs and the answers to wrong commands differ from English's, and every
    word the table draws or says is a word of the language's own catalogue (names, ids and
    card codes aside)."""
    english, (_, said, items) = _table_screens("en"), _table_screens(language)
    assert len(english[2]) == len(items) > 100
    assert [e for e, o in zip(english[2], items, strict=True) if e == o] == []
    spoken = [items[0], *items[2:-len(_WRONG)], *said]  # the help and typing errors aside
    shown = re.sub(r"[0-9a-f]{6,}…?|\b[in]b \d\b", "", "\n".join(spoken))  # hashes, ib 1
    for name in (LONG_NAME, "vip-platinum-1", "vip-platinum", "EUR", " PP ", "Bet Behind"):
        shown = shown.replace(name, " ")
    own = _vocabulary(language)
    foreign = sorted({w for w in re.findall(r"[^\W\d_]{2,}", shown) if w.lower() not in own})
    assert foreign == [], f"words of no {language} catalogue: {foreign}"


@pytest.mark.parametrize("module", [table_module, draw])
def test_the_table_client_writes_no_words_of_its_own(module: Any) -> None:
    """Every sentence ``rgs play --table`` says comes from the catalogues: no string constant
    of two words or more in its modules (docstrings aside)."""
    tree = ast.parse(inspect.getsource(module))
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef,
                                    ast.ClassDef))
                  and n.body and isinstance(n.body[0], ast.Expr)
                  and isinstance(n.body[0].value, ast.Constant)}
    sentences = [n.value for n in ast.walk(tree)
                 if isinstance(n, ast.Constant) and isinstance(n.value, str)
                 and id(n) not in docstrings
                 and re.search(r"[A-Za-z]{2,} [A-Za-z]{2,}", n.value)]
    assert sentences == [], f"{module.__name__} writes {sentences}: put them in the catalogues"
