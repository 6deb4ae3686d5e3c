"""The shared tables' messages (``rgs.table.v1``): a table's view and events as one caller sees
them, and a round's events in an operator's recall. The one home of the mapping from the
service's values and stored events (and the engine's events) to the typed contract, beside the
solo converters (:mod:`rgs.api.converters`, whose round view a table round reuses).

A player appears as a :class:`~rgs.generated.table.v1.table_pb2.TablePlayer`: a display name,
``you`` when the player is the caller (decided here from the session's player key, which never
leaves the server), and the player id only in an operator's recall of its own players.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson
from google.protobuf.timestamp_pb2 import Timestamp

from rgs.api.converters import (
    ACTION_NUMBERS,
    OUTCOMES,
    RESULT_CLASSES,
    SIDE_BETS,
    STATUSES,
    box_to_proto,
)
from rgs.engine import Action, Outcome, Phase, RoundView, SideBetKind
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.table.v1 import table_pb2 as tb
from rgs.service.jurisdiction import classify_result
from rgs.service.model import Hint
from rgs.service.tables import public
from rgs.service.tables.model import BehindInsurance, SeatRelease, TableEvent, TablePhase
from rgs.service.tables.ports import RoundRecord
from rgs.service.tables.views import PlayerRef, TableFairView, TableView

PHASES: dict[TablePhase, tb.TablePhase.ValueType] = {
    TablePhase.IDLE: tb.TABLE_PHASE_IDLE, TablePhase.BETTING: tb.TABLE_PHASE_BETTING,
    TablePhase.INSURANCE: tb.TABLE_PHASE_INSURANCE, TablePhase.PLAYING: tb.TABLE_PHASE_PLAYING,
}
SEAT_RELEASES: dict[SeatRelease, tb.SeatRelease.ValueType] = {
    SeatRelease.LEFT: tb.SEAT_RELEASE_LEFT, SeatRelease.SAT_OUT: tb.SEAT_RELEASE_SAT_OUT,
    SeatRelease.AWAY: tb.SEAT_RELEASE_AWAY,
    SeatRelease.SESSION_EXPIRED: tb.SEAT_RELEASE_SESSION_EXPIRED,
}
INSURANCE_PRESETS: dict[BehindInsurance, tb.BehindInsurance.ValueType] = {
    BehindInsurance.NEVER: tb.BEHIND_INSURANCE_NEVER,
    BehindInsurance.ALWAYS: tb.BEHIND_INSURANCE_ALWAYS,
    BehindInsurance.ASK: tb.BEHIND_INSURANCE_ASK,
}


class Audience:
    """Who a message is for: a player (``viewer``: their key, to mark "you") or an operator
    (``operator``: its own players are shown with their ids)."""

    def __init__(self, table_id: str, *, viewer: str = "", operator: str = "") -> None:
        self.table_id = table_id
        self.viewer = viewer
        self.operator = operator

    def player(self, key: str, name: str = "") -> tb.TablePlayer:
        """A player by key and display name (a pseudonym when the name is not known)."""
        operator, _, player_id = key.partition("/")
        return tb.TablePlayer(
            display_name=name or public.pseudonym(self.table_id, key),
            you=bool(self.viewer) and key == self.viewer,
            player_id=player_id if self.operator and operator == self.operator else "")

    def named(self, ref: Any, names: Mapping[str, str] | None = None) -> tb.TablePlayer:
        """A player as a stored event names them: ``{"key", "name"}``, a bare key (the engine's
        events of an earlier release) or a player id (an event of a release before display
        names: shown by a pseudonym of it, never as "you")."""
        if isinstance(ref, PlayerRef):
            return self.player(ref.key, ref.name)
        if isinstance(ref, Mapping):
            return self.player(str(ref.get("key", "")), str(ref.get("name", "")))
        text = str(ref or "")
        if "/" in text:
            return self.player(text, (names or {}).get(text, ""))
        return tb.TablePlayer(display_name=public.pseudonym(self.table_id, text))


# --------------------------------------------------------------------------- the view


def _ts(when: datetime | str | None) -> Timestamp | None:
    if when is None or when == "":
        return None
    ts = Timestamp()
    ts.FromDatetime(datetime.fromisoformat(when) if isinstance(when, str) else when)
    return ts


def fair_to_proto(f: TableFairView | Mapping[str, Any] | None) -> tb.TableFairness | None:
    """A round's fairness as shown (a view's, or an event's fields)."""
    if f is None:
        return None
    if isinstance(f, TableFairView):
        return tb.TableFairness(
            verifiable=f.verifiable, commitment=f.commitment, client_seed=f.client_seed,
            round_number=f.round_number, decks=f.decks, server_seed=f.server_seed,
            next_commitment=f.next_commitment, dealt_cards=f.dealt_cards,
            seat_seeds=[tb.SeatClientSeed(seat=n, client_seed=c) for n, c in f.seat_seeds])
    return tb.TableFairness(
        verifiable=bool(f.get("verifiable")), commitment=str(f.get("commitment", "")),
        client_seed=str(f.get("client_seed", "")),
        round_number=int(f.get("round_number", 0)), decks=int(f.get("decks", 0)),
        server_seed=str(f.get("server_seed", "")),
        next_commitment=str(f.get("next_commitment", "")),
        dealt_cards=[str(c) for c in f.get("dealt_cards") or ()],
        seat_seeds=[tb.SeatClientSeed(seat=int(x["seat"]), client_seed=str(x["client_seed"]))
                    for x in f.get("seat_seeds") or ()])


