"""``rgs rtp``: the RTP monitoring that tells an engine fault from players' choices
(docs/rtp-monitoring.md).

    rgs rtp worker --metrics-listen 0.0.0.0:9466   # value settled rounds in the background
    rgs rtp worker --once                          # value what is settled now, then exit
    rgs rtp report --brand demo-casino --since 2026-12-01 --json
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import sys
from datetime import UTC, datetime

from rgs.cli.common import UserError
from rgs.cli.finance import cannot_read, journal_errors, journal_pool


def _since(text: str) -> datetime:
    try:
        t = datetime.fromisoformat(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not an ISO time or day, e.g. "
                                         "2026-12-01 or 2026-12-01T12:00:00+00:00") from exc
    return t if t.tzinfo else t.replace(tzinfo=UTC)


_HEAD = ("brand", "variant", "table", "stake_band", "channel", "rounds", "observed", "par",
         "expected", "difference", "standard_error", "z", "plain_z", "hand_check_failures")


def run_report(ns: argparse.Namespace) -> int:
    """Print the monitoring's figures per group."""
    from rgs.rtp.report import groups

    async def go() -> list[dict[str, object]]:
        if not ns.json:
            print("... reading the valued rounds", file=sys.stderr, flush=True)
        pool = await journal_pool(ns)
        try:
            return [s.as_dict() for s in await groups(pool, since=ns.since, brand=ns.brand,
                                                       variant=ns.variant)]
        finally:
            await pool.close()

    try:
        lines = asyncio.run(go())
    except journal_errors() as exc:
        raise cannot_read("the RTP report", exc) from exc
    if ns.json:
        print(json.dumps({"since": ns.since.isoformat() if ns.since else None,
                          "groups": lines}))
        return 0
    print("\t".join(_HEAD))
    for d in lines:
        print("\t".join(str(d[k]) for k in _HEAD))
    if not lines:
        print("(no valued rounds: is `rgs rtp worker` running?)", file=sys.stderr)
    return 0


def run_worker(ns: argparse.Namespace) -> int:
    """Value settled rounds until stopped (or once, ``--once``), publishing the metrics."""
    from rgs.rtp import metrics
    from rgs.rtp.report import groups, lag_seconds
    from rgs.rtp.worker import RtpWorker, Valued

    def counted(v: Valued) -> None:
        metrics.VALUED.labels(source=v.source).inc()

    async def publish(pool: object) -> None:
        now = datetime.now(UTC)
        metrics.publish("rolling", await groups(pool, since=now - metrics.ROLLING))
        metrics.publish("start", await groups(pool))
        lag = await lag_seconds(pool, now)
        if lag is not None:
            metrics.LAG.set(lag)

    if ns.batch < 1:
        raise UserError("--batch must be at least 1")

    async def go() -> int:
        pool = await journal_pool(ns)
        worker = RtpWorker(pool, batch=ns.batch, on_round=counted)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            # only the main thread may take signals (a test calls main() from another)
            with contextlib.suppress(RuntimeError, NotImplementedError):
                loop.add_signal_handler(sig, stop.set)
        total = 0
        try:
            while not stop.is_set():
                n = await worker.step()
                total += n
                if n == 0:
                    await publish(pool)
                    if ns.once:
                        break
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(stop.wait(), ns.idle)
        finally:
            await pool.close()
        return total

    server = None
    if ns.metrics_listen:
        from prometheus_client import start_http_server

        from rgs.rtp.metrics import REGISTRY
        host, _, port = ns.metrics_listen.rpartition(":")
        server, _thread = start_http_server(int(port), addr=host.strip("[]") or "0.0.0.0",
                                            registry=REGISTRY)
    try:
        total = asyncio.run(go())
    except journal_errors() as exc:
        raise cannot_read("the RTP worker", exc) from exc
    finally:
        if server is not None:
            server.shutdown()
    print(f"rgs rtp worker: {total} rounds read", file=sys.stderr)
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``rgs rtp report`` and ``rgs rtp worker``."""
    p = sub.add_parser("rtp", help="RTP monitoring: decision-adjusted return per group")
    commands = p.add_subparsers(dest="rtp_command", metavar="COMMAND", required=True)
    r = commands.add_parser("report", help="observed, PAR and decision-adjusted return, "
                                           "difference, standard error and z-score per group")
    r.add_argument("--brand", help="only this brand")
    r.add_argument("--variant", help="only this variant")
    r.add_argument("--since", type=_since, help="rounds settled at or after (default: all)")
    r.add_argument("--database-url", help="journal PostgreSQL URL (default RGS_DATABASE_URL)")
    r.add_argument("--json", action="store_true", help="print one JSON object, no progress")
    r.set_defaults(func=run_report)
    w = commands.add_parser("worker", help="value settled rounds from the journal, off the "
                                           "players' path, resuming after a restart")
    w.add_argument("--database-url", help="journal PostgreSQL URL (default RGS_DATABASE_URL)")
    w.add_argument("--metrics-listen", help="serve the rgs_rtp_* metrics on host:port")
    w.add_argument("--batch", type=int, default=200, help="rounds per transaction")
    w.add_argument("--idle", type=float, default=5.0, help="seconds to rest when idle")
    w.add_argument("--once", action="store_true", help="value what is settled, then exit")
    w.set_defaults(func=run_worker)

