"""All conversion between protobuf messages and domain values, in one place.

``*_from_proto`` validates as it converts (an unknown enum number or an out-of-range integer is
InvalidRequest); ``*_to_proto`` never fails.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from types import MappingProxyType

from google.protobuf.timestamp_pb2 import Timestamp

from rgs.codec import event_kind, to_jsonable
from rgs.engine import (
    Action,
    BoxBet,
    BoxView,
    CardBurned,
    CardDealt,
    Event,
    HandSettled,
    HandStatus,
    HandView,
    HoleCardRevealed,
    InsuranceOffer,
    InsuranceSettled,
    LegalAction,
    Outcome,
    Phase,
    PlayerActed,
    RoundStarted,
    RuleSet,
    SideBetKind,
    SideBetSettled,
    Surrender,
    TableLimits,
)
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.service import fairness
from rgs.service.backoffice import redact
from rgs.service.errors import InvalidRequest
from rgs.service.jurisdiction import ResultClass, classify_result
from rgs.service.model import (
    ActCommand,
    CreateSessionCommand,
    DealCommand,
    FreeBetLeft,
    Hint,
    Movement,
    NewSession,
    PlayResult,
    RoundSummary,
    SessionPosition,
    SettleCommand,
    StoredRound,
    VoidCommand,
)

_INT32_MAX = 2**31 - 1

ACTIONS: dict[int, Action] = {
    bj.ACTION_INSURE: Action.INSURE, bj.ACTION_DECLINE_INSURANCE: Action.DECLINE_INSURANCE,
    bj.ACTION_HIT: Action.HIT, bj.ACTION_STAND: Action.STAND, bj.ACTION_DOUBLE: Action.DOUBLE,
    bj.ACTION_SPLIT: Action.SPLIT, bj.ACTION_SURRENDER: Action.SURRENDER,
    bj.ACTION_POWER_SPLIT: Action.POWER_SPLIT, bj.ACTION_POWER_DOUBLE: Action.POWER_DOUBLE,
    bj.ACTION_POWER_KEEP: Action.POWER_KEEP, bj.ACTION_POWER_REPLACE: Action.POWER_REPLACE,
    bj.ACTION_CASH_OUT: Action.CASH_OUT,
}
ACTION_NUMBERS: dict[Action, bj.Action.ValueType] = {
    a: bj.Action.ValueType(n) for n, a in ACTIONS.items()}
STATUSES: dict[Phase, bj.RoundStatus.ValueType] = {
    Phase.INSURANCE: bj.ROUND_STATUS_INSURANCE, Phase.PLAYER_TURN: bj.ROUND_STATUS_PLAYER_TURN,
    Phase.SETTLED: bj.ROUND_STATUS_SETTLED, Phase.VOIDED: bj.ROUND_STATUS_VOIDED,
}
HAND_STATUSES: dict[HandStatus, bj.HandStatus.ValueType] = {
    HandStatus.WAITING: bj.HAND_STATUS_WAITING, HandStatus.ACTIVE: bj.HAND_STATUS_ACTIVE,
    HandStatus.POWER_CHOICE: bj.HAND_STATUS_POWER_CHOICE, HandStatus.STOOD: bj.HAND_STATUS_STOOD,
    HandStatus.DOUBLED: bj.HAND_STATUS_DOUBLED, HandStatus.BUSTED: bj.HAND_STATUS_BUSTED,
    HandStatus.BLACKJACK: bj.HAND_STATUS_BLACKJACK, HandStatus.CHARLIE: bj.HAND_STATUS_CHARLIE,
    HandStatus.SURRENDERED: bj.HAND_STATUS_SURRENDERED,
    HandStatus.CASHED_OUT: bj.HAND_STATUS_CASHED_OUT, HandStatus.SETTLED: bj.HAND_STATUS_SETTLED,
}
OUTCOMES: dict[Outcome, bj.Outcome.ValueType] = {
    Outcome.BLACKJACK: bj.OUTCOME_BLACKJACK, Outcome.WIN: bj.OUTCOME_WIN,
    Outcome.PUSH: bj.OUTCOME_PUSH, Outcome.LOSE: bj.OUTCOME_LOSE, Outcome.BUST: bj.OUTCOME_BUST,
    Outcome.SURRENDER: bj.OUTCOME_SURRENDER, Outcome.CASHED_OUT: bj.OUTCOME_CASHED_OUT,
    Outcome.CHARLIE: bj.OUTCOME_CHARLIE, Outcome.VOID: bj.OUTCOME_VOID,
}
SIDE_BETS: dict[SideBetKind, bj.SideBetKind.ValueType] = {
    SideBetKind.TWENTY_PLUS: bj.SIDE_BET_KIND_TWENTY_PLUS,
    SideBetKind.PERFECT_PAIRS: bj.SIDE_BET_KIND_PERFECT_PAIRS,
    SideBetKind.TWENTY_ONE_PLUS_THREE: bj.SIDE_BET_KIND_TWENTY_ONE_PLUS_THREE,
}
INSURANCE_OFFERS: dict[int, InsuranceOffer] = {
    bj.INSURANCE_OFFER_UNSPECIFIED: InsuranceOffer.ALWAYS,
    bj.INSURANCE_OFFER_ALWAYS: InsuranceOffer.ALWAYS,
    bj.INSURANCE_OFFER_ONLY_ON_PLAYER_BLACKJACK: InsuranceOffer.ONLY_ON_PLAYER_BLACKJACK,
    bj.INSURANCE_OFFER_NEVER: InsuranceOffer.NEVER,
}
INSURANCE_OFFER_NUMBERS: dict[InsuranceOffer, bj.InsuranceOffer.ValueType] = {
    InsuranceOffer.ALWAYS: bj.INSURANCE_OFFER_ALWAYS,
    InsuranceOffer.ONLY_ON_PLAYER_BLACKJACK: bj.INSURANCE_OFFER_ONLY_ON_PLAYER_BLACKJACK,
    InsuranceOffer.NEVER: bj.INSURANCE_OFFER_NEVER,
}


# ---------------------------------------------------------------------- requests


def deal_from_proto(req: bj.DealRequest) -> DealCommand:
    """A DealCommand; unknown insurance settings are InvalidRequest."""
    boxes = []
    for b in req.boxes:
        offer = INSURANCE_OFFERS.get(b.insurance_offer)
        if offer is None:
            raise InvalidRequest(f"unknown insurance_offer {b.insurance_offer}",
                                 reason="INVALID_ENUM")
        boxes.append(BoxBet(seat=b.seat, stake=b.stake, twenty_plus=b.twenty_plus,
                            perfect_pairs=b.perfect_pairs,
                            twenty_one_plus_three=b.twenty_one_plus_three,
                            insurance_offer=offer, safety_net=b.safety_net))
    if len(req.forced_cards) > 416:
        raise InvalidRequest("too many forced cards", reason="FORCED_CARDS_INVALID")
    return DealCommand(request_id=req.request_id, variant_id=req.variant_id, boxes=tuple(boxes),
                       forced_cards=tuple(req.forced_cards), client_seed=req.client_seed,
                       free_bet_id=req.free_bet_id)


def act_from_proto(req: bj.ActRequest) -> ActCommand:
    """An ActCommand; an unspecified or unknown action is InvalidRequest."""
    action = ACTIONS.get(req.action)
    if action is None:
        raise InvalidRequest(f"unknown action {req.action}", reason="INVALID_ACTION")
    if not 0 <= req.expected_seq <= _INT32_MAX:
        raise InvalidRequest("expected_seq out of range", reason="INVALID_SEQ")
    return ActCommand(request_id=req.request_id, round_id=req.round_id,
                      expected_seq=req.expected_seq, seat=req.seat, hand=req.hand, action=action)


def settle_from_proto(req: bj.SettleRequest) -> SettleCommand:
    """A SettleCommand."""
    return SettleCommand(request_id=req.request_id, round_id=req.round_id)


def void_from_proto(req: op.VoidRoundRequest) -> VoidCommand:
    """A VoidCommand."""
    return VoidCommand(request_id=req.request_id, brand_id=req.brand_id,
                       player_id=req.player_id, round_id=req.round_id, reason=req.reason)


def create_session_from_proto(req: op.CreateSessionRequest) -> CreateSessionCommand:
    """A CreateSessionCommand."""
    return CreateSessionCommand(request_id=req.request_id, brand_id=req.brand_id,
                                player_id=req.player_id, currency=req.currency,
                                nickname=req.nickname,
                                reality_check_s=req.reality_check_interval_s)


# ---------------------------------------------------------------------- responses


def _allowed(a: LegalAction, hint: Hint | None = None) -> bj.AllowedAction:
    msg = bj.AllowedAction(action=ACTION_NUMBERS[a.action], cost=a.cost, offer=a.offer,
                           warning=a.warning)
    if hint is not None:
        msg.expected_value = float(hint.expected_value)
        msg.best = hint.best
        msg.fair_value = hint.fair_value
    return msg


def _hand(h: HandView, hints: Mapping[Action, Hint]) -> bj.Hand:
    return bj.Hand(index=h.index, cards=h.cards, total=h.total, soft=h.soft, stake=h.stake,
                   status=HAND_STATUSES[h.status],
                   outcome=OUTCOMES[h.outcome] if h.outcome else bj.OUTCOME_UNSPECIFIED,
                   payout=h.payout, from_split=h.from_split, doubled=h.doubled,
                   allowed=[_allowed(a, hints.get(a.action)) for a in h.allowed])


def box_to_proto(b: BoxView, hints: Sequence[Hint] = (),
                 behind: Sequence[bj.BoxBehind] = ()) -> bj.Box:
    """A box of a round (``behind``: its Bet Behinds as the caller sees them, at a table)."""
    insured: dict[Action, Hint] = {x.action: x for x in hints if x.seat == b.seat
                                   and x.action in (Action.INSURE, Action.DECLINE_INSURANCE)}
    return bj.Box(
        seat=b.seat, stake=b.stake,
        hands=[_hand(h, {x.action: x for x in hints if (x.seat, x.hand) == (b.seat, h.index)})
               for h in b.hands],
        side_bets=[bj.SideBetResult(kind=SIDE_BETS[s.kind], stake=s.stake, line=s.line,
                                    payout=s.payout, settled=s.settled) for s in b.side_bets],
        insurance_offered=b.insurance_offered, insurance_stake=b.insurance_stake,
        insurance_payout=b.insurance_payout,
        insurance_allowed=[_allowed(a, insured.get(a.action)) for a in b.insurance_allowed],
        behind=behind)


def round_view_to_proto(r: PlayResult) -> bj.RoundView:
    """The public round view of a play result."""
    v = r.view
    msg = bj.RoundView(
        round_id=r.round_id, seq=v.seq, variant_id=v.variant, status=STATUSES[v.phase],
        dealer_cards=v.dealer_cards, dealer_total=v.dealer_total, dealer_soft=v.dealer_soft,
        dealer_hole_hidden=v.dealer_hole_hidden, boxes=[box_to_proto(b, r.hints) for b in v.boxes],
        total_staked=v.total_staked, total_paid=v.total_paid, balance=r.balance,
        currency=r.currency, payment_pending=r.payment_pending)
    if v.to_act is not None:
        msg.to_act.CopyFrom(bj.HandRef(seat=v.to_act[0], hand=v.to_act[1]))
    if r.fair is not None:
        f = r.fair
        msg.fair.CopyFrom(bj.Fairness(
            verifiable=f.verifiable, commitment=f.commitment, client_seed=f.client_seed,
            round_number=f.round_number, decks=f.decks, server_seed=f.server_seed,
            next_commitment=f.next_commitment, dealt_cards=f.dealt))
    if r.position is not None:
        msg.session.CopyFrom(position_to_proto(r.position))
    msg.free_bets.extend(free_bet_to_proto(f) for f in r.free_bets)
    if v.phase is Phase.SETTLED:
        msg.result = RESULT_CLASSES[classify_result(v.total_staked, v.total_paid)]
    return msg


RESULT_CLASSES: Mapping[ResultClass, bj.ResultClass.ValueType] = MappingProxyType({
    ResultClass.WIN: bj.RESULT_CLASS_WIN,
    ResultClass.RETURN_EQUAL: bj.RESULT_CLASS_RETURN_EQUAL,
    ResultClass.RETURN_BELOW: bj.RESULT_CLASS_RETURN_BELOW,
    ResultClass.LOSS: bj.RESULT_CLASS_LOSS,
})


def free_bet_to_proto(f: FreeBetLeft) -> bj.FreeBet:
    """A grant the player may still stake."""
    return bj.FreeBet(grant_id=f.grant_id, value=f.value, left=f.left,
                      expires_at=_ts(f.expires_at), variant_ids=list(f.variants))


def position_to_proto(p: SessionPosition) -> bj.SessionPosition:
    """A session's position."""
    return bj.SessionPosition(started_at=_ts(p.started_at), elapsed_s=p.elapsed_s,
                              total_staked=p.staked, total_paid=p.paid, net_position=p.net)


