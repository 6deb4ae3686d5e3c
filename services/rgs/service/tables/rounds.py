"""What a move of a table's round does to the table: the round rebuilt from its row, the state
and events after the engine moved, and the settlement that ends it (one credit per player,
Hot Players, the next round's seed). Shared by the players' commands and the clock."""

from __future__ import annotations

import hashlib
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from rgs.codec import decode_event, encode_event, event_kind
from rgs.engine import Action, EngineError, Phase, ReplayMismatch, Round, RoundView, RuleSet
from rgs.engine.money import Money
from rgs.service.errors import Unavailable, translate_engine
from rgs.service.fairness import dealt_order
from rgs.service.model import Movement
from rgs.service.ports import CardSourceFactory, CardSourceUnavailable
from rgs.service.restore import restore
from rgs.service.tables import fairness, free_bets, public
from rgs.service.tables import seats as seats_life
from rgs.service.tables.model import (
    Behind,
    BehindInsurance,
    StoredTable,
    TableConfig,
    TablePhase,
    TableState,
)
from rgs.service.tables.ports import Bettor, RoundRecord
from rgs.service.tables.turns import Step
from rgs.variants import VARIANTS
from rgs.wallet.port import MoneyKind, transaction_id

log = logging.getLogger(__name__)


def player_tag(player_key: str) -> str:
    """A short, stable tag of a player in transaction ids (each wallet sees one id per move)."""
    return hashlib.sha256(player_key.encode()).hexdigest()[:12]


def table_rules(variant: str) -> RuleSet:
    """The one home of a shared table's rules: its variant as written. A brand's variant
    options (decks, side bets, Cash Out) do not change a shared table (docs/tables.md); what a
    table configures of its own, its limits, travels in each round's ``RoundStarted``. The
    table's commands, its clock, its restore and the RTP monitoring (:mod:`rgs.rtp.worker`)
    all take the rules from here."""
    return VARIANTS[variant]


def rules_of(cfg: TableConfig) -> RuleSet:
    """The rules the table ``cfg`` deals under (:func:`table_rules`)."""
    return table_rules(cfg.variant)


#: Finished rounds a replica keeps, as they ended (each table's last is shown until its next
#: deal).
_KEEP_ENDED = 64


