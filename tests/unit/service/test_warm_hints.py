"""The hint tables of a process are built once per rule set, however many apps the process
builds: a second app (tests build hundreds; a replica rebuilds nothing) starts no second thread
building the same tables beside the first (they piled up to 23 GB in one test run)."""

from __future__ import annotations

import threading

import pytest

from rgs import bootstrap
from rgs.engine import RuleSet
from rgs.service.model import Brand


def test_each_rule_set_is_warmed_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bootstrap, "_WARMING", set())
    warmed: list[RuleSet] = []
    release = threading.Event()

    def slow_warm(rules: RuleSet) -> None:
        release.wait(5)
        warmed.append(rules)

    monkeypatch.setattr(bootstrap.hints, "warm", slow_warm)
    hinted = Brand(id="b", operator_id="o", currencies=("EUR",),
                   variants=("vegas-20-plus", "power"), hints=True)
    plain = Brand(id="p", operator_id="o", currencies=("EUR",), variants=("vip-platinum",))
    before = {t for t in threading.enumerate() if t.name == "rgs-hints-warm"}
    for _ in range(5):  # five apps built while the first warm is still running
        bootstrap.warm_hints([hinted, plain])
    started = {t for t in threading.enumerate() if t.name == "rgs-hints-warm"} - before
    release.set()
    for t in started:
        t.join(5)
    assert len(started) == 1
    assert sorted(r.id for r in warmed) == ["power", "vegas-20-plus"]  # not vip-platinum
