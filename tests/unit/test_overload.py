"""The admission limits (rgs.api.overload): the token bucket, the in-flight cap of
CallsInFlight, the operator rate, how a shed call's delay is sent, and the platform file's
``rate_limit``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from rgs.api.drain import CallsInFlight
from rgs.api.errors import RETRY_AFTER_KEY, STATUS_DETAILS_KEY, classify, status_trailer
from rgs.api.overload import (
    CURRENT,
    MAX_RETRY_AFTER_MS,
    OPERATOR_RATE_LIMITED,
    OVERLOADED,
    Admission,
    TokenBucket,
    admission_for,
    admit_operator,
)
from rgs.observability import metrics
from rgs.platform_file import DEFAULT_PLATFORM_FILE, PlatformError, RateLimit, load_platform
from rgs.service.errors import ResourceExhausted


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_bucket_gives_its_burst_then_one_token_per_period() -> None:
    clock = Clock()
    bucket = TokenBucket(RateLimit(calls_per_s=10, burst=3), clock)
    assert [bucket.take() for _ in range(3)] == [0, 0, 0]
    assert bucket.take() == 100  # a token every 100 ms
    clock.now += 0.04
    assert bucket.take() == 60  # nothing taken by a refusal: 60 ms still to go
    clock.now += 0.06
    assert bucket.take() == 0
    clock.now += 10  # a long rest refills the burst, no more
    assert [bucket.take() for _ in range(4)] == [0, 0, 0, 100]


def _shed(reason: str, operator: str = "") -> float:
    return metrics.RPC_SHED.labels(reason=reason, operator=operator)._value.get()


def test_an_operator_past_its_rate_is_refused_with_the_wait_and_others_are_not() -> None:
    clock = Clock()
    admission = Admission(max_in_flight=0, rates={"op-a": RateLimit(calls_per_s=2, burst=1)},
                          clock=clock)
    before = _shed(OPERATOR_RATE_LIMITED, "op-a")
    admission.admit_operator("op-a")
    with pytest.raises(ResourceExhausted) as err:
        admission.admit_operator("op-a")
    assert err.value.reason == OPERATOR_RATE_LIMITED
    assert err.value.metadata == {"retry_after_ms": "500"}
    assert _shed(OPERATOR_RATE_LIMITED, "op-a") == before + 1
    for _ in range(100):
        admission.admit_operator("op-b")  # no limit of its own


def test_admit_operator_applies_the_current_calls_admission_only() -> None:
    admit_operator("op-a")  # outside a served call: nothing to apply
    admission = Admission(max_in_flight=0, rates={"op-a": RateLimit(calls_per_s=1, burst=1)})
    token = CURRENT.set(admission)
    try:
        admit_operator("op-a")
        with pytest.raises(ResourceExhausted):
            admit_operator("op-a")
    finally:
        CURRENT.reset(token)


def test_a_shed_call_is_resource_exhausted_with_retry_info_and_a_trailer() -> None:
    code, reason, message = classify(ResourceExhausted("full", reason=OVERLOADED,
                                                       retry_after_ms=250))
    assert (code, reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, OVERLOADED)
    trailer = dict(status_trailer(code, reason, message, {"retry_after_ms": "250"}))
    assert trailer[RETRY_AFTER_KEY] == "250"
    status = status_pb2.Status.FromString(trailer[STATUS_DETAILS_KEY])  # type: ignore[arg-type]
    info, retry = error_details_pb2.ErrorInfo(), error_details_pb2.RetryInfo()
    assert status.details[0].Unpack(info) and status.details[1].Unpack(retry)
    assert info.metadata["retry_after_ms"] == "250"
    assert retry.retry_delay.ToMilliseconds() == 250
    # Any other refusal keeps its one detail and no trailer of its own.
    assert len(status_trailer(grpc.StatusCode.NOT_FOUND, "X", "m")) == 1


class Aborted(grpc.aio.AbortError):
    """What ``ServicerContext.abort`` raises on a call still open (gRPC's AbortError)."""


class Context:
    def __init__(self) -> None:
        self.aborted: tuple[Any, ...] | None = None

    async def abort(self, code: grpc.StatusCode, message: str,
                    trailing_metadata: Any = ()) -> None:
        self.aborted = (code, message, dict(trailing_metadata))
        raise Aborted


async def test_calls_past_the_cap_are_shed_without_running_and_the_rest_are_served() -> None:
    calls = CallsInFlight(Admission(max_in_flight=2, retry_after_ms=70))
    release = asyncio.Event()
    ran: list[int] = []

    async def method(request: int, context: Any) -> int:
        ran.append(request)
        await release.wait()
        return request

    handler = calls.serve(method)
    first = [asyncio.create_task(handler(i, Context())) for i in (1, 2)]
    await asyncio.sleep(0)
    before = _shed(OVERLOADED)
    shed = Context()
    with pytest.raises(Aborted):
        await handler(3, shed)
    assert shed.aborted is not None
    code, _, trailer = shed.aborted
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and trailer[RETRY_AFTER_KEY] == "70"
    assert ran == [1, 2] and _shed(OVERLOADED) == before + 1
    release.set()
    assert await asyncio.gather(*first) == [1, 2]
    assert await handler(4, Context()) == 4  # room again at once
    report = await calls.drain(0.1)
    assert report.in_flight == 0


async def test_no_admission_admits_any_number() -> None:
    calls = CallsInFlight()

    async def method(request: int, context: Any) -> int:
        await asyncio.sleep(0.01)
        return request

    handler = calls.serve(method)
    assert await asyncio.gather(*(handler(i, Context()) for i in range(300))) == list(range(300))


def _platform_with(tmp_path: Path, rate: Any) -> Path:
    raw = json.loads(DEFAULT_PLATFORM_FILE.read_text("utf-8"))
    for op in raw["operators"]:
        op["wallet"]["api_key"] = {"file": str(DEFAULT_PLATFORM_FILE.parent /
                                               op["wallet"]["api_key"]["file"])}
    raw["operators"][0]["rate_limit"] = rate
    path = tmp_path / "platform.json"
    path.write_text(json.dumps(raw), "utf-8")
    return path


def test_the_platform_file_gives_operator_rates(tmp_path: Path) -> None:
    platform = load_platform(_platform_with(tmp_path, {"calls_per_s": 50, "burst": 20}))
    first = next(iter(platform.operators.values()))
    assert first.rate_limit == RateLimit(calls_per_s=50, burst=20)
    admission = admission_for(platform, max_in_flight=8, retry_after_ms=100)
    assert admission.max_in_flight == 8
    for _ in range(20):
        admission.admit_operator(first.id)
    with pytest.raises(ResourceExhausted):
        admission.admit_operator(first.id)


@pytest.mark.parametrize(("rate", "where"), [
    ({"calls_per_s": 0, "burst": 1}, "rate_limit.calls_per_s"),
    ({"calls_per_s": 5, "burst": 0}, "rate_limit.burst"),
    ({"calls_per_s": 5}, "rate_limit.burst"),
])
def test_a_wrong_rate_is_refused_naming_its_field(tmp_path: Path, rate: Any, where: str) -> None:
    with pytest.raises(PlatformError) as err:
        load_platform(_platform_with(tmp_path, rate))
    assert f"operators[0].{where}" in str(err.value)


class _Details:
    def __init__(self, method: str) -> None:
        self.method = method
        self.invocation_metadata = ()


class _AbortContext:
    def __init__(self) -> None:
        self.aborted: tuple[Any, ...] | None = None

    async def abort(self, code: grpc.StatusCode, message: str,
                    trailing_metadata: Any = ()) -> None:
        self.aborted = (code, message, trailing_metadata)
        raise grpc.aio.AbortError()


async def test_a_call_past_the_cap_is_shed_at_the_door_without_parsing_its_request() -> None:
    from rgs.api.shedding import ShedInterceptor, unary_paths
    from rgs.generated.blackjack.v1 import blackjack_pb2
    from rgs.generated.table.v1 import table_pb2

    service = blackjack_pb2.DESCRIPTOR.services_by_name["BlackjackService"]
    tables = table_pb2.DESCRIPTOR.services_by_name["TableService"]
    paths = unary_paths([service, tables])
    assert "/rgs.blackjack.v1.BlackjackService/Deal" in paths
    assert "/rgs.table.v1.TableService/WatchTable" not in paths  # a stream is never shed
    calls = CallsInFlight(Admission(max_in_flight=1, retry_after_ms=250))
    shed = ShedInterceptor(calls, paths)
    served: list[str] = []

    async def continuation(details: Any) -> str:
        served.append(details.method)
        return "the method's own handler"

    deal = "/rgs.blackjack.v1.BlackjackService/Deal"
    assert await shed.intercept_service(continuation, _Details(deal)) == (
        "the method's own handler")  # room: it goes on
    release = asyncio.Event()

    async def held(request: object, context: object) -> str:
        await release.wait()
        return "ok"
    in_flight = asyncio.ensure_future(calls.serve(held)("req", None))
    await asyncio.sleep(0)
    assert len(calls) == 1
    before = _shed(OVERLOADED)
    handler = await shed.intercept_service(continuation, _Details(deal))
    assert served == [deal]  # no handler looked up for the shed call
    assert handler.request_deserializer is None  # its bytes are never parsed
    context = _AbortContext()
    with pytest.raises(grpc.aio.AbortError):
        await handler.unary_unary(b"\xff not a message", context)
    assert context.aborted is not None
    code, message, trailer = context.aborted
    assert code is grpc.StatusCode.RESOURCE_EXHAUSTED and "retry after 250 ms" in message
    trailers = dict(trailer)
    assert trailers[RETRY_AFTER_KEY] == "250"
    status = status_pb2.Status.FromString(trailers[STATUS_DETAILS_KEY])
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info) and info.reason == OVERLOADED
    assert info.metadata["retry_after_ms"] == "250"
    assert _shed(OVERLOADED) == before + 1
    # Health, reflection and streams pass at any load.
    for path in ("/grpc.health.v1.Health/Check", "/rgs.table.v1.TableService/WatchTable"):
        assert await shed.intercept_service(continuation, _Details(path)) == (
            "the method's own handler")
    release.set()
    assert await in_flight == "ok"
    assert await shed.intercept_service(continuation, _Details(deal)) == (
        "the method's own handler")



