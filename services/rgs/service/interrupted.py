"""Interrupted rounds: what becomes of a round its player abandoned, and the operator's view of
its open rounds.

Each operator has a policy (the platform file's ``interrupted_rounds``): after a set time since
the round's last step the RGS completes it by the documented rule (every remaining hand stands,
insurance is declined, Cash Out is not taken; the same path as Settle) and pays what it wins, or
it leaves the round to the operator, who lists its open rounds and resolves one by hand
(complete or void) with a reason.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from rgs.service.audit import Action, AuditEntry, AuditTrail, operator_actor
from rgs.service.backoffice import BackOffice
from rgs.service.errors import InvalidRequest, NotAllowedNow, NotFound
from rgs.service.identifiers import check_request_id, is_demo_player, is_round_id, player_key
from rgs.service.model import (
    InterruptedResolution,
    InterruptedRoundsPolicy,
    RequestScope,
    RoundSummary,
    Session,
    SettleCommand,
    StoredRound,
    VoidCommand,
)
from rgs.service.play import GameService
from rgs.service.ports import Clock, Journal

MAX_PAGE = 100
DEFAULT_PAGE = 20


class InterruptedPolicies:
    """Every operator's policy, with the replica's default for an operator that names none."""

    def __init__(self, policies: Mapping[str, InterruptedRoundsPolicy | None], *,
                 default_after: timedelta) -> None:
        """``policies``: every operator's (None: the default, completed after
        ``default_after``)."""
        self._default = InterruptedRoundsPolicy(after=default_after)
        self._policies = {op: p or self._default for op, p in policies.items()}

    @property
    def operators(self) -> list[str]:
        """The operators whose policies are known (every operator of the platform file)."""
        return sorted(self._policies)

    def of(self, operator_id: str) -> InterruptedRoundsPolicy:
        """The operator's policy."""
        return self._policies.get(operator_id, self._default)

    def completes_at(self, r: StoredRound) -> datetime | None:
        """When the RGS completes an unfinished round by itself (None: left to the operator)."""
        policy = self.of(r.operator_id)
        if policy.resolution is not InterruptedResolution.COMPLETE:
            return None
        return last_step(r) + policy.after


def last_step(r: StoredRound) -> datetime:
    """When the round's last step was written."""
    return r.updated_at or r.created_at or datetime.min.replace(tzinfo=UTC)


def round_session(r: StoredRound) -> Session:
    """The round's own session, as the RGS acts in it on the player's behalf (its expiry does
    not matter)."""
    return Session(session_id=r.session_id, player_key=r.player_key, operator_id=r.operator_id,
                   brand_id=r.brand_id, player_id=r.player_id, currency=r.currency,
                   expires_at=r.created_at or datetime.min.replace(tzinfo=UTC))


@dataclass(frozen=True, slots=True, kw_only=True)
class OpenRound:
    """An unfinished round as the operator lists it."""

    #: The round and its wallet movements so far.
    summary: RoundSummary
    #: When its last step was written, and how long ago that is.
    last_step_at: datetime
    idle: timedelta
    #: When the RGS completes it by itself (None: the operator's policy leaves it to them).
    completes_at: datetime | None


class Resolution(enum.StrEnum):
    """How the operator resolves an open round by hand."""

    COMPLETE = "complete"
    VOID = "void"


@dataclass(frozen=True, slots=True, kw_only=True)
class ResolveCommand:
    """Resolve one of the operator's open rounds by hand."""

    request_id: str
    brand_id: str
    player_id: str
    round_id: str
    resolution: Resolution
    reason: str


