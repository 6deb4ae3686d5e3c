"""A real Prometheus Pushgateway on a free loopback port (Debian's ``prometheus-pushgateway``,
installed by ``bash .ci/ops-tools``): what the probe's CronJob mode pushes to."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

TOOLS_CACHE = Path(os.environ.get("RGS_OPS_TOOLS_CACHE",
                                  Path.home() / ".cache" / "rgs-ops-tools"))


def pushgateway_binary() -> str:
    """The prometheus-pushgateway executable; fails the test with what to run when missing."""
    for candidate in (TOOLS_CACHE / "bin" / "prometheus-pushgateway",
                      Path("/usr/bin/prometheus-pushgateway")):
        if candidate.exists() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which("prometheus-pushgateway")
    if found:
        return found
    pytest.fail("prometheus-pushgateway is not installed: run `bash .ci/ops-tools` (it installs "
                "Debian's prometheus-pushgateway), then re-run the tests", pytrace=False)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def scrape(url: str) -> str:
    """The Pushgateway's /metrics page, as Prometheus scrapes it."""
    with urllib.request.urlopen(f"{url}/metrics", timeout=5) as resp:
        return str(resp.read().decode())


@contextmanager
def pushgateway() -> Iterator[str]:
    """A Pushgateway for the duration (no persistence); its base URL."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen([pushgateway_binary(), f"--web.listen-address=127.0.0.1:{port}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                scrape(url)
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    err = proc.stderr.read().decode() if proc.stderr else ""
                    pytest.fail(f"the Pushgateway did not start: {err[-1000:]}")
                time.sleep(0.05)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)
