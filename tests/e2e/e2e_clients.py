"""The e2e stack's stubs (``Clients``, the ``e2e`` fixture's value), in a module of its own:
test modules import it by this name, not from ``conftest``, which names a different module
when another folder's conftest was imported first in the same run."""

from __future__ import annotations

from dataclasses import dataclass

import grpc
from e2e_servers import Stack

from rgs.generated.blackjack.v1 import blackjack_pb2_grpc
from rgs.generated.operator.v1 import operator_pb2_grpc
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2_grpc


@dataclass
class Clients:
    """Stubs on each replica, the wallet's control stub and the journal database."""

    stack: Stack
    games: list[blackjack_pb2_grpc.BlackjackServiceAsyncStub]
    operators: list[operator_pb2_grpc.OperatorServiceAsyncStub]
    control: sandbox_pb2_grpc.SandboxControlServiceAsyncStub
    #: other-operator's wallet's control stub.
    other_control: sandbox_pb2_grpc.SandboxControlServiceAsyncStub
    rgs_db: str
    channels: list[grpc.aio.Channel]
