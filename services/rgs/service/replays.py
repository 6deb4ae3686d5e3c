"""The answer of a replayed request id (:mod:`rgs.service.play_commands`): in which context
(brand and currency) a session sees its rounds, and the stored answer given only there."""

from __future__ import annotations

from rgs.codec import decode_value
from rgs.service.errors import RequestConflict
from rgs.service.model import (
    PlayResult,
    Session,
    StoredRequest,
    StoredRound,
)
from rgs.service.ports import PlayerJournal


def in_context(stored: StoredRound, session: Session) -> bool:
    """A session sees the rounds of its brand and currency: the context in which one player has
    at most one unfinished round, so whatever blocks its Deal, its GetRound finds."""
    return stored.brand_id == session.brand_id and stored.currency == session.currency


async def stored_response(pj: PlayerJournal, session: Session, rec: StoredRequest | None,
                           method: str, fingerprint: str, *,
                           known: StoredRound | None = None) -> PlayResult | None:
    """The stored answer of a replayed request id, or None when the id is new (``known``: the
    round the call has read already, if any).

    A player's request ids are one namespace across the operator's brands, but an answer is
    given only where it was given first: in the context (brand and currency) of its round, the
    one a session sees. The same request from a session of another brand is refused like any
    other reuse of the id: it must not carry that brand's round, nor its decision values.
    """
    if rec is None:
        return None
    if rec.method != method or rec.request_hash != fingerprint:
        raise RequestConflict("request_id was already used for a different request",
                              reason="REQUEST_ID_REUSED")
    result = decode_value(PlayResult, rec.response)
    stored = (known if known is not None and known.round_id == result.round_id
              else await pj.get_round(result.round_id))
    if stored is None or not in_context(stored, session):
        raise RequestConflict("request_id was already used by this player at another brand "
                              "(or in another currency): use a new request id",
                              reason="REQUEST_ID_REUSED")
    return result