def view_to_proto(v: TableView, viewer: str) -> tb.TableSnapshot:
    """The table as the player ``viewer`` (their key) sees it."""
    who = Audience(v.table_id, viewer=viewer)
    msg = tb.TableSnapshot(
        seq=v.seq, table_id=v.table_id, phase=PHASES[v.phase], round_id=v.round_id,
        round_no=v.round_no,
        seats=[tb.Seat(seat=s.seat, player=who.named(s.player), hot=s.hot, leaving=s.leaving,
                       sat_out=s.sat_out) for s in v.seats],
        bets=[tb.SeatBet(seat=b.seat, stake=b.stake, perfect_pairs=b.perfect_pairs,
                         twenty_one_plus_three=b.twenty_one_plus_three,
                         twenty_plus=b.twenty_plus, deal_now=b.deal_now,
                         client_seed=b.client_seed) for b in v.bets],
        # A player sees their own Bet Behinds, and every seat's together (issue 27).
        behind=[tb.BehindBet(seat=b.seat, player=who.named(b.player), stake=b.stake,
                             follow_double=b.follow_double, follow_split=b.follow_split,
                             insurance=INSURANCE_PRESETS[b.insurance]) for b in v.behind
                if b.player.key == viewer],
        behind_totals=[tb.BehindTotal(seat=seat, bettors=n, staked=staked)
                       for seat, n, staked in v.behind_totals],
        insurance=[tb.InsuranceDecision(seat=c.seat, take=c.take,
                                        behind=who.named(c.behind) if c.behind else None)
                   for c in v.insurance if c.behind is None or c.behind.key == viewer],
        next_commitment=v.next_commitment)
    if (deadline := _ts(v.deadline)) is not None:
        msg.deadline.CopyFrom(deadline)
    if v.round is not None:
        msg.round.CopyFrom(_round(v.table_id, v.round_id, v.round, who, names=v.names,
                                  money=v.money, hints=v.hints, currency=v.currency))
    if (fair := fair_to_proto(v.fair)) is not None:
        msg.fair.CopyFrom(fair)
    last = v.last_round
    if last is not None:
        msg.last_round.CopyFrom(tb.LastRound(round_id=last.round_id,
                                             fair=fair_to_proto(last.fair)))
        if last.round is not None:
            msg.last_round.round.CopyFrom(_round(v.table_id, last.round_id, last.round, who,
                                                 names=last.names, money=last.money,
                                                 currency=v.currency))
    return msg


