"""Builds the RTP monitoring dashboard (ops/grafana/rtp/rgs-rtp.json) with the helpers of
build_dashboards.py: the series of ``rgs rtp worker`` (rgs.rtp.metrics, docs/rtp-monitoring.md)
per brand, variant, table, stake band and channel. Kept apart from the other dashboards (its own
folder and builder) so each can change without the other; tests/ops/test_ops_rtp.py checks the
committed JSON is what this writes and that its queries parse and read only the worker's series.

Run ``python ops/grafana/build_rtp_dashboard.py`` after editing.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OUT = HERE / "rtp" / "rgs-rtp.json"
_spec = importlib.util.spec_from_file_location("rgs_ops_build_dashboards",
                                               HERE / "build_dashboards.py")
assert _spec and _spec.loader
B: Any = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(B)

SEL = ('namespace=~"$namespace", job=~"$job", brand=~"$brand", variant=~"$variant", '
       'channel=~"$channel", window="$window"')
GROUP = "{{brand}}{{table}} {{variant}} {{stake_band}} {{channel}}"


def rtp() -> dict[str, Any]:
    """Observed, PAR and decision-adjusted return, the z-scores and the per-hand check."""
    def g(metric: str) -> str:
        return f"{metric}{{{SEL}}}"

    d = B.dashboard("rgs-rtp", "RGS / RTP monitoring",
                    "Observed return against the PAR and against the decision-adjusted "
                    "expected return (given the decisions players took): the z-score tells an "
                    "engine fault from players' choices (docs/rtp-monitoring.md).", [
        B.row("Decision-adjusted check (the alert's band is +-4.5)"),
        B.panel("Decision-adjusted z-score", [B.target(g("rgs_rtp_z_score"), GROUP)],
                w=12, description="(observed - expected) / standard error; RgsRtpDecision"
                                  "AdjustedOutOfBand fires outside +-4.5 for 2h."),
        B.panel("Plain observed-vs-PAR z-score (moves with play)",
                [B.target(g("rgs_rtp_plain_z_score"), GROUP)], w=12),
        B.panel("Returns: observed, decision-adjusted expected, PAR", [
            B.target(g("rgs_rtp_observed_ratio"), f"observed {GROUP}"),
            B.target(g("rgs_rtp_expected_ratio"), f"expected {GROUP}"),
            B.target(g("rgs_rtp_par_ratio"), f"PAR {GROUP}")], unit="percentunit", w=12),
        B.panel("Difference and its standard error", [
            B.target(g("rgs_rtp_difference_ratio"), f"difference {GROUP}"),
            B.target(g("rgs_rtp_difference_standard_error_ratio"), f"s.e. {GROUP}")],
            unit="percentunit", w=12),
        B.row("Per-hand check and the worker"),
        B.panel("Rounds settled against the rules", [
            B.target(f"sum by (brand, table, variant) ({g('rgs_rtp_hand_check_failures')})",
                     "{{brand}}{{table}} {{variant}}")], kind="stat", w=8),
        B.panel("Rounds valued in the window, per channel", [
            B.target(f"sum by (variant, channel) ({g('rgs_rtp_rounds')})",
                     "{{variant}} {{channel}}")],
            kind="bargauge", w=8),
        B.panel("Worker: rounds valued per minute and cursor age", [
            B.target('sum by (source) (rate(rgs_rtp_rounds_valued_total{namespace=~"$namespace",'
                     ' job=~"$job"}[$__rate_interval])) * 60', "{{source}} per minute"),
            B.target('max(rgs_rtp_worker_lag_seconds{namespace=~"$namespace", job=~"$job"})',
                     "cursor age (s)")], w=8),
    ], ["rtp"])
    variables = d["templating"]["list"]
    variables[2] = B._label_variable(
        "job", "Job", 'label_values(rgs_rtp_rounds{namespace=~"$namespace"}, job)')
    variables += [
        B._label_variable("brand", "Brand", 'label_values(rgs_rtp_rounds{job=~"$job"}, brand)'),
        B._label_variable("variant", "Variant",
                          'label_values(rgs_rtp_rounds{job=~"$job"}, variant)'),
        B._label_variable("channel", "Channel (grpc, browser)",
                          'label_values(rgs_rtp_rounds{job=~"$job"}, channel)'),
        {"name": "window", "type": "custom", "label": "Window", "query": "rolling,start",
         "current": {"text": "rolling", "value": "rolling"}, "hide": 0,
         "options": [{"text": w, "value": w, "selected": w == "rolling"}
                     for w in ("rolling", "start")]},
    ]
    return d


def render() -> str:
    """The dashboard file's text."""
    return json.dumps(rtp(), indent=2, sort_keys=True) + "\n"


def main() -> int:
    """Write the dashboard."""
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(render(), "utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
