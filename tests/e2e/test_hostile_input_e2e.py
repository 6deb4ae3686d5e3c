"""Hostile input against real server processes (issue 12): every string field of every RPC with
a NUL byte, invalid UTF-8 on the wire, 64 KB and 1 MB values is refused INVALID_ARGUMENT with an
ErrorInfo, and no money moves; malformed credentials never reach the database."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from e2e_clients import Clients
from google.protobuf.message import Message
from test_play_e2e import OPERATOR, error_info, new_player, session, wallet_balance

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.operator.v1 import operator_pb2 as op

pytestmark = pytest.mark.asyncio(loop_scope="session")

BLACKJACK = "/rgs.blackjack.v1.BlackjackService/"
OPERATOR_SERVICE = "/rgs.operator.v1.OperatorService/"


def _string_fields(cls: type[Message]) -> list[tuple[str, int, bool]]:
    return [(f.name, f.number, f.is_repeated) for f in cls.DESCRIPTOR.fields
            if f.type == f.TYPE_STRING]


def _rpcs() -> list[tuple[str, type[Message], bool]]:
    """(path, request class, operator call) of every RPC with a string field."""
    out = []
    for prefix, module, name, is_operator in ((BLACKJACK, bj, "BlackjackService", False),
                                              (OPERATOR_SERVICE, op, "OperatorService", True)):
        for m in module.DESCRIPTOR.services_by_name[name].methods:
            cls = getattr(module, m.input_type.name)
            if _string_fields(cls):
                out.append((prefix + m.name, cls, is_operator))
    return out


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _raw_string(number: int, value: bytes) -> bytes:
    """One length-delimited field on the wire, with bytes protobuf would never write."""
    return _varint(number << 3 | 2) + _varint(len(value)) + value


async def _refused(c: Clients, path: str, payload: bytes, md: Any) -> grpc.aio.AioRpcError:
    call = c.channels[0].unary_unary(path, request_serializer=lambda b: b,
                                     response_deserializer=lambda b: b)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call(payload, metadata=md, timeout=30)
    return err.value


async def test_every_string_field_refuses_nul_bad_utf8_and_huge_values(e2e: Clients) -> None:
    pid = await new_player(e2e)
    player_md = await session(e2e, pid)
    rpcs = _rpcs()
    assert len(rpcs) >= 8  # Deal, Act, Settle, GetRound and the four operator calls
    seen = 0
    for path, cls, is_operator in rpcs:
        md = OPERATOR if is_operator else player_md
        for name, number, repeated in _string_fields(cls):
            for bad in ("x\x00y", "v" * 65_536, "w" * 1_048_576):
                msg = cls()
                if repeated:
                    getattr(msg, name).append(bad)
                else:
                    setattr(msg, name, bad)
                err = await _refused(e2e, path, msg.SerializeToString(), md)
                assert err.code() == grpc.StatusCode.INVALID_ARGUMENT, (path, name, err)
                info = error_info(err)
                assert info.reason == f"INVALID_{name.upper()}", (path, name, info)
                assert info.metadata["field"] == name
                assert len(err.details() or "") < 200  # no input echoed back
                seen += 1
            err = await _refused(e2e, path, _raw_string(number, b"\xff\xfe\x00bad"), md)
            assert err.code() == grpc.StatusCode.INVALID_ARGUMENT, (path, name)
            assert error_info(err).reason == "MALFORMED_REQUEST"
    assert seen >= 3 * 15
    assert await wallet_balance(e2e, pid) == 100_000


async def test_a_nul_byte_in_a_token_is_unauthenticated_not_unavailable(e2e: Clients) -> None:
    """Found: the bearer token `s1.AA.x` (a NUL player key) reached PostgreSQL and was answered
    UNAVAILABLE / JOURNAL_UNAVAILABLE, a retryable 'server down' any anonymous caller could
    count into RgsHighErrorRate."""
    for token in ("s1.AA.x", "s1.AA." + "x" * 43, "s1." + "A" * 4_000 + ".x"):
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await e2e.games[0].GetRound(bj.GetRoundRequest(), timeout=10,
                                        metadata=(("authorization", f"Bearer {token}"),))
        assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED, token[:20]
        assert error_info(err.value).reason == "INVALID_SESSION_TOKEN"
    for key in ("a key with spaces", "short", "x" * 300):
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await e2e.operators[0].ListPlayerRounds(op.ListPlayerRoundsRequest(
                brand_id="demo-casino", player_id="demo-alice"), timeout=10,
                metadata=(("authorization", f"Bearer {key}"),))
        assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED
        assert error_info(err.value).reason == "INVALID_API_KEY"


async def test_a_nul_void_reason_is_invalid_argument(e2e: Clients) -> None:
    """Found: a NUL byte in a VoidRound reason reached PostgreSQL: UNAVAILABLE."""
    pid = await new_player(e2e)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await e2e.operators[0].VoidRound(op.VoidRoundRequest(
            request_id="v1", brand_id="demo-casino", player_id=pid, round_id="0" * 32,
            reason="oops\x00"), metadata=OPERATOR, timeout=10)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(err.value).reason == "INVALID_REASON"


async def test_a_10_kb_variant_or_brand_id_is_refused_with_error_info(e2e: Clients) -> None:
    """Found: a 10 KB variant_id or brand_id was echoed into the message and the status trailer;
    the client got RESOURCE_EXHAUSTED (metadata over the limit) and no ErrorInfo."""
    pid = await new_player(e2e)
    md = await session(e2e, pid)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await e2e.games[0].Deal(bj.DealRequest(request_id="d", variant_id="v" * 10_240,
                                               boxes=[bj.BoxBet(seat=1, stake=100)]),
                                metadata=md, timeout=10)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(err.value).reason == "INVALID_VARIANT_ID"
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await e2e.operators[0].CreateSession(op.CreateSessionRequest(
            request_id="s", brand_id="b" * 10_240, player_id=pid), metadata=OPERATOR, timeout=10)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(err.value).reason == "INVALID_BRAND_ID"
    # A well-formed but unknown id is quoted as a short prefix only.
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await e2e.games[0].Deal(bj.DealRequest(request_id="d", variant_id="n" * 64,
                                               boxes=[bj.BoxBet(seat=1, stake=100)]),
                                metadata=md, timeout=10)
    assert error_info(err.value).reason == "UNKNOWN_VARIANT"
    assert "n" * 30 not in (err.value.details() or "")
    assert await wallet_balance(e2e, pid) == 100_000