def _round(table_id: str, round_id: str, r: RoundView, who: Audience, *,
           names: Mapping[str, str], money: Mapping[str, tuple[int, int]],
           hints: Sequence[Hint] = (), currency: str = "") -> bj.RoundView:
    """A table round: the solo view, each box's Bet Behinds named, the totals the caller's
    own."""
    staked, paid = money.get(who.viewer, (0, 0))
    msg = bj.RoundView(
        round_id=round_id, seq=r.seq, variant_id=r.variant, status=STATUSES[r.phase],
        dealer_cards=r.dealer_cards, dealer_total=r.dealer_total, dealer_soft=r.dealer_soft,
        dealer_hole_hidden=r.dealer_hole_hidden, total_staked=staked, total_paid=paid,
        currency=currency,
        boxes=[box_to_proto(b, hints, behind=[
            bj.BoxBehind(display_name=names.get(x.player) or public.pseudonym(
                table_id, x.player), you=x.player == who.viewer, staked=x.staked,
                paid=x.paid, follow_double=x.follow_double, follow_split=x.follow_split)
            for x in b.behind if not who.viewer or x.player == who.viewer])
            for b in r.boxes])
    if r.to_act is not None:
        msg.to_act.CopyFrom(bj.HandRef(seat=r.to_act[0], hand=r.to_act[1]))
    if r.phase is Phase.SETTLED and staked:
        msg.result = RESULT_CLASSES[classify_result(staked, paid)]
    return msg


# --------------------------------------------------------------------------- events


def _action(value: Any) -> bj.Action.ValueType:
    return ACTION_NUMBERS[Action(value)]


def _outcome(value: Any) -> bj.Outcome.ValueType:
    return OUTCOMES[Outcome(value)]


Build = Callable[[dict[str, Any], Audience, Mapping[str, str]], dict[str, Any]]


def _players(*names: str) -> Build:
    """Fields copied as they are, the player named for the audience."""
    def build(d: dict[str, Any], who: Audience, names_: Mapping[str, str]) -> dict[str, Any]:
        out = {k: d[k] for k in names if k in d}
        if "player" in d or "player_id" in d:
            out["player"] = who.named(d.get("player", d.get("player_id")), names_)
        return out
    return build


def _with(fields: tuple[str, ...], **convert: Callable[[Any], Any]) -> Build:
    def build(d: dict[str, Any], who: Audience, names_: Mapping[str, str]) -> dict[str, Any]:
        out: dict[str, Any] = {k: d[k] for k in fields if k in d}
        for k, f in convert.items():
            if d.get(k) is not None:
                out[k] = f(d[k])
        if "player" in d or "player_id" in d:
            out["player"] = who.named(d.get("player", d.get("player_id")), names_)
        return out
    return build


