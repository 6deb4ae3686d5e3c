"""How many workers share the operators' rates (docs/overload.md): the workers of this replica
times the replicas serving, kept current in every worker so each one's buckets hold their share
of the rate the platform file states for the installation.

* This replica's workers: ``RGS_REPLICA_WORKERS``, which the supervisor of ``rgs serve
  --workers N`` gives each of its workers (1 for a replica of one process).
* The replicas: the addresses ``RGS_RATE_LIMIT_PEERS`` resolves to, looked up every
  :data:`REFRESH_S` seconds. The Helm chart names the replicas' headless Service, whose DNS
  record holds one address per ready pod, so the count follows the autoscaler and rollouts.
  Unset (a replica of its own, the sandbox): this replica alone. A lookup that fails keeps the
  last count (a DNS hiccup must not multiply every operator's rate); one that finds no address
  counts this replica alone (it is serving, whatever its record says yet).

Replicas spread operators' calls evenly when clients balance per call (a gateway, or gRPC
``round_robin`` over the headless Service); a client that pins one connection reaches one
worker and so its share only (docs/overload.md says how to spread).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Awaitable, Callable

from rgs.api.overload import Admission

log = logging.getLogger(__name__)

REFRESH_S = 10.0
"""Seconds between two lookups of the replicas."""

Resolve = Callable[[str], Awaitable[int]]
"""The number of distinct addresses a DNS name has now (OSError when the lookup fails)."""


async def resolve_addresses(name: str) -> int:
    """The distinct addresses ``name`` resolves to (the system's resolver)."""
    infos = await asyncio.get_running_loop().getaddrinfo(name, None, type=socket.SOCK_STREAM)
    return len({info[4][0] for info in infos})


class RateShare:
    """Keeps ``admission``'s share of the operators' rates current."""

    def __init__(self, admission: Admission, *, replica_workers: int, peers: str,
                 resolve: Resolve = resolve_addresses, refresh_s: float = REFRESH_S) -> None:
        self._admission = admission
        self._workers = max(1, replica_workers)
        self._peers = peers
        self._resolve = resolve
        self._refresh_s = refresh_s
        self._replicas = 1

    @property
    def sharers(self) -> int:
        """The workers sharing the rates as last counted."""
        return self._workers * self._replicas

    async def refresh(self) -> int:
        """Count the replicas again and apply the share; the sharers."""
        if self._peers:
            try:
                self._replicas = max(1, await self._resolve(self._peers))
            except OSError as exc:
                log.warning("operator rates: cannot look up the replicas at %s (%s); keeping "
                            "%d replicas", self._peers, exc, self._replicas)
        if self.sharers != self._admission.sharers:
            log.info("operator rates: shared by %d workers (%d replicas x %d)", self.sharers,
                     self._replicas, self._workers,
                     extra={"rate_sharers": self.sharers, "replicas": self._replicas})
        self._admission.share(self.sharers)
        return self.sharers

    async def run_forever(self) -> None:
        while True:
            await asyncio.sleep(self._refresh_s)
            await self.refresh()


async def start_rate_share(admission: Admission | None, *, replica_workers: int, peers: str
                           ) -> Callable[[], Awaitable[None]] | None:
    """Apply the share now and keep it current (a task of the running loop); its stopper, or
    None when no operator has a rate."""
    if admission is None or not admission.rated:
        return None
    share = RateShare(admission, replica_workers=replica_workers, peers=peers)
    await share.refresh()
    if not peers:
        return None  # this replica's workers only: nothing changes while it runs
    task = asyncio.get_running_loop().create_task(share.run_forever())

    async def stop() -> None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    return stop
