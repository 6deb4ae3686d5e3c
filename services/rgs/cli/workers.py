"""``rgs serve --workers N``: one replica, N worker processes, one port, one ``/metrics``.

Python runs one thread of bytecode at a time, so a replica that should use every core of its pod
runs several worker processes. Each worker is a whole ``rgs serve`` of its own (journal pool,
wallet channel, certified RNG) that binds the same port: gRPC sets ``SO_REUSEPORT`` on Linux by
default, and the kernel spreads new connections over the workers. This module is the small
supervisor around them:

- it starts the workers and restarts one that dies; when they keep dying (more restarts in a
  minute than :data:`RESTART_BUDGET` allows, or a worker exits with the command line's "fix the
  settings" code 2) it stops the others and exits non-zero, so the orchestrator sees a failed pod
  instead of a crash loop hidden inside it;
- it forwards SIGTERM and SIGINT to every worker (each then lets its calls in flight finish
  within ``RGS_SHUTDOWN_GRACE_S``) and exits when they have;
- it serves the replica's ``/metrics`` on ``RGS_METRICS_LISTEN``, adding up all workers'
  (:mod:`rgs.observability.multiprocess`); worker 0 samples the outbox and session gauges and
  runs the reconciler, as a single-process replica does once.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Final

from rgs.config import ConfigError
from rgs.observability.metrics import MetricsServer
from rgs.observability.multiprocess import (
    ENV,
    prepare_directory,
    replica_registry,
    start_replica_metrics_server,
    worker_exited,
)

RESTART_BUDGET: Final = 5
"""Restarts allowed within :data:`RESTART_WINDOW_S` before the supervisor gives up."""
RESTART_WINDOW_S: Final = 60.0
CONFIG_ERROR_EXIT: Final = 2
"""A worker's exit code for invalid settings or an unreachable dependency at start: restarting
would fail the same way."""
POLL_S: Final = 0.1


def worker_count(requested: int) -> int:
    """``requested`` workers, or one per CPU this process may run on when it is 0."""
    if requested > 0:
        return requested
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
        os.cpu_count() or 1)


def concrete_listen(listen: str) -> str:
    """``listen`` with port 0 replaced by a free port: every worker must bind the same one."""
    host, _, port = listen.rpartition(":")
    if port != "0":
        return listen
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    with socket.socket(family) as s:
        s.bind((host.strip("[]"), 0))
        return f"{host}:{s.getsockname()[1]}"


def refuse_taken(listen: str, option: str) -> None:
    """Raise :class:`rgs.config.ConfigError` when something already accepts connections on
    ``listen``: gRPC binds with ``SO_REUSEPORT``, so a second server on the same port would
    start silently beside the first and the two would split the calls."""
    host, _, port = listen.rpartition(":")
    if port in ("", "0"):
        return
    target = host.strip("[]") or "127.0.0.1"
    if target in ("0.0.0.0", "::"):
        target = "127.0.0.1" if target == "0.0.0.0" else "::1"
    try:
        with socket.create_connection((target, int(port)), timeout=0.5):
            pass
    except (OSError, ValueError):
        return
    raise ConfigError(
        f"{listen} is already in use (another rgs sandbox or rgs serve?): stop that one, or "
        f"move this one with {option} HOST:PORT")


@dataclass(slots=True)
class _Worker:
    index: int
    process: subprocess.Popen[bytes]


@dataclass(slots=True, kw_only=True)
class Supervisor:
    """Runs ``count`` workers (``argv(index)`` each) until a signal or until they keep dying."""

    count: int
    argv: Sequence[str]
    """The worker's command; ``--worker INDEX`` is appended."""
    env: dict[str, str]
    metrics_dir: Path
    metrics_listen: str | None = None
    stop_timeout_s: float = 15.0
    """How long stopped workers get before they are killed (beyond their own grace)."""
    restart_budget: int = RESTART_BUDGET
    restart_window_s: float = RESTART_WINDOW_S
    _workers: dict[int, _Worker] = field(default_factory=dict)
    _restarts: deque[float] = field(default_factory=deque)
    _signal: int | None = None

    def pids(self) -> list[int]:
        """The live workers' process ids."""
        return [w.process.pid for w in self._workers.values()]

    def _start(self, index: int) -> None:
        env = {**self.env, ENV: str(self.metrics_dir)}
        process = subprocess.Popen([*self.argv, "--worker", str(index)], env=env)
        self._workers[index] = _Worker(index=index, process=process)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self._signal = signum

    def run(self) -> int:
        """Supervise until stopped; the exit code of the replica."""
        previous = {sig: signal.signal(sig, self._on_signal)
                    for sig in (signal.SIGTERM, signal.SIGINT)}
        server: MetricsServer | None = None
        try:
            if self.metrics_listen:
                server = start_replica_metrics_server(
                    self.metrics_listen, replica_registry(self.metrics_dir, self.pids))
            for index in range(self.count):
                self._start(index)
            print(f"rgs supervisor: {self.count} workers"
                  f"{f', metrics on port {server.port}' if server else ''}", flush=True)
            return self._watch()
        finally:
            self._stop_all()
            if server is not None:
                server.stop()
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _watch(self) -> int:
        while self._signal is None:
            time.sleep(POLL_S)
            for index, worker in list(self._workers.items()):
                code = worker.process.poll()
                if code is None:
                    continue
                worker_exited(worker.process.pid, self.metrics_dir)
                del self._workers[index]
                if self._signal is not None:
                    break
                verdict = self._after_death(index, code)
                if verdict is not None:
                    return verdict
        return 0

    def _after_death(self, index: int, code: int) -> int | None:
        """Restart worker ``index`` or give up (the replica's exit code)."""
        if code == CONFIG_ERROR_EXIT:
            print(f"error: worker {index} exited with code {code} (settings or a dependency "
                  "at start-up); its log says what to fix. Stopping the replica.",
                  file=sys.stderr, flush=True)
            return CONFIG_ERROR_EXIT
        now = time.monotonic()
        self._restarts.append(now)
        while self._restarts and now - self._restarts[0] > self.restart_window_s:
            self._restarts.popleft()
        if len(self._restarts) > self.restart_budget:
            print(f"error: workers died {len(self._restarts)} times within "
                  f"{self.restart_window_s:.0f} s (last: worker {index}, code {code}); "
                  "stopping the replica: read the workers' log for the cause.",
                  file=sys.stderr, flush=True)
            return 1
        print(f"rgs supervisor: worker {index} exited with code {code}; restarting it",
              file=sys.stderr, flush=True)
        self._start(index)
        return None

    def _stop_all(self) -> None:
        sig = self._signal or signal.SIGTERM
        for worker in self._workers.values():
            with contextlib.suppress(ProcessLookupError):
                worker.process.send_signal(sig)
        deadline = time.monotonic() + self.stop_timeout_s
        for worker in self._workers.values():
            try:
                worker.process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                worker.process.kill()
                worker.process.wait()
            worker_exited(worker.process.pid, self.metrics_dir)
        self._workers.clear()


REPLICA_METRICS_SUBDIR: Final = "rgs-replica-metrics"
"""The folder the replica keeps its workers' metric files in, inside ``PROMETHEUS_MULTIPROC_DIR``
when that is set: only this folder is emptied at start, never the directory given."""


def metrics_directory() -> tuple[Path, bool]:
    """The replica's metrics directory: :data:`REPLICA_METRICS_SUBDIR` inside
    ``PROMETHEUS_MULTIPROC_DIR`` when set (emptied: files of an earlier run would add to this
    one's counts), else a fresh temporary one (removed at exit; the bool says so)."""
    given = os.environ.get(ENV)
    if given:
        return prepare_directory(Path(given) / REPLICA_METRICS_SUBDIR), False
    return Path(tempfile.mkdtemp(prefix="rgs-metrics-")), True
