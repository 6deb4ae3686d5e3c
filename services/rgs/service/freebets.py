"""Free bets: an operator's grants to a player, their use at Deal and the money rule.

The market rule (docs/freebets.md): a free bet stakes the main bet of one box at the grant's
value without a debit, and its return is the winnings only: the free stake is never returned.
Everything the player adds (a double, a split, insurance, side bets, the other boxes) is the
player's own money, debited and returned as in any round. The engine's round is the same as a
paid one; the credit of its end is the engine's payout less the free stake, taken from what the
box's original hand (the one the free stake rides on, doubled or not) returns and never below
nothing (:func:`free_bet_credit`). A push returns nothing of the free part; the free bet is
used.
"""

from __future__ import annotations

import enum
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Protocol

from rgs.engine import BoxBet, RoundView
from rgs.service.audit import Action, AuditEntry, AuditTrail, operator_actor
from rgs.service.errors import InvalidRequest, NotAllowedNow, NotFound, Unavailable, preview
from rgs.service.identifiers import check_player_id
from rgs.service.model import Brand, FreeBetLeft, Movement, RoundFreeBet, Session, StoredRound
from rgs.service.ports import Clock
from rgs.wallet.port import MoneyKind, transaction_id

#: Most free bets one grant may give, and the longest grant id.
MAX_COUNT = 1000
MAX_ID = 64
#: How long a replica shows a player's free bets left without reading them again. A grant, a
#: revocation, a use or a release through this replica reads them afresh at the player's next
#: view; one through another replica shows within this time. Playing one always reads the
#: grant itself (:meth:`FreeBets.check`), so a stale count never lets a used free bet play.
LEFT_TTL_S = 15.0
#: How many players' free bets left a replica remembers (least recently used first out).
LEFT_SIZE = 20_000

_Holder = tuple[str, str, str]  # operator, brand, player


def free_bet_credit(view: RoundView, seat: int, value: int) -> int:
    """What a settled round with a free bet of ``value`` on ``seat`` credits: the engine's
    total payout less the free stake, which is taken from what the box's first hand returns
    (never more than it returns: a lost or surrendered free hand returns nothing, and costs
    the player nothing).

    >>> from rgs.engine import Phase
    >>> from rgs.engine.model import BoxView, HandView
    >>> hand = HandView(index=0, cards=(), total=21, soft=False, stake=2000, status=None,
    ...                 outcome=None, payout=4000, from_split=False, doubled=True, allowed=())
    >>> box = BoxView(seat=1, stake=1000, hands=(hand,), side_bets=(), insurance_offered=False,
    ...               insurance_stake=0, insurance_payout=0, insurance_allowed=())
    >>> v = RoundView(variant="x", phase=Phase.SETTLED, seq=3, dealer_cards=(), dealer_total=0,
    ...               dealer_soft=False, dealer_hole_hidden=False, boxes=(box,), to_act=None,
    ...               total_staked=2000, total_paid=4000)
    >>> free_bet_credit(v, 1, 1000)  # free 10.00 doubled with 10.00 and won: 30.00
    3000
    """
    box = next((b for b in view.boxes if b.seat == seat), None)
    first = box.hands[0].payout if box is not None and box.hands else 0
    return view.total_paid - min(value, first)


def playable_at(grant: FreeBetGrant, variant_id: str, table_id: str = "") -> bool:
    """Whether the grant's free bet may be played at ``variant_id`` (solo) or at the shared
    table ``table_id`` of that variant: a grant listing neither variants nor tables is for
    every game of its brand; otherwise the game's variant must be listed, or (at a shared
    table) the table itself.

    >>> g = FreeBetGrant(operator_id="o", grant_id="g", brand_id="b", player_id="p",
    ...                  currency="EUR", value=1, count=1, tables=("vip-1",),
    ...                  expires_at=datetime(2030, 1, 1))
    >>> playable_at(g, "classic"), playable_at(g, "classic", "vip-1")
    (False, True)
    """
    if not grant.variants and not grant.tables:
        return True
    return variant_id in grant.variants or (bool(table_id) and table_id in grant.tables)


class GrantStatus(enum.StrEnum):
    """Where a grant stands."""

    ACTIVE = "active"
    USED = "used"
    EXPIRED = "expired"
    REVOKED = "revoked"


