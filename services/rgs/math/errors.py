"""The math package's one root exception."""

from __future__ import annotations


class MathError(Exception):
    """Anything the game-math analysis cannot do (an unsupported rule, an unknown variant)."""


class UnknownVariantError(MathError):
    """A variant id that no hosted variant has."""
