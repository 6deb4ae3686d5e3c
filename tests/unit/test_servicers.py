"""Every RPC of every served proto service has a typed method, on the servicer and on the calls
object the edges run, whose annotations are the descriptor's input and output types.

The servicers subclass the generated ``*ServiceServicer`` bases so that ``mypy --strict``
checks each signature against the generated stubs; this test checks the same from the service
descriptors at run time, and catches what mypy cannot: a method left to the generated base
(which answers UNIMPLEMENTED), or a calls object the browser edge looks up by the RPC's name.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import AsyncIterator, Callable
from types import ModuleType
from typing import Any

import pytest
from google.protobuf.descriptor import MethodDescriptor, ServiceDescriptor

from rgs.api.admin import AdminCalls, AdminServicer
from rgs.api.calls import BlackjackCalls, Caller, OperatorCalls
from rgs.api.servicers import BlackjackServicer, OperatorServicer
from rgs.api.tables import TableCalls, TableServicer
from rgs.generated.admin.v1 import admin_pb2, admin_pb2_grpc
from rgs.generated.blackjack.v1 import blackjack_pb2, blackjack_pb2_grpc
from rgs.generated.operator.v1 import operator_pb2, operator_pb2_grpc
from rgs.generated.table.v1 import table_pb2, table_pb2_grpc
from rgs.generated.wallet.v1 import wallet_pb2, wallet_pb2_grpc
from sandbox_wallet.generated.sandbox.v1 import sandbox_pb2, sandbox_pb2_grpc
from sandbox_wallet.servicers import ControlServicer, WalletServicer

#: (proto module, its grpc module, service name, servicer class, calls class or None).
SERVED: list[tuple[ModuleType, ModuleType, str, type, type | None]] = [
    (blackjack_pb2, blackjack_pb2_grpc, "BlackjackService", BlackjackServicer, BlackjackCalls),
    (operator_pb2, operator_pb2_grpc, "OperatorService", OperatorServicer, OperatorCalls),
    (admin_pb2, admin_pb2_grpc, "AdminService", AdminServicer, AdminCalls),
    (table_pb2, table_pb2_grpc, "TableService", TableServicer, TableCalls),
    (wallet_pb2, wallet_pb2_grpc, "WalletService", WalletServicer, None),
    (sandbox_pb2, sandbox_pb2_grpc, "SandboxControlService", ControlServicer, None),
]


def _full_name(annotation: object) -> str:
    descriptor = getattr(annotation, "DESCRIPTOR", None)
    return getattr(descriptor, "full_name", repr(annotation))


def _answer_type(hints: dict[str, Any], m: MethodDescriptor) -> object:
    """The message a method answers with: its return annotation, or what it yields."""
    returned = hints.get("return")
    if m.server_streaming:
        if typing.get_origin(returned) is not AsyncIterator:
            return returned
        (returned,) = typing.get_args(returned)
    return returned


def _method_problems(cls: type, m: MethodDescriptor, params: tuple[str, ...],
                     request_param: str) -> list[str]:
    where = f"{cls.__name__}.{m.name}"
    method: Callable[..., object] | None = cls.__dict__.get(m.name)
    if method is None:
        return [f"{where}: no method for the RPC"]
    problems = []
    wants = inspect.isasyncgenfunction if m.server_streaming else inspect.iscoroutinefunction
    if not wants(method):
        problems.append(f"{where}: not an async {'generator' if m.server_streaming else 'def'}")
    if tuple(inspect.signature(method).parameters) != params:
        problems.append(f"{where}: parameters {tuple(inspect.signature(method).parameters)}, "
                        f"expected {params}")
    try:
        hints = typing.get_type_hints(method)
    except Exception as exc:  # an annotation that does not resolve is a problem too
        return [*problems, f"{where}: annotations do not resolve ({exc})"]
    request = hints.get(request_param)
    if _full_name(request) != m.input_type.full_name:
        problems.append(f"{where}: request annotated {_full_name(request)}, "
                        f"the RPC takes {m.input_type.full_name}")
    answer = _answer_type(hints, m)
    if _full_name(answer) != m.output_type.full_name:
        problems.append(f"{where}: answer annotated {_full_name(answer)}, "
                        f"the RPC answers {m.output_type.full_name}")
    return problems


def servicer_problems(service: ServiceDescriptor, cls: type) -> list[str]:
    """What is wrong with ``cls`` as the servicer of ``service``: an RPC with no method of
    its own, or one whose ``(request, context)`` annotations are not the RPC's types."""
    return [p for m in service.methods
            for p in _method_problems(cls, m, ("self", "request", "context"), "request")]


