"""``rgs rng``: lab tools for the certified RNG.

* ``rgs rng raw --bytes N`` streams raw HMAC_DRBG output to stdout (``--bytes 0``: until the
  reader closes the pipe), e.g. ``rgs rng raw --bytes 0 | dieharder -g 200 -a``.
* ``rgs rng outcomes`` writes scaled outcomes: shuffled shoes, shoes in the engine's draw order,
  or rounds dealt by the engine (formats in ``services/rgs/rng/README.md``).
* ``rgs rng report`` runs the statistical battery and writes a Markdown report with a PNG.

``rgs.cli`` calls :func:`register`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO

from rgs.cli.common import UserError
from rgs.engine.cards import DECK
from rgs.rng.certified import CertifiedRng, RngSettings
from rgs.rng.drbg import DEFAULT_RESEED_INTERVAL, MAX_BYTES_PER_REQUEST, MAX_RESEED_INTERVAL
from rgs.rng.errors import RngError
from rgs.variants import VARIANTS, find_variant

FORMAT_VERSION = 1
GENERATOR = "HMAC_DRBG (SHA-256, SP 800-90A) seeded from os.urandom behind SP 800-90B health tests"


class UsageError(UserError):
    """A mistake in the command line: exit 2 with the message."""


def _count(text: str) -> int:
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative")
    return value


def _settings_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--reseed-interval", type=_count, default=DEFAULT_RESEED_INTERVAL,
                   help="DRBG Generate requests between reseeds from the OS "
                        f"(default {DEFAULT_RESEED_INTERVAL}, at most 2^48)")
    p.add_argument("--prediction-resistance", action="store_true",
                   help="reseed from the OS before every Generate request")
    p.add_argument("--json", action="store_true",
                   help="no progress; print one JSON object describing the run")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``rng`` command and its ``raw``, ``outcomes`` and ``report`` subcommands."""
    rng = subparsers.add_parser("rng", help="certified RNG lab tools: raw stream, outcomes, report",
                                description="Lab tools for the certified RNG.")
    sub = rng.add_subparsers(dest="rng_command", metavar="COMMAND", required=True)

    raw = sub.add_parser("raw", help="stream raw DRBG output to stdout",
                         description="Stream raw HMAC_DRBG output (binary) to stdout, for "
                                     "dieharder -g 200, TestU01 or NIST sts.")
    raw.add_argument("--bytes", type=_count, required=True, metavar="N",
                     help="bytes to write; 0 streams until the reader closes the pipe")
    _settings_options(raw)
    raw.set_defaults(func=_guarded(cmd_raw))

    out = sub.add_parser("outcomes", help="write shuffled shoes or dealt rounds",
                         description="Write scaled outcomes in a documented text format "
                                     "(see services/rgs/rng/README.md).")
    out.add_argument("--format", choices=("shoes", "draws", "rounds"), default="shoes",
                     help="shoes: Fisher-Yates shuffled full shoes; draws: full shoes in the "
                          "engine's draw order; rounds: deal-time cards of rounds dealt by the "
                          "engine (default: shoes)")
    out.add_argument("--shoes", type=_count, metavar="N", help="shoes to write (shoes, draws)")
    out.add_argument("--rounds", type=_count, metavar="N", help="rounds to deal (rounds)")
    out.add_argument("--decks", type=_count, default=8, help="decks per shoe, 1-8 (default 8)")
    out.add_argument("--variant", default="vip-platinum", choices=sorted(VARIANTS),
                     help="variant whose rules deal the rounds (default vip-platinum)")
    out.add_argument("--numeric", action="store_true",
                     help="write card numbers 0-51 instead of codes like AS")
    out.add_argument("--output", "-o", default="-", help="file to write (default: stdout)")
    _settings_options(out)
    out.set_defaults(func=_guarded(cmd_outcomes))

    rep = sub.add_parser("report", help="run the statistical battery and write a report",
                         description="Run SP 800-22 on the DRBG stream and chi-square tests on "
                                     "cards dealt through the engine; write Markdown + PNG.")
    rep.add_argument("--sequences", type=_count, default=100,
                     help="SP 800-22 sequences (default 100, the sample size NIST's §4.2 "
                          "criteria are tuned for)")
    rep.add_argument("--bits", type=_count, default=1_000_000,
                     help="bits per sequence, a multiple of 8, at least 100000 (default 10^6)")
    rep.add_argument("--rounds", type=_count, default=100_000,
                     help="rounds dealt through the engine for card tests (default 100000)")
    rep.add_argument("--shuffles", type=_count, default=20_000,
                     help="one-deck shuffles for the position test (default 20000)")
    rep.add_argument("--variant", default="vip-platinum", choices=sorted(VARIANTS),
                     help="variant that deals the rounds (default vip-platinum)")
    rep.add_argument("--jobs", type=_count, default=1,
                     help="worker processes for the SP 800-22 battery (default 1)")
    rep.add_argument("--input", type=Path, metavar="FILE",
                     help="run SP 800-22 on this file of raw bytes instead of the live DRBG "
                          "(card tests still use the live RNG)")
    rep.add_argument("--output-dir", type=Path, default=Path("rng-report"),
                     help="directory for rng-report.md, rng-pvalues.png and rng-report.json "
                          "(default ./rng-report)")
    _settings_options(rep)
    rep.set_defaults(func=_guarded(cmd_report))


