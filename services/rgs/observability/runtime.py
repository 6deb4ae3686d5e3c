"""Starting and stopping the observability of one replica, in one call from the service.

``rgs serve`` does, in order::

    configure_logging(level=..., json_lines=...)          # first, so start-up is logged
    ops = await connect_ops_journal(settings)           # bootstrap: a one-connection journal
    obs = await start_observability(metrics_listen=..., ops_source=ops, brands=...)
    journal, wallet = InstrumentedJournal(journal), InstrumentedWallet(wallet)   # bootstrap
    server = grpc.aio.server(interceptors=server_interceptors())                 # api.server
    ...
    await obs.close()
"""

from __future__ import annotations

import importlib.metadata
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from rgs.eventloop import running_loop_name
from rgs.observability import metrics
from rgs.observability.dbstats import OpsSampler, OpsSource
from rgs.observability.metrics import MetricsServer, start_metrics_server
from rgs.observability.tracing import TracingSetup, configure_tracing

log = logging.getLogger("rgs.observability")


def package_version() -> str:
    """The installed ``rgs`` version ("unknown" when running from a bare source tree)."""
    try:
        return importlib.metadata.version("rgs")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


@dataclass(slots=True, kw_only=True)
class ObservabilityRuntime:
    """What :func:`start_observability` started."""

    tracing: TracingSetup
    metrics_server: MetricsServer | None
    sampler: OpsSampler | None

    async def close(self) -> None:
        """Stop sampling, stop the endpoint, flush spans."""
        if self.sampler is not None:
            await self.sampler.close()
        if self.metrics_server is not None:
            self.metrics_server.stop()
        self.tracing.shutdown()


async def start_observability(*, metrics_listen: str | None, ops_source: OpsSource | None,
                              brands: Mapping[str, Iterable[str]],
                              operators: Iterable[str] = (),
                              brand_decks: Mapping[tuple[str, str], int] | None = None,
                              sample_interval_s: float = 15.0,
                              env: Mapping[str, str] | None = None) -> ObservabilityRuntime:
    """Tracing from ``OTEL_*``; the static gauges; the metrics endpoint on ``metrics_listen``
    (None: no endpoint of its own, e.g. a worker whose supervisor serves the replica's); the
    database sampler over ``ops_source`` (the journal) when one is given: pass one only when
    somebody reads the gauges (the runtime owns and closes it). ``brands`` maps brand id to its
    variants, so every (variant, brand) round series starts at 0; ``operators`` the operator ids,
    so every operator's wallet series does."""
    tracing = configure_tracing(env)
    metrics.initialise(version=package_version(), brands=brands, operators=operators,
                       brand_decks=brand_decks)
    server = start_metrics_server(metrics_listen) if metrics_listen else None
    sampler = None
    if ops_source is not None:
        sampler = OpsSampler(ops_source, interval_s=sample_interval_s)
        sampler.start()
    log.info("observability: metrics %s, tracing %s; event loop %s",
             f"on port {server.port}" if server else "off (or served by the supervisor)",
             tracing.exporter if tracing.enabled else "off", running_loop_name())
    return ObservabilityRuntime(tracing=tracing, metrics_server=server, sampler=sampler)