def test_the_retry_delay_grows_with_the_crowd_shed_and_falls_back_when_it_thins() -> None:
    """Found by bench/tables.py's crowd: a thousand clients told 100 ms came back together, ten
    thousand shed calls a second that cost more CPU than the bets. The delay doubles for every
    further multiple of the limit shed in the last second or two, up to MAX_RETRY_AFTER_MS."""
    now = [1000.0]
    admission = Admission(max_in_flight=10, retry_after_ms=100, clock=lambda: now[0])

    def shed(n: int) -> list[int]:
        return [int(admission.overloaded_answer()[1][-1][1]) for _ in range(n)]

    assert set(shed(10)) == {100}  # fewer than the limit shed: the configured delay
    assert shed(10) == [200] * 10  # a limit's worth shed: twice
    assert shed(20)[-1] == 400  # 2-4x the limit (the 40th call saw 39 shed): four times
    now[0] += 1.0  # the next second still counts the previous one's crowd (40: 4x, eight times)
    assert shed(1) == [800]
    assert shed(1000)[-1] == MAX_RETRY_AFTER_MS  # however many, never past the cap
    message, trailer = admission.overloaded_answer()
    assert f"retry after {MAX_RETRY_AFTER_MS} ms" in message
    assert dict(trailer)[RETRY_AFTER_KEY] == str(MAX_RETRY_AFTER_MS)
    refusal = admission.over_capacity(10)
    assert refusal is not None and refusal.metadata["retry_after_ms"] == str(MAX_RETRY_AFTER_MS)
    now[0] += 2.0  # a quiet second later the crowd is gone: back to the configured delay
    assert shed(1) == [100]