def _rng(args: argparse.Namespace) -> CertifiedRng:
    if not 1 <= args.reseed_interval <= MAX_RESEED_INTERVAL:
        raise UsageError("--reseed-interval must be between 1 and 2^48")
    return CertifiedRng(RngSettings(reseed_interval=args.reseed_interval,
                                    prediction_resistance=args.prediction_resistance))


def _progress(args: argparse.Namespace) -> Callable[[str], None]:
    if args.json or not sys.stderr.isatty():
        return lambda _msg: None

    def say(msg: str) -> None:
        sys.stderr.write(f"\r\x1b[2K{msg}")
        sys.stderr.flush()

    return say


def _end_progress(args: argparse.Namespace) -> None:
    if not args.json and sys.stderr.isatty():
        sys.stderr.write("\r\x1b[2K")


def _quiet_broken_pipe() -> int:
    # The reader went away (dieharder finished, `head` had enough): that is success. Point stdout
    # at /dev/null so the interpreter's final flush does not raise again.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 0


def cmd_raw(args: argparse.Namespace) -> int:
    """``rgs rng raw``: binary DRBG output on stdout."""
    if sys.stdout.isatty():
        raise UsageError("refusing to write binary data to a terminal; pipe it, e.g. "
                         "`rgs rng raw --bytes 0 | dieharder -g 200 -a`, or redirect to a file")
    rng = _rng(args)
    say = _progress(args)
    out = sys.stdout.buffer
    total, start = 0, time.monotonic()
    forever = args.bytes == 0
    try:
        while forever or total < args.bytes:
            n = MAX_BYTES_PER_REQUEST if forever else min(MAX_BYTES_PER_REQUEST, args.bytes - total)
            out.write(rng.raw(n))
            total += n
            if total % (1 << 24) == 0:
                say(f"{total / 1e6:,.0f} MB written")
        out.flush()
    except BrokenPipeError:
        _quiet_broken_pipe()
    _end_progress(args)
    if args.json:
        seconds = time.monotonic() - start
        print(json.dumps({"bytes": total, "seconds": round(seconds, 3),
                          "generator": GENERATOR}), file=sys.stderr)
    return 0


_CARD_NUMBER = {c: i for i, c in enumerate(DECK)}


def _card_text(cards: Sequence[str], numeric: bool) -> str:
    return " ".join(str(_CARD_NUMBER[c]) for c in cards) if numeric else " ".join(cards)


