"""Shared tables in the platform file: the sandbox's two tables, and every mistake refused
naming its field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rgs.platform_file import DEFAULT_PLATFORM_FILE, PlatformError, load_platform


def test_the_sandbox_opens_one_vip_table_for_both_operators_and_one_electronic_table() -> None:
    tables = load_platform(DEFAULT_PLATFORM_FILE).tables
    vip, electronic = tables["vip-1"], tables["electronic-1"]
    assert (vip.variant, vip.seats, vip.currency, vip.brands) == (
        "vip-platinum", 7, "EUR", ("demo-casino", "demo-casino-hints", "other-casino"))
    assert (vip.limits.main_min, vip.limits.side_min) == (1000, 100)
    assert (electronic.variant, electronic.seats) == ("electronic-h17", 5)


def _with_table(tmp_path: Path, **table: Any) -> Path:
    raw = json.loads(DEFAULT_PLATFORM_FILE.read_text("utf-8"))
    for op in raw["operators"]:
        op["wallet"]["api_key"] = {"file": str(DEFAULT_PLATFORM_FILE.parent /
                                               op["wallet"]["api_key"]["file"])}
    raw["tables"] = [{"id": "t1", "variant": "vip-platinum", "seats": 7, "currency": "EUR",
                      "brands": ["demo-casino"], **table}]
    path = tmp_path / "platform.json"
    path.write_text(json.dumps(raw), "utf-8")
    return path


@pytest.mark.parametrize(("table", "where"), [
    ({"variant": "baccarat"}, "tables[0].variant"),
    ({"variant": "power", "seats": 1, "brands": ["other-casino"]}, "tables[0].brands[0]"),
    ({"variant": "power", "seats": 7}, "tables[0].seats"),
    ({"seats": 8}, "tables[0].seats"),
    ({"brands": ["nowhere"]}, "tables[0].brands[0]"),
    ({"brands": ["demo-casino-usd"]}, "tables[0].brands[0]"),
    ({"currency": "USD"}, "tables[0].brands[0]"),
    ({"betting_s": 0}, "tables[0].betting_s"),
    ({"limits": {"main_min": 500, "main_max": 100, "side_min": 1, "side_max": 5}},
     "tables[0].limits"),
])
def test_a_wrong_table_is_refused_naming_its_field(tmp_path: Path, table: dict[str, Any],
                                                   where: str) -> None:
    with pytest.raises(PlatformError) as exc:
        load_platform(_with_table(tmp_path, **table))
    assert f": {where}:" in str(exc.value)
