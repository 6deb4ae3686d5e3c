"""The engine is pure: it imports nothing that does I/O, reads the clock or makes randomness,
nothing from the rest of the project, and keeps no state between rounds."""

from __future__ import annotations

import copy
import importlib
import pkgutil
from pathlib import Path

import rgs.engine
from rgs.engine import Action, BoxBet, CardDealt, Round, SequenceSource, TableLimits
from rgs.engine.state import CARD_EVENTS, card_event
from rgs.variants import VARIANTS
from support.pyimports import source_facts

ENGINE = Path(rgs.engine.__file__).parent
ALLOWED_STDLIB = {"__future__", "collections", "dataclasses", "enum", "fractions", "typing"}


def _imports(path: Path) -> set[str]:
    return set(source_facts(ENGINE)[path].imports)


def test_engine_imports_only_itself_and_pure_stdlib() -> None:
    offenders = {}
    for path in ENGINE.rglob("*.py"):
        bad = {n for n in _imports(path)
               if not n.startswith("rgs.engine") and n.split(".")[0] not in ALLOWED_STDLIB}
        if bad:
            offenders[path.name] = sorted(bad)
    assert offenders == {}


def test_engine_never_calls_random_time_or_open() -> None:
    for path, facts in source_facts(ENGINE).items():
        assert not facts.calls & {"open", "print", "input", "__import__", "eval", "exec"}, path


def _module_state() -> dict[str, object]:
    """A copy of every mutable container held at module level anywhere in the engine."""
    state: dict[str, object] = {}
    for info in pkgutil.iter_modules(rgs.engine.__path__):
        module = importlib.import_module(f"rgs.engine.{info.name}")
        for name, value in vars(module).items():
            if not name.startswith("__") and isinstance(value, dict | list | set | bytearray):
                state[f"{info.name}.{name}"] = copy.copy(value)
    return state


def test_dealing_leaves_no_trace_in_the_engines_module_state() -> None:
    # Caches keyed by what was dealt (verified bets, card events) would show up here: the same
    # bets are dealt twice, to every seat, and rounds are played to the end.
    before = _module_state()
    cards = ["2S", "3H", "4D", "5C", "6S", "7H", "8D", "9C"] * 8
    for rules in VARIANTS.values():
        bets = [BoxBet(seat=s, stake=rules.limits.main_min) for s in range(1, rules.max_boxes + 1)]
        limits = TableLimits(main_min=rules.limits.main_min, main_max=rules.limits.main_max + 1,
                             side_min=rules.limits.side_min, side_max=rules.limits.side_max)
        for lim in (None, limits, None):
            rnd = Round.deal(rules, SequenceSource(cards), bets, lim)
            while not rnd.finished:
                if rnd.to_act is None:  # insurance: every box declines
                    for seat in rnd.seats():
                        rnd.act(seat, 0, Action.DECLINE_INSURANCE)
                else:
                    rnd.act(*rnd.to_act, Action.STAND)
            rnd.view()
    assert _module_state() == before


def test_a_card_event_outside_the_prebuilt_table_is_built_equal_and_not_stored() -> None:
    assert card_event("AS", 1, 0, False) is CARD_EVENTS["AS", 1, 0, False]
    size = len(CARD_EVENTS)
    assert card_event("AS", 1, 6, False) == CardDealt(card="AS", seat=1, hand=6)
    assert len(CARD_EVENTS) == size
