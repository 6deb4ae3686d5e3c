"""The RNG's errors: one root, :class:`RngError`, with a subclass per way the RNG refuses.

Every subclass means "no random output was produced"; callers (the service) must not fall back to
another source of randomness, they stop dealing.
"""

from __future__ import annotations


class RngError(Exception):
    """Root of every error raised by :mod:`rgs.rng`."""


class DrbgError(RngError):
    """The DRBG was asked for something SP 800-90A forbids (too many bits, input too long)."""


class DrbgUninstantiated(DrbgError):
    """The DRBG has no working state: never instantiated, or put in the error state."""


class DrbgSelfTestFailed(DrbgError):
    """The DRBG's start-up known-answer test (SP 800-90A §11.3) did not reproduce its vector."""


class ReseedRequired(DrbgError):
    """The reseed counter passed the reseed interval and no entropy source is attached."""


class EntropySourceFailure(RngError):
    """The entropy source failed a continuous health test (SP 800-90B §4.4); it is now unusable.

    ``test`` names the failing test (``repetition_count`` or ``adaptive_proportion``).
    """

    def __init__(self, message: str, *, test: str) -> None:
        super().__init__(message)
        self.test = test

    def __reduce__(self) -> tuple[object, ...]:  # keep the keyword-only argument picklable
        return (_rebuild_failure, (str(self), self.test))


def _rebuild_failure(message: str, test: str) -> EntropySourceFailure:
    return EntropySourceFailure(message, test=test)


class RngUnhealthy(RngError):
    """Dealing was refused because the RNG's health test has failed earlier in this process."""