def calls_problems(service: ServiceDescriptor, cls: type) -> list[str]:
    """The same for a calls object, whose methods take ``(caller, request)``."""
    problems = [p for m in service.methods
                for p in _method_problems(cls, m, ("self", "caller", "request"), "request")]
    for m in service.methods:
        method = cls.__dict__.get(m.name)
        if method is not None and typing.get_type_hints(method).get("caller") is not Caller:
            problems.append(f"{cls.__name__}.{m.name}: caller not annotated Caller")
    return problems


@pytest.mark.parametrize(("pb2", "pb2_grpc", "name", "servicer", "calls"), SERVED,
                         ids=[row[2] for row in SERVED])
def test_each_rpc_has_a_typed_servicer_method(pb2: ModuleType, pb2_grpc: ModuleType, name: str,
                                              servicer: type, calls: type | None) -> None:
    service = pb2.DESCRIPTOR.services_by_name[name]
    assert issubclass(servicer, getattr(pb2_grpc, f"{name}Servicer"))
    assert servicer_problems(service, servicer) == []
    if calls is not None:
        assert calls_problems(service, calls) == []


def test_every_served_service_is_listed() -> None:
    """A service added to a proto file is served by a typed servicer too (or the test fails)."""
    listed = {(pb2.__name__, name) for pb2, _, name, _, _ in SERVED}
    found = {(pb2.__name__, name) for pb2, *_ in SERVED
             for name in pb2.DESCRIPTOR.services_by_name}
    assert found <= listed


class _Broken(blackjack_pb2_grpc.BlackjackServiceServicer):
    """A servicer with one RPC missing, one mistyped and one not async."""

    async def ListVariants(self, request: blackjack_pb2.DealRequest, context: object
                           ) -> blackjack_pb2.ListVariantsResponse:
        raise NotImplementedError

    async def Deal(self, request: blackjack_pb2.DealRequest, context: object
                   ) -> blackjack_pb2.ActResponse:
        raise NotImplementedError

    def Act(self, request: blackjack_pb2.ActRequest, context: object  # type: ignore[override]
            ) -> blackjack_pb2.ActResponse:
        raise NotImplementedError


def test_the_check_finds_missing_and_mistyped_methods() -> None:
    service = blackjack_pb2.DESCRIPTOR.services_by_name["BlackjackService"]
    problems = servicer_problems(service, _Broken)
    assert ("_Broken.ListVariants: request annotated rgs.blackjack.v1.DealRequest, the RPC "
            "takes rgs.blackjack.v1.ListVariantsRequest") in problems
    assert ("_Broken.Deal: answer annotated rgs.blackjack.v1.ActResponse, the RPC answers "
            "rgs.blackjack.v1.DealResponse") in problems
    assert "_Broken.Act: not an async def" in problems
    assert "_Broken.Settle: no method for the RPC" in problems
    assert "_Broken.GetBalance: no method for the RPC" in problems


class _BadStream(table_pb2_grpc.TableServiceServicer):
    async def WatchTable(self, request: table_pb2.WatchTableRequest, context: object
                         ) -> AsyncIterator[table_pb2.TableSnapshot]:
        yield table_pb2.TableSnapshot()


def test_the_check_reads_what_a_stream_yields() -> None:
    service = table_pb2.DESCRIPTOR.services_by_name["TableService"]
    assert ("_BadStream.WatchTable: answer annotated rgs.table.v1.TableSnapshot, the RPC "
            "answers rgs.table.v1.WatchTableResponse") in servicer_problems(service, _BadStream)


def test_annotations_are_the_generated_classes() -> None:
    hints = typing.get_type_hints(BlackjackServicer.Deal)
    assert hints["request"] is blackjack_pb2.DealRequest
    assert hints["return"] is blackjack_pb2.DealResponse