def cmd_outcomes(args: argparse.Namespace) -> int:
    """``rgs rng outcomes``: scaled outcomes as text, one shoe or round per line."""
    # Imported here so that `rgs rng raw` starts without loading scipy.
    from rgs.rng.cardstats import deal_cards_per_round, deal_rounds

    if args.format == "rounds":
        if not args.rounds:
            raise UsageError("--format rounds needs --rounds N (N ≥ 1)")
        count, per_line = args.rounds, deal_cards_per_round(find_variant(args.variant))
    else:
        if not args.shoes:
            raise UsageError(f"--format {args.format} needs --shoes N (N ≥ 1)")
        if not 1 <= args.decks <= 8:
            raise UsageError("--decks must be between 1 and 8")
        count, per_line = args.shoes, 52 * args.decks
    if args.json and args.output == "-":
        raise UsageError("--json prints a summary on stdout; give --output FILE for the outcomes")
    rng = _rng(args)
    say = _progress(args)
    start = time.monotonic()
    dest: IO[str] = sys.stdout if args.output == "-" else open(  # noqa: SIM115 - closed below
        args.output, "w", encoding="ascii")
    header = (f"# rgs-rng-outcomes v{FORMAT_VERSION} format={args.format} count={count} "
              f"cards-per-line={per_line} encoding={'numeric' if args.numeric else 'codes'} "
              + (f"variant={args.variant}" if args.format == "rounds" else f"decks={args.decks}")
              + f" created={time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}")
    try:
        dest.write(header + "\n")
        if args.format == "rounds":
            rules = find_variant(args.variant)
            done = 0
            while done < count:  # in chunks, so output starts at once and memory stays flat
                chunk = min(10_000, count - done)
                for row in deal_rounds(rules, rng.card_source, chunk):
                    dest.write(_card_text([DECK[i] for i in row], args.numeric) + "\n")
                done += chunk
                say(f"{done:,}/{count:,} rounds")
        else:
            for s in range(count):
                if args.format == "shoes":
                    cards = rng.shuffled_shoe(args.decks)
                else:
                    source = rng.card_source_for_decks(args.decks)
                    cards = [source.draw() for _ in range(per_line)]
                dest.write(_card_text(cards, args.numeric) + "\n")
                if s % 1000 == 0:
                    say(f"{s:,}/{count:,} shoes")
        dest.flush()
    except BrokenPipeError:
        return _quiet_broken_pipe()
    finally:
        if dest is not sys.stdout:
            dest.close()
    _end_progress(args)
    if args.json:
        print(json.dumps({"format": args.format, "count": count, "cards_per_line": per_line,
                          "encoding": "numeric" if args.numeric else "codes",
                          "output": str(args.output),
                          "seconds": round(time.monotonic() - start, 3)}))
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    """``rgs rng report``: the battery, written as Markdown + PNG + JSON. Exit 1 if it fails."""
    from rgs.rng.report import run_report, write_markdown, write_png

    if args.bits < 100_000 or args.bits % 8:
        raise UsageError("--bits must be a multiple of 8 and at least 100000")
    if args.sequences < 1:
        raise UsageError("--sequences must be at least 1")
    rng = _rng(args)
    read: Callable[[int], bytes] = rng.raw
    generator = GENERATOR + (", prediction resistance" if args.prediction_resistance else "") + \
        f", reseed interval {args.reseed_interval}"
    with contextlib.ExitStack() as stack:
        if args.input is not None:
            try:
                stream = stack.enter_context(args.input.open("rb"))
            except OSError as err:
                raise UsageError(f"cannot read --input: {err}") from None
            needed = args.sequences * args.bits // 8
            size = args.input.stat().st_size
            if size < needed:
                raise UsageError(f"--input holds {size:,} bytes; {args.sequences} × "
                                 f"{args.bits:,} bits need {needed:,}: lower --sequences/--bits "
                                 "or capture more")
            read = stream.read
            generator = f"file {args.input} (cards: {generator})"
        try:
            args.output_dir.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise UsageError(f"cannot create --output-dir: {err}") from None
        say = _progress(args)
        report = run_report(read, rng.card_source, rng.shuffle, generator=generator,
                            sequences=args.sequences, bits=args.bits, rounds=args.rounds,
                            shuffles=args.shuffles, variant=args.variant,
                            jobs=max(args.jobs, 1), progress=say)
    _end_progress(args)
    md, png = args.output_dir / "rng-report.md", args.output_dir / "rng-pvalues.png"
    write_png(report, png)
    write_markdown(report, md, png.name)
    summary = report.to_json() | {"markdown": str(md), "png": str(png)}
    (args.output_dir / "rng-report.json").write_text(json.dumps(summary, indent=2) + "\n")
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"{'PASS' if report.passed else 'FAIL'}: report written to {md} ({png.name})")
    return 0 if report.passed else 1


def _guarded(command: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """``command`` with user and RNG errors turned into a message and an exit code.

    Done here rather than in the caller so that ``rgs rng`` behaves the same under any parser.
    """

    def run(args: argparse.Namespace) -> int:
        try:
            return command(args)
        except UserError as err:
            print(f"rgs rng: error: {err}", file=sys.stderr)
            return 2
        except RngError as err:
            print(f"rgs rng: the RNG refused: {err}. The entropy source or DRBG is unusable in "
                  "this process; check the host's entropy (getrandom) and run again.",
                  file=sys.stderr)
            return 1

    run.__doc__ = command.__doc__
    return run

