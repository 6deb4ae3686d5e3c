"""The server processes' event loop: uvloop where installed, asyncio's on request. The choice is
the RGS's ``event_loop`` setting (RGS_EVENT_LOOP); the loop module reads no environment."""

from __future__ import annotations

import asyncio
import time

import pytest

from rgs import eventloop
from rgs.config import ConfigError, load_settings


async def _name() -> str:
    return eventloop.running_loop_name()


def test_uvloop_by_default_where_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("uvloop")
    monkeypatch.setenv("RGS_EVENT_LOOP", "asyncio")  # not read here: the caller chooses
    assert eventloop.loop_name() == "uvloop"
    assert eventloop.run(_name()) == "uvloop"


def test_asyncio_on_request() -> None:
    assert eventloop.loop_name("asyncio") == "asyncio"
    assert eventloop.run(_name(), "asyncio") == "asyncio"


def test_the_setting_carries_the_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RGS_EVENT_LOOP", "asyncio")
    assert load_settings().event_loop == "asyncio"
    monkeypatch.delenv("RGS_EVENT_LOOP")
    assert load_settings().event_loop is None
    monkeypatch.setenv("RGS_EVENT_LOOP", "trio")
    with pytest.raises(ConfigError, match="event_loop"):
        load_settings()


def test_unknown_choice_says_what_to_use() -> None:
    coro = _name()
    with pytest.raises(ValueError, match="use one of uvloop, asyncio"):
        eventloop.run(coro, "trio")
    assert coro.cr_frame is None  # closed: no "never awaited" warning


def test_running_loop_name_reads_the_loop_not_the_setting() -> None:
    assert asyncio.run(_name()) == "asyncio"


def test_each_setting_is_described_once_by_its_docstring() -> None:
    """pydantic reads each field's docstring as its description; a ``description=`` beside it
    was a second text that drifted from the first."""
    from pathlib import Path

    from rgs.config import RgsSettings
    source = Path(__file__).resolve().parents[2] / "services/rgs/config.py"
    assert "description=" not in source.read_text()
    assert all(f.description for f in RgsSettings.model_fields.values()), [
        name for name, f in RgsSettings.model_fields.items() if not f.description]


def _lag_count(at_least_s: float) -> float:
    """Samples of ``rgs_event_loop_lag_seconds`` above ``at_least_s`` so far (this process)."""
    from rgs.observability.metrics import EVENT_LOOP_LAG

    buckets = {s.labels["le"]: s.value for s in next(iter(EVENT_LOOP_LAG.collect())).samples
               if s.name.endswith("_bucket")}
    return buckets["+Inf"] - buckets[repr(at_least_s)]


def test_a_blocked_loop_shows_as_lag() -> None:
    from rgs.observability.metrics import watch_event_loop

    async def blocked() -> None:
        stop = watch_event_loop()
        await asyncio.sleep(0)  # the sampler has started its 0.1 s sleep
        time.sleep(0.35)  # a callback that holds the loop: the sampler's timer fires late
        await asyncio.sleep(0.01)
        await stop()

    before = _lag_count(0.1)
    asyncio.run(blocked())
    assert _lag_count(0.1) >= before + 1  # a sample late by 0.25 s or more (> 0.1)
