"""``rgs verify``: check provably fair rounds offline, from the operator's recall JSON.

    rgs verify round.json           # a GetPlayerRound answer, a RoundRecord or a recall page
    rgs verify table-round.json     # a shared table round: a GetTableRound answer
    grpcurl ... GetPlayerRound | rgs verify -
    rgs verify round.json --json    # one JSON object: {"fair": bool, "rounds": [...]}

Every round is checked whole (:mod:`rgs.recall`): its seeds, then its bets and recorded
decisions replayed through the rules on the seeds' order and compared with everything the
recall says. Exit status 0 when every round verifies (the lines say what was checked), 1 when
one does not (the first difference, in a player's words), 2 on input that is not a round recall.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rgs.cli.common import UserError


def run_verify(args: argparse.Namespace) -> int:
    """Carry out ``rgs verify``; return the exit status."""
    from rgs.recall.verify import RecallFormatError, verify_document

    try:
        text = sys.stdin.read() if args.recall == "-" else Path(args.recall).read_text("utf-8")
    except OSError as exc:
        raise UserError(f"cannot read {args.recall}: {exc.strerror or exc}; give the path of a "
                        "round's recall JSON (or - for standard input)") from exc
    try:
        verdicts = verify_document(json.loads(text))
    except json.JSONDecodeError as exc:
        raise UserError(f"{args.recall} is not JSON ({exc.msg}, line {exc.lineno}); save the "
                        "recall as grpcurl prints it") from exc
    except RecallFormatError as exc:
        raise UserError(f"{args.recall}: {exc}") from exc
    fair = all(v.fair for v in verdicts)
    if args.json:
        print(json.dumps({"fair": fair, "rounds": [
            {"round_id": v.round_id, "fair": v.fair, "lines": list(v.lines)}
            for v in verdicts]}))
    else:
        for v in verdicts:
            print(f"round {v.round_id}: {'FAIR' if v.fair else 'NOT VERIFIED'}")
            for line in v.lines:
                print(f"  {line}")
    return 0 if fair else 1


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``rgs verify``."""
    p = sub.add_parser("verify", help="check provably fair rounds from their recall JSON",
                       description="Recompute a round's card order from its revealed seeds, "
                                   "replay its recorded bets and decisions through the rules "
                                   "on that order, and check the whole round against its "
                                   "recall: every card's destination, every result and "
                                   "payout, the totals.")
    p.add_argument("recall", help="recall JSON file (GetPlayerRound, ListPlayerRounds or "
                                  "GetTableRound answer, or one RoundRecord); - reads "
                                  "standard input")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run_verify)
