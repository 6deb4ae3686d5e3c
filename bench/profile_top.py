"""Top functions of a py-spy profile: own and cumulative share of samples, and the share of each
layer of the RGS (where part of the time goes, by folder).

Record a running process with ``py-spy record --pid PID --duration 30 --format raw -o prof.raw``
(``bench/service.py --profile prof.raw`` does this for the RGS worker), then run
``.venv/bin/python bench/profile_top.py prof.raw [--top 25] [--json]``.

Own time is the innermost frame of a sample; cumulative time counts every function on the stack
once per sample. A layer's share is the samples whose innermost *project* frame lies in that
folder (the time spent there and in the libraries it called; the command line that merely runs
the event loop does not count), so the layers add up to 100%.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path

_FRAME = re.compile(r"^(?P<func>.*) \((?P<file>[^:()]*)(?::\d+)?\)$")

#: Folders of the project whose share is reported; the first prefix that matches wins.
LAYERS = (
    ("rgs/engine/", "engine"),
    ("rgs/service/", "service"),
    ("rgs/journal/", "journal"),
    ("rgs/wallet/", "wallet"),
    ("rgs/api/", "api"),
    ("rgs/observability/", "observability"),
    ("rgs/codec.py", "codec"),
    ("rgs/rng/", "rng"),
    ("rgs/bootstrap.py", "bootstrap"),
    ("sandbox_wallet/", "sandbox wallet"),
)


def _name(frame: str) -> tuple[str, str]:
    m = _FRAME.match(frame)
    if m is None:
        return frame, ""
    return f"{m['func']} ({m['file']})", m["file"]


def _layer(files: list[str]) -> str:
    for file in reversed(files):  # innermost first
        for prefix, layer in LAYERS:
            if prefix in file:
                return layer
    return "event loop and C extensions (no project frame: grpc, asyncpg, selector)"


def analyse(raw: str, top: int = 25) -> dict[str, object]:
    """Own, cumulative and per-layer shares (percent of samples) of a raw py-spy profile."""
    own: Counter[str] = Counter()
    cumulative: Counter[str] = Counter()
    layers: Counter[str] = Counter()
    total = 0
    for line in raw.splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        frames = [_name(f) for f in stack.split(";")]
        total += count
        own[frames[-1][0]] += count
        for name in {n for n, _ in frames}:
            cumulative[name] += count
        layers[_layer([f for _, f in frames])] += count

    def share(c: Counter[str], n: int) -> list[tuple[str, float]]:
        return [(k, round(100 * v / total, 1)) for k, v in c.most_common(n)]

    return {"samples": total, "own": share(own, top), "cumulative": share(cumulative, top),
            "layers": share(layers, len(layers))}


#: Groups of functions whose cumulative share tells part of the story of one call (part B of
#: issue 14 starts from these): each journal and wallet operation, the pool, the codec, logging.
BREAKDOWN = (
    ("journal: " + op, rf"InstrumentedJournal\.{op} |InstrumentedPlayerJournal\.{op} ")
    for op in ("find_session", "find_request", "open_movements", "active_round", "get_round",
               "movements", "open_call", "record_movement", "settle_movement", "commit_round",
               "flush_answers", "update_response", "save_session")
)
EXTRA = (
    ("journal: take the player (with the first read) and give it back",
     r"PlayerHolds\._take |PlayerHolds\._take_with |PlayerHolds\._release "),
    ("journal: pool acquire", r"Pool\.acquire |PostgresJournal\._acquire "),
    ("journal: pool release (connection reset)", r"Pool\.release "),
    ("journal: JSON codec (events, responses)", r"\(rgs/codec\.py"),
    ("wallet: calls (gRPC client)", r"InstrumentedWallet\."),
    ("rpc: log line per call", r"Logger\.log |Logger\._log "),
    ("rpc: metrics", r"prometheus_client"),
    ("rpc: tracing", r"opentelemetry"),
    ("engine", r"\(rgs/engine/"),
)


def breakdown(raw: str) -> list[tuple[str, float]]:
    """The share of samples (percent) whose stack holds each group of :data:`BREAKDOWN`."""
    groups = [(name, re.compile(rx)) for name, rx in (*BREAKDOWN, *EXTRA)]
    counts: Counter[str] = Counter()
    total = 0
    for line in raw.splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        total += int(count_text)
        for name, rx in groups:
            if rx.search(stack):
                counts[name] += int(count_text)
    return [(name, round(100 * counts[name] / max(total, 1), 1)) for name, _ in groups]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("profile", type=Path, help="py-spy --format raw output")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    raw = args.profile.read_text("utf-8")
    result = analyse(raw, args.top)
    result["breakdown"] = breakdown(raw)
    if args.json:
        print(json.dumps(result))
        return
    print(f"samples: {result['samples']}")
    for title in ("own", "cumulative", "layers", "breakdown"):
        print(f"{title}:")
        for name, pct in result[title]:  # type: ignore[attr-defined]
            print(f"  {pct:5.1f}%  {name}")


if __name__ == "__main__":
    main()
