"""The finance RPCs refuse a bad window, page or rate before reading anything."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from rgs.finance.office import FinanceOffice
from rgs.service.errors import InvalidRequest

AT = datetime(2026, 12, 1, tzinfo=UTC)


class _NoPool:
    async def fetch(self, *args: Any) -> list[Any]:
        raise AssertionError("read the journal after a bad request")


@pytest.mark.parametrize(("kwargs", "reason"), [
    ({"start": None, "end": AT}, "INVALID_TIME_WINDOW"),
    ({"start": AT, "end": AT}, "INVALID_TIME_WINDOW"),
    ({"start": AT, "end": AT + timedelta(hours=1), "page_size": 5001}, "INVALID_PAGE_SIZE"),
    ({"start": AT, "end": AT + timedelta(hours=1), "page_token": "x"}, "INVALID_PAGE_TOKEN"),
])
async def test_a_bad_listing_request_is_refused_with_its_reason(kwargs: dict[str, Any],
                                                                reason: str) -> None:
    start, end = kwargs.pop("start"), kwargs.pop("end")
    with pytest.raises(InvalidRequest) as refused:
        await FinanceOffice(_NoPool()).movements("op", start, end, **kwargs)
    assert refused.value.reason == reason


@pytest.mark.parametrize(("days", "rates", "reason"), [
    (("2026-12-02", "2026-12-01"), {}, "INVALID_TIME_WINDOW"),
    (("2026-12-01", "2027-12-02"), {}, "INVALID_TIME_WINDOW"),
    (("12/01/2026", "2026-12-01"), {}, "INVALID_TIME_WINDOW"),
    (("2026-12-01", "2026-12-01"), {"USD": "-1"}, "INVALID_RATES"),
])
async def test_a_bad_report_request_is_refused_with_its_reason(
        days: tuple[str, str], rates: dict[str, str], reason: str) -> None:
    with pytest.raises(InvalidRequest) as refused:
        await FinanceOffice(_NoPool()).ggr("op", *days, rates=rates)
    assert refused.value.reason == reason