@dataclass(frozen=True, slots=True, kw_only=True)
class FreeBetGrant:
    """An operator's grant of ``count`` free bets of ``value`` (minor units of ``currency``)
    to one player of one brand, for some variants (none listed: every variant the brand
    offers), until ``expires_at``. ``grant_id`` is the operator's own: granting it again with
    the same terms is answered with the grant as stored."""

    operator_id: str
    grant_id: str
    brand_id: str
    player_id: str
    currency: str
    value: int
    count: int
    variants: tuple[str, ...] = ()
    tables: tuple[str, ...] = ()
    expires_at: datetime
    granted_at: datetime | None = None
    revoked_at: datetime | None = None

    def terms(self) -> tuple[object, ...]:
        """What a repeated grant must match."""
        return (self.brand_id, self.player_id, self.currency, self.value, self.count,
                self.variants, self.tables, self.expires_at)


@dataclass(frozen=True, slots=True, kw_only=True)
class FreeBetUse:
    """One free bet used: the round it staked, the box and what its end credited (None
    until the round has ended)."""

    operator_id: str
    grant_id: str
    round_id: str
    player_key: str
    seat: int
    value: int
    used_at: datetime
    paid: int | None = None
    #: The shared table the round was played at ("": a solo round).
    table_id: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class GrantUsage:
    """A grant with its usage: the report's row."""

    grant: FreeBetGrant
    used: int
    paid: int
    status: GrantStatus

    @property
    def left(self) -> int:
        """Free bets still to play (none once expired or revoked)."""
        return self.grant.count - self.used if self.status is GrantStatus.ACTIVE else 0

    @property
    def expired(self) -> int:
        """Free bets that lapsed unplayed."""
        return self.grant.count - self.used if self.status is GrantStatus.EXPIRED else 0


class FreeBetStore(Protocol):
    """Where grants and their uses are kept."""

    async def put_grant(self, grant: FreeBetGrant) -> tuple[FreeBetGrant, bool]:
        """Store a grant unless one of its id exists: the stored one, and whether it is new."""
        ...

    async def get_grant(self, operator_id: str, grant_id: str) -> FreeBetGrant | None:
        """One grant of an operator."""
        ...

    async def revoke(self, operator_id: str, grant_id: str, at: datetime) -> bool:
        """Mark a grant revoked; whether it was not already."""
        ...

    async def grants(self, operator_id: str, brand_id: str = "", player_id: str = ""
                     ) -> list[FreeBetGrant]:
        """An operator's grants, oldest first (optionally one brand's, one player's)."""
        ...

    async def uses(self, operator_id: str, grant_id: str) -> list[FreeBetUse]:
        """A grant's uses whose rounds exist."""
        ...

    async def usages(self, operator_id: str, brand_id: str = "", player_id: str = ""
                     ) -> list[tuple[FreeBetGrant, int, int]]:
        """:meth:`grants` with each one's uses counted and paid summed, in one read."""
        ...

    async def record_use(self, use: FreeBetUse) -> None:
        """Record a use before its round is committed (a use whose round never commits does
        not count)."""
        ...

    async def release(self, round_id: str, player_key: str = "") -> None:
        """Forget the use of a round that was not dealt after all (at a shared table: the
        use of one player, whose bet the table did not take)."""
        ...

    async def use_of_round(self, round_id: str) -> FreeBetUse | None:
        """The free bet a round stakes, if any."""
        ...

    async def record_paid(self, round_id: str, paid: int, player_key: str = "") -> None:
        """What the round's end credited (at a shared table: to one player)."""
        ...

    async def table_use(self, round_id: str, player_key: str) -> FreeBetUse | None:
        """The free bet a player staked in a shared table's round, if any."""
        ...


class NoFreeBets:
    """The store of a service wired without free bets: it holds none and takes none."""

    async def put_grant(self, grant: FreeBetGrant) -> tuple[FreeBetGrant, bool]:
        raise Unavailable("free bets are not served here", reason="FREE_BETS_NOT_SERVED")

    async def get_grant(self, operator_id: str, grant_id: str) -> FreeBetGrant | None:
        return None

    async def revoke(self, operator_id: str, grant_id: str, at: datetime) -> bool:
        return False

    async def grants(self, operator_id: str, brand_id: str = "", player_id: str = ""
                     ) -> list[FreeBetGrant]:
        return []

    async def uses(self, operator_id: str, grant_id: str) -> list[FreeBetUse]:
        return []

    async def usages(self, operator_id: str, brand_id: str = "", player_id: str = ""
                     ) -> list[tuple[FreeBetGrant, int, int]]:
        return []

    async def record_use(self, use: FreeBetUse) -> None:
        raise Unavailable("free bets are not served here", reason="FREE_BETS_NOT_SERVED")

    async def release(self, round_id: str, player_key: str = "") -> None:
        return None

    async def use_of_round(self, round_id: str) -> FreeBetUse | None:
        return None

    async def record_paid(self, round_id: str, paid: int, player_key: str = "") -> None:
        return None

    async def table_use(self, round_id: str, player_key: str) -> FreeBetUse | None:
        return None