class Rounds:
    """Rebuilds a table's round from its row, with the card source the round goes on with; keeps
    the tables' last finished rounds as they ended."""

    def __init__(self, cards: CardSourceFactory) -> None:
        self._cards = cards
        self._ended: OrderedDict[str, tuple[Round | None, dict[str, str]]] = OrderedDict()
        #: table id -> the round in play as a version of the table has it.
        self._peeked: dict[str, _Peeked] = {}

    def remember(self, round_id: str, rnd: Round | None, names: Mapping[str, str]) -> None:
        """A round as it ended (None: it dealt no card)."""
        self._ended[round_id] = (rnd, dict(names))
        self._ended.move_to_end(round_id)
        while len(self._ended) > _KEEP_ENDED:
            self._ended.popitem(last=False)

    async def last(self, cfg: TableConfig, state: TableState,
                   read: Callable[[str], Awaitable[RoundRecord | None]]
                   ) -> tuple[Round | None, dict[str, str]]:
        """The table's last finished round as it ended and its players' names, while it is
        shown (idle or betting: until the next deal)."""
        revealed = state.revealed
        if revealed is None or state.phase not in (TablePhase.IDLE, TablePhase.BETTING):
            return None, {}
        kept = self._ended.get(revealed.round_id)
        if kept is None:
            rec = await read(revealed.round_id)
            rnd = (self.restore(cfg, rec, ()) if rec is not None and rec.events
                   and rec.finished else None)
            kept = (rnd, dict(rec.names) if rec is not None else {})
            self.remember(revealed.round_id, *kept)
        return kept
    def restore(self, cfg: TableConfig, rec: RoundRecord, forced: tuple[str, ...]) -> Round:
        events = [decode_event(k, p) for k, p in rec.events]
        try:
            pick = self._cards.picker()
        except CardSourceUnavailable as exc:
            def pick(n: int, _exc: CardSourceUnavailable = exc) -> int:
                raise CardSourceUnavailable(str(_exc))
        try:
            if rec.fair is not None and rec.fair.verifiable:
                try:
                    return restore(rules_of(cfg), events, pick, forced,
                                   source=fairness.source(self._cards, rec.fair))
                except ReplayMismatch:
                    # Only a replica of a release without provably fair table rounds (a
                    # rolling upgrade) deals a fair round's cards from elsewhere: the round
                    # goes on from the shoe and will not verify.
                    log.error("table round %s departs from its seeds' card order; it goes on "
                              "from the shoe", rec.round_id)
            return restore(rules_of(cfg), events, pick, forced)
        except EngineError as exc:
            raise translate_engine(exc) from exc

    async def peek(self, cfg: TableConfig, t: StoredTable,
                   read: Callable[[str], Awaitable[RoundRecord | None]]) -> Round | None:
        """The round in play as the table's version ``t.version`` has it, kept per table: for
        reading only (never moved: :meth:`current` gives a round to move). A round's row is
        written only by its table's transitions, each of which moves the version, so a
        thousand commands that read one version (live insurance decisions on rows of their
        own) rebuild its round once."""
        kept = self._peeked.get(t.table_id)
        if kept is not None and kept.version == t.version and kept.round_id == t.state.round_id:
            return kept.rnd
        if t.state.phase not in (TablePhase.INSURANCE, TablePhase.PLAYING):
            return None
        rnd = self.current(cfg, t.state, await read(t.state.round_id))
        self._peeked[t.table_id] = _Peeked(version=t.version, round_id=t.state.round_id,
                                           rnd=rnd)
        return rnd

    def shown(self, rnd: Round) -> tuple[RoundView, dict[str, Money]]:
        """A round's view and money by player: made once for a round :meth:`peek` gave out
        (never moved), else made now."""
        kept = next((p for p in self._peeked.values() if p.rnd is rnd), None)
        if kept is None:
            return rnd.view(), rnd.money_by_player()
        if kept.shown is None:
            kept.shown = rnd.view(), rnd.money_by_player()
        return kept.shown

    def current(self, cfg: TableConfig, state: TableState,
                rec: RoundRecord | None) -> Round | None:
        """The round in play (None while idle or betting)."""
        if state.phase not in (TablePhase.INSURANCE, TablePhase.PLAYING):
            return None
        if rec is None or rec.round_id != state.round_id:
            raise Unavailable("the table's round is missing", reason="ROUND_UNRECOVERABLE")
        return self.restore(cfg, rec, state.forced)


@dataclass(slots=True, kw_only=True)
class _Peeked:
    """The round in play as one version of its table has it (read only), and its view and
    money by player once made."""

    version: int
    round_id: str
    rnd: Round | None
    shown: tuple[RoundView, dict[str, Money]] | None = None


def follows(b: Behind, action: Action) -> bool:
    """Whether a Bet Behind follows the seat player's ``action`` with a stake of its own."""
    if action in (Action.DOUBLE, Action.POWER_DOUBLE):
        return b.follow_double
    if action in (Action.SPLIT, Action.POWER_SPLIT):
        return b.follow_split
    return False


def insurance_complete(s: TableState, rnd: Round) -> bool:
    """Whether every seat offered insurance and every Bet Behind that asks has decided."""
    decided = {(c.seat, c.player) for c in s.insurance}
    for box in rnd.view().boxes:
        if box.insurance_allowed and (box.seat, "") not in decided:
            return False
    return all((b.seat, b.who.player_key) in decided for b in s.behind
               if b.insurance is BehindInsurance.ASK)


def bettors(s: TableState) -> tuple[Bettor, ...]:
    """Everyone with a bet in the table's round: the seats that bet and the Bet Behinds, each
    player once, with their brand and the edge their (first) bet came through."""
    whos = {x.seat: x.who for x in s.seats}
    found: dict[str, Bettor] = {}
    for who, channel in [*((whos[b.seat], b.channel) for b in s.bets if b.seat in whos),
                         *((b.who, b.channel) for b in s.behind)]:
        found.setdefault(who.player_key, Bettor(player_key=who.player_key,
                                                brand_id=who.brand_id, channel=channel))
    return tuple(found[k] for k in sorted(found))