def _card_dealt(d: dict[str, Any], who: Audience, names_: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {"card": d.get("card") or "", "hand": d.get("hand", 0),
                           "face_down": bool(d.get("face_down"))}
    if d.get("seat") is not None:
        out["seat"] = d["seat"]
    return out


def _round_started(d: dict[str, Any], who: Audience,
                   names_: Mapping[str, str]) -> dict[str, Any]:
    if "seats" in d:
        return {"seats": d["seats"],
                "players": [who.named(p, names_) for p in d.get("players", ())]}
    # The engine's own event (recall, or an earlier release's stream): its boxes name keys.
    boxes = d.get("boxes", ())
    return {"seats": [b["seat"] for b in boxes],
            "players": [who.named(b.get("player", ""), names_) for b in boxes]}


def _voided(d: dict[str, Any], who: Audience, names_: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {"round_id": d.get("round_id", ""), "reason": d.get("reason", "")}
    if d.get("fair") is not None:
        out["fair"] = fair_to_proto(d["fair"])
    return out


def _finished(d: dict[str, Any], who: Audience, names_: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "round_id": d.get("round_id", ""), "next_commitment": d.get("next_commitment", ""),
        "results": [tb.PlayerResult(player=who.named(r.get("player", r.get("player_id")),
                                                     names_),
                                    staked=r["staked"], paid=r["paid"],
                                    result=RESULT_CLASSES[classify_result(r["staked"],
                                                                          r["paid"])])
                    for r in d.get("results", ())],
        "hot": [tb.HotSeat(seat=h["seat"], hot=h["hot"]) for h in d.get("hot", ())]}
    if d.get("fair") is not None:
        out["fair"] = fair_to_proto(d["fair"])
    return out


def _timed(*fields: str) -> Build:
    def build(d: dict[str, Any], who: Audience, names_: Mapping[str, str]) -> dict[str, Any]:
        out: dict[str, Any] = {k: d[k] for k in fields if k in d}
        if d.get("fair") is not None:
            out["fair"] = fair_to_proto(d["fair"])
        if d.get("deadline"):
            out["deadline"] = _ts(d["deadline"])
        return out
    return build


#: Each stored event kind: its message field in TableEvent, and how its fields are built.
EVENTS: Mapping[str, tuple[str, Build]] = {
    "seat_taken": ("seat_taken", _players("seat")),
    "seat_left": ("seat_left", _with(("seat",), reason=lambda v: SEAT_RELEASES[SeatRelease(v)])),
    "betting_opened": ("betting_opened", _timed("round_id", "round_no")),
    "bet_placed": ("bet_placed", _players("seat", "stake", "perfect_pairs",
                                          "twenty_one_plus_three", "twenty_plus",
                                          "client_seed")),
    "behind_placed": ("behind_placed", _with(
        ("seat", "stake", "follow_double", "follow_split"),
        insurance=lambda v: INSURANCE_PRESETS[BehindInsurance(v)])),
    "deal_now": ("deal_now", _players("seat")),
    "betting_closing": ("betting_closing", _players("reason")),
    "betting_closed": ("betting_closed", _timed("round_id", "seats")),
    "behind_refunded": ("behind_refunded", _players("seat", "amount", "reason")),
    "round_started": ("round_started", _round_started),
    "card_dealt": ("card_dealt", _card_dealt),
    "hole_card_revealed": ("hole_card_revealed", _players("card")),
    "card_burned": ("card_burned", _players("card", "seat", "hand")),
    "dealer_peeked": ("dealer_peeked", _players("blackjack")),
    "player_acted": ("player_acted", _with(("seat", "hand", "stake_added"), action=_action)),
    "decision_due": ("decision_due", _timed("seat", "hand")),
    "decision_timed_out": ("decision_timed_out", _with(("seat", "hand"), action=_action)),
    "insurance_decided": ("insurance_decided", _players("seat", "behind", "take")),
    "insurance_settled": ("insurance_settled", _players("seat", "stake", "payout")),
    "side_bet_settled": ("side_bet_settled", _with(
        ("seat", "stake", "line", "pays", "payout"),
        kind=lambda v: SIDE_BETS[SideBetKind(v)])),
    "hand_settled": ("hand_settled", _with(("seat", "hand", "stake", "payout"),
                                           outcome=_outcome)),
    "behind_stake_added": ("behind_stake_added", _with(("seat", "hand", "amount"),
                                                       action=_action)),
    "behind_follow_skipped": ("behind_follow_skipped", _with(("seat", "hand"),
                                                             action=_action)),
    "behind_settled": ("behind_settled", _with(("seat", "hand", "stake", "payout"),
                                               outcome=_outcome)),
    "behind_insurance_settled": ("behind_insurance_settled",
                                 _players("seat", "stake", "payout")),
    "round_settled": ("round_settled", lambda d, who, names_: {}),
    "round_voided": ("round_voided", _voided),
    "round_finished": ("round_finished", _finished),
    "behind_totals": ("behind_totals", lambda d, who, names_: {
        "round_id": d.get("round_id", ""),
        "seats": [tb.BehindTotal(seat=x["seat"], bettors=x["bettors"], staked=x["staked"])
                  for x in d.get("seats", ())]}),
}


def event_message(seq: int, kind: str, data: dict[str, Any], who: Audience, *,
                  at: datetime | None = None,
                  names: Mapping[str, str] | None = None) -> tb.TableEvent:
    """One event for ``who``; an event kind this release does not know is sent numbered and
    empty (a client skips it)."""
    msg = tb.TableEvent(seq=seq)
    if (when := _ts(at)) is not None:
        msg.at.CopyFrom(when)
    known = EVENTS.get(kind)
    if known is not None:
        field, build = known
        getattr(msg, field).CopyFrom(getattr(tb, _message_name(field))(
            **build(data, who, names or {})))
    return msg


def _message_name(field: str) -> str:
    """The message type of a TableEvent field (``deal_now`` is ``DealNowPressed``)."""
    kind = tb.TableEvent.DESCRIPTOR.fields_by_name[field].message_type
    assert kind is not None
    return str(kind.name)


#: Events about one Bet Behind: shown to its own player only (issue 27: a thousand players
#: betting behind are not a thousand lines for everyone; the seats' totals are announced).
PRIVATE = frozenset({"behind_placed", "behind_refunded", "behind_stake_added",
                     "behind_follow_skipped", "behind_settled", "behind_insurance_settled"})


def _key(ref: Any) -> str:
    """The player key an event names (``{"key", "name"}`` or a bare key)."""
    return str(ref.get("key", "")) if isinstance(ref, Mapping) else str(ref or "")


def for_viewer(kind: str, data: dict[str, Any], viewer: str) -> dict[str, Any] | None:
    """What of an event the player ``viewer`` (their key) is shown: None when it is another
    player's Bet Behind's (not sent to them); a round's results are the seated players' and the
    viewer's own."""
    if kind in PRIVATE or (kind == "insurance_decided" and data.get("behind")):
        return data if _key(data.get("player")) == viewer else None
    if kind == "round_finished":
        return {**data, "results": [r for r in data.get("results", ())
                                    if _seated(r) or _key(r.get("player")) == viewer]}
    return data


def _seated(result: Mapping[str, Any]) -> bool:
    """Whether a round's result is a seated player's (everyone's to see) rather than a Bet
    Behind's (its own player's)."""
    return bool(result.get("seated", True))


def event_to_proto(e: TableEvent, viewer: str) -> tb.TableEvent | None:
    """A table's stored event for the player ``viewer`` (their key); None when it is not theirs
    to see (another player's Bet Behind's: a thousand players betting behind would otherwise
    send every watcher a thousand empty events a round, most of the stream's work)."""
    data = for_viewer(e.kind, e.data if e.data is not None else orjson.loads(e.payload), viewer)
    if data is None:
        return None
    return event_message(e.seq, e.kind, data, Audience(e.table_id, viewer=viewer), at=e.at)


class RenderedEvents:
    """Each table event rendered once per replica for every watcher it does not name: a
    thousand watchers of one table cost one rendering of each event, not a thousand. Only an
    event whose payload carries the watcher's own key (where it may be "you") is rendered for
    that watcher."""

    #: Events kept (the newest, across tables).
    KEEP = 4096
    #: Batches kept (the newest, across tables): the watchers of a table that keep up pull the
    #: same batches (a few a table at a time; a round's end with a thousand Bet Behinds is
    #: about 250 KB of text).
    KEEP_BATCHES = 128

    def __init__(self) -> None:
        self._kept: OrderedDict[tuple[str, int], tb.TableEvent | None] = OrderedDict()
        #: The last few rounds' results, read once: (the event's data without its results,
        #: the seated players' results and each Bet Behind player's own, by their position).
        self._results: OrderedDict[tuple[str, int], _Results] = OrderedDict()
        self._batches: OrderedDict[tuple[str, int, int, int], _Batch] = OrderedDict()

    def for_batch(self, batch: Sequence[TableEvent], viewer: str) -> tb.TableEvents | None:
        """A batch of a feed as ``viewer`` is sent it: its events after
        :func:`without_superseded_totals`, each as :meth:`for_viewer` renders it (None: none
        of them theirs to see). A batch that names no watcher's key is one message for every
        such watcher, made once: a thousand watchers of a round's end (a thousand Bet Behinds'
        own events, none of them theirs) cost one pass over it, not a thousand."""
        if not batch:
            return None
        key = (batch[0].table_id, batch[0].seq, batch[-1].seq, len(batch))
        got = self._batches.get(key)
        if got is None:
            events = without_superseded_totals(batch)
            shared = [m for e in events if (m := self._shared(e)) is not None]
            got = self._batches[key] = _Batch(
                text="\n".join(e.payload for e in events), events=events,
                shared=tb.TableEvents(events=shared) if shared else None)
            if len(self._batches) > self.KEEP_BATCHES:
                self._batches.popitem(last=False)
        if not _may_name(got.text, viewer):  # (no event of it names them)
            return got.shared
        shown = [m for e in got.events if (m := self.for_viewer(e, viewer)) is not None]
        return tb.TableEvents(events=shown) if shown else None

    def for_viewer(self, e: TableEvent, viewer: str) -> tb.TableEvent | None:
        """``e`` as :func:`event_to_proto` renders it for ``viewer`` (the shared rendering
        unless the event names them; None: not theirs to see)."""
        if _may_name(e.payload, viewer):
            if e.kind == "round_finished":  # names every player: each gets their own
                return self._round_finished(e, viewer)
            return event_to_proto(e, viewer)
        return self._shared(e)

    def _shared(self, e: TableEvent) -> tb.TableEvent | None:
        """``e`` as every watcher it does not name sees it, rendered once."""
        key = (e.table_id, e.seq)
        if key in self._kept:
            return self._kept[key]
        made = self._kept[key] = event_to_proto(e, "")
        if len(self._kept) > self.KEEP:
            self._kept.popitem(last=False)
        return made


    def _round_finished(self, e: TableEvent, viewer: str) -> tb.TableEvent:
        """A round's end for one of its players: the same message as :func:`event_to_proto`
        makes, without reading the thousand results of a crowded round for each of them."""
        key = (e.table_id, e.seq)
        got = self._results.get(key)
        if got is None:
            data = e.data if e.data is not None else orjson.loads(e.payload)
            seated: list[tuple[int, Any]] = []
            own: dict[str, list[tuple[int, Any]]] = {}
            for i, r in enumerate(data.get("results", ())):
                if _seated(r):
                    seated.append((i, r))
                else:
                    own.setdefault(_key(r.get("player")), []).append((i, r))
            got = self._results[key] = _Results(
                rest={k: v for k, v in data.items() if k != "results"}, seated=seated, own=own)
            if len(self._results) > 8:
                self._results.popitem(last=False)
        mine = sorted([*got.seated, *got.own.get(viewer, ())], key=lambda x: x[0])
        data = {**got.rest, "results": [r for _, r in mine]}
        return event_message(e.seq, e.kind, data, Audience(e.table_id, viewer=viewer), at=e.at)


@dataclass(frozen=True, slots=True)
class _Batch:
    #: Its events' payloads (a watcher whose key is not in it is named by none of them).
    text: str
    events: list[TableEvent]
    #: The message every watcher it does not name is sent (None: nothing for them).
    shared: tb.TableEvents | None


@dataclass(frozen=True, slots=True)
class _Results:
    rest: dict[str, Any]
    seated: list[tuple[int, Any]]
    own: dict[str, list[tuple[int, Any]]]


def without_superseded_totals(batch: Sequence[TableEvent]) -> list[TableEvent]:
    """A batch of events without the Bet Behind totals a later announcement in it replaces
    (each states every seat's totals): a watcher that fell behind gets the newest, not every
    one since."""
    last = max((i for i, e in enumerate(batch) if e.kind == "behind_totals"), default=-1)
    return [e for i, e in enumerate(batch) if e.kind != "behind_totals" or i == last]


def _may_name(payload: str, viewer: str) -> bool:
    """Whether an event's JSON payload may name ``viewer``: their key appears in it (as JSON
    writes it; a key with a character JSON escapes is always looked at)."""
    plain = viewer.isprintable() and '"' not in viewer and "\\" not in viewer
    return not plain or not viewer.isascii() or viewer in payload


def recall_events(table_id: str, rec: RoundRecord, operator: str) -> list[tb.TableEvent]:
    """A round's engine events (hole card included), numbered from 1, for an operator: its own
    players with their ids, the others by the names the table showed."""
    who = Audience(table_id, operator=operator)
    names = dict(rec.names)
    out = []
    for i, (kind, payload) in enumerate(rec.events, start=1):
        out.append(event_message(i, kind, orjson.loads(payload), who, names=names))
    return out
