"""OpenTelemetry tracing: setup from the standard ``OTEL_*`` variables, spans for the journal and
the wallet, and W3C trace-context propagation through gRPC metadata.

Tracing is off unless the environment asks for it, because an exporter with nowhere to send
spans only costs. It is on when ``OTEL_TRACES_EXPORTER`` names an exporter (``otlp`` or
``console``) or an OTLP endpoint is set (``OTEL_EXPORTER_OTLP_ENDPOINT`` or
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``), and ``OTEL_SDK_DISABLED`` is not ``true``. Everything
else (service name, resource attributes, sampler, batch sizes, endpoint, headers, TLS) is read
by the SDK and the OTLP exporter themselves from their documented variables.

Propagation works even with tracing off: the API's no-op tracer keeps a caller's remote span
context current, so the caller's trace id reaches the logs and the wallet.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import grpc
from opentelemetry import context as otel_context
from opentelemetry import propagate, trace
from opentelemetry.propagators.textmap import Getter, Setter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

TRACER_NAME: Final = "rgs"
"""The instrumentation scope of every RGS span."""

Metadata = Iterable[tuple[str, str | bytes]]
"""gRPC metadata as the aio API hands it over: (key, value) pairs."""


class _Cache:
    """What this module looks up once: the tracer, and whether a provider is installed."""

    tracer: trace.Tracer | None = None
    provider_installed = False


def tracer() -> trace.Tracer:
    """The RGS tracer (a no-op until :func:`configure_tracing` installs a provider)."""
    # Built once: get_tracer reads the environment and builds a tracer on every call, and a
    # tracer obtained before a provider is installed is a proxy that follows it once it is.
    if _Cache.tracer is None:
        _Cache.tracer = trace.get_tracer(TRACER_NAME)
    return _Cache.tracer


def tracing_enabled() -> bool:
    """True once a tracer provider is installed (by :func:`configure_tracing` or anyone else).
    Without one every span is a no-op that only repeats its parent's ids, so the spans per call
    and per journal operation are skipped altogether (the caller's context stays current, so
    logs and the wallet still get its trace id)."""
    if not _Cache.provider_installed:
        _Cache.provider_installed = not isinstance(trace.get_tracer_provider(),
                                                   trace.ProxyTracerProvider)
    return _Cache.provider_installed


# --------------------------------------------------------------------------- setup


@dataclass(frozen=True, slots=True, kw_only=True)
class TracingSetup:
    """What :func:`configure_tracing` decided, and how to flush at shutdown."""

    enabled: bool
    exporter: str
    provider: TracerProvider | None = None

    def shutdown(self) -> None:
        """Flush and stop the exporter (a no-op when tracing is off)."""
        if self.provider is not None:
            self.provider.shutdown()


def _exporter_choice(env: Mapping[str, str]) -> str:
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return "none"
    named = env.get("OTEL_TRACES_EXPORTER", "").strip().lower()
    if named:
        # The variable may list several; the first one we support wins.
        for name in (n.strip() for n in named.split(",")):
            if name in ("otlp", "console", "none"):
                return name
        raise ValueError(f"OTEL_TRACES_EXPORTER={named!r}: supported are otlp, console, none")
    if env.get("OTEL_EXPORTER_OTLP_ENDPOINT") or env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
        return "otlp"
    return "none"


def build_tracer_provider(env: Mapping[str, str] | None = None, *,
                          processor: SpanProcessor | None = None,
                          default_service_name: str = "rgs") -> tuple[str, TracerProvider | None]:
    """The exporter chosen by ``env`` and a provider exporting to it (None when tracing is off),
    without installing it globally."""
    env = os.environ if env is None else env
    choice = "test" if processor is not None else _exporter_choice(env)
    if choice == "none":
        return choice, None
    attributes: dict[str, str] = {}
    if not env.get("OTEL_SERVICE_NAME"):
        attributes["service.name"] = default_service_name
    provider = TracerProvider(resource=Resource.create(attributes))
    if processor is not None:
        provider.add_span_processor(processor)
    elif choice == "otlp":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

        # The exporter reads OTEL_EXPORTER_OTLP_* (endpoint, headers, TLS, timeout) itself.
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    else:
        provider.add_span_processor(BatchSpanProcessor(ConsoleSpanExporter()))
    return choice, provider


def configure_tracing(env: Mapping[str, str] | None = None, *,
                      processor: SpanProcessor | None = None,
                      default_service_name: str = "rgs") -> TracingSetup:
    """Install a global tracer provider when the environment (or ``processor``) asks for one.

    ``processor`` is for tests (an in-memory exporter behind a simple processor): it turns
    tracing on regardless of the environment.
    """
    choice, provider = build_tracer_provider(env, processor=processor,
                                             default_service_name=default_service_name)
    if provider is None:
        return TracingSetup(enabled=False, exporter="none")
    trace.set_tracer_provider(provider)
    return TracingSetup(enabled=True, exporter=choice, provider=provider)


# --------------------------------------------------------------------------- propagation


class _MetadataGetter(Getter[Metadata]):
    def get(self, carrier: Metadata, key: str) -> list[str] | None:
        key = key.lower()
        values: list[str] = [v.decode("latin-1") if isinstance(v, bytes) else v
                             for k, v in carrier if k.lower() == key]
        return values or None

    def keys(self, carrier: Metadata) -> list[str]:
        return [k for k, _ in carrier]


class _ListSetter(Setter[list[tuple[str, str]]]):
    def set(self, carrier: list[tuple[str, str]], key: str, value: str) -> None:
        carrier.append((key.lower(), value))


_GETTER: Final = _MetadataGetter()
_SETTER: Final = _ListSetter()


def extract_context(metadata: Metadata | None) -> otel_context.Context:
    """The caller's trace context (W3C ``traceparent``/``tracestate``, baggage) from metadata."""
    return propagate.extract(tuple(metadata or ()), getter=_GETTER)


