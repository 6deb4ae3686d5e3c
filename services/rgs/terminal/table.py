"""The interactive loop of ``rgs play --table``: one player at a shared table.

A watcher follows the table's numbered events (resuming from the last number it saw when its
stream drops) and redraws every seat live; the player types commands meanwhile. Input and
output are injected (``ask``/``say``) as in the solo client.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import grpc

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.table.v1 import table_pb2 as tb
from rgs.generated.table.v1 import table_pb2_grpc as tb_grpc
from rgs.terminal import i18n, render
from rgs.terminal import table_render as draw
from rgs.terminal.play import PlayError, refusal, refusal_text

Ask = Callable[[str], str]
Say = Callable[[str], None]
Balance = Callable[[], Awaitable[int | None]]

#: A side bet's word in ``bet`` and the Bet field it fills.
_SIDES = {bj.SIDE_BET_KIND_PERFECT_PAIRS: ("pp", "perfect_pairs"),
          bj.SIDE_BET_KIND_TWENTY_ONE_PLUS_THREE: ("21+3", "twenty_one_plus_three"),
          bj.SIDE_BET_KIND_TWENTY_PLUS: ("20+", "twenty_plus")}


def side_words(table: tb.TableInfo) -> dict[str, str]:
    """The ``bet`` words of the side bets this table has (its lobby features; every kind the
    client knows when the server lists none) and the Bet field each fills."""
    kinds = (list(table.lobby.features.side_bets) if table.HasField("lobby")
             else list(_SIDES))
    return dict(_SIDES[k] for k in _SIDES if k in kinds)


def help_text(table: tb.TableInfo) -> str:
    """The table's commands, its own side bets only in ``bet``."""
    words = side_words(table)
    return i18n.say("table_help", sides="".join(f" [{w} 1]" for w in words),
                    side_words=i18n.say("side_words_some") if words else "")


def intro(table: tb.TableInfo) -> str:
    """The table's line when the player sits down: variant, seats, limits and times (at 80
    columns)."""
    cur = table.currency
    return render.fit(i18n.say(
        "ttable_intro", id=table.table_id, variant=table.variant_id, seats=table.seats,
        min=render.money(table.main_min, cur), max=render.money(table.main_max, cur),
        betting=i18n.seconds(table.betting_seconds),
        decisions=i18n.seconds(table.decision_seconds)))


def count_down(left: int, phase: int, view: bj.RoundView | None) -> str:
    """The time left to bet or decide, as said at 10 and 5 seconds."""
    if phase == tb.TABLE_PHASE_BETTING:
        return i18n.say("tleft_bet", s=left)
    if phase == tb.TABLE_PHASE_INSURANCE:
        return i18n.say("tleft_insurance", s=left)
    if view is not None and view.HasField("to_act"):
        return i18n.say("tleft_act", s=left, seat=view.to_act.seat)
    return i18n.say("tleft_plain", s=left)


_INSURANCE = {"never": tb.BEHIND_INSURANCE_NEVER, "always": tb.BEHIND_INSURANCE_ALWAYS,
              "ask": tb.BEHIND_INSURANCE_ASK}


def round_view(snap: tb.TableSnapshot | None) -> bj.RoundView | None:
    """The round of a table snapshot: the solo client's round view, with the decision values
    the snapshot carries when the player's brand shows them."""
    return snap.round if snap is not None and snap.HasField("round") else None


def open_decision(view: bj.RoundView | None, mine: int | None
                  ) -> tuple[int, int, list[bj.AllowedAction]]:
    """(seat, hand, allowed) of the decision open now on seat ``mine``, or no decisions."""
    if view is None or mine is None:
        return 0, 0, []
    for box in view.boxes:
        if box.seat == mine and box.insurance_allowed:
            return mine, 0, list(box.insurance_allowed)
    if view.HasField("to_act") and view.to_act.seat == mine:
        for box in view.boxes:
            if box.seat == mine:
                return mine, view.to_act.hand, list(box.hands[view.to_act.hand].allowed)
    return 0, 0, []


