"""The interactive loop of ``rgs play``: bets, the table, the open decisions, the balance.

Input and output are injected (``ask``/``say``) so that the same loop runs on a terminal and in
tests that script a player over a real connection.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import grpc
from google.rpc import error_details_pb2, status_pb2

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc as bj_grpc
from rgs.terminal import i18n, render

Ask = Callable[[str], str]
Say = Callable[[str], None]
_RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.ABORTED,
              grpc.StatusCode.DEADLINE_EXCEEDED)


class PlayError(Exception):
    """The RGS refused a call; ``reason`` is its ErrorInfo reason."""

    def __init__(self, message: str, *, code: grpc.StatusCode, reason: str,
                 metadata: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        #: The ErrorInfo's metadata (e.g. ``wait_ms`` of ROUND_TOO_SOON).
        self.metadata = metadata or {}


def refusal(exc: grpc.aio.AioRpcError) -> PlayError:
    """A PlayError from a gRPC error, reading the ErrorInfo reason from the status details."""
    reason, metadata = "", {}
    trailers = cast(tuple[tuple[str, str | bytes], ...], exc.trailing_metadata() or ())
    for key, value in trailers:
        if key == "grpc-status-details-bin" and isinstance(value, bytes):
            status = status_pb2.Status.FromString(value)
            for detail in status.details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    reason, metadata = info.reason, dict(info.metadata)
    return PlayError(exc.details() or exc.code().name, code=exc.code(), reason=reason,
                     metadata=metadata)


def refusal_text(exc: PlayError) -> str:
    """A refusal in the player's language: the catalogue's sentence for its reason, else the
    server's own message (written for people too) with the reason or code."""
    sentence = i18n.reason_text(exc.reason) if exc.reason else None
    return sentence or f"{exc} ({exc.reason or exc.code.name})."


