"""The gRPC edge over the real bootstrap (in-memory journal, fake wallet): each refusal has its
canonical code and an ErrorInfo (domain ``rgs``, UPPER_SNAKE reason)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
import pytest
import pytest_asyncio
from google.rpc import error_details_pb2, status_pb2
from service_fakes import Harness, harness

from rgs.api.errors import classify
from rgs.bootstrap import serve
from rgs.config import load_settings
from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.blackjack.v1 import blackjack_pb2_grpc
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.operator.v1 import operator_pb2_grpc
from rgs.service import errors as service_errors
from rgs.service.ports import JournalBusy, JournalUnavailable

OPERATOR = (("authorization", "Bearer rgs-dev-operator-key"),)


def _info(err: grpc.aio.AioRpcError) -> error_details_pb2.ErrorInfo:
    for key, value in err.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            for d in status_pb2.Status.FromString(value).details:
                info = error_details_pb2.ErrorInfo()
                if d.Unpack(info):
                    return info
    raise AssertionError("no ErrorInfo")


@pytest_asyncio.fixture
async def edge() -> AsyncIterator[tuple[Harness, grpc.aio.Channel]]:
    h = await harness(test_mode=False)
    settings = load_settings(listen="127.0.0.1:0")
    running = await serve(settings, h.app)
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{running.port}")
    yield h, channel
    await channel.close()
    await running.stop(grace=None)


async def _refusal(call: object) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call  # type: ignore[misc]
    info = _info(err.value)
    assert info.domain == "rgs"
    return err.value.code(), info.reason


async def test_refusals_carry_their_canonical_code_and_reason(
        edge: tuple[Harness, grpc.aio.Channel]) -> None:
    h, ch = edge
    game = blackjack_pb2_grpc.BlackjackServiceStub(ch)
    office = operator_pb2_grpc.OperatorServiceStub(ch)
    assert await _refusal(game.ListVariants(bj.ListVariantsRequest())) == (
        grpc.StatusCode.UNAUTHENTICATED, "MISSING_CREDENTIALS")
    assert await _refusal(office.CreateSession(op.CreateSessionRequest(
        request_id="s", brand_id="demo-casino", player_id="alice"),
        metadata=(("authorization", "Bearer wrong"),))) == (
        grpc.StatusCode.UNAUTHENTICATED, "INVALID_API_KEY")
    s = await office.CreateSession(op.CreateSessionRequest(
        request_id="s", brand_id="demo-casino", player_id="alice"), metadata=OPERATOR)
    md = (("authorization", f"Bearer {s.session_token}"),)
    assert await _refusal(game.Deal(bj.DealRequest(
        request_id="d", variant_id="classic-resplit", boxes=[bj.BoxBet(seat=1, stake=100)],
        forced_cards=["AS"]), metadata=md)) == (
        grpc.StatusCode.PERMISSION_DENIED, "FORCED_CARDS_NOT_ALLOWED")
    assert await _refusal(game.Deal(bj.DealRequest(
        request_id="d", variant_id="no-such-game", boxes=[bj.BoxBet(seat=1, stake=100)]),
        metadata=md)) == (grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_VARIANT")
    assert await _refusal(game.Deal(bj.DealRequest(
        request_id="d", variant_id="classic-resplit", boxes=[bj.BoxBet(seat=1, stake=1)]),
        metadata=md)) == (grpc.StatusCode.FAILED_PRECONDITION, "STAKE_OUT_OF_LIMITS")
    assert await _refusal(game.Act(bj.ActRequest(
        request_id="a", round_id="0" * 32, action=bj.ACTION_HIT), metadata=md)) == (
        grpc.StatusCode.NOT_FOUND, "ROUND_NOT_FOUND")
    assert await _refusal(game.Act(bj.ActRequest(request_id="a", round_id="0" * 32),
                                   metadata=md)) == (
        grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ACTION")
    assert await _refusal(office.ListPlayerRounds(op.ListPlayerRoundsRequest(
        brand_id="other-casino", player_id="alice"), metadata=OPERATOR)) == (
        grpc.StatusCode.NOT_FOUND, "BRAND_NOT_FOUND")
    h.wallet.down = True
    assert await _refusal(game.Deal(bj.DealRequest(
        request_id="d2", variant_id="classic-resplit", boxes=[bj.BoxBet(seat=1, stake=100)]),
        metadata=md)) == (grpc.StatusCode.UNAVAILABLE, "WALLET_UNAVAILABLE")


def test_every_service_and_journal_error_has_a_row_in_the_error_table() -> None:
    classes = [c for c in vars(service_errors).values()
               if isinstance(c, type) and issubclass(c, service_errors.ServiceError)
               and c is not service_errors.ServiceError]
    for cls in classes:
        code, reason, _ = classify(cls("x"))
        assert reason == cls.default_reason and code not in (
            grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN), cls
    assert classify(JournalBusy("x"))[:2] == (grpc.StatusCode.ABORTED, "REQUEST_IN_PROGRESS")
    assert classify(JournalBusy("x", same_request=True))[1] == "REQUEST_IN_PROGRESS"
    assert classify(JournalBusy("x", same_request=False))[:2] == (grpc.StatusCode.ABORTED,
                                                                 "PLAYER_BUSY")
    assert classify(service_errors.TableBusy("x"))[:2] == (grpc.StatusCode.UNAVAILABLE,
                                                           "TABLE_BUSY")
    assert classify(JournalUnavailable("x"))[:2] == (grpc.StatusCode.UNAVAILABLE,
                                                     "JOURNAL_UNAVAILABLE")
    assert classify(RuntimeError("bug"))[:2] == (grpc.StatusCode.UNAVAILABLE, "SERVER_ERROR")
