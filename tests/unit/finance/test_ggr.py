"""The GGR report: real-money stakes minus real-money wins per brand, variant, table, day and
currency, and a total in one reporting currency."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from rgs.finance.ggr import parse_rates, report, total
from rgs.finance.movements import MovementLine

DAY1 = datetime(2026, 12, 1, 23, 59, tzinfo=UTC)
DAY2 = datetime(2026, 12, 2, 0, 1, tzinfo=UTC)


def _m(txn: str, kind: str, amount: int, status: str, *, at: datetime = DAY1,
       currency: str = "EUR", player: str = "p1", table: str = "") -> MovementLine:
    return MovementLine(transaction_id=txn, round_id=txn.partition(":")[0], player_id=player,
                        brand_id="casino", kind=kind, amount=amount, currency=currency,
                        status=status, attempts=1, wallet_reference="", table_id=table,
                        variant="classic", created_at=at)


def test_booked_stakes_and_applied_wins_only_count() -> None:
    lines = [_m("r1:0:debit", "debit", 1000, "booked"),
             _m("r1:1:debit", "debit", 1000, "booked"),
             _m("r1:settle:credit", "credit", 4000, "applied"),
             _m("r2:0:debit", "debit", 500, "booked", player="p2"),
             _m("r2:settle:credit", "credit", 0, "applied", player="p2"),
             _m("r3:0:debit", "debit", 700, "refused", player="p2"),
             _m("r4:0:debit", "debit", 300, "rolled_back"),
             _m("r4:0:debit:rollback", "rollback", 300, "applied"),
             _m("r5:0:debit", "debit", 200, "applied")]                 # still open
    [g] = report(lines)
    assert (g.rounds, g.players, g.staked, g.paid, g.ggr, g.open) == (2, 2, 2500, 4000, -1500, 1)
    assert g.rtp == pytest.approx(1.6) and g.free_bet_staked == 0


def test_groups_split_by_day_currency_and_table() -> None:
    lines = [_m("a:0:debit", "debit", 100, "booked"),
             _m("a:settle:credit", "credit", 50, "applied", at=DAY2),
             _m("b:0:debit", "debit", 100, "booked", currency="USD"),
             _m("c:0:debit", "debit", 100, "booked", table="t1")]
    keys = [(g.day, g.table_id, g.currency, g.staked, g.paid) for g in report(lines)]
    assert keys == [("2026-12-01", "", "EUR", 100, 0), ("2026-12-01", "", "USD", 100, 0),
                    ("2026-12-01", "t1", "EUR", 100, 0), ("2026-12-02", "", "EUR", 0, 50)]


def test_a_total_in_one_reporting_currency_rounds_each_group_half_to_even() -> None:
    groups = report([_m("a:0:debit", "debit", 1001, "booked"),
                     _m("b:0:debit", "debit", 1000, "booked", currency="JPY"),
                     _m("c:0:debit", "debit", 250, "booked", currency="USD"),
                     _m("c:settle:credit", "credit", 100, "applied", currency="USD")])
    t = total(groups, "usd", parse_rates("EUR=1.5, JPY=0.0067"))
    # 10.01 EUR * 1.5 = 15.015 -> 15.02 ; 1000 JPY * 0.0067 = 6.70 ; 2.50 USD as it is
    assert (t.currency, t.staked, t.paid, t.ggr) == ("USD", 1502 + 670 + 250, 100,
                                                     1502 + 670 + 150)
    with pytest.raises(KeyError, match="JPY"):
        total(groups, "USD", {"EUR": Decimal(1)})


@pytest.mark.parametrize("bad", ["EUR", "EUR=x", "EUR=-1", "EURO=1"])
def test_a_bad_rate_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="CODE=RATE"):
        parse_rates(bad)


def test_a_free_stake_counts_apart_in_the_group_of_its_rounds_first_movement() -> None:
    # f1: a free bet of 1000 plus 500 paid, the stake on day 1 and the win after midnight;
    # f2: a free bet covering every stake, its only movement the (zero) credit on day 2.
    lines = [_m("f1:1:debit", "debit", 500, "booked"),
             _m("f1:settle:credit", "credit", 1500, "applied", at=DAY2),
             _m("f2:settle:credit", "credit", 0, "applied", at=DAY2, player="p2"),
             _m("r1:1:debit", "debit", 700, "booked", at=DAY2)]
    free = {"f1:1:debit": 1000, "f2:settle:credit": 2000}
    got = [(g.day, g.staked, g.paid, g.ggr, g.free_bet_staked, g.rounds)
           for g in report(lines, free)]
    assert got == [("2026-12-01", 500, 0, 500, 1000, 1),
                   ("2026-12-02", 700, 1500, -800, 2000, 3)]
    # Without the free stakes the money figures are the same: a free stake is in no staked.
    assert [(g.staked, g.paid, g.free_bet_staked) for g in report(lines)] == [
        (500, 0, 0), (700, 1500, 0)]
    t = total(report(lines, free), "EUR", {})
    assert (t.staked, t.ggr, t.free_bet_staked) == (1200, -300, 3000)
