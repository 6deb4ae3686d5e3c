"""The server processes' event loop: uvloop where installed, asyncio's on request."""

from __future__ import annotations

import asyncio

import pytest

from rgs import eventloop


async def _name() -> str:
    return eventloop.running_loop_name()


def test_uvloop_by_default_where_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("uvloop")
    monkeypatch.delenv(eventloop.ENV, raising=False)
    assert eventloop.loop_name() == "uvloop"
    assert eventloop.run(_name()) == "uvloop"


@pytest.mark.parametrize("value", ["asyncio", " AsyncIO "])
def test_asyncio_on_request(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(eventloop.ENV, value)
    assert eventloop.loop_name() == "asyncio"
    assert eventloop.run(_name()) == "asyncio"


def test_unknown_choice_says_what_to_use(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(eventloop.ENV, "trio")
    coro = _name()
    with pytest.raises(ValueError, match="use one of uvloop, asyncio"):
        eventloop.run(coro)
    assert coro.cr_frame is None  # closed: no "never awaited" warning


def test_running_loop_name_reads_the_loop_not_the_setting(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(eventloop.ENV, raising=False)
    assert asyncio.run(_name()) == "asyncio"
