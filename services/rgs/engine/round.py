"""A round of blackjack: one dealer hand against 1..N boxes, as a state machine.

Each player command follows the triad ``can`` (yes/no), ``verify`` (raise the precise
:class:`~rgs.engine.errors.EngineError` naming the broken rule) and ``act`` (apply and return the
events it produced). A refused command changes nothing. Dealer play and settlement run by
themselves inside the call that leaves no decision open.

The round owns its state, the card source and its events: it deals every card and answers
every command and query. The steps it takes by itself between the players' decisions (the
naturals, the insurance phase, the peek, the next hand to act, the dealer's turn and the
settlement) are :mod:`~rgs.engine.turns`. The rules it applies live beside it, one home each:
:mod:`~rgs.engine.bets` (what may be bet), :mod:`~rgs.engine.actions` (what a hand may do and at
what price), :mod:`~rgs.engine.decisions` (what a decision does to its hand),
:mod:`~rgs.engine.insurance` (insurance taken), :mod:`~rgs.engine.dealer` (how the dealer
plays), :mod:`~rgs.engine.settlement` (what each bet pays), :mod:`~rgs.engine.money` (the money
fold) and :mod:`~rgs.engine.view` (what a client sees).

The round never creates randomness: every card comes from the :class:`CardSource` it was given.
Its events rebuild it exactly (:func:`replay`).
"""

from __future__ import annotations

from collections.abc import Sequence

from rgs.engine import actions, decisions, insurance, turns
from rgs.engine.bets import VerifiedBets, verify_bets
from rgs.engine.cards import CARD_VALUE, CardSource
from rgs.engine.errors import ActionNotAllowed, WrongHand, WrongPhase
from rgs.engine.model import (
    Action,
    BoxBet,
    Event,
    LegalAction,
    RoundStarted,
    RoundView,
    RoundVoided,
)
from rgs.engine.money import Money, box_money, money_by_player, money_totals
from rgs.engine.rules import RuleSet, TableLimits
from rgs.engine.settlement import (
    refund_all,
)
from rgs.engine.state import (
    DEALER_CARD_EVENTS,
    HOLE_CARD_EVENTS,
    SEAT_CARD_EVENTS,
    SHARED_HANDS,
    BoxState,
    card_event,
)
from rgs.engine.view import round_view
from rgs.engine.vocabulary import (
    CASH_OUT,
    DECLINE_INSURANCE,
    DOUBLE,
    HIT,
    INSURANCE,
    INSURE,
    PLAYER_TURN,
    ROUND_SETTLED,
    ROUND_VOIDED,
    SPLIT,
    STAND,
    SURRENDER,
)