async def ask_on_thread(ask: Ask, prompt: str) -> str:
    """``ask`` on a daemon thread, so the table keeps updating while the player types and
    Ctrl-C never waits for a pending line."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[str] = loop.create_future()

    def settle(value: str | None, exc: BaseException | None) -> None:
        if done.done():
            return
        if exc is not None:
            done.set_exception(exc)
        else:
            done.set_result(value or "")

    def read() -> None:
        try:
            value = ask(prompt)
        except BaseException as exc:  # EOFError, KeyboardInterrupt: the loop decides
            loop.call_soon_threadsafe(settle, None, exc)
        else:
            loop.call_soon_threadsafe(settle, value, None)

    threading.Thread(target=read, daemon=True, name="table-input").start()
    return await done


@dataclass(slots=True)
class TablePlayer:
    """One person at a shared table: their session, the table and their terminal."""

    stub: tb_grpc.TableServiceAsyncStub
    token: str
    table: tb.TableInfo
    ask: Ask
    say: Say
    ascii_only: bool = False
    #: Test mode only: the cards of the round this player's Deal Now deals.
    forced_cards: tuple[str, ...] = ()
    #: The player's balance now (the wallet's), when it can be read; None: not shown.
    balance_of: Balance | None = None
    balance: int | None = None
    snap: tb.TableSnapshot | None = None
    #: The newest event number the watcher has seen (it resumes after it).
    last_seq: int | None = None
    #: Seconds between reconnect attempts of the watcher.
    retry_s: float = 0.5
    #: The meaning of the hints' EV figures was said (once per table).
    hints_explained: bool = False
    _money_moved: bool = False
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    _synced: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def _md(self) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {self.token}"),)

    @property
    def _cur(self) -> str:
        return self.table.currency

    # ------------------------------------------------------------------ watching

    async def watch(self) -> None:
        """Follow the table until cancelled: a snapshot first, then its events; after a
        disconnect, resume from the last event number seen (nothing missed, nothing twice)."""
        while True:
            req = tb.WatchTableRequest(table_id=self.table.table_id)
            if self.last_seq is not None:
                req.from_seq = self.last_seq
            call = self.stub.WatchTable(req, metadata=self._md)
            try:
                async for item in call:
                    if item.HasField("snapshot"):
                        self._take(item.snapshot)
                        self.last_seq = item.snapshot.seq
                        continue
                    ev = item.event
                    if self.last_seq is not None and ev.seq <= self.last_seq:
                        continue
                    self.last_seq = ev.seq
                    line = draw.table_event(ev, self._cur, ascii_only=self.ascii_only)
                    if line:
                        self.say(render.fit(f"  · {line}"))
                    if ev.WhichOneof("event") in ("round_finished", "behind_refunded"):
                        self._money_moved = True
                    self._changed.set()
            except grpc.aio.AioRpcError as exc:
                if exc.code() in (grpc.StatusCode.UNAUTHENTICATED,
                                  grpc.StatusCode.PERMISSION_DENIED,
                                  grpc.StatusCode.NOT_FOUND):
                    self._tell(i18n.say("tstream_stopped", why=refusal_text(refusal(exc))))
                    return
                self._tell("  · " + i18n.say("tconnection_lost", code=exc.code().name,
                                              seq=self.last_seq))
            finally:
                call.cancel()
            await asyncio.sleep(self.retry_s)

    def _take(self, snap: tb.TableSnapshot) -> None:
        """A snapshot newer than what we have replaces it."""
        if self.snap is not None and self.snap.seq > snap.seq:
            return
        self.snap = snap
        self._synced.set()

    async def _read_balance(self) -> None:
        if self.balance_of is None:
            return
        got = await self.balance_of()
        if got is not None:
            self.balance = got

    async def _refresh(self) -> None:
        """A fresh snapshot (a short watch that reads only its first item)."""
        call = self.stub.WatchTable(tb.WatchTableRequest(table_id=self.table.table_id),
                                    metadata=self._md)
        try:
            async for item in call:
                if item.HasField("snapshot"):
                    self._take(item.snapshot)
                break
        except grpc.aio.AioRpcError:
            pass
        finally:
            call.cancel()

    async def redraw_on_change(self) -> None:
        """Redraw the table shortly after events arrive (several at once draw once); between
        events, count the open deadline down."""
        told: set[tuple[str, int]] = set()
        while True:
            try:
                async with asyncio.timeout(1.0):
                    await self._changed.wait()
            except TimeoutError:
                self._count_down(told)
                continue
            await asyncio.sleep(0.15)
            self._changed.clear()
            await self._refresh()
            if self._money_moved:  # a payment follows a round's end: the wallet says
                self._money_moved = False
                await asyncio.sleep(0.3)
                await self._read_balance()
            self.draw()

    def _count_down(self, told: set[tuple[str, int]]) -> None:
        """A line when 10 and 5 seconds are left to bet or decide (once per deadline)."""
        snap = self.snap
        if snap is None or not snap.HasField("deadline"):
            return
        deadline, phase = snap.deadline.ToJsonString(), snap.phase
        left = draw.seconds_left(snap.deadline, datetime.now(UTC))
        if left not in (10, 5) or phase == tb.TABLE_PHASE_IDLE or (deadline, left) in told:
            return
        told.add((deadline, left))
        self._tell("  · " + count_down(left, phase, round_view(snap)))

    def draw(self) -> None:
        """The table and, when something is ours to decide, the keys to type."""
        if self.snap is None:
            return
        self.say(draw.shared_table(self.snap, seats=self.table.seats, currency=self._cur,
                                   now=datetime.now(UTC), balance=self.balance,
                                   ascii_only=self.ascii_only))
        hint = self._decision_hint(round_view(self.snap))
        if hint:
            self._tell(hint)

    def _tell(self, text: str) -> None:
        """Say ``text`` wrapped at 80 columns."""
        self.say(render.fit(text))

    # ------------------------------------------------------------------ deciding

    def my_seat(self) -> int | None:
        return draw.my_seat(self.snap) if self.snap is not None else None

    def bet_in_play(self) -> bool:
        """Whether a bet of the player's is on the table (their seat's, or behind a seat)."""
        snap = self.snap
        if snap is None:
            return False
        mine = self.my_seat()
        return (any(b.seat == mine for b in snap.bets) or any(b.player.you
                                                              for b in snap.behind))

    def _decision_hint(self, view: bj.RoundView | None) -> str:
        seat, hand, allowed = open_decision(view, self.my_seat())
        parts = []
        if allowed:
            label = i18n.say("tturn_insurance") if allowed[0].action in (
                bj.ACTION_INSURE, bj.ACTION_DECLINE_INSURANCE) \
                else i18n.say("tturn_hand", n=seat, h=hand + 1)
            parts.append(i18n.say("tyour_turn", what=label) + "\n"
                         + render.choices(allowed, self._cur, ascii_only=self.ascii_only))
            if not self.hints_explained and any(a.HasField("expected_value") for a in allowed):
                self.hints_explained = True
                parts.append(render.hints_legend(self.ascii_only))
        snap = self.snap
        if snap is not None and snap.phase == tb.TABLE_PHASE_INSURANCE:
            for b in snap.behind:
                if b.player.you and b.insurance == tb.BEHIND_INSURANCE_ASK:
                    parts.append(i18n.say("tbehind_insurance_ask", seat=b.seat))
        return "\n".join(parts)

    # ------------------------------------------------------------------ the loop

    async def run(self) -> int:
        """Watch the table and obey the player's commands until q (or input ends)."""
        t = self.table
        self._tell(intro(t))
        self.say(help_text(t))
        await self._read_balance()
        watcher = asyncio.create_task(self.watch())
        drawer = asyncio.create_task(self.redraw_on_change())
        try:
            try:
                async with asyncio.timeout(10):
                    await self._synced.wait()
            except TimeoutError:
                self._tell(i18n.say("tno_view", id=t.table_id))
                return 1
            self.draw()
            while True:
                try:
                    line = await ask_on_thread(self.ask, "> ")
                except EOFError:
                    break
                words = line.strip().lower().split()
                if words and words[0] in ("q", "quit", "exit"):
                    if await self._leave_table():
                        break
                    continue
                try:
                    await self.command(words)
                except PlayError as exc:
                    self._tell(i18n.say("refused", why=refusal_text(exc)))
                except ValueError as exc:
                    self._tell(i18n.say("tcommand_error", error=exc))
        finally:
            for task in (watcher, drawer):
                task.cancel()
            await asyncio.gather(watcher, drawer, return_exceptions=True)
        self.say(i18n.say("bye"))
        return 0

    async def _leave_table(self) -> bool:
        """``q``: give the seat back and go (True). With a bet of the player's in play, ask
        first: it plays on without them (decisions time out to the safest one) and the seat is
        released after the round."""
        mine = self.my_seat()
        if self.bet_in_play():
            self._tell(i18n.say("tleave_in_play"))
            answer = (await ask_on_thread(self.ask, i18n.say("tleave_confirm"))).strip().lower()
            if answer not in ("y", "yes"):
                return False
        if mine is not None:
            in_play = self.snap is not None and any(b.seat == mine for b in self.snap.bets)
            try:
                await self._send(self.stub.LeaveSeat, tb.LeaveSeatRequest(
                    request_id=_rid(), table_id=self.table.table_id, seat=mine))
                self._tell(i18n.say("tseat_back_later" if in_play else "tseat_left", n=mine))
            except PlayError as exc:
                self._tell(i18n.say("tseat_not_back", why=refusal_text(exc)))
        return True

    async def command(self, words: list[str]) -> None:
        """Carry out one typed command (ValueError: it is not one)."""
        if not words:
            self.draw()
            return
        head, rest = words[0], words[1:]
        tid = self.table.table_id
        if head in ("?", "help"):
            self.say(help_text(self.table))
        elif head == "f":
            last = self.snap.last_round if self.snap is not None else None
            self.say(draw.fairness_full(last))
        elif head == "sit":
            seat = _int(rest, i18n.say("tsit_usage"))
            await self._send(self.stub.TakeSeat,
                             tb.TakeSeatRequest(request_id=_rid(), table_id=tid, seat=seat))
        elif head == "leave":
            mine = self.my_seat()
            if mine is None:
                raise ValueError(i18n.say("tno_seat"))
            await self._send(self.stub.LeaveSeat,
                             tb.LeaveSeatRequest(request_id=_rid(), table_id=tid, seat=mine))
        elif head == "bet":
            await self._bet(rest)
        elif head == "behind":
            await self._behind(rest)
        elif head == "deal":
            await self._send(self.stub.DealNow, tb.DealNowRequest(
                request_id=_rid(), table_id=tid, forced_cards=list(self.forced_cards)))
        elif head in ("ib", "nb"):
            seat = _int(rest, i18n.say("tib_usage", command=head))
            await self._send(self.stub.DecideInsurance, tb.DecideInsuranceRequest(
                request_id=_rid(), table_id=tid, round_id=self._round_id(),
                seat=seat, take=head == "ib", behind=True))
        else:
            await self._decide(head)

    async def _bet(self, rest: list[str]) -> None:
        seat = self.my_seat()
        if seat is None:
            raise ValueError(i18n.say("tsit_first"))
        if not rest:
            raise ValueError(i18n.say("tbet_usage"))
        bet = tb.Bet(seat=seat, stake=render.parse_money(rest[0], self._cur))
        opts = rest[1:]
        sides = side_words(self.table)
        if len(opts) % 2:
            raise ValueError(i18n.say("side_pairs", pairs=", ".join(f"{w} 1" for w in sides)))
        client_seed = ""
        for name, amount in zip(opts[::2], opts[1::2], strict=True):
            if name == "seed":
                client_seed = amount
                continue
            if name not in sides:
                raise ValueError(i18n.say("side_unknown", name=repr(name),
                                          names=", ".join(sides)) if sides
                                 else i18n.say("side_unknown_none", name=repr(name)))
            setattr(bet, sides[name], render.parse_money(amount, self._cur))
        await self._place(bet, client_seed)

    async def _behind(self, rest: list[str]) -> None:
        if len(rest) < 2:
            raise ValueError(i18n.say("tbehind_usage"))
        bet = tb.Bet(seat=_int(rest, i18n.say("tbehind_usage")), behind=True,
                     stake=render.parse_money(rest[1], self._cur))
        opts = iter(rest[2:])
        for word in opts:
            if word == "double":
                bet.follow_double = True
            elif word == "split":
                bet.follow_split = True
            elif word == "ins":
                choice = next(opts, "")
                if choice not in _INSURANCE:
                    raise ValueError(i18n.say("tins_usage"))
                bet.insurance = _INSURANCE[choice]
            else:
                raise ValueError(i18n.say("tpreset_unknown", word=repr(word)))
        await self._place(bet)

    async def _place(self, bet: tb.Bet, client_seed: str = "") -> None:
        got = await self._send(self.stub.PlaceBets, tb.PlaceBetsRequest(
            request_id=_rid(), table_id=self.table.table_id, bets=[bet],
            client_seed=client_seed))
        self._tell(i18n.say("tbet_taken_balance", balance=render.money(got.result.balance,
                                                                        self._cur))
                   if got.result.HasField("balance") else i18n.say("tbet_taken"))

    def _round_id(self) -> str:
        return self.snap.round_id if self.snap is not None else ""

    async def _decide(self, key: str) -> None:
        view = round_view(self.snap)
        seat, hand, allowed = open_decision(view, self.my_seat())
        by_key = {render.ACTION_KEYS[a.action]: a for a in allowed}
        chosen = by_key.get(key)
        if chosen is None:
            raise ValueError(i18n.say("tnot_command_now", typed=repr(key), keys=", ".join(by_key))
                             if by_key else i18n.say("tnot_command", typed=repr(key)))
        rid = self._round_id()
        if chosen.action in (bj.ACTION_INSURE, bj.ACTION_DECLINE_INSURANCE):
            await self._send(self.stub.DecideInsurance, tb.DecideInsuranceRequest(
                request_id=_rid(), table_id=self.table.table_id, round_id=rid, seat=seat,
                take=chosen.action == bj.ACTION_INSURE))
            return
        name = bj.Action.Name(chosen.action).removeprefix("ACTION_").lower()
        await self._send(self.stub.Act, tb.ActRequest(
            request_id=_rid(), table_id=self.table.table_id, round_id=rid, seat=seat,
            hand=hand, action=name))

    async def _send(self, rpc: Any, request: Any) -> Any:
        """Call with the session token, retrying the same request id when retryable; the
        answer's snapshot becomes the table we show."""
        for attempt in range(4):
            try:
                got = await rpc(request, metadata=self._md, timeout=15)
                break
            except grpc.aio.AioRpcError as exc:
                if exc.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.ABORTED,
                                  grpc.StatusCode.DEADLINE_EXCEEDED) and attempt < 3:
                    await asyncio.sleep(0.2 * 2**attempt)
                    continue
                raise refusal(exc) from None
        self._take(got.result.snapshot)
        if got.result.HasField("balance"):
            self.balance = got.result.balance
        self._changed.set()
        return got


def _rid() -> str:
    return uuid.uuid4().hex


def _int(words: list[str], usage: str) -> int:
    if not words or not words[0].isdigit():
        raise ValueError(usage)
    return int(words[0])