@dataclass(slots=True)
class Player:
    """One person at the table: their session, variant and terminal."""

    stub: bj_grpc.BlackjackServiceAsyncStub
    token: str
    variant: bj.Variant
    currency: str
    ask: Ask
    say: Say
    ascii_only: bool = False
    #: Test mode only (labs, our tests): cards the next deal draws first.
    forced_cards: tuple[str, ...] = ()
    #: Main stake and net win of the player's last settled round here (Rebet / Ride Bet).
    last_stake: int = 0
    last_win: int = 0
    #: The meaning of the hints' EV figures was said (once per session).
    hints_explained: bool = False
    #: The round id and fairness of the last round shown settled (``f`` shows them whole).
    last_fair: tuple[str, bj.Fairness] | None = None

    @property
    def _md(self) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {self.token}"),)

    async def _call(self, rpc: Any, request: object) -> Any:
        """Call with the session token; retry the same request (same request_id) when the
        server says it is retryable."""
        for attempt in range(4):
            try:
                return await rpc(request, metadata=self._md, timeout=10)
            except grpc.aio.AioRpcError as exc:
                if exc.code() in _RETRYABLE and attempt < 3:
                    await asyncio.sleep(0.2 * 2**attempt)
                    continue
                raise refusal(exc) from None
        raise AssertionError("unreachable")  # pragma: no cover

    # ------------------------------------------------------------------ the loop

    async def run(self) -> int:
        """Play rounds until the player quits (or input ends); returns an exit code."""
        limits = self.variant.limits
        self.say(i18n.say("intro", name=self.variant.name,
                          min=render.money(limits.main_min, self.currency),
                          max=render.money(limits.main_max, self.currency)))
        view = await self._resume()
        try:
            while True:
                if view is None:
                    view = await self._deal()
                    if view is None:
                        return 0
                view = await self._play(view)
                self.say(render.table(view, ascii_only=self.ascii_only))
                self.say(self._summary(view))
                if view.fair.verifiable and view.fair.server_seed:
                    self.last_fair = (view.round_id, view.fair)
                # Rebet and Ride Bet follow this variant's rounds only (a resumed round of
                # another variant has other limits).
                if (view.status == bj.ROUND_STATUS_SETTLED and view.boxes
                        and view.variant_id == self.variant.id):
                    self.last_stake = view.boxes[0].stake
                    self.last_win = max(0, view.total_paid - view.total_staked)
                view = None
        except EOFError:
            self.say(i18n.say("bye"))
            return 0

    async def _resume(self) -> bj.RoundView | None:
        got: bj.GetRoundResponse = await self._call(self.stub.GetRound,
                                                    bj.GetRoundRequest(if_unfinished=True))
        if not got.HasField("round"):
            return None  # nothing to resume
        self.say(i18n.say("resuming"))
        return got.round

    async def _deal(self) -> bj.RoundView | None:
        limits, cur = self.variant.limits, self.currency
        while True:
            default = (self.last_stake if limits.main_min <= self.last_stake <= limits.main_max
                       else limits.main_min)
            ride = min(self.last_stake + self.last_win, limits.main_max)
            offer = (i18n.say("ride", amount=render.money(ride, cur))
                     if self.last_stake and self.last_win else "")
            shown = render.money(default, cur)
            answer = self.ask(i18n.say("stake_prompt", offer=offer, default=(
                i18n.say("rebet", amount=shown) if self.last_stake else shown))).strip()
            if answer.lower() in ("q", "quit", "exit"):
                self.say(i18n.say("bye"))
                return None
            if answer.lower() == "f":  # the last round's fairness whole, how to check it
                self.say(render.fairness_full(*(self.last_fair or ("", None))))
                continue
            if answer.lower() == "r" and offer:
                stake = ride
            else:
                try:
                    stake = render.parse_money(answer, cur) if answer else default
                except ValueError as exc:
                    self.say(str(exc))
                    continue
            # The table limits from ListVariants are checked here, before anything is sent,
            # and told in the currency's major units.
            outside = self._outside(i18n.say("main_bet"), stake, limits.main_min,
                                    limits.main_max)
            if outside:
                self.say(outside)
                continue
            box = bj.BoxBet(seat=1, stake=stake)
            for side in self.variant.side_bets:
                amount = self._side_bet(render.side_name(side.kind))
                if amount:
                    field = {bj.SIDE_BET_KIND_TWENTY_PLUS: "twenty_plus",
                             bj.SIDE_BET_KIND_PERFECT_PAIRS: "perfect_pairs",
                             bj.SIDE_BET_KIND_TWENTY_ONE_PLUS_THREE: "twenty_one_plus_three"}
                    setattr(box, field[side.kind], amount)
            if self.variant.safety_net:
                box.safety_net = True
            try:
                dealt: bj.DealResponse = await self._call(self.stub.Deal, bj.DealRequest(
                    request_id=uuid.uuid4().hex, variant_id=self.variant.id, boxes=[box],
                    forced_cards=list(self.forced_cards)))
            except PlayError as exc:
                if exc.reason == "REALITY_CHECK_DUE":
                    await self._reality_check(exc)
                    continue
                if exc.reason == "ROUND_TOO_SOON":  # the player deals again: nothing re-deals
                    wait = -(-int(exc.metadata.get("wait_ms", "0")) // 1000)
                    self.say(i18n.say("wait", s=wait))
                    continue
                self.say(i18n.say("refused", why=self._in_words(exc)))
                continue
            return dealt.round

    async def _reality_check(self, exc: PlayError) -> None:
        """Show the reality check; go on only when the player says so (then recorded)."""
        minutes = int(exc.metadata.get("elapsed_s", "0")) // 60
        self.say(i18n.say("reality", n=minutes))
        if self.ask(i18n.say("continue")).strip().lower() != "y":
            raise EOFError
        ack: bj.AcknowledgeRealityCheckResponse = await self._call(
            self.stub.AcknowledgeRealityCheck, bj.AcknowledgeRealityCheckRequest())
        self.say(render.position(ack.session, self.currency))

    def _in_words(self, exc: PlayError) -> str:
        """A refusal of a bet in words, amounts in major units (the engine's own message counts
        minor units: it knows no currency)."""
        limits, cur = self.variant.limits, self.currency
        if exc.reason == "STAKE_OUT_OF_LIMITS":
            return i18n.say("limits_refused", main_min=render.money(limits.main_min, cur),
                            main_max=render.money(limits.main_max, cur),
                            side_min=render.money(limits.side_min, cur),
                            side_max=render.money(limits.side_max, cur))
        return refusal_text(exc)

    def _outside(self, what: str, amount: int, low: int, high: int) -> str:
        """A sentence when ``amount`` is outside ``low..high`` (amounts in major units)."""
        if low <= amount <= high:
            return ""
        return i18n.say("outside", what=what, min=render.money(low, self.currency),
                        max=render.money(high, self.currency))

    def _side_bet(self, name: str) -> int:
        """Ask for one side bet until it is empty (none) or an amount within the limits."""
        limits = self.variant.limits
        while True:
            raw = self.ask(i18n.say("side_prompt", name=name,
                                    min=render.money(limits.side_min, self.currency),
                                    max=render.money(limits.side_max, self.currency))).strip()
            if not raw:
                return 0
            try:
                amount = render.parse_money(raw, self.currency)
            except ValueError as exc:
                self.say(i18n.say("side_retry", error=exc, name=name))
                continue
            outside = self._outside(i18n.say("side_bet", name=name), amount, limits.side_min,
                                    limits.side_max)
            if not outside:
                return amount
            self.say(outside + " " + i18n.say("side_none", name=name))

    async def _play(self, view: bj.RoundView) -> bj.RoundView:
        while view.status in (bj.ROUND_STATUS_INSURANCE, bj.ROUND_STATUS_PLAYER_TURN):
            self.say(render.table(view, ascii_only=self.ascii_only))
            seat, hand, allowed = self._open_decision(view)
            if not allowed:  # nothing for us to decide: let the server finish the round
                view = (await self._call(self.stub.Settle, bj.SettleRequest(
                    request_id=uuid.uuid4().hex, round_id=view.round_id))).round
                continue
            action = self._choose(allowed)
            try:
                view = (await self._call(self.stub.Act, bj.ActRequest(
                    request_id=uuid.uuid4().hex, round_id=view.round_id,
                    expected_seq=view.seq, seat=seat, hand=hand, action=action))).round
            except PlayError as exc:
                self.say(i18n.say("refused", why=refusal_text(exc)))
                view = (await self._call(self.stub.GetRound,
                                         bj.GetRoundRequest(round_id=view.round_id))).round
        return view

    @staticmethod
    def _open_decision(view: bj.RoundView) -> tuple[int, int, list[bj.AllowedAction]]:
        """(seat, hand, open decisions) of the box or hand to decide, or no decisions."""
        for box in view.boxes:
            if box.insurance_allowed:
                return box.seat, 0, list(box.insurance_allowed)
        if view.HasField("to_act"):
            seat, index = view.to_act.seat, view.to_act.hand
            for box in view.boxes:
                if box.seat == seat:
                    return seat, index, list(box.hands[index].allowed)
        return 0, 0, []

    def _choose(self, allowed: list[bj.AllowedAction]) -> bj.Action.ValueType:
        by_key = {render.ACTION_KEYS[a.action]: a for a in allowed}
        if not self.hints_explained and any(a.HasField("expected_value") for a in allowed):
            self.hints_explained = True
            self.say(render.hints_legend(self.ascii_only))
        prompt = render.choices(allowed, self.currency, ascii_only=self.ascii_only) + "  > "
        while True:
            key = self.ask(prompt).strip().lower()
            if key in ("q", "quit"):
                raise EOFError
            chosen = by_key.get(key)
            if chosen is None:
                self.say(i18n.say("type_one", keys=", ".join(by_key)))
                continue
            if chosen.warning and self.ask(
                    i18n.say("safety_net")
            ).strip().lower() != "y":
                continue
            return chosen.action

    def _summary(self, view: bj.RoundView) -> str:
        return i18n.say("summary", verdict=render.verdict(view),
                        balance=render.money(view.balance, self.currency))
