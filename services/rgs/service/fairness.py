"""Provably fair rounds in the service: commit server seeds, give one to each round, show them.

The card order of a fair round is :func:`rgs.rng.fair.card_order` of its server seed, the
player's client seed and its round number. The rules this module keeps:

* every session has one committed *next* seed, drawn from the certified RNG (through the card
  source factory, the service's only randomness) and stored in the journal before its commitment
  (SHA-256) is shown: in CreateSession, ListVariants and every round view;
* one seed per round: the Deal that uses the next seed stores it as the round's seeds and puts a
  fresh next seed in its place, in the transaction that commits the round (a Deal that fails
  before its commit showed no card, and its seed stays the next one); the round number is the
  session's count of fair rounds (1, 2, ...);
* a round's server seed is shown only once the round is settled or voided (:func:`view`);
* forced-card rounds (test mode) take no seed and never verify.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from rgs.engine import CardSource
from rgs.engine.model import CardDealt, Event
from rgs.rng.fair import SERVER_SEED_BYTES, commitment
from rgs.service.model import FairRecord, FairView, Session, SessionSeed, StoredRound
from rgs.service.ports import CardSourceFactory, PlayerJournal

Pick = Callable[[int], int]


def draw_seed(pick: Pick) -> bytes:
    """A 32-byte server seed from the card randomness (one unbiased byte per pick)."""
    return bytes(pick(256) for _ in range(SERVER_SEED_BYTES))


def session_seed(session_id: str, seed: bytes, round_number: int) -> SessionSeed:
    """A next seed of a session, with its commitment."""
    return SessionSeed(session_id=session_id, server_seed=seed.hex(),
                       commitment=commitment(seed), round_number=round_number)


async def ensure_next(pj: PlayerJournal, session: Session, seed: bytes) -> SessionSeed:
    """The session's committed next seed; ``seed`` becomes it if the session has none yet."""
    current = await pj.next_seed(session.session_id)
    if current is None:
        await pj.save_next_seed(session_seed(session.session_id, seed, 1))
        current = await pj.next_seed(session.session_id)
        assert current is not None
    return current


def prepare(session: Session, current: SessionSeed | None, *, client_seed: str, decks: int,
            fresh: tuple[bytes, bytes]) -> tuple[FairRecord, SessionSeed]:
    """A Deal's seeds without a write: the round's record from the session's committed next
    seed ``current`` (read with the call's first read) and the fresh next seed that replaces
    it. The Deal's commit stores both with the round (``StepWrite.next_seed``), so a
    seed belongs to at most one committed round. ``fresh`` are two seeds drawn before any money
    moved: the first is used only by a session that has no committed seed yet (one opened
    before fair rounds existed), the second becomes the next seed."""
    if current is None:
        current = session_seed(session.session_id, fresh[0], 1)
    following = session_seed(session.session_id, fresh[1], current.round_number + 1)
    record = FairRecord(server_seed=current.server_seed, commitment=current.commitment,
                        client_seed=client_seed, round_number=current.round_number,
                        decks=decks, next_commitment=following.commitment)
    return record, following


def source(cards: CardSourceFactory, record: FairRecord) -> CardSource:
    """The card source of a fair round: its card order, first card first, from the app's card
    source factory (which keeps the orders of recent rounds)."""
    return cards.fair_source(record.server_seed, record.client_seed, record.round_number,
                             record.decks)


def dealt_order(events: Sequence[Event]) -> tuple[str, ...]:
    """The cards of a round in the order they left the shoe (each ``CardDealt``; a burned card
    was dealt before it was burned)."""
    return tuple(e.card for e in events if type(e) is CardDealt)


def with_dealt(fair: FairView | None, events: Sequence[Event]) -> FairView | None:
    """``fair`` with the round's dealt cards once its seed is shown (the round is over)."""
    if fair is None or not fair.server_seed:
        return fair
    return replace(fair, dealt=dealt_order(events))


def view(stored: StoredRound, next_commitment: str = "") -> FairView:
    """What the player sees: the commitment and inputs always, the seed once the round is over.

    ``next_commitment`` is used for rounds without seeds (forced cards, older rounds).
    """
    f = stored.fair
    if f is None:
        return FairView(verifiable=False, next_commitment=next_commitment)
    if not stored.finished:
        return FairView(verifiable=True, commitment=f.commitment, client_seed=f.client_seed,
                        round_number=f.round_number, decks=f.decks,
                        next_commitment=f.next_commitment)
    return FairView(verifiable=True, commitment=f.commitment, client_seed=f.client_seed,
                    round_number=f.round_number, decks=f.decks, server_seed=f.server_seed,
                    next_commitment=f.next_commitment, dealt=dealt_order(stored.events))
