"""A player's next call on the same replica reads nothing first (rgs.journal.resume): its first
write takes the lease back only if nobody took the player since. Real PostgreSQL (without the
previous release's advisory lock, as the resumption needs) and the real sandbox wallet; "two
replicas" are two apps with connection pools of their own."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest
import pytest_asyncio

from rgs.bootstrap import App, add_dev_operator_keys, build
from rgs.config import RgsSettings
from rgs.engine import Action, BoxBet, Phase
from rgs.journal.postgres import PostgresJournal
from rgs.journal.statements import Q_RECORD_MOVEMENT_RESUMED
from rgs.service.errors import ServiceError
from rgs.service.model import ActCommand, CreateSessionCommand, DealCommand, PlayResult, Session
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2
from support.platforms import sandbox_platform
from support.sandbox import AUTH, SandboxWalletClient

pytestmark = pytest.mark.asyncio(loop_scope="session")

ALICE = "demo-alice"
#: The player's ten and six against the dealer's nine and ten: a four makes 20, which wins.
HIT_THEN_STAND = ("TS", "9H", "6D", "TD", "4C")


async def _app(url: str, wallet: SandboxWalletClient) -> App:
    return await build(RgsSettings(test_mode=True, database_url=url,
                                   database_previous_release_lock=False),
                       platform=sandbox_platform({"dev-operator": wallet.target}))


@pytest_asyncio.fixture(loop_scope="session")
async def replicas(rgs_database_url: str, sandbox_wallet: SandboxWalletClient
                   ) -> AsyncIterator[tuple[App, App]]:
    a = await _app(rgs_database_url, sandbox_wallet)
    b = await _app(rgs_database_url, sandbox_wallet)
    await add_dev_operator_keys(a.journal)
    yield a, b
    await a.close()
    await b.close()


class Statements:
    """Counts the statements a journal's pooled connections send."""

    def __init__(self, journal: Any) -> None:
        journal = journal._inner  # under the timing and tracing of rgs.observability
        assert isinstance(journal, PostgresJournal)
        self.sent: list[str] = []
        acquire = journal._acquire

        async def counted() -> Any:
            conn = await acquire()
            conn.add_query_logger(self._log)  # a set: once per connection
            return conn

        journal._acquire = counted  # type: ignore[method-assign]

    def _log(self, record: Any) -> None:
        self.sent.append(record.query)

    def take(self) -> list[str]:
        sent, self.sent = self.sent, []
        return sent


async def _session(app: App) -> Session:
    op = await app.office.authenticate("rgs-dev-operator-key")
    new = await app.office.create_session(op, CreateSessionCommand(
        request_id="s-alice", brand_id="demo-casino", player_id=ALICE))
    return await app.game.authenticate(new.token)


async def _balance(wallet: SandboxWalletClient) -> int:
    resp = await wallet.control.GetPlayer(sandbox_pb2.GetPlayerRequest(player_id=ALICE),
                                          metadata=AUTH)
    return int(resp.player.balance)


async def _deal(app: App, s: Session, request_id: str) -> PlayResult:
    return await app.game.deal(s, DealCommand(request_id=request_id, variant_id="classic-resplit",
                                              boxes=(BoxBet(seat=1, stake=100),),
                                              forced_cards=HIT_THEN_STAND))


async def _act(app: App, s: Session, request_id: str, at: PlayResult,
               action: Action) -> PlayResult:
    return await app.game.act(s, ActCommand(request_id=request_id, round_id=at.round_id,
                                            expected_seq=at.view.seq, seat=1, hand=0,
                                            action=action))


async def _round(app: App, s: Session, tag: str) -> PlayResult:
    dealt = await _deal(app, s, f"d-{tag}")
    hit = await _act(app, s, f"h-{tag}", dealt, Action.HIT)
    return await _act(app, s, f"s-{tag}", hit, Action.STAND)


async def test_the_next_calls_on_one_replica_read_nothing_and_an_act_is_one_statement(
        replicas: tuple[App, App], sandbox_wallet: SandboxWalletClient) -> None:
    a, _ = replicas
    s = await _session(a)
    start = await _balance(sandbox_wallet)
    sent = Statements(a.journal)
    await _round(a, s, "0")  # read with the take: nothing remembered yet
    assert len(sent.take()) >= 7  # 3 + 2 + 2, and the driver's first reads of types
    dealt = await _deal(a, s, "d1")
    assert len(sent.take()) == 2  # the debit's outbox row taking the lease back; the commit
    hit = await _act(a, s, "h1", dealt, Action.HIT)
    assert [q.lstrip()[:30] for q in sent.take()] == ["WITH lease AS (UPDATE leases S"]
    stood = await _act(a, s, "s1", hit, Action.STAND)
    # The commit with the credit's row gives the lease back; the win is paid after it and its
    # answer written a moment later, with other players' (one statement for all of them).
    await a.journal.flush_answers()
    assert [q.lstrip()[:10] for q in sent.take()] == ["WITH lease", "WITH a AS "]
    assert stood.view.phase is Phase.SETTLED and not stood.payment_pending
    assert stood.balance == await _balance(sandbox_wallet) == start + 100 + 100
    # A replayed request id is answered from its record, not from memory.
    assert await _act(a, s, "h1", dealt, Action.HIT) == hit
    assert await _deal(a, s, "d1") == dealt


