"""Unbiased scaling and shuffling: exhaustive proofs on small n."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from rgs.rng.scaling import BufferedRng


class _AllByteStrings:
    """A fake generator whose output, read in ``width``-byte steps, is every value once in order."""

    def __init__(self, width: int) -> None:
        self._values = iter(range(256**width))
        self._width = width

    def generate(self, nbytes: int) -> bytes:
        out = bytearray()
        for _ in range(nbytes // self._width):
            out += next(self._values, 0).to_bytes(self._width, "big")
        return bytes(out)


def _exhaust(n: int) -> Counter[int]:
    """Run below(n) over every possible byte string of the width it reads; count outcomes."""
    width = ((n - 1).bit_length() + 7) // 8
    total = 256**width
    gen = _AllByteStrings(width)
    rng = BufferedRng(gen, block_bytes=width * 1024 if width > 1 else 1024)
    counts: Counter[int] = Counter()
    # Every accepted input maps to one outcome; accepted inputs = total * n / 2^k.
    k = (n - 1).bit_length()
    accepted = total * n >> k
    for _ in range(accepted):
        counts[rng.below(n)] += 1
    return counts


@pytest.mark.parametrize("n", [*range(2, 70), 127, 128, 129, 200, 255, 256])
def test_below_maps_every_one_byte_input_to_each_value_equally_often(n: int) -> None:
    counts = _exhaust(n)
    assert sorted(counts) == list(range(n))
    assert len(set(counts.values())) == 1, counts


@pytest.mark.parametrize("n", [257, 311, 416, 511, 512])
def test_below_maps_every_two_byte_input_to_each_value_equally_often(n: int) -> None:
    counts = _exhaust(n)
    assert sorted(counts) == list(range(n))
    k = (n - 1).bit_length()
    assert set(counts.values()) == {65536 >> k}


def test_below_rejects_instead_of_reducing_modulo() -> None:
    # Bytes 0x07 (7 ≥ 5 after masking to 3 bits: rejected) then 0x02 (accepted).
    class Fixed:
        def generate(self, nbytes: int) -> bytes:
            return bytes([7, 2]) + bytes(nbytes - 2)

    assert BufferedRng(Fixed(), block_bytes=8).below(5) == 2


def test_below_refuses_an_empty_range() -> None:
    class Never:
        def generate(self, nbytes: int) -> bytes:
            raise AssertionError("no bytes needed")

    rng = BufferedRng(Never(), block_bytes=8)
    assert rng.below(1) == 0
    with pytest.raises(ValueError):
        rng.below(0)


class _Picks(BufferedRng):
    """The real shuffle, with ``below`` replaced by a fixed sequence of picks."""

    def __init__(self, picks: tuple[int, ...]) -> None:
        super().__init__(_AllByteStrings(1), block_bytes=8)
        self._picks = iter(picks)

    def below(self, n: int) -> int:
        j = next(self._picks)
        assert 0 <= j < n
        return j


@pytest.mark.parametrize("size", [2, 3, 4, 5, 6])
def test_fisher_yates_maps_pick_sequences_one_to_one_onto_permutations(size: int) -> None:
    # Given unbiased picks, each permutation must come from exactly one pick sequence.
    seen: Counter[tuple[int, ...]] = Counter()
    for picks in itertools.product(*(range(i + 1) for i in range(size - 1, 0, -1))):
        items = list(range(size))
        _Picks(picks).shuffle(items)
        seen[tuple(items)] += 1
    assert len(seen) == len(list(itertools.permutations(range(size))))
    assert set(seen.values()) == {1}