def record(cfg: TableConfig, s: TableState, rnd: Round) -> RoundRecord:
    """The round's row as the engine leaves it."""
    return RoundRecord(round_id=s.round_id, round_no=s.round_no, variant=cfg.variant,
                       status=rnd.phase.value,
                       events=tuple((event_kind(e), encode_event(e)) for e in rnd.events),
                       fair=s.fair, names=tuple(sorted(public.names(cfg.id, s).items())),
                       bettors=bettors(s))


def after_play(cfg: TableConfig, s: TableState, rnd: Round, start: int, step: Step, *,
               now: datetime) -> None:
    """The state, events and round record after the engine moved from event ``start``;
    when the round ended, the credits and the next betting round."""
    step.events.extend(public.round_events(rnd.events[start:], public.names(cfg.id, s)))
    step.round = record(cfg, s, rnd)
    if rnd.finished:
        finish(cfg, s, rnd, step)
        return
    phase = TablePhase.INSURANCE if rnd.phase is Phase.INSURANCE else TablePhase.PLAYING
    step.state = replace(step.state if step.state.round_id == s.round_id else s,
                         phase=phase, deadline=now + timedelta(seconds=cfg.decision_s))
    if rnd.to_act is not None and phase is TablePhase.PLAYING:
        step.events.append(public.event("decision_due", seat=rnd.to_act[0],
                                        hand=rnd.to_act[1], deadline=step.state.deadline))


def finish(cfg: TableConfig, s: TableState, rnd: Round, step: Step) -> None:
    """Settlement: one credit per player (seated or behind) to their own wallet, Hot
    Players, each player's share recorded; the table goes back to idle."""
    whos = {x.who.player_key: x.who for x in s.seats}
    seated = set(whos)
    whos.update({b.who.player_key: b.who for b in s.behind})
    by_player = rnd.money_by_player()
    view = rnd.view()
    players = []
    for key, (staked, paid) in by_player.items():
        who = whos[key]
        players.append((key, who.operator_id, staked, paid))
        # A free bet's stake is not returned: the credit is the rest, marked promotional.
        free = free_bets.free_bet_of(s, key)
        m = Movement(transaction_id=transaction_id(s.round_id, f"pay{player_tag(key)}",
                                                   MoneyKind.CREDIT),
                     round_id=s.round_id, kind=MoneyKind.CREDIT,
                     amount=paid - free_bets.credit_less(view, free),
                     session_id=who.session_id, currency=cfg.currency, brand_id=who.brand_id,
                     promotional=free is not None)
        step.movements.append((key, m))
    own = {seat_no: pd > st for seat_no, (st, pd) in rnd.money_by_seat().items()}
    seats = tuple(replace(x, hot=(x.hot + 1 if own.get(x.seat) else 0))
                  if x.seat in own else x for x in s.seats)
    dealt = dealt_order(rnd.events)
    step.state = fairness.idle_after(s, seats=seats, fair=s.fair, dealt=dealt)
    assert step.round is not None
    step.round = replace(step.round, players=tuple(players))
    # The round is over: its server seed is revealed here, and in recall from now on.
    step.events.append(public.event(
        "round_finished", round_id=s.round_id,
        # (A player is shown the seated players' results and their own: ``seated``.)
        results=[{"player": public.player(cfg.id, whos[k]), "staked": st, "paid": pd,
                  "seated": k in seated} for k, (st, pd) in by_player.items()],
        hot=[{"seat": x.seat, "hot": x.hot} for x in seats],
        fair=(fairness.public(s.fair, revealed=True, dealt=dealt) if s.fair is not None
              else None),
        next_commitment=fairness.next_commitment(s)))
    # The players who left during the round have their seats given back now.
    step.state = seats_life.release(cfg, step.state, seats_life.leaving(step.state), step)
