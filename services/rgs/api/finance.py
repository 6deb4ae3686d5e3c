"""``ListMovements`` and ``GetGgrReport`` of ``rgs.operator.v1.OperatorService``: the finance
RPCs, converted to and from protobuf (docs/backoffice.md)."""

from __future__ import annotations

from datetime import UTC, datetime

from rgs.finance.ggr import GgrLine
from rgs.finance.movements import MovementLine
from rgs.finance.office import FinanceOffice
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.service.errors import Unavailable


def _movement(m: MovementLine) -> op.Movement:
    out = op.Movement(transaction_id=m.transaction_id, round_id=m.round_id,
                      player_id=m.player_id, brand_id=m.brand_id, kind=m.kind, amount=m.amount,
                      currency=m.currency, status=m.status, attempts=m.attempts,
                      wallet_reference=m.wallet_reference, table_id=m.table_id,
                      variant=m.variant)
    out.created_at.FromDatetime(m.created_at.astimezone(UTC))
    return out


def _line(g: GgrLine) -> op.GgrLine:
    return op.GgrLine(brand_id=g.brand_id, variant=g.variant, table_id=g.table_id, day=g.day,
                      currency=g.currency, rounds=g.rounds, players=g.players,
                      staked=g.staked, paid=g.paid, ggr=g.ggr, rtp=g.rtp or 0.0,
                      free_bet_staked=g.free_bet_staked, open=g.open)


def _window(request: op.ListMovementsRequest) -> tuple[datetime | None, datetime | None]:
    start = (request.from_time.ToDatetime(tzinfo=UTC) if request.HasField("from_time")
             else None)
    end = request.to_time.ToDatetime(tzinfo=UTC) if request.HasField("to_time") else None
    return start, end


class FinanceCalls:
    """The finance RPCs of one operator (authenticated by the caller)."""

    def __init__(self, office: FinanceOffice | None) -> None:
        self._office = office

    def _served(self) -> FinanceOffice:
        if self._office is None:
            raise Unavailable("the finance RPCs need the PostgreSQL journal",
                              reason="FINANCE_NOT_SERVED")
        return self._office

    async def movements(self, operator: str, request: op.ListMovementsRequest
                        ) -> op.ListMovementsResponse:
        start, end = _window(request)
        lines, token = await self._served().movements(
            operator, start, end, page_size=request.page_size, page_token=request.page_token)
        return op.ListMovementsResponse(movements=[_movement(m) for m in lines],
                                        next_page_token=token)

    async def ggr(self, operator: str, request: op.GetGgrReportRequest
                  ) -> op.GetGgrReportResponse:
        report = await self._served().ggr(operator, request.from_day, request.to_day,
                                          reporting_currency=request.reporting_currency,
                                          rates=dict(request.rates))
        out = op.GetGgrReportResponse(lines=[_line(g) for g in report.lines])
        if report.total is not None:
            t = report.total
            out.total.CopyFrom(op.GgrTotal(currency=t.currency, staked=t.staked, paid=t.paid,
                                           ggr=t.ggr, free_bet_staked=t.free_bet_staked))
        return out
