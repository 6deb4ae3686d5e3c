"""Long statistical runs split into seeded chunks and spread over every core.

A run of ``rounds`` is cut into fixed-size chunks; chunk ``i`` is seeded by
:func:`chunk_seed` ``(seed, i)``, so the result depends on the seed and the chunk size only,
never on how many processes ran it. Workers are forked (they inherit the caller's analyses and
tables instead of rebuilding them); where fork is unavailable the chunks run in this process.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: A worker's work, installed when it starts (forked, so a closure need not be pickled).
_WORKER: dict[str, Callable[[Any], Any]] = {}


def chunk_seed(seed: int, index: int) -> int:
    """The seed of chunk ``index`` of a run seeded ``seed`` (63 bits, independent streams)."""
    digest = hashlib.sha256(f"rgs-chunk:{seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def chunks(total: int, size: int) -> list[int]:
    """``total`` cut into pieces of ``size`` (the last one shorter)."""
    if total < 1 or size < 1:
        raise ValueError("a run needs at least one round in chunks of at least one")
    return [min(size, total - start) for start in range(0, total, size)]


def default_jobs() -> int:
    """Every core this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
        os.cpu_count() or 1)


def _install(work: Callable[[Any], Any]) -> None:
    _WORKER["work"] = work


def _call(task: Any) -> Any:
    return _WORKER["work"](task)


def run_chunks(work: Callable[[T], R], tasks: Sequence[T], *,
                     jobs: int | None = None) -> Iterator[R]:
    """``work`` applied to every task, on ``jobs`` forked processes (default: every core);
    results in the order of ``tasks``, each yielded as soon as it and those before it are done."""
    n = min(jobs or default_jobs(), len(tasks))
    if n <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        yield from map(work, tasks)
        return
    with multiprocessing.get_context("fork").Pool(n, _install, (work,)) as pool:
        yield from pool.imap(_call, tasks)
