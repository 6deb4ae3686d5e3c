"""The ``sandbox-wallet`` command (also ``python -m sandbox_wallet``): run the sandbox wallet until
interrupted; ``sandbox-wallet export ...`` writes its ledger's export instead (``export.py``).

Options override the ``SANDBOX_WALLET_*`` environment variables (see ``settings.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rgs import eventloop
from rgs.devdb import DevDbError
from rgs.observability.logging import mask_url
from rgs.sqlmigrate import DatabaseConnectError
from sandbox_wallet.domain import DEMO_PLAYERS
from sandbox_wallet.errors import ConfigError
from sandbox_wallet.server import start
from sandbox_wallet.settings import SandboxWalletSettings

log = logging.getLogger("sandbox_wallet")


def parse_settings(argv: Sequence[str] | None = None) -> SandboxWalletSettings:
    """Build settings from the environment, then apply command-line overrides."""
    parser = argparse.ArgumentParser(prog="sandbox-wallet", description=__doc__)
    parser.add_argument("--listen", help="host:port (default 127.0.0.1:50061)")
    parser.add_argument("--database-url", help="PostgreSQL URL (default: rgs.devdb resolution)")
    parser.add_argument("--api-key", help="shared bearer secret (default: the dev key)")
    parser.add_argument("--allow-plaintext", action="store_true", default=None)
    parser.add_argument("--tls-cert-file", type=Path)
    parser.add_argument("--tls-key-file", type=Path)
    parser.add_argument("--tls-client-ca-file", type=Path, help="require client certs (mTLS)")
    parser.add_argument(
        "--no-demo-players", dest="seed_demo_players", action="store_false", default=None
    )
    parser.add_argument("--fault-seed", type=int)
    parser.add_argument("--operator-id", help="the operator this wallet serves (default "
                        "dev-operator); calls for any other are refused")
    ns = parser.parse_args(argv)
    overrides: dict[str, Any] = {k: v for k, v in vars(ns).items() if v is not None}
    return SandboxWalletSettings(**overrides)


async def serve(settings: SandboxWalletSettings) -> None:
    """Start the server and run until SIGINT/SIGTERM."""
    running = await start(settings)
    log.info("sandbox wallet listening on %s (database %s)", running.target,
             mask_url(running.database_url))
    for player in DEMO_PLAYERS:
        log.info(
            "demo player %s: %s %d minor units%s",
            player.player_id,
            player.currency,
            player.balance,
            " (blocked)" if player.blocked else "",
        )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await running.stop(grace=2.0)


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point (``sandbox-wallet export ...`` writes the ledger's export)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["export"]:
        from sandbox_wallet import export

        return export.main(args[1:])
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    try:
        eventloop.run(serve(parse_settings(args)))
    except (ConfigError, DatabaseConnectError, DevDbError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
