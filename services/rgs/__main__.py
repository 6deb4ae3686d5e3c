"""The ``rgs`` command line: simulation, math, RNG lab tools and the service.

Every command prints what to do next on a user error and exits 2; long work shows progress on a
terminal and stays quiet with ``--json``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from rgs.cli_common import UserError

#: Modules that add their own commands through ``register(subparsers)``.
_COMMAND_MODULES = ("rgs.math.sim_cli", "rgs.math.cli", "rgs.rng.cli", "rgs.service_cli",
                    "rgs.client.cli")


def build_parser() -> argparse.ArgumentParser:
    """The full ``rgs`` argument parser."""
    parser = argparse.ArgumentParser(
        prog="rgs", description="Remote game server for casino blackjack.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``rgs`` command line; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        code: int = func(args)
    except UserError as exc:
        print(f"rgs {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    return code


if __name__ == "__main__":
    sys.exit(main())
