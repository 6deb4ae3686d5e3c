"""A second ``rgs serve``/``rgs sandbox`` on a port another process serves is refused, naming the
port and the option that moves it: gRPC binds with SO_REUSEPORT, so without the check the second
server would start silently beside the first and the two would split the calls."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from rgs.cli import main
from rgs.cli.workers import refuse_taken
from rgs.config import ConfigError


@pytest.fixture
def taken() -> Iterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield f"127.0.0.1:{s.getsockname()[1]}"


def test_a_port_in_use_is_refused_with_the_option_that_moves_it(taken: str) -> None:
    with pytest.raises(ConfigError, match=rf"{taken} is already in use .* --listen HOST:PORT"):
        refuse_taken(taken, "--listen")


def test_a_free_port_and_port_zero_pass() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        free = f"127.0.0.1:{s.getsockname()[1]}"
    refuse_taken(free, "--listen")  # bound, not listening: nothing answers
    refuse_taken("127.0.0.1:0", "--listen")


@pytest.mark.parametrize("command", [["serve"], ["sandbox", "--web-listen", ""]])
def test_serve_and_sandbox_refuse_a_taken_port(
        taken: str, command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*command, "--listen", taken]) == 2
    err = capsys.readouterr().err
    assert f"{taken} is already in use" in err and "--listen HOST:PORT" in err
