"""Per-call latency of the HTTP/JSON wallet client: p50/p99 of balance calls against a real HTTP
wallet (hypercorn, in its own process), over plain HTTP and over TLS, one call at a time and
with concurrent calls.

Run: ``.venv/bin/python bench/http_wallet.py [--calls 400] [--concurrency 8]``. To measure
another version of the client (e.g. the hand-written HTTP/1.1 one that came before), put its
``services`` folder first: ``PYTHONPATH=/path/to/old/services python bench/http_wallet.py``; the
wallet accepts both signing schemes and answers with a Content-Length (the old client could not
read chunked answers), so the two runs are comparable.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SECRET = "bench-http-wallet-secret-0123"


def _serve(port: int, cert: str, key: str) -> None:
    from hypercorn.asyncio import serve
    from hypercorn.config import Config

    from support.http_wallet import HttpWalletState, wallet_app
    state = HttpWalletState(secret=SECRET, balances={"p": 10**9}, chunked=False,
                            legacy_signatures=True)
    config = Config()
    config.bind = [f"127.0.0.1:{port}"]
    config.accesslog = config.errorlog = None
    config.keep_alive_timeout = 60
    if cert:
        config.certfile, config.keyfile = cert, key
    asyncio.run(serve(wallet_app(state), config))  # type: ignore[arg-type]


def _free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start_server(cert: str = "", key: str = "") -> tuple[subprocess.Popen[bytes], int]:
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'tests'}:{ROOT / 'services'}"}
    proc = subprocess.Popen([sys.executable, __file__, "--serve", str(port), cert, key],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    import socket
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, port
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("the bench wallet did not start")


async def _measure(url: str, ca: Path | None, calls: int, concurrency: int) -> list[float]:
    from rgs.wallet import http_wallet
    from rgs.wallet.port import Party
    fields = {f.name for f in dataclasses.fields(http_wallet.HttpWalletSettings)}
    settings = {"url": url, "hmac_secret": SECRET, "timeout_s": 5.0, "tls_ca_file": ca}
    wallet = http_wallet.HttpWallet(http_wallet.HttpWalletSettings(
        **{k: v for k, v in settings.items() if k in fields}))  # type: ignore[arg-type]
    party_fields = {f.name for f in dataclasses.fields(Party)}
    party = Party(**{k: v for k, v in {"operator_id": "bench", "brand_id": "b",  # type: ignore
                                        "player_id": "p", "session_id": "s",
                                        "currency": "EUR"}.items() if k in party_fields})
    samples: list[float] = []

    async def worker(n: int) -> None:
        for _ in range(n):
            started = time.perf_counter()
            await wallet.balance(party)
            samples.append(time.perf_counter() - started)

    await worker(20)  # warm-up: the first connection and TLS handshake
    samples.clear()
    await asyncio.gather(*(worker(calls // concurrency) for _ in range(concurrency)))
    close = getattr(wallet, "close", None)
    if close is not None:
        await close()
    return samples


def _line(label: str, samples: list[float], wall: float) -> str:
    q = statistics.quantiles(samples, n=100)
    return (f"{label:<28} p50 {q[49] * 1000:7.2f} ms   p99 {q[98] * 1000:7.2f} ms   "
            f"{len(samples) / wall:8.0f} calls/s")


def main() -> None:
    """Measure and print."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--calls", type=int, default=400)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--serve", nargs=3, help=argparse.SUPPRESS)
    ns = ap.parse_args()
    if ns.serve:
        _serve(int(ns.serve[0]), ns.serve[1], ns.serve[2])
        return
    sys.path.insert(0, str(ROOT / "tests"))
    import rgs.wallet.http_wallet as client
    from support.tls import make_pki
    print(f"client: {Path(client.__file__).resolve()}")
    with tempfile.TemporaryDirectory() as tmp:
        pki = make_pki(Path(tmp))
        for scheme, tls in (("http", None), ("https", pki)):
            proc, port = _start_server(str(tls.server_cert) if tls else "",
                                       str(tls.server_key) if tls else "")
            try:
                url = f"{scheme}://127.0.0.1:{port}/wallet"
                ca = tls.ca_cert if tls else None
                for conc in (1, ns.concurrency):
                    started = time.perf_counter()
                    samples = asyncio.run(_measure(url, ca, ns.calls, conc))
                    print(_line(f"{scheme}, {conc} at a time", samples,
                                time.perf_counter() - started), flush=True)
            finally:
                proc.terminate()
                proc.wait(timeout=10)


if __name__ == "__main__":
    main()