def inject_metadata(metadata: Metadata | None = None) -> list[tuple[str, str | bytes]]:
    """``metadata`` plus the current trace context, for an outgoing call."""
    headers: list[tuple[str, str]] = []
    propagate.inject(headers, setter=_SETTER)
    carried = {k for k, _ in headers}
    kept = [(k, v) for k, v in (metadata or ()) if k.lower() not in carried]
    return [*kept, *headers]


if TYPE_CHECKING:
    _ClientInterceptor = grpc.aio.UnaryUnaryClientInterceptor[Any, Any]
else:  # the runtime class is not generic
    _ClientInterceptor = grpc.aio.UnaryUnaryClientInterceptor


class TraceContextClientInterceptor(_ClientInterceptor):
    """Adds the current trace context to every unary call of a channel (the wallet's), so the
    operator's wallet can join the RGS's trace."""

    async def intercept_unary_unary(self, continuation: Any,
                                    client_call_details: grpc.aio.ClientCallDetails,
                                    request: Any) -> Any:
        """Forward the call with the trace context added to its metadata."""
        details = grpc.aio.ClientCallDetails(
            method=client_call_details.method, timeout=client_call_details.timeout,
            metadata=grpc.aio.Metadata(*inject_metadata(
                tuple(client_call_details.metadata or ()))),
            credentials=client_call_details.credentials,
            wait_for_ready=client_call_details.wait_for_ready)
        return await continuation(details, request)


# --------------------------------------------------------------------------- child spans


@contextmanager
def journal_span(operation: str) -> Iterator[Span]:
    """A CLIENT span for one journal transaction (``journal <operation>``); with tracing off,
    the current span (nothing is recorded either way)."""
    if not tracing_enabled():
        yield trace.get_current_span()
        return
    with tracer().start_as_current_span(
            f"journal {operation}", kind=SpanKind.CLIENT,
            attributes={"db.system": "postgresql", "db.operation": operation}) as span:
        yield span


@contextmanager
def wallet_span(operation: str) -> Iterator[Span]:
    """A CLIENT span for one wallet call (``wallet <operation>``); the call made inside it
    carries this span as its parent to the wallet; with tracing off, the current span (whose
    ids the wallet gets all the same)."""
    if not tracing_enabled():
        yield trace.get_current_span()
        return
    with tracer().start_as_current_span(
            f"wallet {operation}", kind=SpanKind.CLIENT,
            attributes={"rpc.system": "grpc", "rpc.service": "rgs.wallet.v1.WalletService",
                        "rgs.wallet.operation": operation}) as span:
        yield span


def mark_error(span: Span, description: str) -> None:
    """Set an error status on ``span``."""
    span.set_status(Status(StatusCode.ERROR, description))


def current_ids() -> tuple[str, str]:
    """The current (trace id, span id) in hex, or empty strings outside any valid span."""
    ctx = trace.get_current_span().get_span_context()
    if not ctx.is_valid:
        return "", ""
    return f"{ctx.trace_id:032x}", f"{ctx.span_id:016x}"