def last_round_to_proto(r: StoredRound) -> bj.LastRound:
    """A settled round's bets and totals (for Rebet and Ride Bet)."""
    start = r.events[0] if r.events else None
    boxes = start.boxes if isinstance(start, RoundStarted) else ()
    return bj.LastRound(
        variant_id=r.variant, round_id=r.round_id, total_staked=r.total_staked,
        total_paid=r.total_paid,
        boxes=[bj.BoxBet(seat=b.seat, stake=b.stake, twenty_plus=b.twenty_plus,
                         perfect_pairs=b.perfect_pairs,
                         twenty_one_plus_three=b.twenty_one_plus_three,
                         insurance_offer=INSURANCE_OFFER_NUMBERS[b.insurance_offer],
                         safety_net=b.safety_net) for b in boxes])


def limits_to_proto(lim: TableLimits) -> bj.TableLimits:
    """Table limits."""
    return bj.TableLimits(main_min=lim.main_min, main_max=lim.main_max, side_min=lim.side_min,
                          side_max=lim.side_max)


def variant_to_proto(rules: RuleSet, limits: TableLimits) -> bj.Variant:
    """Everything a client needs to draw a variant's table."""
    sides = []
    if rules.twenty_plus is not None:
        t = rules.twenty_plus
        sides.append(bj.SideBetPaytable(kind=bj.SIDE_BET_KIND_TWENTY_PLUS, lines=[
            bj.PaytableLine(line="player_wins", pays=t.player_wins),
            bj.PaytableLine(line="push", pays=t.push),
            bj.PaytableLine(line="dealer_wins", pays=t.dealer_wins)]))
    if rules.perfect_pairs is not None:
        p = rules.perfect_pairs
        sides.append(bj.SideBetPaytable(kind=bj.SIDE_BET_KIND_PERFECT_PAIRS, lines=[
            bj.PaytableLine(line="perfect", pays=p.perfect),
            bj.PaytableLine(line="coloured", pays=p.coloured),
            bj.PaytableLine(line="mixed", pays=p.mixed)]))
    if rules.twenty_one_plus_three is not None:
        q = rules.twenty_one_plus_three
        sides.append(bj.SideBetPaytable(kind=bj.SIDE_BET_KIND_TWENTY_ONE_PLUS_THREE, lines=[
            bj.PaytableLine(line="suited_trips", pays=q.suited_trips),
            bj.PaytableLine(line="straight_flush", pays=q.straight_flush),
            bj.PaytableLine(line="three_of_a_kind", pays=q.three_of_a_kind),
            bj.PaytableLine(line="straight", pays=q.straight),
            bj.PaytableLine(line="flush", pays=q.flush)]))
    return bj.Variant(
        id=rules.id, name=rules.name, decks=rules.decks, max_boxes=rules.max_boxes,
        dealer_hits_soft_17=rules.dealer_hits_soft_17, hole_card=rules.hole_card,
        peek=rules.peek.value, blackjack_pays_numerator=rules.blackjack_pays.numerator,
        blackjack_pays_denominator=rules.blackjack_pays.denominator,
        insurance_pays=rules.insurance_pays if rules.insurance else 0,
        late_surrender=rules.surrender is Surrender.LATE, max_hands=rules.max_hands,
        charlie_cards=rules.charlie_cards or 0, dealer_push_total=rules.dealer_push_total or 0,
        safety_net=rules.safety_net, cash_out=rules.cash_out is not None,
        limits=limits_to_proto(limits), side_bets=sides,
        insurance_offers=sorted(INSURANCE_OFFER_NUMBERS[o] for o in rules.insurance_offers),
        double_any_cards=rules.double_any_cards, double_after_split=rules.double_after_split)


