"""The ``rgs`` command line: the service, simulation, math, RNG lab tools and the terminal client.

Every command lives in one module of this package, which adds it with ``register(subparsers)``:

* :mod:`rgs.cli.service` — ``serve``, ``migrate`` and ``sandbox``;
* :mod:`rgs.cli.simulate` — ``simulate``;
* :mod:`rgs.cli.par` — ``par`` (PAR sheets);
* :mod:`rgs.cli.rng` — ``rng`` (the RNG lab tools);
* :mod:`rgs.cli.play` — ``play`` (the terminal client);
* :mod:`rgs.cli.verify` — ``verify`` (checks provably fair rounds from their recall);
* :mod:`rgs.cli.authenticate` — ``authenticate`` (the installed software against its release
  manifest, and a lab's seeded challenge);
* :mod:`rgs.cli.audit` — ``audit verify`` and ``admin add-key`` (the audit trail, the
  administrator's keys);
* :mod:`rgs.cli.finance` — ``movements`` and ``reconcile``, :mod:`rgs.cli.report` —
  ``report ggr`` (the operator's back office);
* :mod:`rgs.cli.probe` — ``probe`` (the synthetic client), :mod:`rgs.cli.lifecycle` —
  ``purge`` (expired idempotency records and sessions), :mod:`rgs.cli.partitions` —
  ``partitions`` (the journal's monthly partitions, when it is partitioned).

Every command prints what to do next on a user error and exits 2; long work shows progress on a
terminal and stays quiet with ``--json``. This is the top of the dependency graph: nothing
imports it, and it is where development conveniences (:mod:`rgs.devdb`) meet the production
wiring (:mod:`rgs.bootstrap`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from rgs.cli import (
    audit,
    authenticate,
    finance,
    lifecycle,
    par,
    partitions,
    play,
    probe,
    report,
    rng,
    rtp,
    service,
    simulate,
    verify,
)
from rgs.cli.common import UserError

#: The modules that add their own commands through ``register(subparsers)``, in help order.
_COMMAND_MODULES = (simulate, par, rng, service, play, verify, authenticate, audit,
                    finance, report, probe, lifecycle, partitions, rtp)


def build_parser() -> argparse.ArgumentParser:
    """The full ``rgs`` argument parser."""
    parser = argparse.ArgumentParser(
        prog="rgs", description="Remote game server for casino blackjack.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in _COMMAND_MODULES:
        module.register(sub)
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
