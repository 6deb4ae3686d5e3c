"""The hint tables an app owns are built once per rule set, however often it is asked: building
the app's tables again (a replica rebuilds nothing) starts no second thread building the same
tables beside the first (they piled up to 23 GB in one test run); only the brands with hints on
have theirs built."""

from __future__ import annotations

import threading

import pytest

from rgs import bootstrap
from rgs.engine import RuleSet
from rgs.math.hints import HintTables
from rgs.service.model import Brand


def test_each_rule_set_is_warmed_once_per_owner(monkeypatch: pytest.MonkeyPatch) -> None:
    tables = HintTables()
    warmed: list[RuleSet] = []
    release = threading.Event()

    def slow_warm(rules: RuleSet) -> None:
        release.wait(5)
        warmed.append(rules)

    monkeypatch.setattr(tables, "warm", slow_warm)
    hinted = Brand(id="b", operator_id="o", currencies=("EUR",),
                   variants=("vegas-20-plus", "power"), hints=True)
    plain = Brand(id="p", operator_id="o", currencies=("EUR",), variants=("vip-platinum",))
    rules = bootstrap.hinted_rules([hinted, plain])
    # five asks while the first warm is still running
    started = [t for t in (tables.warm_in_background(rules) for _ in range(5)) if t is not None]
    release.set()
    for t in started:
        t.join(5)
    assert len(started) == 1
    assert sorted(r.id for r in warmed) == ["power", "vegas-20-plus"]  # not vip-platinum
    # another app's tables are its own: they are built for it
    other = HintTables()
    monkeypatch.setattr(other, "warm", warmed.append)
    thread = other.warm_in_background(rules)
    assert thread is not None
    thread.join(5)
    assert sorted(r.id for r in warmed) == ["power", "power", "vegas-20-plus", "vegas-20-plus"]
