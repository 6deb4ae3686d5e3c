"""Interrupted rounds' policy per operator: read from the platform file (mistakes refused naming
their field), and the sweep asks the journal for each operator's rounds by its own time, leaving
an operator's whose policy keeps them."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from rgs.journal.memory import InMemoryJournal
from rgs.platform_file import DEFAULT_PLATFORM_FILE, PlatformError, load_platform
from rgs.service.interrupted import InterruptedPolicies
from rgs.service.model import InterruptedResolution, InterruptedRoundsPolicy, StoredRound
from rgs.service.reconciler import Reconciler

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def _with(tmp_path: Path, policy: Any) -> Path:
    raw = json.loads(DEFAULT_PLATFORM_FILE.read_text("utf-8"))
    for op in raw["operators"]:
        op["wallet"]["api_key"] = {"file": str(DEFAULT_PLATFORM_FILE.parent /
                                               op["wallet"]["api_key"]["file"])}
    raw["operators"][0]["interrupted_rounds"] = policy
    path = tmp_path / "platform.json"
    path.write_text(json.dumps(raw), "utf-8")
    return path


def test_the_sandbox_completes_dev_operators_rounds_and_leaves_other_operators_to_it() -> None:
    ops = load_platform(DEFAULT_PLATFORM_FILE).operators
    assert ops["dev-operator"].interrupted_rounds is None
    assert ops["other-operator"].interrupted_rounds == InterruptedRoundsPolicy(
        after=timedelta(minutes=60), resolution=InterruptedResolution.OPERATOR)
    policies = InterruptedPolicies({o: p.interrupted_rounds for o, p in ops.items()},
                                   default_after=timedelta(seconds=3600))
    assert policies.of("dev-operator") == InterruptedRoundsPolicy()


@pytest.mark.parametrize(("policy", "where"), [
    ({"after_minutes": 0}, "interrupted_rounds.after_minutes"),
    ({"after_minutes": 10081}, "interrupted_rounds.after_minutes"),
    ({"resolution": "void"}, "interrupted_rounds.resolution"),
    ({"after": 5}, "interrupted_rounds.after"),
])
def test_a_wrong_policy_is_refused_naming_its_field(tmp_path: Path, policy: Any,
                                                     where: str) -> None:
    with pytest.raises(PlatformError) as err:
        load_platform(_with(tmp_path, policy))
    assert f"operators[0].{where}" in str(err.value)


def _round(operator: str, n: int) -> StoredRound:
    return StoredRound(round_id=f"{n:032x}", player_key=f"{operator}/p{n}", session_id="s",
                       operator_id=operator, brand_id="b", player_id=f"p{n}", currency="EUR",
                       variant="classic-resplit", seq=1, status="player_turn",
                       forced_cards=(), total_staked=100, total_paid=0, events=())


async def test_the_sweep_takes_each_operators_rounds_by_its_own_time() -> None:
    journal = InMemoryJournal(clock=lambda: NOW)
    ages = {("fast", 1): 11, ("fast", 2): 9, ("slow", 3): 59, ("slow", 4): 61,
            ("keeps", 5): 600}
    for (operator, n), minutes in ages.items():
        r = _round(operator, n)
        journal.tables.rounds[(r.player_key, r.round_id)] = replace(
            r, updated_at=NOW - timedelta(minutes=minutes))
        journal.tables.round_touched[(r.player_key, r.round_id)] = NOW - timedelta(
            minutes=minutes)
    policies = InterruptedPolicies({
        "fast": InterruptedRoundsPolicy(after=timedelta(minutes=10)),
        "slow": None,
        "keeps": InterruptedRoundsPolicy(resolution=InterruptedResolution.OPERATOR)},
        default_after=timedelta(minutes=60))
    reconciler = Reconciler(journal=journal, wallet=None,  # type: ignore[arg-type]
                            clock=lambda: NOW, interrupted=policies)
    due = await reconciler._interrupted(limit=10)
    # Oldest first; the one past its operator's time only; the keeping operator's never.
    assert [r.player_id for r in due] == ["p4", "p1"]
    assert policies.completes_at(replace(_round("keeps", 5), updated_at=NOW)) is None
    assert policies.completes_at(replace(_round("fast", 1), updated_at=NOW)) == (
        NOW + timedelta(minutes=10))
