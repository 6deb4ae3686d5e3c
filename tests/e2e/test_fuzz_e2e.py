"""Malformed and random requests to every RPC: never INTERNAL or UNKNOWN, every refusal carries
an ErrorInfo of domain ``rgs``, and no balance changes."""

from __future__ import annotations

import random
import string
from typing import Any

import grpc
import pytest
from e2e_clients import Clients
from google.rpc import error_details_pb2, status_pb2
from test_play_e2e import OPERATOR, new_player, session, wallet_balance

from rgs.generated.blackjack.v1 import blackjack_pb2 as bj
from rgs.generated.operator.v1 import operator_pb2 as op

pytestmark = pytest.mark.asyncio(loop_scope="session")

CALLS_PER_RPC = 80
RPCS = {
    "/rgs.blackjack.v1.BlackjackService/ListVariants": bj.ListVariantsRequest,
    "/rgs.blackjack.v1.BlackjackService/Deal": bj.DealRequest,
    "/rgs.blackjack.v1.BlackjackService/Act": bj.ActRequest,
    "/rgs.blackjack.v1.BlackjackService/Settle": bj.SettleRequest,
    "/rgs.blackjack.v1.BlackjackService/GetRound": bj.GetRoundRequest,
    "/rgs.operator.v1.OperatorService/CreateSession": op.CreateSessionRequest,
    "/rgs.operator.v1.OperatorService/ListPlayerRounds": op.ListPlayerRoundsRequest,
    "/rgs.operator.v1.OperatorService/GetPlayerRound": op.GetPlayerRoundRequest,
}


def _text(rng: random.Random) -> str:
    pool = string.printable + "é€\u0000😀"
    return "".join(rng.choice(pool) for _ in range(rng.choice([0, 1, 5, 64, 65, 300])))


def _int(rng: random.Random, bits: int) -> int:
    return rng.choice([0, 1, -1, 2**(bits - 1) - 1, -2**(bits - 1), rng.randrange(-999, 999)])


def _random_message(cls: Any, rng: random.Random, depth: int = 0) -> Any:
    msg = cls()
    for f in cls.DESCRIPTOR.fields:
        if rng.random() < 0.3:
            continue
        values: list[Any] = []
        for _ in range(rng.choice([1, 1, 3]) if f.is_repeated else 1):
            if f.type == f.TYPE_MESSAGE:
                if depth > 1 or f.message_type.name == "Timestamp":
                    continue
                values.append(_random_message(f.message_type._concrete_class, rng, depth + 1))
            elif f.type == f.TYPE_STRING:
                values.append(_text(rng))
            elif f.type == f.TYPE_BOOL:
                values.append(rng.random() < 0.5)
            elif f.type == f.TYPE_ENUM:
                values.append(rng.choice([0, 1, 3, 99, -5]))
            elif f.type in (f.TYPE_INT32, f.TYPE_SINT32):
                values.append(_int(rng, 32))
            else:
                values.append(_int(rng, 64))
        if not values:
            continue
        if f.is_repeated:
            getattr(msg, f.name).extend(values)
        elif f.type == f.TYPE_MESSAGE:
            getattr(msg, f.name).CopyFrom(values[0])
        else:
            setattr(msg, f.name, values[0])
    return msg


def _check(err: grpc.aio.AioRpcError, what: str) -> None:
    assert err.code() not in (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN), (
        what, err.code(), err.details())
    infos = []
    for key, value in err.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            for d in status_pb2.Status.FromString(value).details:
                info = error_details_pb2.ErrorInfo()
                if d.Unpack(info):
                    infos.append(info)
    assert infos and infos[0].domain == "rgs" and infos[0].reason.isupper(), (what, err)


async def test_random_and_malformed_requests_never_fail_internally_or_move_money(
        e2e: Clients) -> None:
    rng = random.Random(20261129)
    pid = await new_player(e2e)
    player_md = await session(e2e, pid)
    credentials = [(), (("authorization", "Bearer nonsense"),),
                   (("authorization", "Basic abc"),), (("authorization", "Bearer s1.%%%.x"),),
                   player_md, OPERATOR]
    for path, cls in RPCS.items():
        for replica, channel in enumerate(e2e.channels):
            call = channel.unary_unary(path, request_serializer=lambda b: b,
                                       response_deserializer=lambda b: b)
            for i in range(CALLS_PER_RPC // 2):
                if i % 5 == 0:
                    payload = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))
                else:
                    payload = _random_message(cls, rng).SerializeToString()
                md = credentials[rng.randrange(len(credentials))]
                try:
                    # A valid token may legitimately get an answer (ListVariants, GetRound).
                    await call(payload, metadata=md, timeout=10)
                except grpc.aio.AioRpcError as err:
                    _check(err, f"{path} via replica {replica}")
    assert await wallet_balance(e2e, pid) == 100_000