class InterruptedRounds:
    """The operator's open rounds: list them, resolve one by hand."""

    def __init__(self, *, journal: Journal, game: GameService, office: BackOffice,
                 policies: InterruptedPolicies, clock: Clock,
                 audit: AuditTrail | None = None) -> None:
        self._journal = journal
        #: Where a resolution by hand is recorded (a void, by the back office's VoidRound).
        self._audit = audit
        self._game = game
        self._office = office
        self._policies = policies
        self._clock = clock

    async def open_rounds(self, operator_id: str, brand_id: str = "", *,
                          idle_for: timedelta = timedelta(0), page_size: int = 0
                          ) -> list[OpenRound]:
        """The operator's unfinished rounds (of one brand when given) whose last step is at
        least ``idle_for`` old, oldest first."""
        brands = set(self._office.brands_of(operator_id, brand_id))
        if page_size < 0:
            raise InvalidRequest("page_size must not be negative", reason="INVALID_PAGE_SIZE")
        if idle_for < timedelta(0):
            raise InvalidRequest("idle_seconds must not be negative",
                                 reason="INVALID_IDLE_SECONDS", field="idle_seconds")
        limit = min(page_size or DEFAULT_PAGE, MAX_PAGE)
        now = self._clock()
        rows = await self._journal.abandoned_rounds(
            before=now - idle_for, limit=limit if not brand_id else MAX_PAGE * 10,
            operator_id=operator_id)
        out = []
        # Demo play's rounds are no operator's business (the reconciler completes them).
        for r in [r for r in rows if r.brand_id in brands
                  and not is_demo_player(r.player_id)][:limit]:
            moves = await self._journal.movements(r.player_key, r.round_id)
            out.append(OpenRound(summary=RoundSummary(round=r, movements=tuple(moves)),
                                 last_step_at=last_step(r), idle=now - last_step(r),
                                 completes_at=self._policies.completes_at(r)))
        return out

    async def resolve(self, operator_id: str, cmd: ResolveCommand) -> RoundSummary:
        """Complete (every remaining hand stands, insurance declined, Cash Out not taken) or
        void an unfinished round of one of the operator's players; a retry of the same request
        answers the same round."""
        check_request_id(cmd.request_id)
        if not 1 <= len(cmd.reason) <= 200:
            raise InvalidRequest("reason must be 1-200 characters", reason="INVALID_REASON",
                                 field="reason")
        if cmd.resolution is Resolution.VOID:
            return await self._office.void_round(operator_id, VoidCommand(
                request_id=cmd.request_id, brand_id=cmd.brand_id, player_id=cmd.player_id,
                round_id=cmd.round_id, reason=cmd.reason))
        self._office.brands_of(operator_id, cmd.brand_id)
        key = player_key(operator_id, cmd.player_id)
        stored = (await self._journal.get_round(key, cmd.round_id)
                  if is_round_id(cmd.round_id) else None)
        if stored is None or stored.brand_id != cmd.brand_id:
            raise NotFound("no such round", reason="ROUND_NOT_FOUND")
        if stored.finished and not await self._completed_by(key, cmd):
            raise NotAllowedNow("a finished round cannot be resolved", reason="ROUND_FINISHED")
        # A retry of a completion that went through is answered from its record.
        await self._game.settle(round_session(stored), SettleCommand(
            request_id=cmd.request_id, round_id=stored.round_id), scope=RequestScope.OPERATOR)
        final = await self._journal.get_round(key, stored.round_id)
        assert final is not None
        if self._audit is not None:  # once: a retry records nothing more
            await self._audit.record_change(AuditEntry(
                actor=operator_actor(operator_id), action=Action.ROUND_RESOLVED,
                subject=f"round:{stored.round_id}", reason=cmd.reason, operator_id=operator_id,
                details={"resolution": "complete", "brand_id": stored.brand_id,
                         "player_id": stored.player_id, "request_id": cmd.request_id,
                         "total_paid": str(final.total_paid)}),
                first_action=Action.ROUND_RESOLVED)
        return RoundSummary(round=final,
                            movements=tuple(await self._journal.movements(key,
                                                                          stored.round_id)))

    async def _completed_by(self, key: str, cmd: ResolveCommand) -> bool:
        async with self._journal.player(key) as pj:
            rec = await pj.find_request(cmd.request_id, RequestScope.OPERATOR)
        return rec is not None and rec.method == "settle"
