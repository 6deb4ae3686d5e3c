"""Unbiased integers in ``[0, n)`` and shuffles from DRBG output.

Scaling is by rejection, never modulo: take the fewest whole bytes that hold ``k = bit_length(n-1)``
bits, keep the low ``k`` bits, and reject values ``≥ n``. Every ``k``-bit value is equally likely,
so every accepted value in ``[0, n)`` is too; the chance of a rejection is below one half, so the
expected cost is under two tries. ``tests/unit/rng/test_rng_scaling.py`` proves the mapping exact
by feeding every possible byte string for small ``n``.

Buffering. Calling the DRBG once per card would spend most of the time in HMAC set-up, so output
is requested in blocks (4 KiB by default) and consumed byte by byte. This keeps every SP 800-90A
property: each block is one Generate request (far below the 2^19-bit limit), the reseed counter
counts those requests and reseeding happens on schedule, and every output byte is used at most
once (bytes left over when a block cannot serve a request are discarded, never reused). The
trade-off is that up to one block of not-yet-used output sits in process memory; the block size
is a setting. Buffers are dropped in a forked child so parent and child never share output.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import MutableSequence
from typing import Protocol, TypeVar

from rgs.rng.drbg import MAX_BYTES_PER_REQUEST

T = TypeVar("T")

#: Default bytes per DRBG Generate request when buffering.
DEFAULT_BLOCK_BYTES = 4096


class ByteGenerator(Protocol):
    """Anything that returns ``nbytes`` random bytes per call (a :class:`~rgs.rng.drbg.Drbg`)."""

    def generate(self, nbytes: int) -> bytes:
        """Return ``nbytes`` bytes of output."""
        ...


_LIVE: weakref.WeakSet[BufferedRng] = weakref.WeakSet()


def _drop_buffers_after_fork() -> None:
    for rng in list(_LIVE):
        rng._buf = b""
        rng._pos = 0


os.register_at_fork(after_in_child=_drop_buffers_after_fork)


class BufferedRng:
    """Integers, choices and shuffles from a byte generator, read in blocks. Thread-safe."""

    __slots__ = ("__weakref__", "_buf", "_gen", "_lock", "_pos", "block_bytes")

    def __init__(self, generator: ByteGenerator, *, block_bytes: int = DEFAULT_BLOCK_BYTES) -> None:
        if not 8 <= block_bytes <= MAX_BYTES_PER_REQUEST:
            raise ValueError(f"block_bytes must be in [8, {MAX_BYTES_PER_REQUEST}]")
        self._gen = generator
        self.block_bytes = block_bytes
        self._buf = b""
        self._pos = 0
        self._lock = threading.Lock()
        _LIVE.add(self)

    def below(self, n: int) -> int:
        """A uniformly distributed integer in ``[0, n)`` (rejection sampling, no modulo bias)."""
        if n <= 1:
            if n == 1:
                return 0
            raise ValueError(f"below(n) needs n >= 1, got {n}")
        k = (n - 1).bit_length()
        nb = (k + 7) >> 3
        mask = (1 << k) - 1
        with self._lock:
            while True:
                pos = self._pos
                end = pos + nb
                if end > len(self._buf):
                    self._buf = self._gen.generate(max(self.block_bytes, nb))
                    pos, end = 0, nb
                buf = self._buf
                v = (buf[pos] if nb == 1 else int.from_bytes(buf[pos:end], "big")) & mask
                self._pos = end
                if v < n:
                    return v

    def bytes(self, nbytes: int) -> bytes:
        """``nbytes`` bytes taken from the buffer (the same stream ``below`` reads)."""
        out = bytearray()
        with self._lock:
            while len(out) < nbytes:
                if self._pos >= len(self._buf):
                    self._buf = self._gen.generate(self.block_bytes)
                    self._pos = 0
                take = min(nbytes - len(out), len(self._buf) - self._pos)
                out += self._buf[self._pos:self._pos + take]
                self._pos += take
        return bytes(out)

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Shuffle ``items`` in place (Fisher–Yates / Durstenfeld): every order equally likely."""
        below = self.below
        for i in range(len(items) - 1, 0, -1):
            j = below(i + 1)
            items[i], items[j] = items[j], items[i]
