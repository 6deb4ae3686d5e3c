"""Reading the valued rounds back: per group (brand, variant, table, stake band, channel) over a
window, for ``rgs rtp report`` and the worker's metrics."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

from rgs.rtp.stats import DIMENSIONS, SUMS, Summary, Tally, summarise

#: The dimension columns of ``rtp_rounds``.
_COLUMNS: Final = {"brand": "brand_id", "variant": "variant", "table": "table_id",
                   "stake_band": "stake_band", "channel": "channel"}


async def groups(pool: Any, *, since: datetime | None = None, brand: str | None = None,
                 variant: str | None = None, by: tuple[str, ...] = DIMENSIONS
                 ) -> list[Summary]:
    """The summaries of the rounds settled at or after ``since`` (None: since the start),
    grouped by ``by``, optionally for one brand and/or variant."""
    cols = [_COLUMNS[d] for d in by]
    where, args = ["TRUE"], []
    for value, col in ((since, "settled_at >="), (brand, "brand_id ="), (variant, "variant =")):
        if value is not None:
            args.append(value)
            where.append(f"{col} ${len(args)}")
    select = ", ".join([*(f"{c} AS {d}" for c, d in zip(cols, by, strict=True)), SUMS])
    group = f" GROUP BY {', '.join(cols)} ORDER BY {', '.join(cols)}" if cols else ""
    sql = f"SELECT {select} FROM rtp_rounds WHERE {' AND '.join(where)}{group}"
    async with pool.acquire() as conn:
        rows = await conn.fetch(sql, *args)
    return [summarise(Tally.from_row(r), {d: str(r[d]) for d in by}) for r in rows
            if int(r["rounds"]) > 0]


async def lag_seconds(pool: Any, now: datetime) -> float | None:
    """How far behind the worker's cursors are (None: it has read nothing yet)."""
    async with pool.acquire() as conn:
        at = await conn.fetchval("SELECT min(finished_at) FROM rtp_cursor")
    return None if at is None else max((now - at).total_seconds(), 0.0)
