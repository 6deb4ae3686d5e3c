"""A round of blackjack: one dealer hand against 1..N boxes, as a state machine.

Each player command follows the triad ``can`` (yes/no), ``verify`` (raise the precise
:class:`~rgs.engine.errors.EngineError` naming the broken rule) and ``act`` (apply and return the
events it produced). A refused command changes nothing. Dealer play and settlement run by
themselves inside the call that leaves no decision open.

The round never creates randomness: every card comes from the :class:`CardSource` it was given.
Its events rebuild it exactly (:func:`replay`).
"""

from __future__ import annotations

from collections.abc import Sequence

from rgs.engine.bets import VerifiedBets, verify_bets
from rgs.engine.cards import CARD_VALUE, CardSource, hand_total
from rgs.engine.errors import ActionNotAllowed, WrongHand, WrongPhase
from rgs.engine.model import (
    INSURANCE_ACTIONS,
    Action,
    BehindBet,
    BehindInsuranceSettled,
    BehindSettled,
    BehindStakeAdded,
    BehindView,
    BoxBet,
    BoxView,
    CardBurned,
    DealerPeeked,
    Event,
    HandSettled,
    HandStatus,
    HandView,
    HoleCardRevealed,
    InsuranceSettled,
    LegalAction,
    Outcome,
    Phase,
    PlayerActed,
    RoundSettled,
    RoundStarted,
    RoundView,
    RoundVoided,
    SideBetSettled,
    SideBetView,
)
from rgs.engine.rules import (
    InsuranceOffer,
    Peek,
    RuleSet,
    SideBetKind,
    Surrender,
    TableLimits,
    up_class,
)
from rgs.engine.settlement import behind_payout, settle_hand, twenty_plus_outcome
from rgs.engine.sidebets import perfect_pairs, twenty_one_plus_three, twenty_plus
from rgs.engine.state import BoxState, HandState, card_event

_HAND_ACTIONS = (
    Action.HIT, Action.STAND, Action.DOUBLE, Action.SPLIT, Action.SURRENDER, Action.POWER_SPLIT,
    Action.POWER_DOUBLE, Action.POWER_KEEP, Action.POWER_REPLACE, Action.CASH_OUT,
)


