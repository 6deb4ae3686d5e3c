"""HMAC_DRBG with SHA-256, as specified in NIST SP 800-90A Rev. 1, §10.1.2.

Two layers:

* :class:`HmacDrbg` is the bare mechanism: Update, Instantiate, Reseed and Generate exactly as
  written in §10.1.2.2–10.1.2.5. It is deterministic given its inputs, which is what lets the
  NIST CAVP known-answer vectors pin it (``tests/unit/rng/test_rng_drbg_cavp.py``).
* :class:`Drbg` is the instance the RGS uses: it owns an :class:`HmacDrbg`, takes its entropy
  input and nonce from an :class:`EntropySource` (the operating system, health-tested, see
  :mod:`rgs.rng.entropy`), reseeds when the reseed counter reaches the configured interval and,
  when asked for prediction resistance, reseeds before the request (the Generate function of
  §9.3.1). Every instance first runs a known-answer self-test (§11.3).

The security strength is 256 bits (SHA-256's maximum for HMAC_DRBG): entropy input is 256 bits,
the nonce 128 bits. Output is produced in whole bytes; one Generate request is at most 2^19 bits
(65,536 bytes), the SP 800-90A limit.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import os
import socket
import threading
import time
import uuid
from typing import Protocol

from rgs.rng.errors import DrbgError, DrbgSelfTestFailed, DrbgUninstantiated, ReseedRequired

#: SP 800-90A Table 2, HMAC_DRBG: max_number_of_bits_per_request = 2^19.
MAX_BYTES_PER_REQUEST = (1 << 19) // 8
#: SP 800-90A Table 2: reseed_interval ≤ 2^48 requests.
MAX_RESEED_INTERVAL = 1 << 48
#: SP 800-90A Table 2: personalization string and additional input ≤ 2^35 bits.
MAX_INPUT_BYTES = (1 << 35) // 8
#: Security strength of HMAC_DRBG with SHA-256 (SP 800-57 Part 1, Table 3).
SECURITY_STRENGTH_BITS = 256
#: Entropy input per (re)seed: security_strength bits.
ENTROPY_BYTES = SECURITY_STRENGTH_BITS // 8
#: Nonce: at least security_strength / 2 bits (SP 800-90A §8.6.7).
NONCE_BYTES = SECURITY_STRENGTH_BITS // 16
#: Default reseed interval (Generate requests between reseeds). Far below the 2^48 ceiling so
#: that fresh OS entropy enters the state often: with 4 KiB refills that is a reseed every 4 MiB.
DEFAULT_RESEED_INTERVAL = 1024

_OUTLEN = 32


def _hmac(key: bytes, data: bytes) -> bytes:
    return hmac.digest(key, data, "sha256")


_IPAD = bytes(x ^ 0x36 for x in range(256))
_OPAD = bytes(x ^ 0x5C for x in range(256))


def _hmac_chain(key: bytes, v: bytes, blocks: int) -> list[bytes]:
    """``blocks`` successive ``V = HMAC(key, V)`` values (the Generate loop, §10.1.2.5 step 4).

    HMAC exactly as RFC 2104 / FIPS 198-1 defines it, with the keyed inner and outer SHA-256
    states computed once per request and copied per block: twice as fast as ``hmac.digest`` per
    block, same output (the CAVP vectors run through this loop).
    """
    padded = key.ljust(64, b"\x00")  # K is 32 bytes, below SHA-256's 64-byte block
    inner = hashlib.sha256(padded.translate(_IPAD))
    outer = hashlib.sha256(padded.translate(_OPAD))
    out = []
    for _ in range(blocks):
        h = inner.copy()
        h.update(v)
        o = outer.copy()
        o.update(h.digest())
        v = o.digest()
        out.append(v)
    return out


class HmacDrbg:
    """The HMAC_DRBG mechanism (SHA-256): working state ``K``, ``V`` and the reseed counter.

    Use :meth:`instantiate`; all inputs are explicit so that known-answer tests can drive it.
    """

    __slots__ = ("_k", "_reseed_counter", "_v", "reseed_interval")

    def __init__(self, *, reseed_interval: int = DEFAULT_RESEED_INTERVAL) -> None:
        if not 1 <= reseed_interval <= MAX_RESEED_INTERVAL:
            raise DrbgError(f"reseed_interval must be in [1, 2^48], got {reseed_interval}")
        self.reseed_interval = reseed_interval
        self._k = b""
        self._v = b""
        self._reseed_counter = 0

    @classmethod
    def instantiate(cls, *, entropy_input: bytes, nonce: bytes, personalization: bytes = b"",
                    reseed_interval: int = DEFAULT_RESEED_INTERVAL) -> HmacDrbg:
        """HMAC_DRBG_Instantiate_algorithm (§10.1.2.3)."""
        drbg = cls(reseed_interval=reseed_interval)
        _check_input("personalization string", personalization)
        drbg._k = b"\x00" * _OUTLEN
        drbg._v = b"\x01" * _OUTLEN
        drbg._update(entropy_input + nonce + personalization)
        drbg._reseed_counter = 1
        return drbg

    @property
    def instantiated(self) -> bool:
        """True while the DRBG holds a working state."""
        return bool(self._k)

    @property
    def reseed_counter(self) -> int:
        """Generate requests since the last (re)seed, plus one (§10.1.2.1)."""
        return self._reseed_counter

    @property
    def reseed_due(self) -> bool:
        """True when the next Generate would be refused until a reseed (§10.1.2.5 step 1)."""
        return self._reseed_counter > self.reseed_interval

    def uninstantiate(self) -> None:
        """Erase the working state (§9.4); every later call raises :class:`DrbgUninstantiated`."""
        self._k = b""
        self._v = b""
        self._reseed_counter = 0

    def reseed(self, *, entropy_input: bytes, additional_input: bytes = b"") -> None:
        """HMAC_DRBG_Reseed_algorithm (§10.1.2.4)."""
        self._require_state()
        _check_input("additional input", additional_input)
        self._update(entropy_input + additional_input)
        self._reseed_counter = 1

    def generate(self, nbytes: int, *, additional_input: bytes = b"") -> bytes:
        """HMAC_DRBG_Generate_algorithm (§10.1.2.5): ``nbytes`` pseudorandom bytes.

        Raises :class:`ReseedRequired` when the reseed interval is exhausted (step 1), leaving the
        state untouched so the caller can reseed and retry.
        """
        self._require_state()
        if not 0 <= nbytes <= MAX_BYTES_PER_REQUEST:
            raise DrbgError(f"one request is at most {MAX_BYTES_PER_REQUEST} bytes, got {nbytes}")
        _check_input("additional input", additional_input)
        if self._reseed_counter > self.reseed_interval:
            raise ReseedRequired("the reseed interval is exhausted; reseed before generating")
        if additional_input:
            self._update(additional_input)
        blocks = _hmac_chain(self._k, self._v, -(-nbytes // _OUTLEN))
        if blocks:
            self._v = blocks[-1]
        self._update(additional_input)
        self._reseed_counter += 1
        return b"".join(blocks)[:nbytes]

    def _update(self, provided_data: bytes) -> None:
        """HMAC_DRBG_Update (§10.1.2.2)."""
        k = _hmac(self._k, self._v + b"\x00" + provided_data)
        v = _hmac(k, self._v)
        if provided_data:
            k = _hmac(k, v + b"\x01" + provided_data)
            v = _hmac(k, v)
        self._k, self._v = k, v

    def _require_state(self) -> None:
        if not self._k:
            raise DrbgUninstantiated("the DRBG is not instantiated (or was put in the error state)")


def _check_input(what: str, data: bytes) -> None:
    if len(data) > MAX_INPUT_BYTES:
        raise DrbgError(f"{what} longer than 2^35 bits")


# One CAVP vector with every input present (HMAC_DRBG.rsp, [SHA-256], PersonalizationStringLen =
# AdditionalInputLen = 256, COUNT 0): the start-up known-answer test of SP 800-90A §11.3.
_KAT = {name: bytes.fromhex(value) for name, value in (
    ("entropy", "cdb0d9117cc6dbc9ef9dcb06a97579841d72dc18b2d46a1cb61e314012bdf416"),
    ("nonce", "d0c0d01d156016d0eb6b7e9c7c3c8da8"),
    ("personalization", "6f0fb9eab3f9ea7ab0a719bfa879bf0aaed683307fda0c6d73ce018b6e34faaa"),
    ("reseed_entropy", "8ec6f7d5a8e2e88f43986f70b86e050d07c84b931bcf18e601c5a3eee3064c82"),
    ("reseed_additional", "1ab4ca9014fa98a55938316de8ba5a68c629b0741bdd058c4d70c91cda5099b3"),
    ("additional_1", "16e2d0721b58d839a122852abd3bf2c942a31c84d82fca74211871880d7162ff"),
    ("additional_2", "53686f042a7b087d5d2eca0d2a96de131f275ed7151189f7ca52deaa78b79fb2"),
    ("returned", "dda04a2ca7b8147af1548f5d086591ca4fd951a345ce52b3cd49d47e84aa31a1"
                 "83e31fbc42a1ff1d95afec7143c8008c97bc2a9c091df0a763848391f68cb4a3"
                 "66ad89857ac725a53b303ddea767be8dc5f605b1b95f6d24c9f06be65a973a08"
                 "9320b3cc42569dcfd4b92b62a993785b0301b3fc452445656fce22664827b88f"),
)}


def known_answer_test() -> None:
    """SP 800-90A §11.3 start-up health test: instantiate, reseed, generate on a CAVP vector.

    Raises :class:`DrbgSelfTestFailed` if the mechanism does not reproduce the vector; the test
    state is erased afterwards (§11.3.1: the KAT must not leave a usable instance behind).
    """
    kat = _KAT
    drbg = HmacDrbg.instantiate(entropy_input=kat["entropy"], nonce=kat["nonce"],
                                personalization=kat["personalization"])
    drbg.reseed(entropy_input=kat["reseed_entropy"], additional_input=kat["reseed_additional"])
    drbg.generate(128, additional_input=kat["additional_1"])
    ok = drbg.generate(128, additional_input=kat["additional_2"]) == kat["returned"]
    drbg.uninstantiate()
    if not ok:
        raise DrbgSelfTestFailed("HMAC_DRBG failed its known-answer self-test; do not use it")


class EntropySource(Protocol):
    """Full-entropy bytes for seeding. Raises :class:`~rgs.rng.errors.EntropySourceFailure`."""

    def get_entropy(self, nbytes: int) -> bytes:
        """Return ``nbytes`` bytes of entropy input, or raise if the source is unhealthy."""
        ...


# next() on itertools.count is atomic under the GIL: a process-wide instance number.
_instance_numbers = itertools.count(1)


def personalization_string(label: str = "rgs") -> bytes:
    """A personalization string unique to this process and DRBG instance (SP 800-90A §8.7.1).

    It is not secret and adds no entropy; it makes two instances differ even if the OS handed them
    the same seed: host name, process id, a per-process random UUID, the wall-clock and
    performance-counter nanoseconds and a per-process instance counter. The seed itself always
    comes from the entropy source, never from these values.
    """
    n = next(_instance_numbers)
    parts = (label, socket.gethostname(), str(os.getpid()), _PROCESS_UUID, str(time.time_ns()),
             str(time.perf_counter_ns()), str(n))
    return "|".join(parts).encode()


_PROCESS_UUID = uuid.uuid4().hex


class Drbg:
    """An HMAC_DRBG instance seeded and reseeded from an :class:`EntropySource`.

    ``generate`` follows the Generate function of SP 800-90A §9.3.1: a reseed happens before the
    request when prediction resistance is requested (or set as the instance's default) or when the
    reseed interval is exhausted. Any entropy failure puts the instance in the error state: the
    working state is erased and every later call fails, so no output is ever produced from a
    state that could not be refreshed. Thread-safe.
    """

    __slots__ = ("_entropy", "_label", "_lock", "_mech", "_pid", "prediction_resistance")

    def __init__(self, entropy: EntropySource, *, reseed_interval: int = DEFAULT_RESEED_INTERVAL,
                 prediction_resistance: bool = False, label: str = "rgs") -> None:
        known_answer_test()
        self._entropy = entropy
        self._label = label
        self._lock = threading.Lock()
        self.prediction_resistance = prediction_resistance
        self._mech = HmacDrbg(reseed_interval=reseed_interval)
        self._pid = 0
        self._instantiate(reseed_interval)

    def _instantiate(self, reseed_interval: int) -> None:
        try:
            seed = self._entropy.get_entropy(ENTROPY_BYTES + NONCE_BYTES)
        except BaseException:
            self._mech.uninstantiate()
            raise
        self._mech = HmacDrbg.instantiate(
            entropy_input=seed[:ENTROPY_BYTES], nonce=seed[ENTROPY_BYTES:],
            personalization=personalization_string(self._label), reseed_interval=reseed_interval)
        self._pid = os.getpid()

    @property
    def reseed_interval(self) -> int:
        """Generate requests allowed between two reseeds."""
        return self._mech.reseed_interval

    @property
    def instantiated(self) -> bool:
        """False once the instance is in the error state."""
        return self._mech.instantiated

    def reseed(self, additional_input: bytes = b"") -> None:
        """Reseed now from the entropy source (§9.2)."""
        with self._lock:
            self._reseed(additional_input)

    def generate(self, nbytes: int, *, additional_input: bytes = b"",
                 prediction_resistance: bool | None = None) -> bytes:
        """``nbytes`` bytes (at most 65,536 per call), reseeding first when §9.3.1 says so."""
        pr = self.prediction_resistance if prediction_resistance is None else prediction_resistance
        with self._lock:
            if os.getpid() != self._pid:
                # A forked child must never replay its parent's stream: new seed, new string.
                self._instantiate(self._mech.reseed_interval)
            if pr or self._mech.reseed_due:
                self._reseed(additional_input)
                additional_input = b""
            return self._mech.generate(nbytes, additional_input=additional_input)

    def _reseed(self, additional_input: bytes) -> None:
        self._mech._require_state()
        try:
            entropy = self._entropy.get_entropy(ENTROPY_BYTES)
        except BaseException:
            self._mech.uninstantiate()
            raise
        self._mech.reseed(entropy_input=entropy, additional_input=additional_input)
