"""One ``/metrics`` endpoint for a replica that runs several worker processes.

Each worker keeps its metrics in files of a directory private to the replica
(``PROMETHEUS_MULTIPROC_DIR``, prometheus_client's multiprocess mode); the supervisor reads them
all and serves the sum: counters and histograms add up, and each gauge says how its workers'
values combine (``multiprocess_mode`` in :mod:`rgs.observability.metrics`: in-flight calls
``livesum``, PAR-sheet gauges and the build ``max``, the sampled outbox and session gauges
``mostrecent``). A worker that exits keeps its counts in the sum (its files stay); its live
gauges go (:func:`worker_exited`).

The client's own process collector reads only the process that serves the page, so the
replica's CPU seconds and resident memory come from :class:`ReplicaProcessCollector`, which adds
up the supervisor and every worker (read from ``/proc``, Linux only like the workers).
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Final

from prometheus_client import CollectorRegistry, multiprocess, start_http_server
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from rgs.observability.metrics import MULTIPROCESS_ENV, MetricsServer

ENV: Final = MULTIPROCESS_ENV
"""The variable prometheus_client reads at import time to keep metrics in files."""

_TICKS: Final = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_PAGE: Final = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def prepare_directory(path: Path) -> Path:
    """Empty (or create) the replica's metrics directory: files left by an earlier run of the
    replica would be added to this one's counts."""
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True, mode=0o700)
    return path


def worker_exited(pid: int, path: Path) -> None:
    """Drop the live gauges of a worker that is gone (its counters stay in the sum)."""
    multiprocess.mark_process_dead(pid, str(path))  # type: ignore[no-untyped-call]


def _stat(pid: int) -> tuple[float, int, int] | None:
    """(CPU seconds, resident bytes, virtual bytes) of ``pid``; None when it is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw.rpartition(")")[2].split()
    return ((int(fields[11]) + int(fields[12])) / _TICKS, int(fields[21]) * _PAGE,
            int(fields[20]))


class ReplicaProcessCollector(Collector):
    """``process_cpu_seconds_total`` and ``process_resident_memory_bytes`` (and virtual memory)
    of the whole replica: the supervisor plus its live workers. A worker's CPU seconds stay in
    the total after it exits (as of the last scrape that saw it), so the counter never drops
    when a worker is restarted."""

    def __init__(self, pids: Callable[[], Iterable[int]]) -> None:
        self._pids = pids
        self._last_cpu: dict[int, float] = {}
        self._gone_cpu = 0.0
        self._lock = threading.Lock()

    def collect(self) -> Iterator[Metric]:
        """One sample of each family."""
        with self._lock:
            cpu, rss, vms = self._gone_cpu, 0, 0
            seen: dict[int, float] = {}
            for pid in {os.getpid(), *self._pids()}:
                stat = _stat(pid)
                if stat is None:
                    continue
                seen[pid] = stat[0]
                cpu += stat[0]
                rss += stat[1]
                vms += stat[2]
            for pid, last in self._last_cpu.items():
                if pid not in seen:
                    self._gone_cpu += last
                    cpu += last
            self._last_cpu = seen
        yield CounterMetricFamily("process_cpu_seconds",
                                  "CPU seconds of the replica: supervisor and workers.", cpu)
        yield GaugeMetricFamily("process_resident_memory_bytes",
                                "Resident memory of the replica's processes, added.", rss)
        yield GaugeMetricFamily("process_virtual_memory_bytes",
                                "Virtual memory of the replica's processes, added.", vms)


def replica_registry(path: Path, pids: Callable[[], Iterable[int]]) -> CollectorRegistry:
    """A registry with every worker's metrics from ``path`` and the replica's process totals."""
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=str(path))  # type: ignore[no-untyped-call]
    registry.register(ReplicaProcessCollector(pids))
    return registry


def start_replica_metrics_server(listen: str, registry: CollectorRegistry) -> MetricsServer:
    """Serve ``registry`` on ``host:port`` in a thread (as the single-process endpoint does)."""
    host, _, port = listen.rpartition(":")
    server, thread = start_http_server(int(port), addr=host.strip("[]") or "0.0.0.0",
                                       registry=registry)
    return MetricsServer(server=server, thread=thread, port=int(server.server_address[1]))
