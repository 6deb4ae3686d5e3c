"""Provably fair card orders: a round's whole shoe as a documented function of its seeds.

A fair round's cards are not drawn from the process's live RNG but from an HMAC_DRBG instance
instantiated from the round's inputs, through the very same drawing code as every other round
(:class:`~rgs.rng.scaling.BufferedRng` for unbiased integers by rejection,
:class:`~rgs.engine.cards.ShoeSource` for draws without replacement). The server seed comes from
the certified RNG and stays secret until the round is over; its SHA-256 is published before the
player bets, so anyone can check afterwards that the order was fixed before the bet.

The function, exactly (``docs/rng.md`` has the same text for players and labs):

1. ``entropy_input`` = the 32-byte server seed;
   ``nonce`` = the round number as a 16-byte unsigned big-endian integer;
   ``personalization`` = ``b"rgs-fair-v1"``, one zero byte, then the client seed in UTF-8
   (printable ASCII, 0–64 characters; the empty string when the player gives none).
2. HMAC_DRBG (SHA-256, SP 800-90A §10.1.2) is instantiated with them; its output is read in
   Generate requests of :data:`FAIR_BLOCK_BYTES` bytes, no additional input, never reseeded.
3. ``below(n)``: take ``k = bit_length(n − 1)`` bits from the fewest whole bytes that hold
   them (big-endian, low ``k`` bits), reject a value ``≥ n`` and read again; bytes left at the
   end of a request that cannot serve a read are skipped.
4. The shoe starts as ``decks`` copies of the deck in the order ``AS 2S … KS AH … KC``. Each
   draw takes the card at ``i = below(cards left)``; the last card of the list moves into slot
   ``i``. The order of the round is the order of the draws.

At a shared table the client seed is the table's (:func:`table_client_seed`): the lower-case hex
SHA-256 of the lines ``<seat>:<seed>`` (LF-terminated, seat order) of every seat that bet with a
client seed, or the empty string when none did.
"""

from __future__ import annotations

import hashlib
import hmac
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass

from rgs.engine.cards import CardSource, Shoe, ShoeSource
from rgs.rng.drbg import MAX_RESEED_INTERVAL, HmacDrbg
from rgs.rng.scaling import BufferedRng

#: Version label of the scheme (part of the personalization string).
DOMAIN = b"rgs-fair-v1"
#: Bytes per Generate request of a fair card order.
FAIR_BLOCK_BYTES = 1024
#: Server seed length (256 bits: the DRBG's security strength).
SERVER_SEED_BYTES = 32
#: Longest client seed, in characters.
MAX_CLIENT_SEED = 64
#: The nonce's width in bytes (SP 800-90A: at least half the security strength).
NONCE_BYTES = 16


class FairInputError(ValueError):
    """An input of the fair function is malformed (the message says which and how)."""


def check_client_seed(client_seed: str) -> str:
    """Return ``client_seed`` if it is 0–64 printable ASCII characters, else raise."""
    if len(client_seed) > MAX_CLIENT_SEED:
        raise FairInputError(f"a client seed is at most {MAX_CLIENT_SEED} characters")
    if any(not " " <= ch <= "~" for ch in client_seed):
        raise FairInputError("a client seed is printable ASCII (space to ~) only")
    return client_seed


def table_client_seed(seat_seeds: Iterable[tuple[int, str]]) -> str:
    """A shared table round's client seed from its seated players' ones.

    ``seat_seeds`` are (seat, client seed) pairs; empty seeds are left out. The result is the
    lower-case hex SHA-256 of the ASCII text made of one line ``<seat>:<seed>`` + LF per pair, in
    seat order (a seed holds no LF, so the text names each seat's seed unambiguously): 64
    characters, within :data:`MAX_CLIENT_SEED`. With no non-empty seed it is ``""``.
    """
    pairs = sorted((seat, check_client_seed(seed)) for seat, seed in seat_seeds if seed)
    seats = [seat for seat, _ in pairs]
    if len(set(seats)) != len(seats) or any(seat < 1 for seat in seats):
        raise FairInputError("one client seed per seat, seats numbered from 1")
    if not pairs:
        return ""
    text = "".join(f"{seat}:{seed}\n" for seat, seed in pairs)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def commitment(server_seed: bytes) -> str:
    """The published commitment to a server seed: SHA-256 of its 32 bytes, lower-case hex."""
    return hashlib.sha256(server_seed).hexdigest()


def matches(server_seed: bytes, published: str) -> bool:
    """True when ``server_seed`` is the seed ``published`` commits to (constant time)."""
    return hmac.compare_digest(commitment(server_seed), published.lower())