def _not_found() -> NotFound:
    return NotFound("no such free bet", reason="FREE_BET_NOT_FOUND")


class FreeBets:
    """The operator's grants and their use by the player's rounds."""

    def __init__(self, store: FreeBetStore, audit: AuditTrail | None, clock: Clock,
                 brands: Mapping[str, Brand] | None = None,
                 tables: Mapping[str, tuple[str, ...]] | None = None) -> None:
        self.store = store
        self._brands = brands if brands is not None else {}
        #: The shared tables a grant may name, each with the brands it plays for.
        self._tables = tables if tables is not None else {}
        #: Where grants and revocations are recorded (None: nowhere, a test's service).
        self._audit = audit
        self._clock = clock
        #: Each player's grants with free bets left, as last read, and when (see LEFT_TTL_S).
        self._left: OrderedDict[_Holder, tuple[datetime, tuple[GrantUsage, ...]]] = (
            OrderedDict())
        self._left_ttl = timedelta(seconds=LEFT_TTL_S)

    @classmethod
    def none(cls, clock: Clock) -> FreeBets:
        """No free bets at all (a service wired without a store): none is found."""
        return cls(NoFreeBets(), None, clock)

    # ------------------------------------------------------------------ the operator's side

    async def grant(self, grant: FreeBetGrant) -> FreeBetGrant:
        """Grant free bets (idempotent on the operator's grant id; an empty currency is the
        brand's)."""
        grant = self._checked(grant)
        if not grant.grant_id or len(grant.grant_id) > MAX_ID:
            raise InvalidRequest(f"grant_id must be 1-{MAX_ID} characters",
                                 reason="INVALID_FREE_BET_GRANT", field="grant_id")
        if grant.value <= 0 or not 0 < grant.count <= MAX_COUNT:
            raise InvalidRequest(f"value must be positive, count 1-{MAX_COUNT}",
                                 reason="INVALID_FREE_BET_GRANT", field="value")
        now = self._clock()
        if grant.expires_at <= now:
            raise InvalidRequest("expires_at is already past", reason="INVALID_FREE_BET_GRANT",
                                 field="expires_at")
        stored, new = await self.store.put_grant(replace(grant, granted_at=now))
        self.forget(grant.operator_id, grant.brand_id, grant.player_id)
        if stored.terms() != grant.terms():
            raise NotAllowedNow(f"grant {preview(grant.grant_id)} exists with other terms",
                                reason="FREE_BET_GRANT_CONFLICT")
        if new and self._audit is not None:
            await self._audit.record(AuditEntry(
                actor=operator_actor(grant.operator_id), action=Action.FREE_BET_GRANTED,
                subject=f"free_bet:{grant.grant_id}", operator_id=grant.operator_id,
                details={"player_id": grant.player_id, "brand_id": grant.brand_id,
                         "currency": grant.currency, "value": str(grant.value),
                         "count": str(grant.count), "variants": ",".join(grant.variants),
                         "tables": ",".join(grant.tables),
                         "expires_at": grant.expires_at.isoformat()}))
        return stored

    def _checked(self, grant: FreeBetGrant) -> FreeBetGrant:
        brand = self._brands.get(grant.brand_id)
        if brand is None or brand.operator_id != grant.operator_id:
            raise NotFound(f"no brand {preview(grant.brand_id)}", reason="BRAND_NOT_FOUND")
        check_player_id(grant.player_id)
        currency = grant.currency or brand.currency
        if currency not in brand.currencies:
            raise InvalidRequest(f"brand {brand.id} does not play in {preview(currency)}",
                                 reason="WRONG_CURRENCY", field="currency")
        unknown = [v for v in grant.variants if v not in brand.variants]
        if unknown:
            raise InvalidRequest(f"variant {preview(unknown[0])} is not offered by this brand",
                                 reason="UNKNOWN_VARIANT", field="variant_ids")
        elsewhere = [t for t in grant.tables if brand.id not in self._tables.get(t, ())]
        if elsewhere:
            raise InvalidRequest(f"table {preview(elsewhere[0])} is not one of this brand's",
                                 reason="INVALID_FREE_BET_GRANT", field="table_ids")
        return replace(grant, currency=currency)

    async def revoke(self, operator_id: str, grant_id: str, reason: str = "") -> GrantUsage:
        """Revoke a grant none of whose free bets is used."""
        usage = await self.usage(operator_id, grant_id)
        if usage.used:
            raise NotAllowedNow("a used grant cannot be revoked", reason="FREE_BET_USED")
        if usage.status is not GrantStatus.REVOKED:
            revoked = await self.store.revoke(operator_id, grant_id, self._clock())
            g = usage.grant
            self.forget(g.operator_id, g.brand_id, g.player_id)
            if revoked and self._audit is not None:
                await self._audit.record(AuditEntry(
                    actor=operator_actor(operator_id), action=Action.FREE_BET_REVOKED,
                    subject=f"free_bet:{grant_id}", operator_id=operator_id, reason=reason))
        return await self.usage(operator_id, grant_id)

    async def usage(self, operator_id: str, grant_id: str) -> GrantUsage:
        """One grant's usage."""
        grant = await self.store.get_grant(operator_id, grant_id)
        if grant is None:
            raise _not_found()
        return await self._usage(grant)

    async def report(self, operator_id: str, brand_id: str = "", player_id: str = ""
                     ) -> list[GrantUsage]:
        """Each grant's usage: granted, used, expired, paid (one read of the store)."""
        return [self._status(g, used, paid) for g, used, paid
                in await self.store.usages(operator_id, brand_id, player_id)]

    async def _usage(self, grant: FreeBetGrant) -> GrantUsage:
        uses = await self.store.uses(grant.operator_id, grant.grant_id)
        return self._status(grant, len(uses), sum(u.paid or 0 for u in uses))

    def _status(self, grant: FreeBetGrant, used: int, paid: int) -> GrantUsage:
        status = (GrantStatus.REVOKED if grant.revoked_at is not None
                  else GrantStatus.USED if used >= grant.count
                  else GrantStatus.EXPIRED if grant.expires_at <= self._clock()
                  else GrantStatus.ACTIVE)
        return GrantUsage(grant=grant, used=used, paid=paid, status=status)

    # ------------------------------------------------------------------ the player's side

    async def left(self, session: Session, *, fresh: bool = False
                   ) -> tuple[FreeBetLeft, ...]:
        """The session's player's free bets left, in the session's brand and currency (read
        at most once per LEFT_TTL_S on this replica, unless a change here forgot them, or
        ``fresh``: read now)."""
        if fresh:
            self.forget(session.operator_id, session.brand_id, session.player_id)
        return tuple(
            FreeBetLeft(grant_id=u.grant.grant_id, value=u.grant.value, left=u.left,
                        expires_at=u.grant.expires_at, variants=u.grant.variants)
            for u in await self._active(session)
            if u.grant.currency == session.currency and u.left > 0
            and u.grant.expires_at > self._clock())

    async def left_at_table(self, session: Session, *, table_id: str, variant_id: str,
                            currency: str) -> tuple[FreeBetLeft, ...]:
        """The free bets left that the player may stake at the shared table ``table_id``."""
        return tuple(
            FreeBetLeft(grant_id=u.grant.grant_id, value=u.grant.value, left=u.left,
                        expires_at=u.grant.expires_at, variants=u.grant.variants)
            for u in await self._active(session)
            if u.grant.currency == currency and u.left > 0
            and u.grant.expires_at > self._clock()
            and playable_at(u.grant, variant_id, table_id))

    async def _active(self, session: Session) -> tuple[GrantUsage, ...]:
        holder = (session.operator_id, session.brand_id, session.player_id)
        now = self._clock()
        entry = self._left.get(holder)
        if entry is not None and entry[0] <= now < entry[0] + self._left_ttl:
            self._left.move_to_end(holder)
            return entry[1]
        active = tuple(u for u in await self.report(*holder) if u.left > 0)
        self._left[holder] = (now, active)
        self._left.move_to_end(holder)
        while len(self._left) > LEFT_SIZE:
            self._left.popitem(last=False)
        return active

    def forget(self, operator_id: str, brand_id: str, player_id: str) -> None:
        """Read the player's free bets left afresh at their next view (a change to them)."""
        self._left.pop((operator_id, brand_id, player_id), None)

    async def check(self, session: Session, grant_id: str, variant_id: str,
                    boxes: tuple[BoxBet, ...]) -> FreeBetGrant:
        """The grant a Deal stakes on its first box; refused with the reason otherwise."""
        grant = await self._playable(session, grant_id, session.currency)
        if not playable_at(grant, variant_id):
            raise NotAllowedNow(f"the free bet is not for {preview(variant_id)}",
                                reason="FREE_BET_NOT_FOR_VARIANT")
        if not boxes or boxes[0].stake != grant.value:
            raise InvalidRequest(f"the free bet's box must stake its value {grant.value}",
                                 reason="FREE_BET_VALUE_MISMATCH", field="boxes")
        return grant

    async def check_at_table(self, session: Session, grant_id: str, *, table_id: str,
                             variant_id: str, currency: str, stake: int) -> FreeBetGrant:
        """The grant a bet on the player's own seat at a shared table stakes on its main bet
        of ``stake``; refused with the reason otherwise."""
        grant = await self._playable(session, grant_id, currency)
        if not playable_at(grant, variant_id, table_id):
            raise NotAllowedNow(f"the free bet is not for table {preview(table_id)}",
                                reason="FREE_BET_NOT_FOR_VARIANT")
        if stake != grant.value:
            raise InvalidRequest(f"the free bet's main bet must stake its value {grant.value}",
                                 reason="FREE_BET_VALUE_MISMATCH", field="bets")
        return grant

    async def _playable(self, session: Session, grant_id: str, currency: str
                        ) -> FreeBetGrant:
        """The session's player's grant in ``currency`` with a free bet left to play."""
        grant = await self.store.get_grant(session.operator_id, grant_id)
        if grant is None or (grant.brand_id, grant.player_id, grant.currency) != (
                session.brand_id, session.player_id, currency):
            raise _not_found()  # another player's grant is as unknown as none
        usage = await self._usage(grant)
        if usage.status is GrantStatus.REVOKED:
            raise NotAllowedNow("the free bet was revoked", reason="FREE_BET_REVOKED")
        if usage.status is GrantStatus.USED:
            raise NotAllowedNow("every free bet of the grant is used", reason="FREE_BET_USED")
        if usage.status is GrantStatus.EXPIRED:
            raise NotAllowedNow("the free bet has expired", reason="FREE_BET_EXPIRED")
        return grant

    async def use(self, session: Session, grant: FreeBetGrant, round_id: str, seat: int,
                  table_id: str = "") -> None:
        """Record the grant's use by a round about to be committed (at a shared table: by a
        bet about to be placed on the player's seat ``seat`` of ``table_id``)."""
        await self.store.record_use(FreeBetUse(
            operator_id=grant.operator_id, grant_id=grant.grant_id, round_id=round_id,
            player_key=session.player_key, seat=seat, value=grant.value, used_at=self._clock(),
            table_id=table_id))
        self.forget(session.operator_id, session.brand_id, session.player_id)

    async def release(self, session: Session, round_id: str, *, at_table: bool = False
                      ) -> None:
        """Give back the free bet of a round that was not dealt after all (``at_table``: the
        player's bet the table did not take)."""
        await self.store.release(round_id, session.player_key if at_table else "")
        self.forget(session.operator_id, session.brand_id, session.player_id)

    async def credit(self, session: Session, header: StoredRound, view: RoundView) -> Movement:
        """The outbox row of a settled round's credit: its payout, less the free stake it had
        (then marked promotional). The round read says whether it had one (its recorded use
        comes with it): a round without one reads and writes nothing more here."""
        use = header.free_bet
        paid = view.total_paid if use is None else free_bet_credit(view, use.seat, use.value)
        if use is not None:
            await self.store.record_paid(header.round_id, paid)
        round_id = header.round_id
        return Movement(transaction_id=transaction_id(round_id, "settle", MoneyKind.CREDIT),
                        round_id=round_id, kind=MoneyKind.CREDIT, amount=paid,
                        session_id=session.session_id, currency=session.currency,
                        brand_id=session.brand_id, promotional=use is not None)


def round_free_bet(grant: FreeBetGrant | None, seat: int) -> RoundFreeBet | None:
    """What a round dealt with ``grant``'s free bet on ``seat`` carries (None without)."""
    return None if grant is None else RoundFreeBet(grant_id=grant.grant_id, value=grant.value,
                                                   seat=seat)