class Round:
    """One round in play. Build it with :meth:`deal` (or :func:`replay`)."""

    # The private state is read and written by the round's own steps in turns.py too.
    __slots__ = (
        "_active", "_boxes", "_dealer", "_dealer_bj", "_events", "_hole_hidden",
        "_source",
        "limits", "phase", "rules", "seq",
    )

    def __init__(self, rules: RuleSet, source: CardSource, limits: TableLimits) -> None:
        """Use :meth:`deal`; this only sets up an empty round."""
        self.rules = rules
        self.limits = limits
        self._source = source
        self._boxes: list[BoxState] = []
        self._dealer: list[str] = []
        self._hole_hidden = False
        self._dealer_bj: bool | None = None  # None: not known yet
        self._events: list[Event] = []
        self._active: tuple[int, int] | None = None
        self.phase = PLAYER_TURN
        self.seq = 0

    # ------------------------------------------------------------------ construction

    @classmethod
    def verify_bets(cls, rules: RuleSet, bets: Sequence[BoxBet],
                    limits: TableLimits | None = None) -> None:
        """Raise the precise error if ``bets`` cannot start a round under ``rules``."""
        verify_bets(rules, bets, limits)

    @classmethod
    def deal(cls, rules: RuleSet, source: CardSource, bets: Sequence[BoxBet] | VerifiedBets,
             limits: TableLimits | None = None) -> Round:
        """Place the bets, deal, and resolve what the deal decides.

        ``bets`` are checked in full unless they are :class:`VerifiedBets` for these rules and
        limits (a caller dealing the same bets many times verifies them once).

        Order of the deal: one card to each box in seat order, the dealer's up card, a second
        card to each box, then the hole card in hole-card games.
        """
        lim = limits or rules.limits
        if not (isinstance(bets, VerifiedBets) and (
                # holds_for's common case inline: the same rules and limits objects
                (bets.rules is rules and (bets.limits or rules.limits) is lim)
                or bets.holds_for(rules, lim))):
            bets = VerifiedBets(rules=rules, boxes=tuple(
                bets.boxes if isinstance(bets, VerifiedBets) else bets), limits=lim)
        ordered = bets.boxes
        started = bets.started
        if started.limits is not lim:  # equal limits, another object: the event carries lim
            started = RoundStarted(variant=rules.id, boxes=ordered, limits=lim)
        rnd = cls(rules, source, lim)
        boxes = rnd._boxes
        for b in ordered:
            boxes.append(BoxState(b))
        events = rnd._events
        events.append(started)
        rnd.seq = 1
        for box in boxes:
            rnd._deal_to(box, 0)
        up = source.draw()  # _deal_dealer inline (and for the hole card below)
        rnd._dealer.append(up)
        events.append(DEALER_CARD_EVENTS[up])
        for box in boxes:
            rnd._deal_to(box, 0)
        if rules.hole_card:
            hole = source.draw()
            rnd._dealer.append(hole)
            rnd._hole_hidden = True
            events.append(HOLE_CARD_EVENTS[hole])
        turns.after_deal(rnd)
        return rnd

    # ------------------------------------------------------------------ public queries

    @property
    def events(self) -> tuple[Event, ...]:
        """Every event so far, in order (includes the hole card: server side only)."""
        return tuple(self._events)

    @property
    def to_act(self) -> tuple[int, int] | None:
        """(seat, hand index) of the hand whose decision is awaited, or None."""
        if self._active is None:
            return None
        b, h = self._active
        return (self._boxes[b].bet.seat, h)

    @property
    def finished(self) -> bool:
        """True once the round is settled or voided."""
        return self.phase in (ROUND_SETTLED, ROUND_VOIDED)

    def dealer_cards(self, *, reveal: bool = False) -> tuple[str, ...]:
        """The dealer's cards; the hole card only once revealed unless ``reveal``."""
        if self._hole_hidden and not reveal:
            return (self._dealer[0],)
        return tuple(self._dealer)

    def seats(self) -> tuple[int, ...]:
        """The seats in play, in order."""
        return tuple(b.bet.seat for b in self._boxes)

    def hand_count(self, seat: int) -> int:
        """How many hands the box at ``seat`` holds (more than one after a split)."""
        active = self._active
        if active is not None and type(seat) is int:
            box = self._boxes[active[0]]
            if box.bet.seat == seat:  # the box to act (a player's usual question)
                return len(box.hands)
        return len(self._boxes[self._locate(seat, 0)[0]].hands)

    def hand_cards(self, seat: int, hand: int = 0) -> tuple[str, ...]:
        """The cards of one hand."""
        active = self._active
        if active is not None and active[1] == hand and type(seat) is int and type(hand) is int:
            box = self._boxes[active[0]]
            if box.bet.seat == seat:  # the hand to act (a player's usual question)
                return tuple(box.hands[hand].cards)
        b, h = self._locate(seat, hand)
        return tuple(self._boxes[b].hands[h].cards)

    @property
    def total_staked(self) -> int:
        """Everything the players staked in this round (bets, side bets, doubles, insurance)."""
        return money_totals(self._boxes)[0]

    @property
    def total_paid(self) -> int:
        """Everything paid back to the players so far (stakes returned plus wins)."""
        return money_totals(self._boxes)[1]

    def money_by_player(self) -> dict[str, Money]:
        """(staked, paid) per player: the seat players (``BoxBet.player``, else ``seat:N``) and
        every Bet Behind player, so each one's wallet can be debited and credited."""
        return money_by_player(self._boxes)

    def money_by_seat(self) -> dict[int, Money]:
        """(staked, paid) of each box's own player on that box (Bet Behind stakes apart): what
        a shared table's Hot Players count looks at."""
        return {box.bet.seat: box_money(box)[0] for box in self._boxes}

    def view(self) -> RoundView:
        """The public state of the round (no hole card before it is revealed)."""
        return round_view(variant=self.rules.id, phase=self.phase, seq=self.seq,
                          dealer=self.dealer_cards(), hole_hidden=self._hole_hidden,
                          boxes=self._boxes, to_act=self.to_act, legal=self.legal_actions)

    # ------------------------------------------------------------------ the command triad

    def can(self, seat: int, hand: int, action: Action) -> bool:
        """True when ``action`` on (seat, hand) is allowed now."""
        # Without raising: players (and the simulation's basic strategy) ask this several times
        # per decision, and a raised and caught error costs more than the whole check.
        return self._refusal(seat, hand, action) is None

    def verify(self, seat: int, hand: int, action: Action) -> None:
        """Raise the error naming the broken rule if ``action`` is not allowed now."""
        refused = self._refusal(seat, hand, action)
        if refused is not None:
            error, message, rule = refused
            raise error(message, rule=rule)

    def _refusal(self, seat: int, hand: int, action: Action
                 ) -> tuple[type[ActionNotAllowed | WrongHand | WrongPhase], str, str] | None:
        """Why ``action`` on (seat, hand) is refused now — (error, message, rule) — or None."""
        active = self._active
        # The common case skips the turn checks: a playing decision asked of the hand to act (a
        # hand is active only in PLAYER_TURN, so the checks below would all pass).
        if not (active is not None and type(action) is Action and action is not INSURE
                and action is not DECLINE_INSURANCE and type(seat) is int
                and type(hand) is int and active[1] == hand
                and self._boxes[active[0]].bet.seat == seat):
            if not isinstance(action, Action):
                return ActionNotAllowed, f"{action!r} is not an action", "action"
            if action is INSURE or action is DECLINE_INSURANCE:
                return self._insurance_refusal(seat, hand)
            refused = self._turn_refusal(seat, hand, action)
            if refused is not None:
                return refused
            active = self._active
            assert active is not None  # the turn checks passed: (seat, hand) is to act
        box = self._boxes[active[0]]
        reason = actions.refusal(self.rules, box, box.hands[hand], action,
                                 up=self._dealer[0], dealer_bj=self._dealer_bj)
        return None if reason is None else (ActionNotAllowed, reason[1], reason[0])

    def _turn_refusal(self, seat: int, hand: int, action: Action
                      ) -> tuple[type[WrongHand | WrongPhase], str, str] | None:
        """Why a playing decision on (seat, hand) is out of turn now, or None."""
        if self.phase is not PLAYER_TURN:
            return (WrongPhase, f"{action.value} is a playing decision; the round is in "
                    f"{self.phase.value}", "phase")
        try:
            located = self._locate(seat, hand)
        except WrongHand as exc:
            return WrongHand, str(exc), exc.rule
        if self._active != located:
            want = self.to_act
            return (WrongHand, f"seat {seat} hand {hand} is not the hand to act; seat "
                    f"{want[0] if want else '-'} hand {want[1] if want else '-'} is",
                    "turn_order")
        return None

    def act(self, seat: int, hand: int, action: Action, *,
            unfunded: frozenset[str] = frozenset()) -> tuple[Event, ...]:
        """Apply a decision and return the events it produced (dealer play included).

        ``unfunded``: Bet Behind players whose preset would follow this double or split but
        whose added stake was not funded; they stay on the hand at their stake
        (:class:`BehindFollowSkipped`)."""
        refused = self._refusal(seat, hand, action)  # verify(), without a call of its own
        if refused is not None:
            error, message, rule = refused
            raise error(message, rule=rule)
        start = len(self._events)
        self.seq += 1
        if action is INSURE or action is DECLINE_INSURANCE:
            self._insurance(seat, action is INSURE)
        else:
            b, h = self._active  # type: ignore[misc]  # verify guarantees an active hand
            if decisions.apply(self, self._boxes[b], h, action, unfunded):
                turns.advance(self)
        return tuple(self._events[start:])

    def behind_insurance_refusal(self, seat: int, player: str) -> str | None:
        """Why ``player``'s Bet Behind on ``seat`` may not take insurance now, or None."""
        if self.phase is not INSURANCE:
            return "insurance is decided before play; the round is not in its insurance phase"
        bi = self._box_index(seat)
        if bi is None:
            return f"seat {seat!r} has no box in this round"
        return actions.behind_insurance_refusal(self._boxes[bi], seat, player)

    def insure_behind(self, seat: int, player: str) -> tuple[Event, ...]:
        """A Bet Behind player takes insurance live (while the round is in its insurance
        phase), at half their stake; settled with the box's insurance."""
        reason = self.behind_insurance_refusal(seat, player)
        if reason is not None:
            raise ActionNotAllowed(reason, rule="behind_insurance")
        bi = self._box_index(seat)
        assert bi is not None  # the refusal above found the seat's box
        box = self._boxes[bi]
        return (insurance.insure_behind(box, seat, player, self._events.append),)

    def legal_actions(self, seat: int, hand: int = 0) -> tuple[LegalAction, ...]:
        """The decisions open to (seat, hand) now, each with its cost or offer."""
        b, h = self._locate(seat, hand)
        box = self._boxes[b]
        if self.phase is INSURANCE:
            return actions.insurance_options(box) if h == 0 else ()
        if self.phase is not PLAYER_TURN or self._active != (b, h):
            return ()
        return actions.hand_actions(self.rules, box, box.hands[h], up=self._dealer[0],
                                    dealer_bj=self._dealer_bj)

    # convenience commands, one per decision

    def insure(self, seat: int, take: bool = True) -> tuple[Event, ...]:
        """Take (or decline) insurance on a box."""
        return self.act(seat, 0, INSURE if take else DECLINE_INSURANCE)

    def hit(self, seat: int, hand: int = 0) -> tuple[Event, ...]:
        """Take one more card."""
        return self.act(seat, hand, HIT)

    def stand(self, seat: int, hand: int = 0) -> tuple[Event, ...]:
        """Take no more cards."""
        return self.act(seat, hand, STAND)

    def double(self, seat: int, hand: int = 0) -> tuple[Event, ...]:
        """Double the stake, take exactly one card and stand."""
        return self.act(seat, hand, DOUBLE)

    def split(self, seat: int, hand: int = 0) -> tuple[Event, ...]:
        """Split a pair into two hands."""
        return self.act(seat, hand, SPLIT)

    def surrender(self, seat: int, hand: int = 0) -> tuple[Event, ...]:
        """Give up the hand for half the bet back."""
        return self.act(seat, hand, SURRENDER)

    def cash_out(self, seat: int, hand: int = 0) -> tuple[Event, ...]:
        """Take the Cash Out offer instead of playing on."""
        return self.act(seat, hand, CASH_OUT)

    def void(self, reason: str) -> tuple[Event, ...]:
        """Void the round (malfunction): every stake taken is returned, nothing is paid."""
        if self.finished:
            raise WrongPhase(f"the round is already {self.phase.value}", rule="phase")
        staked = self.total_staked
        refund_all(self._boxes)
        self._active = None
        self.phase = ROUND_VOIDED
        self.seq += 1
        ev = RoundVoided(reason=reason, total_staked=staked, total_refunded=staked)
        self._events.append(ev)
        return (ev,)

    # ------------------------------------------------------------------ internals: dealing

    def _deal_to(self, box: BoxState, h: int) -> str:
        card = self._source.draw()
        # The card joins the hand: its totals under cards.best_total, inline (every player card
        # passes here; a test checks this copy against the rule)
        hd = box.hands[h]
        hd.cards.append(card)
        v = CARD_VALUE[card]
        hard = hd.hard = hd.hard + v
        if v == 1:
            hd.has_ace = True
        hd.total = hard + 10 if hard <= 11 and hd.has_ace else hard
        # the box's seat is 1..7 (verified bets)
        self._events.append(SEAT_CARD_EVENTS[box.bet.seat][h][card] if h < SHARED_HANDS
                            else card_event(card, box.bet.seat, h, False))
        return card

    def _deal_dealer(self) -> str:
        """A face-up card to the dealer (the dealer's draws: ``dealer.draw_out`` calls it)."""
        card = self._source.draw()
        self._dealer.append(card)
        self._events.append(DEALER_CARD_EVENTS[card])
        return card

    def _box_index(self, seat: object) -> int | None:
        """Where the box on ``seat`` is in seat order, or None: no box of this round (a seat is
        an int; a table has seven boxes at most, so looking costs less than a map per round)."""
        if type(seat) is int:
            for i, box in enumerate(self._boxes):
                if box.bet.seat == seat:
                    return i
        return None

    def _locate(self, seat: int, hand: int) -> tuple[int, int]:
        bi = self._box_index(seat)
        if bi is not None:
            box = self._boxes[bi]
            if type(hand) is int and 0 <= hand < len(box.hands):
                return bi, hand
            raise WrongHand(f"seat {seat} has no hand {hand!r} "
                            f"(hands 0..{len(box.hands) - 1})", rule="hand_index")
        raise WrongHand(f"seat {seat!r} has no box in this round (seats {list(self.seats())})",
                        rule="seat")

    def _insurance_refusal(self, seat: int, hand: int
                           ) -> tuple[type[ActionNotAllowed | WrongHand | WrongPhase], str,
                                      str] | None:
        if self.phase is not INSURANCE:
            return (WrongPhase, f"insurance is decided before play; the round is in "
                    f"{self.phase.value}", "insurance_phase")
        try:
            b, _ = self._locate(seat, hand)
        except WrongHand as exc:
            return WrongHand, str(exc), exc.rule
        if hand != 0:
            return WrongHand, "insurance is decided per box (hand 0)", "hand_index"
        reason = actions.box_insurance_refusal(self._boxes[b], seat)
        return None if reason is None else (ActionNotAllowed, *reason)

    def _insurance(self, seat: int, take: bool) -> None:
        b, _ = self._locate(seat, 0)
        insurance.decide(self._boxes[b], seat, take, self._events.append)
        if all(bx.insurance_decided for bx in self._boxes):
            turns.after_insurance(self)