def fair_drbg(server_seed: bytes, client_seed: str, round_number: int) -> HmacDrbg:
    """The HMAC_DRBG of a fair round, instantiated from its three inputs."""
    if len(server_seed) != SERVER_SEED_BYTES:
        raise FairInputError(f"a server seed is {SERVER_SEED_BYTES} bytes, "
                             f"got {len(server_seed)}")
    if not 0 <= round_number < 1 << (8 * NONCE_BYTES):
        raise FairInputError("a round number is a non-negative integer below 2^128")
    check_client_seed(client_seed)
    return HmacDrbg.instantiate(
        entropy_input=server_seed, nonce=round_number.to_bytes(NONCE_BYTES, "big"),
        personalization=DOMAIN + b"\x00" + client_seed.encode("ascii"),
        reseed_interval=MAX_RESEED_INTERVAL)


def fair_source(server_seed: bytes, client_seed: str, round_number: int,
                decks: int) -> ShoeSource:
    """The card source of a fair round: draws, in order, the round's card order."""
    rng = BufferedRng(fair_drbg(server_seed, client_seed, round_number),
                      block_bytes=FAIR_BLOCK_BYTES)
    return ShoeSource(Shoe.of_decks(decks), rng.below)


def card_order(server_seed: bytes, client_seed: str, round_number: int,
               decks: int) -> list[str]:
    """The whole card order of a fair round: every card of ``decks`` decks, first dealt first."""
    source = fair_source(server_seed, client_seed, round_number, decks)
    return [source.draw() for _ in range(52 * decks)]


class CardOrders:
    """The card orders of recent fair rounds, as far as they were drawn, shared by the sources it
    hands out: a round's later calls replay its cards from here instead of instantiating its
    DRBG and shuffling again. At most ``rounds`` orders are kept, the least recently used
    dropped. Single-threaded use (one event loop); a source never yields other than
    :func:`card_order`'s cards, in order."""

    def __init__(self, rounds: int = 512) -> None:
        if rounds < 1:
            raise ValueError("keep at least one round's order")
        self._rounds = rounds
        self._orders: OrderedDict[tuple[str, str, int, int], _DrawnOrder] = OrderedDict()

    def source(self, server_seed_hex: str, client_seed: str, round_number: int,
               decks: int) -> CardSource:
        """A fresh card source of the round: its first card first."""
        key = (server_seed_hex, client_seed, round_number, decks)
        order = self._orders.get(key)
        if order is None:
            order = _DrawnOrder(fair_source(bytes.fromhex(server_seed_hex), client_seed,
                                            round_number, decks))
            self._orders[key] = order
            if len(self._orders) > self._rounds:
                self._orders.popitem(last=False)
        else:
            self._orders.move_to_end(key)
        return _OrderReader(order)

    def __len__(self) -> int:
        return len(self._orders)


class _DrawnOrder:
    __slots__ = ("_source", "cards")

    def __init__(self, source: ShoeSource) -> None:
        self.cards: list[str] = []
        self._source = source

    def card(self, index: int) -> str:
        cards = self.cards
        while index >= len(cards):
            cards.append(self._source.draw())
        return cards[index]


class _OrderReader:
    __slots__ = ("_next", "_order")

    def __init__(self, order: _DrawnOrder) -> None:
        self._order = order
        self._next = 0

    def draw(self) -> str:
        card = self._order.card(self._next)
        self._next += 1
        return card


@dataclass(frozen=True, slots=True, kw_only=True)
class FairCheck:
    """The outcome of checking a round's dealt cards against its revealed seeds."""

    ok: bool
    #: What was checked or what differs, one line each.
    lines: tuple[str, ...]


def check_round(*, server_seed: bytes, published: str, client_seed: str, round_number: int,
                decks: int, dealt: list[str]) -> FairCheck:
    """Check that ``server_seed`` is the committed one and ``dealt`` is the start of its order."""
    lines = []
    ok = True
    if matches(server_seed, published):
        lines.append(f"SHA-256(server seed) = {published.lower()} (the commitment)")
    else:
        ok = False
        lines.append(f"SHA-256(server seed) = {commitment(server_seed)}, but the commitment "
                     f"is {published}")
    order = card_order(server_seed, client_seed, round_number, decks)
    if len(dealt) > len(order):
        return FairCheck(ok=False, lines=(*lines, f"{len(dealt)} cards dealt from a shoe of "
                                                  f"{len(order)}"))
    first_diff = next((i for i, (a, b) in enumerate(zip(dealt, order, strict=False)) if a != b),
                      None)
    if first_diff is None:
        lines.append(f"the {len(dealt)} cards dealt are the first {len(dealt)} of the order "
                     f"({' '.join(order[:len(dealt)])})")
    else:
        ok = False
        lines.append(f"card {first_diff + 1} dealt was {dealt[first_diff]}, the order has "
                     f"{order[first_diff]} (expected {' '.join(order[:len(dealt)])}, dealt "
                     f"{' '.join(dealt)})")
    return FairCheck(ok=ok, lines=tuple(lines))