def session_to_proto(s: NewSession) -> op.CreateSessionResponse:
    """The session token and its public facts."""
    return op.CreateSessionResponse(session_token=s.token, session_id=s.session.session_id,
                                    expires_at=_ts(s.session.expires_at),
                                    currency=s.session.currency, balance=s.balance,
                                    next_commitment=s.next_commitment)


def _ts(when: datetime) -> Timestamp:
    ts = Timestamp()
    ts.FromDatetime(when)
    return ts


def step_to_proto(index: int, e: Event) -> op.RoundStep:
    """One journal event as a recall step."""
    step = op.RoundStep(index=index, kind=event_kind(e),
                        detail_json=json.dumps(to_jsonable(e), sort_keys=True))
    if isinstance(e, (CardDealt, CardBurned)):
        step.seat, step.hand, step.card = e.seat or 0, e.hand, e.card
    elif isinstance(e, HoleCardRevealed):
        step.card = e.card
    elif isinstance(e, PlayerActed):
        step.seat, step.hand, step.action, step.amount = e.seat, e.hand, e.action.value, \
            e.stake_added
    elif isinstance(e, HandSettled):
        step.seat, step.hand, step.amount = e.seat, e.hand, e.payout
    elif isinstance(e, (InsuranceSettled, SideBetSettled)):
        step.seat, step.amount = e.seat, e.payout
    return step


