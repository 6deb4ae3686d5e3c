"""Observability of a real gRPC server over the real bootstrap (in-memory journal, fake wallet):
the span tree of a Deal, trace context in and out, RED and money metrics, the scrape of the
metrics endpoint against the dashboards and rules, and logs without secrets."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import random
import re
import urllib.request
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest
import pytest_asyncio
import yaml
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind
from ops_toolbox import OPS, STANDARD_SERIES, names_in, own_series
from prometheus_client import REGISTRY

from rgs.bootstrap import App, add_dev_operator_keys, build, serve
from rgs.config import RgsSettings, platform
from rgs.engine import CardSource
from rgs.engine.model import CardDealt
from rgs.generated.blackjack.v1 import blackjack_pb2, blackjack_pb2_grpc
from rgs.generated.operator.v1 import operator_pb2, operator_pb2_grpc
from rgs.journal.memory import InMemoryJournal
from rgs.observability import metrics
from rgs.observability.instrumented import InstrumentedJournal, InstrumentedWallet
from rgs.observability.interceptors import server_interceptors
from rgs.observability.logging import JsonFormatter, RedactionFilter
from rgs.observability.tracing import TraceContextClientInterceptor, configure_tracing, tracer
from rgs.rng.errors import EntropySourceFailure
from rgs.rng.fair import CardOrders
from rgs.service.demo import DemoWallet
from rgs.wallet.port import MoneyCall, MoneyKind, MoneyResult, Party, WalletUnavailable
from support.platforms import sandbox_platform

pytestmark = pytest.mark.asyncio(loop_scope="session")

CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
CALLER_SPAN = "00f067aa0ba902b7"
TRACEPARENT = f"00-{CALLER_TRACE}-{CALLER_SPAN}-01"
OPERATOR_KEY = "rgs-dev-operator-key"


@dataclass
class DictWallet:
    """A wallet that always answers, with balances in a dict."""

    balances: dict[str, int] = field(default_factory=lambda: {"alice": 1_000_000})

    async def balance(self, party: Party) -> int:
        return self.balances[party.player_id]

    async def move(self, call: MoneyCall) -> MoneyResult:
        sign = -1 if call.kind is MoneyKind.DEBIT else 1
        self.balances[call.party.player_id] += sign * call.amount
        return MoneyResult(transaction_id=call.transaction_id,
                           balance=self.balances[call.party.player_id])


class SeededCards:
    """Deterministic card randomness."""

    def __init__(self, seed: int = 11) -> None:
        self._rng = random.Random(seed)
        self._orders = CardOrders()

    def picker(self) -> Callable[[int], int]:
        return self._rng.randrange

    def fair_source(self, server_seed_hex: str, client_seed: str, round_number: int,
                    decks: int) -> CardSource:
        return self._orders.source(server_seed_hex, client_seed, round_number, decks)


@pytest.fixture(scope="module")
def spans() -> Iterator[InMemorySpanExporter]:
    """Every span of the module, exported in memory (the process-wide provider is set once)."""
    exporter = InMemorySpanExporter()
    setup = configure_tracing({}, processor=SimpleSpanProcessor(exporter))
    assert setup.enabled
    provider = trace.get_tracer_provider()
    if provider is not setup.provider:  # set earlier in this process: add to that one
        provider.add_span_processor(SimpleSpanProcessor(exporter))  # type: ignore[attr-defined]
    yield exporter
    exporter.shutdown()  # later tests' spans are dropped, not piled up in memory


@dataclass
class Served:
    """A running server over the instrumented app, and a channel to it."""

    app: App
    journal: InMemoryJournal
    channel: grpc.aio.Channel
    log: io.StringIO


@pytest_asyncio.fixture(loop_scope="session")
async def served(spans: InMemorySpanExporter) -> AsyncIterator[Served]:
    settings = RgsSettings(test_mode=True, listen="127.0.0.1:0")
    journal = InMemoryJournal(lock_wait_s=1.0)
    # build() wraps the journal and the wallet in the instrumented decorators itself.
    app = await build(settings, journal=journal, wallet=DictWallet(), cards=SeededCards())
    assert isinstance(app.journal, InstrumentedJournal)
    # Demo play is answered in front of the instrumented wallet: its money never reaches a
    # wallet or the wallet's metrics.
    assert isinstance(app.wallet, DemoWallet)
    assert isinstance(app.wallet._real, InstrumentedWallet)
    await add_dev_operator_keys(app.journal)
    brands = platform(settings).brands
    metrics.initialise(version="test", brands={b.id: b.variants for b in brands.values()})
    log = io.StringIO()
    handler = logging.StreamHandler(log)
    handler.addFilter(RedactionFilter())
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    running = await serve(settings, app, interceptors=server_interceptors())
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{running.port}")
    try:
        yield Served(app=app, journal=journal, channel=channel, log=log)
    finally:
        await channel.close()
        await running.stop(grace=None)
        root.removeHandler(handler)
        root.setLevel(old_level)


async def _session(s: Served, player: str = "alice") -> str:
    office = operator_pb2_grpc.OperatorServiceStub(s.channel)
    resp = await office.CreateSession(
        operator_pb2.CreateSessionRequest(request_id=f"s-{player}-{random.random()}",
                                          brand_id="demo-casino", player_id=player),
        metadata=(("authorization", f"Bearer {OPERATOR_KEY}"),))
    return str(resp.session_token)


async def _deal(s: Served, token: str, request_id: str) -> blackjack_pb2.RoundView:
    game = blackjack_pb2_grpc.BlackjackServiceStub(s.channel)
    resp = await game.Deal(
        blackjack_pb2.DealRequest(request_id=request_id, variant_id="classic-resplit",
                                  boxes=[blackjack_pb2.BoxBet(seat=1, stake=1000)]),
        metadata=(("authorization", f"Bearer {token}"), ("traceparent", TRACEPARENT)))
    return resp.round


def _value(name: str, labels: dict[str, str]) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def _tree(finished: list[ReadableSpan], trace_id: int) -> dict[int | None, list[ReadableSpan]]:
    children: dict[int | None, list[ReadableSpan]] = {}
    for span in finished:
        if span.context is not None and span.context.trace_id == trace_id:
            parent = span.parent.span_id if span.parent is not None else None
            children.setdefault(parent, []).append(span)
    return children


async def test_deal_is_one_server_span_under_the_caller_with_journal_and_wallet_children(
        served: Served, spans: InMemorySpanExporter) -> None:
    token = await _session(served)
    spans.clear()
    view = await _deal(served, token, "deal-trace-1")
    finished = list(spans.get_finished_spans())
    tree = _tree(finished, int(CALLER_TRACE, 16))
    # The caller's span is the parent of exactly one server span: the Deal.
    (server,) = tree[int(CALLER_SPAN, 16)]
    assert server.name == "rgs.blackjack.v1.BlackjackService/Deal"
    assert server.kind is SpanKind.SERVER
    assert server.attributes is not None
    assert server.attributes["rpc.grpc.status_code"] == 0
    assert server.attributes["rgs.round_id"] == view.round_id
    assert server.context is not None

    def descendants(span_id: int) -> list[ReadableSpan]:
        out = []
        for child in tree.get(span_id, []):
            assert child.context is not None
            out.append(child)
            out.extend(descendants(child.context.span_id))
        return out

    below = descendants(server.context.span_id)
    names = [s.name for s in below]
    assert "wallet debit" in names
    assert "journal lock_player" in names
    assert "journal commit_round" in names
    assert "journal record_movement" in names  # the outbox row before the debit
    assert all(s.kind is SpanKind.CLIENT for s in below)
    # Every span of the call is in the caller's trace: nothing started a trace of its own.
    assert len(below) + 1 == sum(len(v) for v in tree.values())
    # Order: the outbox row is written before the wallet is called, the commit comes after.
    start = {s.name: s.start_time or 0 for s in reversed(below)}
    assert start["journal record_movement"] < start["wallet debit"] < start[
        "journal commit_round"]


async def test_wallet_receives_the_wallet_span_as_parent() -> None:
    received: list[tuple[tuple[str, Any], ...]] = []

    class Recorder(grpc.aio.ServerInterceptor):  # type: ignore[type-arg]
        async def intercept_service(self, continuation: Any, details: Any) -> Any:
            received.append(tuple(details.invocation_metadata))
            return await continuation(details)

    server = grpc.aio.server(interceptors=[Recorder()])
    health = HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        async with grpc.aio.insecure_channel(
                f"127.0.0.1:{port}", interceptors=[TraceContextClientInterceptor()]) as ch:
            with tracer().start_as_current_span("wallet debit") as span:
                await health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(),
                                                           metadata=(("x-keep", "1"),))
                ctx = span.get_span_context()
    finally:
        await server.stop(None)
    md = dict(received[0])
    # version-trace id-parent id-flags (sampled, and "random" on newer SDKs)
    assert md["traceparent"].startswith(f"00-{ctx.trace_id:032x}-{ctx.span_id:016x}-")
    assert md["x-keep"] == "1"  # the call's own metadata is kept


async def test_bootstrap_injects_tracing_into_the_grpc_wallet_and_counts_rng_failures(
        spans: InMemorySpanExporter) -> None:
    # The adapters know nothing of observability: bootstrap hands the gRPC wallet tracing's
    # interceptors and subscribes the failure counter to the RNG's health.
    received: list[tuple[tuple[str, Any], ...]] = []

    class Recorder(grpc.aio.ServerInterceptor):  # type: ignore[type-arg]
        async def intercept_service(self, continuation: Any, details: Any) -> Any:
            received.append(tuple(details.invocation_metadata))
            return await continuation(details)

    wallet_server = grpc.aio.server(interceptors=[Recorder()])
    port = wallet_server.add_insecure_port("127.0.0.1:0")
    await wallet_server.start()
    app = await build(RgsSettings(), journal=InMemoryJournal(),
                      platform=sandbox_platform({"dev-operator": f"127.0.0.1:{port}"}))
    try:
        with tracer().start_as_current_span("wallet balance") as span:
            with pytest.raises(WalletUnavailable):  # the recorder implements no wallet
                await app.wallet.balance(Party(operator_id="dev-operator", brand_id="demo-casino",
                                               player_id="alice", session_id="s",
                                               currency="EUR"))
            ctx = span.get_span_context()
        assert app.rng is not None
        before = _value("rgs_rng_health_failures_total", {"test": "adaptive_proportion"})
        app.rng.health.report_failure(EntropySourceFailure("stuck", test="adaptive_proportion"))
        after = _value("rgs_rng_health_failures_total", {"test": "adaptive_proportion"})
    finally:
        await app.close()
        await wallet_server.stop(None)
    assert dict(received[0])["traceparent"].startswith(f"00-{ctx.trace_id:032x}-")
    assert after == before + 1


async def test_a_round_counts_as_started_and_settled_with_its_stakes_and_wins(
        served: Served) -> None:
    labels = {"variant": "classic-resplit", "brand": "demo-casino"}
    money = {"variant": "classic-resplit", "currency": "EUR", "bet": "main"}
    started = _value("rgs_rounds_total", {**labels, "event": "started"})
    settled = _value("rgs_rounds_total", {**labels, "event": "settled"})
    staked = _value("rgs_stakes_minor_total", money)
    won = _value("rgs_wins_minor_total", money)
    deals = _value("rgs_rpc_requests_total",
                   {"method": "rgs.blackjack.v1.BlackjackService/Deal", "code": "OK"})
    token = await _session(served)
    view = await _deal(served, token, "deal-money-1")
    if view.status != blackjack_pb2.ROUND_STATUS_SETTLED:
        game = blackjack_pb2_grpc.BlackjackServiceStub(served.channel)
        view = (await game.Settle(
            blackjack_pb2.SettleRequest(request_id="settle-money-1", round_id=view.round_id),
            metadata=(("authorization", f"Bearer {token}"),))).round
    assert view.status == blackjack_pb2.ROUND_STATUS_SETTLED
    assert _value("rgs_rounds_total", {**labels, "event": "started"}) == started + 1
    assert _value("rgs_rounds_total", {**labels, "event": "settled"}) == settled + 1
    assert _value("rgs_stakes_minor_total", money) == staked + view.total_staked
    assert _value("rgs_wins_minor_total", money) == won + view.total_paid
    assert _value("rgs_rpc_requests_total", {
        "method": "rgs.blackjack.v1.BlackjackService/Deal", "code": "OK"}) == deals + 1
    assert _value("rgs_wallet_calls_total", {"operator": "dev-operator", "operation": "debit",
                                             "outcome": "ok"}) >= 1


async def test_refusals_count_under_their_code_and_unknown_methods_are_not_labels(
        served: Served) -> None:
    game = blackjack_pb2_grpc.BlackjackServiceStub(served.channel)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await game.ListVariants(blackjack_pb2.ListVariantsRequest(),
                                metadata=(("authorization", "Bearer not-a-token"),))
    assert err.value.code() is grpc.StatusCode.UNAUTHENTICATED
    # context.abort sends the status before the handler's coroutine ends, and the interceptor
    # counts the call as it ends: the client can see the refusal a moment before the count
    labels = {"method": "rgs.blackjack.v1.BlackjackService/ListVariants",
              "code": "UNAUTHENTICATED"}
    for _ in range(100):
        if _value("rgs_rpc_requests_total", labels) >= 1:
            break
        await asyncio.sleep(0.02)
    assert _value("rgs_rpc_requests_total", labels) >= 1
    bogus = served.channel.unary_unary("/rgs.blackjack.v1.BlackjackService/NoSuchMethod")
    with pytest.raises(grpc.aio.AioRpcError):
        await bogus(b"")
    families = {m.name for m in REGISTRY.collect()}
    assert "rgs_rpc_requests" in families
    methods = {s.labels.get("method") for m in REGISTRY.collect() for s in m.samples
               if m.name == "rgs_rpc_requests"}
    assert not any(m and "NoSuchMethod" in m for m in methods)


def _scrape(port: int) -> tuple[set[str], str]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as resp:
        text = resp.read().decode()
    names = set()
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ", 3)
            names.add(name)
            if kind == "counter" and not name.endswith("_total"):
                names.add(name + "_total")
            if kind == "histogram":
                names.update({f"{name}_bucket", f"{name}_sum", f"{name}_count"})
        elif line and not line.startswith("#"):
            names.add(re.split(r"[{ ]", line, maxsplit=1)[0])
    return names, text


async def test_scrape_of_the_running_server_has_every_metric_dashboards_and_rules_use(
        served: Served) -> None:
    token = await _session(served)
    await _deal(served, token, "deal-scrape-1")
    endpoint = metrics.start_metrics_server("127.0.0.1:0")
    try:
        scraped, text = _scrape(endpoint.port)
    finally:
        endpoint.stop()
    exprs = [str(r["expr"]) for g in yaml.safe_load(
        (OPS / "prometheus" / "rules.yml").read_text())["groups"] for r in g["rules"]]
    for board in (OPS / "grafana" / "dashboards").glob("*.json"):
        d = json.loads(board.read_text())
        exprs += [t["expr"] for p in d["panels"] for t in p.get("targets", [])]
    used = own_series(names_in(exprs))
    missing = used - scraped
    assert missing == set(), f"dashboards/rules use metrics the server does not export: {missing}"
    assert used <= scraped | STANDARD_SERIES
    # Theoretical RTP from the PAR sheets, as a ratio.
    assert re.search(r'rgs_variant_theoretical_rtp_ratio\{variant="power"\} 0\.99', text)
    # No player, session or round ids as labels.
    for forbidden in ("player", "session", "round_id", "transaction"):
        assert not re.search(rf"\{{[^}}]*{forbidden}[^}}]*=", text), forbidden


async def test_logs_carry_trace_and_round_ids_but_never_tokens_keys_or_the_hole_card(
        served: Served) -> None:
    token = await _session(served, "alice")
    view = await _deal(served, token, "deal-logs-1")
    logging.getLogger("rgs.test").info(
        "diagnostics", extra={"authorization": f"Bearer {token}", "api_key": OPERATOR_KEY,
                              "round_id": view.round_id})
    stored = await served.journal.get_round("dev-operator/alice", view.round_id)
    lines = [json.loads(line) for line in served.log.getvalue().splitlines()]
    text = served.log.getvalue()
    assert token not in text
    assert OPERATOR_KEY not in text
    deal_lines = [r for r in lines if r.get("rpc_method") == (
        "rgs.blackjack.v1.BlackjackService/Deal") and r.get("round_id") == view.round_id]
    assert deal_lines, "the Deal's request log line carries its round id"
    assert deal_lines[-1]["trace_id"] == CALLER_TRACE
    assert stored is not None
    assert view.dealer_hole_hidden, "the seeded shoe must leave the round open"
    hole = [e.card for e in stored.events if isinstance(e, CardDealt) and e.face_down]
    assert hole and not re.search(rf"\b{hole[0]}\b", text)


async def test_the_theoretical_rtp_gauge_follows_each_brands_effective_rules() -> None:
    """A brand playing electronic-h17 with 2 decks is compared with the 2-deck PAR sheet, not
    the variant's 6-deck one."""
    metrics.initialise(version="test", brand_decks={("demo-casino-usd", "electronic-h17"): 2,
                                                    ("demo-casino", "electronic-h17"): 6})
    two = _value("rgs_brand_theoretical_rtp_ratio",
                 {"brand": "demo-casino-usd", "variant": "electronic-h17"})
    six = _value("rgs_brand_theoretical_rtp_ratio",
                 {"brand": "demo-casino", "variant": "electronic-h17"})
    assert two == pytest.approx(0.99648817) and six == pytest.approx(0.99429294)
    assert _value("rgs_variant_theoretical_rtp_ratio", {"variant": "electronic-h17"}) == six


