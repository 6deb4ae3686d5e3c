"""What the table shows everyone: its view (:mod:`~rgs.service.tables.views`) and its public
events. Players are named by a display name (their operator's nickname for them, else a
pseudonym stable per player and table) and carried with their internal key, which the edge uses
to mark the caller's own seats and bets and never sends; no hole card before it is turned
over. A view made for a player whose brand turns hints on also carries the exact value of every
open decision (:mod:`rgs.service.advice`): the same for every viewer, shown only to those
brands' players.

Events are stored as (kind, JSON fields); a player in them is ``{"key": ..., "name": ...}``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from rgs.codec import encode_event, event_kind, to_jsonable
from rgs.engine import CardDealt, Event, Round, RoundView
from rgs.engine.money import Money
from rgs.math.hints import HintTables
from rgs.service import advice
from rgs.service.tables import behind, fairness
from rgs.service.tables.model import TableFair, TableState, Who
from rgs.service.tables.views import (
    BehindBetView,
    BetView,
    InsuranceView,
    LastRoundView,
    PlayerRef,
    SeatView,
    TableFairView,
    TableView,
)


def event(kind: str, **fields: Any) -> tuple[str, str]:
    """A table event (kind, payload JSON)."""
    return kind, json.dumps(fields, separators=(",", ":"), sort_keys=True, default=str)


def pseudonym(table_id: str, player_key: str) -> str:
    """The name a player without a nickname has at a table: stable for that player and table,
    and telling nothing of their id or operator ("Player 7F3A")."""
    tag = hashlib.sha256(f"{table_id}\0{player_key}".encode()).hexdigest()[:4].upper()
    return f"Player {tag}"


def name_of(table_id: str, who: Who) -> str:
    """The display name of a player at a table."""
    return who.name or pseudonym(table_id, who.player_key)


def player(table_id: str, who: Who) -> dict[str, str]:
    """A player as an event's fields name them."""
    return {"key": who.player_key, "name": name_of(table_id, who)}


def names(table_id: str, state: TableState) -> dict[str, str]:
    """The display name of every player seated or betting behind, by key."""
    out = {x.who.player_key: name_of(table_id, x.who) for x in state.seats}
    out.update({b.who.player_key: name_of(table_id, b.who) for b in state.behind})
    return out


def round_events(events: Iterable[Event], who: Mapping[str, str]) -> list[tuple[str, str]]:
    """Engine events as public table events: the hole card face down, a Bet Behind's player as
    ``{"key", "name"}`` (``who``: display names by key), a round's opening without players."""
    out = []
    for e in events:
        if isinstance(e, CardDealt) and e.face_down:
            out.append(event("card_dealt", card="", seat=None, hand=0, face_down=True))
            continue
        kind = event_kind(e)
        if kind == "round_started":
            boxes = e.boxes  # type: ignore[attr-defined]
            out.append(event(kind, seats=[b.seat for b in boxes],
                             players=[{"key": b.player, "name": who.get(b.player, "")}
                                      for b in boxes]))
            continue
        key = getattr(e, "player", None)
        if key is None:
            out.append((kind, encode_event(e)))
            continue
        fields = to_jsonable(e)
        fields["player"] = {"key": key, "name": who.get(key, "")}
        out.append(event(kind, **fields))
    return out


def fair_view(fair: TableFair, *, revealed: bool, dealt: tuple[str, ...] = ()) -> TableFairView:
    """A round's fairness as shown: the seed and the cards only when ``revealed``."""
    return TableFairView(verifiable=fair.verifiable, commitment=fair.commitment,
                         round_number=fair.round_number, decks=fair.decks,
                         client_seed=fair.client_seed, seat_seeds=fair.seat_seeds,
                         next_commitment=fair.next_commitment,
                         server_seed=fair.server_seed if revealed else "",
                         dealt_cards=dealt if revealed else ())


def view(table_id: str, seq: int, state: TableState, rnd: Round | None, *,
         hints: HintTables | None = None, currency: str = "", last: Round | None = None,
         last_names: Mapping[str, str] | None = None, whole: bool = True,
         round_shown: tuple[RoundView, Mapping[str, Money]] | None = None) -> TableView:
    """The table as a watcher sees it at event ``seq`` (then its events above it); with
    ``hints`` (the app's tables, given when the caller's brand turns hints on) the open
    decisions' exact values; ``last``:
    the last finished round as it ended (with its players' names), shown until the next deal.
    ``whole``: the state holds every Bet Behind (else only some, as a Bet Behind's own answer
    has: the seats' totals are then the ones last announced). ``round_shown``: ``rnd``'s view and
    money by player, made already (:meth:`~rgs.service.tables.rounds.Rounds.shown`)."""
    shown = names(table_id, state)

    def ref(who: Who) -> PlayerRef:
        return PlayerRef(key=who.player_key, name=shown[who.player_key])

    revealed = state.revealed
    rv: RoundView | None = None
    money: Mapping[str, Money] = {}
    if round_shown is not None:
        rv, money = round_shown
    elif rnd is not None:
        rv, money = rnd.view(), rnd.money_by_player()
    return TableView(
        table_id=table_id, seq=seq, phase=state.phase, round_id=state.round_id,
        round_no=state.round_no, deadline=state.deadline,
        seats=tuple(SeatView(seat=s.seat, player=ref(s.who), hot=s.hot, leaving=s.leaving,
                             sat_out=s.sat_out) for s in state.seats),
        bets=tuple(BetView(seat=b.seat, stake=b.stake, perfect_pairs=b.perfect_pairs,
                           twenty_one_plus_three=b.twenty_one_plus_three,
                           twenty_plus=b.twenty_plus, deal_now=b.deal_now,
                           client_seed=b.client_seed) for b in state.bets),
        behind=tuple(BehindBetView(seat=b.seat, player=ref(b.who), stake=b.stake,
                                   follow_double=b.follow_double, follow_split=b.follow_split,
                                   insurance=b.insurance) for b in state.behind),
        behind_totals=(behind.totals(state.behind) if whole else
                       state.announced if state.announced_round == state.round_id else ()),
        insurance=tuple(InsuranceView(seat=c.seat, take=c.take,
                                      behind=PlayerRef(key=c.player, name=shown.get(c.player, ""))
                                      if c.player else None) for c in state.insurance),
        round=rv, names=shown,
        money=money,
        hints=(advice.hints(hints, rnd.rules, rv)
               if hints is not None and rnd is not None and rv is not None else ()),
        currency=currency,
        fair=fair_view(state.fair, revealed=False) if state.fair is not None else None,
        next_commitment=fairness.next_commitment(state),
        last_round=(LastRoundView(
            round_id=revealed.round_id,
            fair=fair_view(revealed.fair, revealed=True, dealt=revealed.dealt),
            round=last.view() if last is not None else None,
            names=dict(last_names or {}),
            money=last.money_by_player() if last is not None else {})
            if revealed is not None else None))
