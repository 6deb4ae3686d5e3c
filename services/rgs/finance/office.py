"""The finance RPCs' use cases (``ListMovements``, ``GetGgrReport``): the request's values
checked, then one operator's movements read from the journal's database (docs/backoffice.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from rgs.finance import free_stakes, ggr, movements
from rgs.service.errors import InvalidRequest

MAX_PAGE = 5000
"""The most movements one page may ask for."""

MAX_DAYS = 366
"""The longest report one call may ask for."""


@dataclass(frozen=True, slots=True)
class GgrReport:
    """The report's groups and, with a reporting currency, their total."""

    lines: list[ggr.GgrLine]
    total: ggr.Total | None


def _day(text: str, field: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError as exc:
        raise InvalidRequest(f"{field} must be a day such as 2026-12-01",
                             reason="INVALID_TIME_WINDOW", field=field) from exc


class FinanceOffice:
    """One operator's movements and reports over the journal's pool."""

    def __init__(self, pool: Any) -> None:
        self._pool = pool

    async def movements(self, operator_id: str, start: datetime | None, end: datetime | None,
                        *, page_size: int = 0, page_token: str = ""
                        ) -> tuple[list[movements.MovementLine], str]:
        """One page of ``[start, end)`` and the next page's token ("" on the last page)."""
        if start is None or end is None or end <= start:
            raise InvalidRequest("from_time and to_time are required, to_time after from_time",
                                 reason="INVALID_TIME_WINDOW", field="to_time")
        if not 0 <= page_size <= MAX_PAGE:
            raise InvalidRequest(f"page_size must be 0-{MAX_PAGE}", reason="INVALID_PAGE_SIZE",
                                 field="page_size")
        try:
            after = movements.Cursor.decode(page_token) if page_token else None
        except ValueError as exc:
            raise InvalidRequest("page_token was not issued by this listing",
                                 reason="INVALID_PAGE_TOKEN", field="page_token") from exc
        lines, cursor = await movements.page(self._pool, operator_id, start, end, after=after,
                                             limit=page_size or 1000)
        return lines, cursor.encode() if cursor else ""

    async def ggr(self, operator_id: str, from_day: str, to_day: str, *,
                  reporting_currency: str = "", rates: Mapping[str, str] | None = None
                  ) -> GgrReport:
        """The GGR report of the days ``from_day`` to ``to_day`` (both included)."""
        first, last = _day(from_day, "from_day"), _day(to_day, "to_day")
        if not timedelta(0) <= last - first < timedelta(days=MAX_DAYS):
            raise InvalidRequest(f"to_day must be from_day or up to {MAX_DAYS - 1} days after",
                                 reason="INVALID_TIME_WINDOW", field="to_day")
        try:
            parsed = ggr.parse_rates(",".join(f"{k}={v}" for k, v in (rates or {}).items()))
        except ValueError as exc:
            raise InvalidRequest(str(exc), reason="INVALID_RATES", field="rates") from exc
        start = datetime.combine(first, time(), UTC)
        end = datetime.combine(last + timedelta(days=1), time(), UTC)
        lines = ggr.report([m async for m in movements.every(self._pool, operator_id, start,
                                                             end)],
                           await free_stakes.of_window(self._pool, operator_id, start, end))
        total = None
        if reporting_currency:
            try:
                total = ggr.total(lines, reporting_currency, parsed)
            except KeyError as exc:
                raise InvalidRequest(f"no rate for {exc.args[0]}: add it to rates",
                                     reason="INVALID_RATES", field="rates") from exc
        return GgrReport(lines=lines, total=total)