def _movement(m: Movement) -> op.WalletMovement:
    return op.WalletMovement(transaction_id=m.transaction_id, kind=m.kind.value,
                             amount=m.amount, status=m.status,
                             balance_after=m.balance_after or 0)


def round_record_to_proto(s: RoundSummary) -> op.RoundRecord:
    """A round as recalled by its operator."""
    r = s.round
    rec = op.RoundRecord(
        round_id=r.round_id, brand_id=r.brand_id, player_id=r.player_id,
        session_id=r.session_id, variant_id=r.variant, status=r.status, currency=r.currency,
        total_staked=r.total_staked, total_paid=r.total_paid,
        forced_cards=bool(r.forced_cards),
        steps=[step_to_proto(i, e) for i, e in enumerate(redact(r))],
        movements=[_movement(m) for m in s.movements])
    if r.created_at is not None:
        rec.started_at.CopyFrom(_ts(r.created_at))
    if r.finished_at is not None:
        rec.finished_at.CopyFrom(_ts(r.finished_at))
    if r.free_bet is not None:
        rec.free_bet.CopyFrom(op.RoundFreeBet(grant_id=r.free_bet.grant_id,
                                              value=r.free_bet.value, seat=r.free_bet.seat))
    f = fairness.view(r)
    rec.fair.CopyFrom(op.RoundFairness(
        verifiable=f.verifiable, commitment=f.commitment, client_seed=f.client_seed,
        round_number=f.round_number, decks=f.decks, server_seed=f.server_seed))
    return rec