STREAM_METHOD = "rgs.test.v1.Feed/Watch"


async def _feed(request: bytes, context: grpc.aio.ServicerContext[Any, Any]
                ) -> AsyncIterator[bytes]:
    """A server stream written as the table watch is (an async generator): ``n`` messages,
    then the end the request names (``ok``, ``abort`` or ``hang``)."""
    n, end = request.decode().split(":")
    for i in range(int(n)):
        yield str(i).encode()
    if end == "abort":
        await context.abort(grpc.StatusCode.NOT_FOUND, "no such feed")
    if end == "hang":
        await asyncio.sleep(60)


async def test_server_streams_are_counted_apart_from_unary_calls() -> None:
    server = grpc.aio.server(interceptors=server_interceptors())
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
        "rgs.test.v1.Feed", {"Watch": grpc.unary_stream_rpc_method_handler(_feed)}),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()

    def ended(code: str) -> float:
        return _value("rgs_rpc_streams_total", {"method": STREAM_METHOD, "code": code})

    before = {c: ended(c) for c in ("OK", "NOT_FOUND", "CANCELLED")}
    sent = _value("rgs_rpc_stream_messages_sent_total", {"method": STREAM_METHOD})
    unary = _value("rgs_rpc_requests_total", {"method": STREAM_METHOD, "code": "OK"})
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as ch:
            watch = ch.unary_stream(f"/{STREAM_METHOD}")
            assert [m async for m in watch(b"3:ok")] == [b"0", b"1", b"2"]
            with pytest.raises(grpc.aio.AioRpcError) as err:
                _ = [m async for m in watch(b"2:abort")]
            assert err.value.code() is grpc.StatusCode.NOT_FOUND
            call = watch(b"1:hang")
            assert await call.read() == b"0"
            assert _value("rgs_rpc_streams_open", {"method": STREAM_METHOD}) == 1
            call.cancel()  # the watcher leaves
            for _ in range(100):
                if ended("CANCELLED") > before["CANCELLED"]:
                    break
                await asyncio.sleep(0.02)
    finally:
        await server.stop(None)
    assert ended("OK") - before["OK"] == 1
    assert ended("NOT_FOUND") - before["NOT_FOUND"] == 1
    assert ended("CANCELLED") - before["CANCELLED"] == 1
    assert _value("rgs_rpc_stream_messages_sent_total", {"method": STREAM_METHOD}) - sent == 6
    assert _value("rgs_rpc_streams_open", {"method": STREAM_METHOD}) == 0
    # streams stay out of the unary calls' counts (the SLOs' and the autoscaler's signal)
    assert _value("rgs_rpc_requests_total", {"method": STREAM_METHOD, "code": "OK"}) == unary