async def test_a_call_another_replica_made_in_between_makes_the_memory_read_again(
        replicas: tuple[App, App], sandbox_wallet: SandboxWalletClient) -> None:
    a, b = replicas
    s = await _session(a)
    start = await _balance(sandbox_wallet)
    dealt = await _deal(a, s, "d1")  # a remembers the round
    # b holds the player for a call it refuses (a ten and a six do not split): the round is
    # as a remembers it, but the lease was taken and given back since.
    with pytest.raises(ServiceError):
        await _act(b, s, "x1", dealt, Action.SPLIT)
    sent = Statements(a.journal)
    hit = await _act(a, s, "h1", dealt, Action.HIT)
    # The commit taking the lease back found it taken since and wrote nothing; read again.
    assert [q.lstrip()[:10] for q in sent.take()] == ["WITH lease", "WITH prev ", "WITH lease"]
    assert hit.view.seq == dealt.view.seq + 1
    stood = await _act(b, s, "s1", hit, Action.STAND)  # b plays on: a's memory is behind
    await b.journal.flush_answers()  # b's win's answer written
    again = await _act(a, s, "s1", hit, Action.STAND)  # a duplicate, sent to a
    # The commit taking the lease back found it taken since (and the request id recorded):
    # nothing written; read again, the record answers; the lease given back.
    assert again == stood
    assert [q.lstrip()[:10] for q in sent.take()] == ["WITH lease", "WITH prev ", "UPDATE lea"]
    assert stood.view.phase is Phase.SETTLED and stood.view.seq == hit.view.seq + 1
    assert stood.balance == await _balance(sandbox_wallet) == start + 100
    stored = await a.journal.get_round(s.player_key, dealt.round_id)
    assert stored is not None and stored.seq == stood.view.seq and stored.total_paid == 200


async def test_a_first_write_whose_answer_is_lost_gives_the_lease_back_and_the_call_goes_on(
        replicas: tuple[App, App], sandbox_wallet: SandboxWalletClient,
        monkeypatch: pytest.MonkeyPatch) -> None:
    a, _ = replicas
    s = await _session(a)
    start = await _balance(sandbox_wallet)
    await _round(a, s, "0")  # won: +100; a remembers the finished round
    fetchval = asyncpg.pool.PoolConnectionProxy.fetchval
    lost: list[str] = []

    async def answer_lost(self: Any, query: str, *args: Any, **kwargs: Any) -> Any:
        value = await fetchval(self, query, *args, **kwargs)
        if query is Q_RECORD_MOVEMENT_RESUMED and not lost:  # written, then the line drops
            lost.append(query)
            raise asyncpg.InterfaceError("connection lost (test)")
        return value

    monkeypatch.setattr(asyncpg.pool.PoolConnectionProxy, "fetchval", answer_lost)
    dealt = await _deal(a, s, "d1")
    assert lost  # the Deal's debit row was written with the lease taken back, answer lost
    # Given back at once (not left to expire: the call would have waited and been refused);
    # the call ran again from the journal: the orphaned debit rolled back, a new round dealt.
    assert dealt.view.phase is Phase.PLAYER_TURN
    assert await _balance(sandbox_wallet) == start + 100 - 100
    rows = await a.journal.movements(s.player_key, dealt.round_id)
    assert [(m.kind.value, m.status.value) for m in rows] == [("debit", "booked")]


async def test_a_duplicate_on_another_replica_before_the_wins_answer_is_written_is_answered_paid(
        replicas: tuple[App, App], sandbox_wallet: SandboxWalletClient) -> None:
    """The replica that paid a win writes its answer a moment later (rgs.journal.late_answers).
    A duplicate of the call that reaches another replica first finds the win pending in the
    journal: it sends it again (the wallet applies a transaction id once) and answers paid."""
    a, b = replicas
    s = await _session(a)
    start = await _balance(sandbox_wallet)
    dealt = await _deal(a, s, "d1")
    hit = await _act(a, s, "h1", dealt, Action.HIT)
    stood = await _act(a, s, "s1", hit, Action.STAND)  # a owes the journal the win's answer
    again = await _act(b, s, "s1", hit, Action.STAND)
    assert again == stood and not again.payment_pending
    await a.journal.flush_answers()  # finds the credit answered: changes nothing
    assert stood.balance == await _balance(sandbox_wallet) == start + 100
    moves = await a.journal.movements(s.player_key, dealt.round_id)
    assert [(m.kind.value, m.status.value, m.amount) for m in moves] == [
        ("debit", "booked", 100), ("credit", "applied", 200)]
    assert await _act(a, s, "s1", hit, Action.STAND) == stood