class Round:
    """One round in play. Build it with :meth:`deal` (or :func:`replay`)."""

    __slots__ = (
        "_active", "_boxes", "_dealer", "_dealer_bj", "_events", "_hole_hidden", "_seat_index",
        "_source",
        "limits", "phase", "rules", "seq",
    )

    def __init__(self, rules: RuleSet, source: CardSource, limits: TableLimits) -> None:
        """Use :meth:`deal`; this only sets up an empty round."""
        self.rules = rules
        self.limits = limits
        self._source = source
        self._boxes: list[BoxState] = []
        self._seat_index: dict[object, int] = {}
        self._dealer: list[str] = []
        self._hole_hidden = False
        self._dealer_bj: bool | None = None  # None: not known yet
        self._events: list[Event] = []
        self._active: tuple[int, int] | None = None
        self.phase = Phase.PLAYER_TURN
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
        if isinstance(bets, VerifiedBets):
            ordered = (bets.boxes if bets.holds_for(rules, lim)
                       else VerifiedBets(rules=rules, boxes=bets.boxes, limits=lim).boxes)
        else:
            ordered = VerifiedBets(rules=rules, boxes=tuple(bets), limits=lim).boxes
        rnd = cls(rules, source, lim)
        rnd._boxes = [BoxState(b) for b in ordered]
        rnd._seat_index = {b.seat: i for i, b in enumerate(ordered)}
        rnd._emit(RoundStarted(variant=rules.id, boxes=ordered, limits=lim))
        rnd.seq = 1
        for box in rnd._boxes:
            rnd._deal_to(box, 0)
        rnd._deal_dealer()
        for box in rnd._boxes:
            rnd._deal_to(box, 0)
        if rules.hole_card:
            rnd._deal_dealer(face_down=True)
        rnd._after_deal()
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
        return self.phase in (Phase.SETTLED, Phase.VOIDED)

    def dealer_cards(self, *, reveal: bool = False) -> tuple[str, ...]:
        """The dealer's cards; the hole card only once revealed unless ``reveal``."""
        if self._hole_hidden and not reveal:
            return tuple(self._dealer[:1])
        return tuple(self._dealer)

    def seats(self) -> tuple[int, ...]:
        """The seats in play, in order."""
        return tuple(b.bet.seat for b in self._boxes)

    def hand_count(self, seat: int) -> int:
        """How many hands the box at ``seat`` holds (more than one after a split)."""
        return len(self._boxes[self._locate(seat, 0)[0]].hands)

    def hand_cards(self, seat: int, hand: int = 0) -> tuple[str, ...]:
        """The cards of one hand."""
        return tuple(self._hand(seat, hand)[1].cards)

    @property
    def total_staked(self) -> int:
        """Everything the player staked in this round (bets, side bets, doubles, insurance)."""
        total = 0
        for box in self._boxes:
            total += box.bet.twenty_plus + box.bet.perfect_pairs + box.bet.twenty_one_plus_three
            total += box.insurance + sum(h.stake for h in box.hands)
            if box.bet.behind:
                total += sum(box.behind_insurance.values())
                total += sum(sum(h.behind.values()) for h in box.hands)
        return total

    @property
    def total_paid(self) -> int:
        """Everything paid back to the player so far (stakes returned plus wins)."""
        total = 0
        for box in self._boxes:
            total += box.insurance_payout + sum(r[2] for r in box.side_results.values())
            total += sum(h.payout for h in box.hands)
            if box.bet.behind:
                total += sum(box.behind_insurance_paid.values())
                total += sum(sum(h.behind_paid.values()) for h in box.hands)
        return total

    def money_by_player(self) -> dict[str, tuple[int, int]]:
        """(staked, paid) per player: the seat players (``BoxBet.player``, else ``seat:N``) and
        every Bet Behind player, so each one's wallet can be debited and credited."""
        out: dict[str, list[int]] = {}
        for box in self._boxes:
            own = out.setdefault(box.bet.player or f"seat:{box.bet.seat}", [0, 0])
            own[0] += box.bet.twenty_plus + box.bet.perfect_pairs + box.bet.twenty_one_plus_three
            own[0] += box.insurance + sum(h.stake for h in box.hands)
            own[1] += box.insurance_payout + sum(r[2] for r in box.side_results.values())
            own[1] += sum(h.payout for h in box.hands)
            for bb in box.bet.behind:
                v = self._behind_view(box, bb)
                acc = out.setdefault(bb.player, [0, 0])
                acc[0] += v.staked
                acc[1] += v.paid
        return {p: (s, q) for p, (s, q) in out.items()}

    # ------------------------------------------------------------------ the command triad

    def can(self, seat: int, hand: int, action: Action) -> bool:
        """True when ``action`` on (seat, hand) is allowed now."""
        try:
            self.verify(seat, hand, action)
        except (ActionNotAllowed, WrongHand, WrongPhase):
            return False
        return True

    def verify(self, seat: int, hand: int, action: Action) -> None:
        """Raise the error naming the broken rule if ``action`` is not allowed now."""
        if not isinstance(action, Action):
            raise ActionNotAllowed(f"{action!r} is not an action", rule="action")
        if action in INSURANCE_ACTIONS:
            self._verify_insurance(seat, hand)
            return
        if self.phase is not Phase.PLAYER_TURN:
            raise WrongPhase(f"{action.value} is a playing decision; the round is in "
                             f"{self.phase.value}", rule="phase")
        b, h = self._locate(seat, hand)
        if self._active != (b, h):
            want = self.to_act
            raise WrongHand(f"seat {seat} hand {hand} is not the hand to act; "
                            f"seat {want[0] if want else '-'} hand {want[1] if want else '-'} is",
                            rule="turn_order")
        box = self._boxes[b]
        hd = box.hands[h]
        reason = self._refusal(box, hd, action)
        if reason is not None:
            raise ActionNotAllowed(reason[1], rule=reason[0])

    def act(self, seat: int, hand: int, action: Action) -> tuple[Event, ...]:
        """Apply a decision and return the events it produced (dealer play included)."""
        self.verify(seat, hand, action)
        start = len(self._events)
        self.seq += 1
        if action in INSURANCE_ACTIONS:
            self._insurance(seat, action is Action.INSURE)
        else:
            b, h = self._active  # type: ignore[misc]  # verify guarantees an active hand
            self._play(b, h, action)
        return tuple(self._events[start:])

    def legal_actions(self, seat: int, hand: int = 0) -> tuple[LegalAction, ...]:
        """The decisions open to (seat, hand) now, each with its cost or offer."""
        b, h = self._locate(seat, hand)
        box = self._boxes[b]
        if self.phase is Phase.INSURANCE:
            return self._insurance_options(box) if h == 0 else ()
        if self.phase is not Phase.PLAYER_TURN or self._active != (b, h):
            return ()
        hd = box.hands[h]
        out = []
        for action in _HAND_ACTIONS:
            if self._refusal(box, hd, action) is None:
                out.append(self._priced(box, hd, action))
        return tuple(out)

    # convenience commands, one per decision

    def insure(self, seat: int, take: bool = True) -> tuple[Event, ...]:
        """Take (or decline) insurance on a box."""
        return self.act(seat, 0, Action.INSURE if take else Action.DECLINE_INSURANCE)

    def hit(self, seat: int, hand: int = 0) -> tuple[Event, ...]:
        """Take one more card."""
        return self.act(seat, hand, Action.HIT)

    def stand(self, seat: int, hand: int = 0) -> tuple[Event, ...]:
        """Take no more cards."""
        return self.act(seat, hand, Action.STAND)

    def double(self, seat: int, hand: int = 0) -> tuple[Event, ...]:
        """Double the stake, take exactly one card and stand."""
        return self.act(seat, hand, Action.DOUBLE)

    def split(self, seat: int, hand: int = 0) -> tuple[Event, ...]:
        """Split a pair into two hands."""
        return self.act(seat, hand, Action.SPLIT)

    def surrender(self, seat: int, hand: int = 0) -> tuple[Event, ...]:
        """Give up the hand for half the bet back."""
        return self.act(seat, hand, Action.SURRENDER)

    def cash_out(self, seat: int, hand: int = 0) -> tuple[Event, ...]:
        """Take the Cash Out offer instead of playing on."""
        return self.act(seat, hand, Action.CASH_OUT)

    def void(self, reason: str) -> tuple[Event, ...]:
        """Void the round (malfunction): every stake taken is returned, nothing is paid."""
        if self.finished:
            raise WrongPhase(f"the round is already {self.phase.value}", rule="phase")
        staked = self.total_staked
        for box in self._boxes:
            for hd in box.hands:
                hd.outcome, hd.payout, hd.status = Outcome.VOID, hd.stake, HandStatus.SETTLED
                hd.behind_paid = dict(hd.behind)
            box.insurance_payout = box.insurance
            box.behind_insurance_paid = dict(box.behind_insurance)
            box.side_results = {k: ("void", 0, s) for k, s in box.bet.side_stakes()}
        self._active = None
        self.phase = Phase.VOIDED
        self.seq += 1
        ev = RoundVoided(reason=reason, total_staked=staked, total_refunded=staked)
        self._emit(ev)
        return (ev,)

    # ------------------------------------------------------------------ the view

    def view(self) -> RoundView:
        """The public state of the round (no hole card before it is revealed)."""
        dealer = self.dealer_cards()
        d_total, d_soft = hand_total(dealer)
        boxes = []
        for bi, box in enumerate(self._boxes):
            hands = []
            for hi, hd in enumerate(box.hands):
                allowed = (self.legal_actions(box.bet.seat, hi)
                           if self.phase is Phase.PLAYER_TURN and self._active == (bi, hi) else ())
                status = hd.status
                if status is HandStatus.ACTIVE and not hd.done and len(hd.cards) < 2 \
                        and hd.from_split:
                    status = HandStatus.WAITING
                hands.append(HandView(
                    index=hi, cards=tuple(hd.cards), total=hd.total, soft=hd.soft,
                    stake=hd.stake, status=status, outcome=hd.outcome, payout=hd.payout,
                    from_split=hd.from_split, doubled=hd.doubled, allowed=allowed))
            sides = []
            for kind, stake in box.bet.side_stakes():
                res = box.side_results.get(kind)
                sides.append(SideBetView(kind=kind, stake=stake, line=res[0] if res else "",
                                         payout=res[2] if res else 0, settled=res is not None))
            boxes.append(BoxView(
                seat=box.bet.seat, stake=box.bet.stake, hands=tuple(hands),
                side_bets=tuple(sides), insurance_offered=box.insurance_offered,
                insurance_stake=box.insurance, insurance_payout=box.insurance_payout,
                insurance_allowed=self._insurance_options(box)
                if self.phase is Phase.INSURANCE else (),
                behind=tuple(self._behind_view(box, bb) for bb in box.bet.behind)))
        return RoundView(
            variant=self.rules.id, phase=self.phase, seq=self.seq, dealer_cards=dealer,
            dealer_total=d_total, dealer_soft=d_soft,
            dealer_hole_hidden=self._hole_hidden, boxes=tuple(boxes), to_act=self.to_act,
            total_staked=self.total_staked, total_paid=self.total_paid)

    @staticmethod
    def _behind_view(box: BoxState, bb: BehindBet) -> BehindView:
        p = bb.player
        staked = box.behind_insurance.get(p, 0) + sum(h.behind.get(p, 0) for h in box.hands)
        paid = box.behind_insurance_paid.get(p, 0) + sum(h.behind_paid.get(p, 0)
                                                           for h in box.hands)
        return BehindView(player=p, staked=staked, paid=paid, follow_double=bb.follow_double,
                          follow_split=bb.follow_split)

    # ------------------------------------------------------------------ internals: dealing

    def _emit(self, event: Event) -> None:
        self._events.append(event)

    def _deal_to(self, box: BoxState, h: int) -> str:
        card = self._source.draw()
        box.hands[h].add(card)
        self._events.append(card_event(card, box.bet.seat, h, False))
        return card

    def _deal_dealer(self, *, face_down: bool = False) -> str:
        card = self._source.draw()
        self._dealer.append(card)
        if face_down:
            self._hole_hidden = True
        self._events.append(card_event(card, None, 0, face_down))
        return card

    def _reveal_hole(self) -> None:
        if self._hole_hidden:
            self._hole_hidden = False
            self._emit(HoleCardRevealed(card=self._dealer[1]))

    def _locate(self, seat: int, hand: int) -> tuple[int, int]:
        try:
            bi = self._seat_index.get(seat)
        except TypeError:  # an unhashable "seat"
            bi = None
        if bi is not None and type(seat) is int:
            box = self._boxes[bi]
            if type(hand) is int and 0 <= hand < len(box.hands):
                return bi, hand
            raise WrongHand(f"seat {seat} has no hand {hand!r} "
                            f"(hands 0..{len(box.hands) - 1})", rule="hand_index")
        raise WrongHand(f"seat {seat!r} has no box in this round (seats {list(self.seats())})",
                        rule="seat")

    def _hand(self, seat: int, hand: int) -> tuple[BoxState, HandState]:
        b, h = self._locate(seat, hand)
        box = self._boxes[b]
        return box, box.hands[h]

    def _dealer_natural(self) -> bool:
        """The dealer's first two cards are an ace and a ten-valued card (not any two cards
        that count 11)."""
        a, b = CARD_VALUE[self._dealer[0]], CARD_VALUE[self._dealer[1]]
        return a + b == 11 and 1 in (a, b)

    def _up_can_blackjack(self) -> bool:
        return CARD_VALUE[self._dealer[0]] in (1, 10)

    # ------------------------------------------------------------------ after the deal

    def _after_deal(self) -> None:
        r = self.rules
        for box in self._boxes:
            hd = box.hands[0]
            if hd.natural:
                hd.done, hd.status = True, HandStatus.BLACKJACK
            self._settle_deal_side_bets(box)
        up_ace = CARD_VALUE[self._dealer[0]] == 1
        if up_ace and r.insurance:
            for box in self._boxes:
                setting = box.bet.insurance_offer
                offered = (setting is InsuranceOffer.ALWAYS
                           or (setting is InsuranceOffer.ONLY_ON_PLAYER_BLACKJACK
                               and box.hands[0].natural))
                box.insurance_offered = offered and box.bet.stake // 2 > 0
                box.insurance_decided = not box.insurance_offered
                for bb in box.bet.behind:  # decided in advance by each Bet Behind player
                    if bb.insure and bb.stake // 2 > 0:
                        box.behind_insurance[bb.player] = bb.stake // 2
                        self._emit(BehindStakeAdded(seat=box.bet.seat, hand=0, player=bb.player,
                                                    action=Action.INSURE, amount=bb.stake // 2))
            if any(b.insurance_offered for b in self._boxes):
                self.phase = Phase.INSURANCE
                return
        self._after_insurance()

    def _settle_deal_side_bets(self, box: BoxState) -> None:
        r, bet = self.rules, box.bet
        first, second = box.hands[0].cards
        if bet.perfect_pairs and r.perfect_pairs is not None:
            line, pays = perfect_pairs(first, second, r.perfect_pairs)
            self._settle_side(box, SideBetKind.PERFECT_PAIRS, bet.perfect_pairs, line, pays)
        if bet.twenty_one_plus_three and r.twenty_one_plus_three is not None:
            line, pays = twenty_one_plus_three(first, second, self._dealer[0],
                                               r.twenty_one_plus_three)
            self._settle_side(box, SideBetKind.TWENTY_ONE_PLUS_THREE,
                              bet.twenty_one_plus_three, line, pays)

    def _settle_side(self, box: BoxState, kind: SideBetKind, stake: int, line: str,
                     pays: int) -> None:
        payout = stake * (pays + 1) if pays else 0
        box.side_results[kind] = (line, pays, payout)
        self._emit(SideBetSettled(seat=box.bet.seat, kind=kind, stake=stake, line=line,
                                  pays=pays, payout=payout))

    def _insurance_options(self, box: BoxState) -> tuple[LegalAction, ...]:
        if self.phase is not Phase.INSURANCE or box.insurance_decided:
            return ()
        return (LegalAction(action=Action.INSURE, cost=box.bet.stake // 2),
                LegalAction(action=Action.DECLINE_INSURANCE))

    def _verify_insurance(self, seat: int, hand: int) -> None:
        if self.phase is not Phase.INSURANCE:
            raise WrongPhase(f"insurance is decided before play; the round is in "
                             f"{self.phase.value}", rule="insurance_phase")
        b, _ = self._locate(seat, hand)
        if hand != 0:
            raise WrongHand("insurance is decided per box (hand 0)", rule="hand_index")
        box = self._boxes[b]
        if not box.insurance_offered:
            raise ActionNotAllowed(f"seat {seat} was not offered insurance",
                                   rule="insurance_offer")
        if box.insurance_decided:
            raise ActionNotAllowed(f"seat {seat} has already decided insurance",
                                   rule="insurance_once")

    def _insurance(self, seat: int, take: bool) -> None:
        b, _ = self._locate(seat, 0)
        box = self._boxes[b]
        box.insurance_decided = True
        if take:
            box.insurance = box.bet.stake // 2
        self._emit(PlayerActed(seat=seat, hand=0,
                               action=Action.INSURE if take else Action.DECLINE_INSURANCE,
                               stake_added=box.insurance))
        if all(bx.insurance_decided for bx in self._boxes):
            self._after_insurance()

    def _after_insurance(self) -> None:
        r = self.rules
        up = CARD_VALUE[self._dealer[0]]
        peeks = r.hole_card and (
            (up == 1 and r.peek in (Peek.ACE_AND_TEN, Peek.ACE_ONLY))
            or (up == 10 and r.peek is Peek.ACE_AND_TEN))
        self.phase = Phase.PLAYER_TURN
        if peeks:
            bj = self._dealer_natural()
            self._emit(DealerPeeked(blackjack=bj))
            self._dealer_bj = bj
            self._settle_insurance()
            if bj:
                self._reveal_hole()
                self._settle_round()
                return
        elif not self._up_can_blackjack():
            self._dealer_bj = False
        self._active = (0, -1)
        self._advance()

    def _any_insurance(self) -> bool:
        return any(b.insurance or b.behind_insurance for b in self._boxes)

    def _settle_insurance(self) -> None:
        bj = bool(self._dealer_bj)
        pays = self.rules.insurance_pays + 1
        for box in self._boxes:
            if box.insurance:
                box.insurance_payout = box.insurance * pays if bj else 0
                self._emit(InsuranceSettled(seat=box.bet.seat, stake=box.insurance,
                                            payout=box.insurance_payout))
            for player, stake in box.behind_insurance.items():
                paid = box.behind_insurance_paid[player] = stake * pays if bj else 0
                self._emit(BehindInsuranceSettled(seat=box.bet.seat, player=player,
                                                  stake=stake, payout=paid))

    # ------------------------------------------------------------------ playing decisions

    def _refusal(self, box: BoxState, hd: HandState, action: Action) -> tuple[str, str] | None:
        """Why ``action`` is refused on the active hand ``hd`` — (rule, message) — or None."""
        r = self.rules
        if hd.power_pending:
            if action in (Action.POWER_KEEP, Action.POWER_REPLACE):
                return None
            return ("power_double_choice", "keep or replace the Power Double card first")
        if action in (Action.POWER_KEEP, Action.POWER_REPLACE):
            return ("power_double_choice", "there is no Power Double card to keep or replace")
        n = len(hd.cards)
        if action is Action.STAND:
            return None
        if action is Action.HIT:
            return None  # a hand that can no longer draw is never the active hand
        original = not hd.from_split and len(box.hands) == 1
        if action is Action.DOUBLE or action is Action.POWER_DOUBLE:
            power = (original and n == 2 and hd.hard in r.power_double_counts)
            if action is Action.DOUBLE and power:
                return ("power_double_replaces_double",
                        f"a two-card count of {hd.hard} gets Power Double instead of a double")
            if action is Action.POWER_DOUBLE and not power:
                return ("power_double", "Power Double needs the original two-card hand with a "
                        f"count (aces as 1) of {sorted(r.power_double_counts) or 'none'}")
            if n != 2 and not r.double_any_cards:
                return ("double_first_two_cards", "doubling is allowed on the first two cards only")
            if hd.from_split and not r.double_after_split:
                return ("double_after_split", "no double after a split")
            if hd.split_aces and not r.double_split_aces:
                return ("double_split_aces", "split aces may not be doubled")
            return None
        if action is Action.SPLIT:
            if n != 2 or CARD_VALUE[hd.cards[0]] != CARD_VALUE[hd.cards[1]]:
                return ("split_equal_value", "only two cards of equal value may be split")
            if hd.power_split:
                return ("power_split_no_resplit", "a Power Split hand may not be split")
            if hd.depth >= r.max_split_depth:
                return ("max_split_depth", "this hand may not be split again"
                        if hd.depth else "this table allows no split")
            if len(box.hands) >= r.max_hands:
                return ("max_hands", f"a box may hold at most {r.max_hands} hands")
            if hd.split_aces and not r.resplit_aces:
                return ("resplit_aces", "split aces may not be split again")
            return None
        if action is Action.POWER_SPLIT:
            if not (r.power_split_totals and original and n == 2):
                return ("power_split", "Power Split is only for the original two-card hand")
            v0, v1 = CARD_VALUE[hd.cards[0]], CARD_VALUE[hd.cards[1]]
            if 1 in (v0, v1) or v0 == v1 or hd.total not in r.power_split_totals:
                return ("power_split", "Power Split needs two different non-aces totalling "
                        f"{sorted(r.power_split_totals)}")
            if len(box.hands) >= r.max_hands:  # pragma: no cover - max_hands >= 2 always
                return ("max_hands", f"a box may hold at most {r.max_hands} hands")
            return None
        if action is Action.SURRENDER:
            if r.surrender is Surrender.NONE:
                return ("surrender", "this table has no surrender")
            if not original or n != 2:
                return ("surrender_first_decision",
                        "surrender is only the first decision on the original two cards")
            return None
        if action is Action.CASH_OUT:
            if r.cash_out is None:
                return ("cash_out", "this table has no Cash Out")
            if len(box.hands) != 1 or hd.doubled:
                return ("cash_out_unsplit_undoubled", "Cash Out is for an unsplit, undoubled hand")
            if self._dealer_bj:  # pragma: no cover - a known dealer blackjack ends the round
                return ("cash_out", "the dealer has blackjack")
            if self._cash_out_offer(box, hd) is None:
                return ("cash_out_table", "no Cash Out offer for this hand")
            return None
        raise AssertionError(action)  # pragma: no cover

    def _cash_out_offer(self, box: BoxState, hd: HandState) -> int | None:
        table = self.rules.cash_out
        if table is None:
            return None
        bp = table.offer_bp(hd.total, hd.soft, up_class(self._dealer[0]))
        return None if bp is None else hd.stake * bp // 10_000

    def _priced(self, box: BoxState, hd: HandState, action: Action) -> LegalAction:
        if action in (Action.DOUBLE, Action.POWER_DOUBLE, Action.SPLIT, Action.POWER_SPLIT):
            return LegalAction(action=action, cost=hd.stake)
        if action is Action.CASH_OUT:
            return LegalAction(action=action, offer=self._cash_out_offer(box, hd) or 0)
        if action is Action.HIT and box.bet.safety_net and (
                (hd.soft and hd.total == 20) or (not hd.soft and hd.total >= 17)):
            return LegalAction(action=action, warning="safety_net")
        return LegalAction(action=action)

    def _play(self, b: int, h: int, action: Action) -> None:
        box = self._boxes[b]
        hd = box.hands[h]
        seat = box.bet.seat
        if h == 0 and len(box.hands) == 1 and action is not Action.STAND:
            box.touched = True
        if action is Action.HIT:
            self._emit(PlayerActed(seat=seat, hand=h, action=action))
            self._deal_to(box, h)
            self._check_hand_end(box, hd)
        elif action is Action.STAND:
            self._emit(PlayerActed(seat=seat, hand=h, action=action))
            hd.done, hd.status = True, HandStatus.STOOD
        elif action is Action.DOUBLE:
            added = hd.stake
            hd.stake += added
            hd.doubled = True
            self._emit(PlayerActed(seat=seat, hand=h, action=action, stake_added=added))
            self._follow(box, h, hd, action)
            self._deal_to(box, h)
            hd.done = True
            hd.status = HandStatus.BUSTED if hd.total > 21 else HandStatus.DOUBLED
            self._check_charlie(hd)
        elif action is Action.POWER_DOUBLE:
            added = hd.stake
            hd.stake += added
            hd.doubled = True
            self._emit(PlayerActed(seat=seat, hand=h, action=action, stake_added=added))
            self._follow(box, h, hd, action)
            self._deal_to(box, h)
            hd.power_pending = True
            hd.status = HandStatus.POWER_CHOICE
        elif action in (Action.POWER_KEEP, Action.POWER_REPLACE):
            self._emit(PlayerActed(seat=seat, hand=h, action=action))
            if action is Action.POWER_REPLACE:
                card = hd.drop_last()
                self._emit(CardBurned(card=card, seat=seat, hand=h))
                self._deal_to(box, h)
            hd.power_pending = False
            hd.done = True
            hd.status = HandStatus.BUSTED if hd.total > 21 else HandStatus.DOUBLED
        elif action in (Action.SPLIT, Action.POWER_SPLIT):
            self._emit(PlayerActed(seat=seat, hand=h, action=action, stake_added=hd.stake))
            second = hd.cards[1]
            hd.drop_last()
            aces = action is Action.SPLIT and CARD_VALUE[second] == 1
            power = action is Action.POWER_SPLIT
            depth = hd.depth + 1
            hd.from_split, hd.depth, hd.split_aces, hd.power_split = True, depth, aces, power
            box.hands.insert(h + 1, HandState([second], hd.stake, from_split=True, depth=depth,
                                              split_aces=aces, power_split=power))
            self._follow(box, h, hd, action)
            self._deal_to(box, h)
            self._check_hand_end(box, hd)
        elif action is Action.SURRENDER:
            self._emit(PlayerActed(seat=seat, hand=h, action=action))
            hd.done, hd.status = True, HandStatus.SURRENDERED
        elif action is Action.CASH_OUT:
            hd.cash_out = self._cash_out_offer(box, hd) or 0
            table = self.rules.cash_out
            hd.cash_out_bp = (table.offer_bp(hd.total, hd.soft, up_class(self._dealer[0])) or 0
                              if table is not None else 0)
            self._emit(PlayerActed(seat=seat, hand=h, action=action))
            hd.done, hd.status = True, HandStatus.CASHED_OUT
        if hd.done:
            self._advance()

    def _follow(self, box: BoxState, h: int, hd: HandState, action: Action) -> None:
        """Bet Behind stakes on hand ``h`` follow a double, or a split onto hand ``h + 1``, as
        each bettor chose in advance."""
        for bb in box.bet.behind:
            if bb.player not in hd.behind:
                continue
            if action in (Action.DOUBLE, Action.POWER_DOUBLE) and bb.follow_double:
                added = hd.behind[bb.player]
                hd.behind[bb.player] += added
                self._emit(BehindStakeAdded(seat=box.bet.seat, hand=h, player=bb.player,
                                            action=action, amount=added))
            elif action in (Action.SPLIT, Action.POWER_SPLIT) and bb.follow_split:
                box.hands[h + 1].behind[bb.player] = bb.stake
                self._emit(BehindStakeAdded(seat=box.bet.seat, hand=h + 1, player=bb.player,
                                            action=action, amount=bb.stake))

    def _check_charlie(self, hd: HandState) -> None:
        n = self.rules.charlie_cards
        if n is not None and len(hd.cards) >= n and hd.total <= 21:
            hd.done, hd.status = True, HandStatus.CHARLIE

    def _check_hand_end(self, box: BoxState, hd: HandState) -> None:
        """A hand stops by itself at 21, on a bust, at the card-count rule, or as a one-card
        split ace."""
        t = hd.total
        if t > 21:
            hd.done, hd.status = True, HandStatus.BUSTED
        elif t == 21 or (hd.split_aces and self.rules.split_aces_one_card and len(hd.cards) >= 2):
            hd.done, hd.status = True, HandStatus.STOOD
        if not hd.done or hd.status is HandStatus.STOOD:
            self._check_charlie(hd)

    def _advance(self) -> None:
        """Move to the next hand that needs a decision; dealing split hands their second card
        as they come into play. With none left, the dealer plays and the round settles."""
        assert self._active is not None
        b, h = self._active
        h += 1
        while b < len(self._boxes):
            box = self._boxes[b]
            while h < len(box.hands):
                hd = box.hands[h]
                if not hd.done:
                    if len(hd.cards) < 2:
                        self._deal_to(box, h)
                        self._check_hand_end(box, hd)
                    if not hd.done:
                        self._active = (b, h)
                        return
                h += 1
            b, h = b + 1, 0
        self._active = None
        self._dealer_turn()

    # ------------------------------------------------------------------ dealer and settlement

    def _dealer_turn(self) -> None:
        r = self.rules
        up_bj = self._up_can_blackjack() and self._dealer_bj is None
        live = False  # a hand that needs the dealer's final total
        needs_bj = self._any_insurance() and self._dealer_bj is None
        for box in self._boxes:
            for hd in box.hands:
                st = hd.status
                if st in (HandStatus.STOOD, HandStatus.DOUBLED):
                    live = True
                elif st is HandStatus.BLACKJACK or (
                        st is HandStatus.CHARLIE and not r.charlie_wins_at_once):
                    needs_bj = needs_bj or up_bj
        if r.hole_card:
            self._reveal_hole()
            if self._dealer_bj is None:
                self._dealer_bj = self._dealer_natural()
        elif live or needs_bj:
            self._deal_dealer()
            self._dealer_bj = self._dealer_natural()
            if self._any_insurance():
                self._settle_insurance()
        if live and not self._dealer_bj:
            hard = sum(CARD_VALUE[c] for c in self._dealer)
            ace = any(CARD_VALUE[c] == 1 for c in self._dealer)
            h17 = r.dealer_hits_soft_17
            while True:
                soft = ace and hard <= 11
                total = hard + 10 if soft else hard
                if total > 17 or (total == 17 and not (h17 and soft)):
                    break
                v = CARD_VALUE[self._deal_dealer()]
                hard += v
                ace = ace or v == 1
        self._settle_round()

    def _settle_round(self) -> None:
        r = self.rules
        dealer_bj = bool(self._dealer_bj)
        d_total, _ = hand_total(self._dealer)
        dealer_push = r.dealer_push_total is not None and d_total == r.dealer_push_total
        for box in self._boxes:
            seat = box.bet.seat
            for hi, hd in enumerate(box.hands):
                outcome, payout, rounded = settle_hand(
                    r, box, hi, hd, dealer_bj=dealer_bj, d_total=d_total, dealer_push=dealer_push)
                hd.outcome, hd.payout, hd.status = outcome, payout, HandStatus.SETTLED
                self._emit(HandSettled(seat=seat, hand=hi, outcome=outcome, stake=hd.stake,
                                       payout=payout, rounded_off=rounded))
                for player, stake in hd.behind.items():
                    paid, cut = behind_payout(r, outcome, stake, hd.cash_out_bp)
                    hd.behind_paid[player] = paid
                    self._emit(BehindSettled(seat=seat, hand=hi, player=player, outcome=outcome,
                                             stake=stake, payout=paid, rounded_off=cut))
            if box.bet.twenty_plus and r.twenty_plus is not None:
                line, pays = twenty_plus(twenty_plus_outcome(box, dealer_bj, d_total,
                                                                   dealer_push), r.twenty_plus)
                self._settle_side(box, SideBetKind.TWENTY_PLUS, box.bet.twenty_plus, line, pays)
        self.phase = Phase.SETTLED
        self._active = None
        self._emit(RoundSettled(total_staked=self.total_staked, total_paid=self.total_paid))
