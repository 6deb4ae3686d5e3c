"""The free-bet grant usage report (``rgs report freebets``, docs/freebets.md): each grant of an
operator with what became of it, read in one statement of the journal's database (the same read
as ``ListFreeBetGrants``, :meth:`rgs.service.freebets.FreeBets.report`).

Per grant: ``granted`` (its count), ``used`` (free bets staked by a committed round),
``expired`` (lapsed unplayed), ``left`` (still to play), ``paid`` (what its rounds credited, minor
units of ``currency``) and ``status`` (``active``, ``used``, ``expired``, ``revoked``) as of now.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from rgs.journal.freebets import PostgresFreeBets
from rgs.service.freebets import FreeBets, GrantUsage

#: The report's columns, in order (CSV header, JSON keys).
COLUMNS = ("grant_id", "brand_id", "player_id", "currency", "value", "granted", "used",
           "expired", "left", "paid", "status", "granted_at", "expires_at")


def row(u: GrantUsage) -> dict[str, object]:
    """One grant's line."""
    g = u.grant
    return {"grant_id": g.grant_id, "brand_id": g.brand_id, "player_id": g.player_id,
            "currency": g.currency, "value": g.value, "granted": g.count, "used": u.used,
            "expired": u.expired, "left": u.left, "paid": u.paid, "status": u.status.value,
            "granted_at": g.granted_at.isoformat() if g.granted_at else "",
            "expires_at": g.expires_at.isoformat()}


async def usage_report(pool: Any, operator_id: str, brand_id: str = "", *,
                       start: datetime | None = None, end: datetime | None = None
                       ) -> list[dict[str, object]]:
    """The operator's grants (one brand's when ``brand_id``; granted in ``[start, end)`` when
    given), oldest first, each with its usage."""
    office = FreeBets(PostgresFreeBets(pool), None, lambda: datetime.now(UTC))
    return [row(u) for u in await office.report(operator_id, brand_id)
            if u.grant.granted_at is None
            or ((start is None or u.grant.granted_at >= start)
                and (end is None or u.grant.granted_at < end))]
