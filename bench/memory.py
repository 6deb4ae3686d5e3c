"""Memory per worker, hints off and on: what one RGS worker process holds before any call (the
server's modules imported), and what the exact analysis of each variant (the brand setting
``hints``, built at start by the app's ``HintTables.warm_in_background``) adds to it, variant
by variant in one process, as resident set size. ops/capacity.md and the Helm chart's memory
derivation use these.

Run: ``.venv/bin/python bench/memory.py [--json]``. Prints figures only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import resource
import time


def _rss_mib() -> float:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true")
    ns = parser.parse_args()
    start = _rss_mib()
    import rgs.api.server
    import rgs.bootstrap  # noqa: F401  (the worker's modules: service, journal, wallet, API)
    from rgs.math.hints import HintTables
    from rgs.variants import VARIANTS, find_variant

    hints = HintTables()  # as the app owns one
    base = _rss_mib()
    out: dict[str, object] = {"interpreter_mib": round(start, 1),
                              "worker_modules_mib": round(base, 1), "variants": {}}
    if not ns.json:
        print(f"interpreter {start:7.1f} MiB; with the worker's modules {base:7.1f} MiB")
    previous = base
    for vid in sorted(VARIANTS):
        t0 = time.perf_counter()
        hints.warm(find_variant(vid))
        now = _rss_mib()
        row = {"added_mib": round(now - previous, 1), "total_mib": round(now, 1),
               "seconds": round(time.perf_counter() - t0, 1)}
        out["variants"][vid] = row  # type: ignore[index]
        if not ns.json:
            print(f"hints {vid:<16} +{now - previous:6.1f} MiB (total {now:7.1f} MiB, "
                  f"{row['seconds']} s to build)")
        previous = now
    out["hints_all_mib"] = round(previous - base, 1)
    if ns.json:
        print(json.dumps(out))
    else:
        print(f"hints, all five variants: +{previous - base:.1f} MiB per worker")


if __name__ == "__main__":
    main()
