"""Builds the RGS Grafana dashboards (ops/grafana/dashboards/*.json) from this one description.

Run ``python ops/grafana/build_dashboards.py`` after editing; tests/ops checks that the committed
JSON is what this script writes, that every query (panels, variables, annotations) parses with
Prometheus' own parser, and that it reads only metrics the service exports, the recording rules
of ops/prometheus/rules.yml, or the named exporters' (:data:`EXTERNAL_EXPORTERS`).
Dashboards are plain Grafana JSON (schemaVersion 39) with a Prometheus datasource variable and
``namespace`` and ``job`` variables (a ServiceMonitor's labels), and mark each deploy (a new
``rgs_build_info`` version) with an annotation.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "dashboards"
DS = {"type": "prometheus", "uid": "${datasource}"}
J = 'namespace=~"$namespace", job=~"$job"'
SERVER_FAULTS = 'code=~"UNKNOWN|INTERNAL|UNAVAILABLE|DEADLINE_EXCEEDED|DATA_LOSS|UNIMPLEMENTED"'
GAME = 'method=~"rgs\\\\..*"'
PLAYER = 'method=~"rgs\\\\.blackjack\\\\.v1\\\\..*"'

OBJECTIVES = {"player-availability": 0.001, "player-latency": 0.01, "win-payment": 0.001}
"""Each SLO's error budget (1 - objective), as in ops/prometheus/rules.yml (a test compares)."""

EXTERNAL_EXPORTERS = {
    "postgres_exporter": ("pg_up", "pg_stat_database_numbackends", "pg_settings_max_connections",
                          "pg_stat_database_xact_commit", "pg_stat_database_xact_rollback",
                          "pg_stat_database_deadlocks", "pg_stat_database_blks_hit",
                          "pg_stat_database_blks_read", "pg_stat_activity_count",
                          "pg_replication_lag_seconds"),
    "pgbouncer_exporter": ("pgbouncer_up", "pgbouncer_pools_client_active_connections",
                           "pgbouncer_pools_client_waiting_connections",
                           "pgbouncer_pools_server_active_connections",
                           "pgbouncer_pools_server_idle_connections",
                           "pgbouncer_pools_client_maxwait_seconds"),
    "postgres_exporter (alerts)": ("pg_stat_archiver_failed_count",),
    "pgbackrest_exporter": ("pgbackrest_backup_since_last_completion_seconds",),
    "CloudNativePG instance exporter (alerts)": (
        "cnpg_pg_stat_archiver_failed_count", "cnpg_collector_last_available_backup_timestamp",
        "barman_cloud_cloudnative_pg_io_last_available_backup_timestamp"),
    "kube-state-metrics": ("kube_deployment_status_replicas_available",
                           "kube_deployment_spec_replicas",
                           "kube_horizontalpodautoscaler_status_current_replicas",
                           "kube_horizontalpodautoscaler_spec_max_replicas",
                           "kube_pod_container_status_last_terminated_reason",
                           "kube_pod_container_status_restarts_total",
                           "kube_cronjob_status_last_successful_time", "kube_cronjob_created"),
    "rgs probe": ("rgs_probe_success", "rgs_probe_duration_seconds",
                  "rgs_probe_timestamp_seconds"),
}
"""Series the database-server panels and the alerts read from other exporters
(prometheus-community/postgres_exporter 0.13+, pgbouncer_exporter, woblerr/pgbackrest_exporter,
CloudNativePG's instance manager with barmanObjectStore or the Barman Cloud plugin,
kube-state-metrics 2.x) and from the synthetic client ``rgs probe`` (its own process), by
exporter."""


def target(expr: str, legend: str = "", ref: str = "A") -> dict[str, Any]:
    """One Prometheus query of a panel."""
    return {"datasource": DS, "expr": expr, "legendFormat": legend or "__auto", "refId": ref,
            "range": True}


def panel(title: str, targets: list[dict[str, Any]], *, unit: str = "short",
          kind: str = "timeseries", w: int = 12, h: int = 8, description: str = "",
          extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """A panel; positions are filled in by :func:`dashboard`."""
    for i, t in enumerate(targets):
        t["refId"] = chr(ord("A") + i)
    p: dict[str, Any] = {
        "type": kind, "title": title, "description": description, "datasource": DS,
        "targets": targets, "gridPos": {"w": w, "h": h, "x": 0, "y": 0},
        "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
        "options": {"legend": {"displayMode": "table", "placement": "bottom",
                               "calcs": ["lastNotNull", "max"]},
                    "tooltip": {"mode": "multi", "sort": "desc"}} if kind == "timeseries"
        else {"reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False}},
    }
    if extra:
        p.update(extra)
    return p


def row(title: str) -> dict[str, Any]:
    """A row header."""
    return {"type": "row", "title": title, "collapsed": False, "panels": [],
            "gridPos": {"w": 24, "h": 1, "x": 0, "y": 0}}


def _label_variable(name: str, label: str, query: str) -> dict[str, Any]:
    return {"name": name, "type": "query", "label": label, "datasource": DS,
            "query": {"query": query, "refId": name}, "definition": query, "refresh": 2,
            "includeAll": True, "multi": True, "allValue": ".*", "current": {}, "hide": 0}


DEPLOYS = {
    "name": "Deploys", "datasource": DS, "enable": True, "iconColor": "blue", "step": "1m",
    # A version that was not running five minutes earlier: a rollout (or a rollback) began.
    "expr": f"count by (version) (rgs_build_info{{{J}}}) unless "
            f"count by (version) (rgs_build_info{{{J}}} offset 5m)",
    "titleFormat": "deploy", "textFormat": "version {{version}} starts", "tagKeys": "version",
}
"""The deploy annotation every dashboard carries."""


def dashboard(uid: str, title: str, description: str, panels: list[dict[str, Any]],
              tags: list[str]) -> dict[str, Any]:
    """A whole dashboard with the datasource, namespace and job variables and the deploy
    annotations; lays panels out left to right."""
    x = y = line_h = 0
    for i, p in enumerate(panels, start=1):
        p["id"] = i
        gp = p["gridPos"]
        if x + gp["w"] > 24 or p["type"] == "row":
            x, y, line_h = 0, y + line_h, 0
        gp["x"], gp["y"] = x, y
        x += gp["w"]
        line_h = max(line_h, gp["h"])
        if p["type"] == "row":
            x, y, line_h = 0, y + gp["h"], 0
    return {
        "uid": uid, "title": title, "description": description, "tags": ["rgs", *tags],
        "timezone": "utc", "schemaVersion": 39, "version": 1, "editable": True,
        "graphTooltip": 1, "refresh": "30s", "time": {"from": "now-6h", "to": "now"},
        "annotations": {"list": [DEPLOYS]}, "links": [],
        "templating": {"list": [
            {"name": "datasource", "type": "datasource", "query": "prometheus",
             "label": "Data source", "current": {}, "hide": 0},
            _label_variable("namespace", "Namespace", "label_values(rgs_build_info, namespace)"),
            _label_variable("job", "Job",
                            'label_values(rgs_build_info{namespace=~"$namespace"}, job)'),
        ]},
        "panels": panels,
    }


def service_health() -> dict[str, Any]:
    """RED per RPC, saturation and the replicas."""
    return dashboard("rgs-service-health", "RGS / Service health",
                     "Requests, errors and latency per RPC; in-flight calls; replicas.", [
        row("Traffic and errors"),
        panel("Requests per second by method", [target(
            f'sum by (method) (rate(rgs_rpc_requests_total{{{J}}}[$__rate_interval]))',
            "{{method}}")], unit="reqps"),
        panel("Responses by status code (non-OK)", [target(
            f'sum by (code) (rate(rgs_rpc_requests_total{{{J}, code!="OK"}}[$__rate_interval]))',
            "{{code}}")], unit="reqps",
            description="Client errors (INVALID_ARGUMENT, FAILED_PRECONDITION...) are answers; "
                        "server faults are UNKNOWN, INTERNAL, UNAVAILABLE, DEADLINE_EXCEEDED."),
        panel("Server-fault ratio", [target(
            f'sum(rate(rgs_rpc_requests_total{{{J}, {SERVER_FAULTS}}}[$__rate_interval])) / '
            f'sum(rate(rgs_rpc_requests_total{{{J}, method!~"grpc\\\\.health\\\\..*"}}'
            f'[$__rate_interval]))', "server faults")], unit="percentunit", w=8,
            description="Game calls' share pages through RgsPlayerAvailabilityBudgetBurn "
                        "(the RGS / SLOs dashboard)."),
        panel("Server faults by method", [target(
            f'sum by (method, code) (rate(rgs_rpc_requests_total{{{J}, {SERVER_FAULTS}}}'
            f'[$__rate_interval]))', "{{method}} {{code}}")], unit="reqps", w=16),
        row("Latency"),
        panel("p99 latency by method", [target(
            f'histogram_quantile(0.99, sum by (method, le) (rate(rgs_rpc_latency_seconds_bucket'
            f'{{{J}, {GAME}}}[$__rate_interval])))', "{{method}}")], unit="s"),
        panel("p50 / p95 / p99 latency (game and operator calls)", [
            target(f'histogram_quantile({q}, sum by (le) (rate(rgs_rpc_latency_seconds_bucket'
                   f'{{{J}, {GAME}}}[$__rate_interval])))', f"p{int(q * 100)}")
            for q in (0.5, 0.95, 0.99)], unit="s"),
        row("Saturation and replicas"),
        panel("In-flight calls per replica", [target(
            f'sum by (instance) (rgs_rpc_in_flight{{{J}}})', "{{instance}}")], w=8,
            description="The HPA's per-pod load signal."),
        panel("Replicas up", [target(f'sum(up{{{J}}})', "up")], kind="stat", w=4),
        panel("Builds running", [target(f'count by (version) (rgs_build_info{{{J}}})',
                                        "{{version}}")], kind="stat", w=4),
        panel("CPU per replica", [target(
            f'rate(process_cpu_seconds_total{{{J}}}[$__rate_interval])', "{{instance}}")],
            unit="percentunit", w=4),
        panel("Resident memory per replica", [target(
            f'process_resident_memory_bytes{{{J}}}', "{{instance}}")], unit="bytes", w=4),
        panel("RNG health test failures", [target(
            f'sum by (instance, test) (rgs_rng_health_failures_total{{{J}}})',
            "{{instance}} {{test}}")], kind="stat", w=8,
            description="Anything above 0: that replica stopped dealing (RgsRngHealthFailure)."),
    ], ["service"])


def business() -> dict[str, Any]:
    """Rounds, money, GGR and RTP against the PAR sheets."""
    rtp = (f'sum by (variant) (increase(rgs_wins_minor_total{{{J}, bet="main"}}[$window])) / '
           f'sum by (variant) (increase(rgs_stakes_minor_total{{{J}, bet="main"}}[$window]))')
    rounds = f'sum by (variant) (increase(rgs_rounds_total{{{J}, event="settled"}}[$window]))'
    theo = f'max by (variant) (rgs_variant_theoretical_rtp_ratio{{{J}}})'
    sd = f'max by (variant) (rgs_variant_rtp_standard_deviation_ratio{{{J}}})'
    d = dashboard("rgs-business", "RGS / Business",
                  "Rounds, stakes, wins, GGR and observed RTP against the PAR sheets.", [
        row("Rounds"),
        panel("Rounds started per minute by variant", [target(
            f'sum by (variant) (rate(rgs_rounds_total{{{J}, event="started"}}'
            f'[$__rate_interval])) * 60', "{{variant}}")], unit="short"),
        panel("Rounds settled / voided per minute", [
            target(f'sum by (event) (rate(rgs_rounds_total{{{J}, event=~"settled|voided"}}'
                   f'[$__rate_interval])) * 60', "{{event}}")], unit="short", w=6),
        panel("Void ratio", [target(
            f'sum(rate(rgs_rounds_total{{{J}, event="voided"}}[$__rate_interval])) / '
            f'sum(rate(rgs_rounds_total{{{J}, event="started"}}[$__rate_interval]))', "voided")],
            unit="percentunit", w=6),
        panel("Rounds started by brand", [target(
            f'sum by (brand) (increase(rgs_rounds_total{{{J}, event="started"}}[$window]))',
            "{{brand}}")], kind="bargauge", w=12),
        panel("Active sessions", [target(f'max(rgs_active_sessions{{{J}}})', "sessions")],
              kind="stat", w=12),
        row("Money (minor units of each currency)"),
        panel("Stakes by variant and currency", [target(
            f'sum by (variant, currency) (increase(rgs_stakes_minor_total{{{J}}}[$window]))',
            "{{variant}} {{currency}}")], kind="bargauge", w=8),
        panel("Wins by variant and currency", [target(
            f'sum by (variant, currency) (increase(rgs_wins_minor_total{{{J}}}[$window]))',
            "{{variant}} {{currency}}")], kind="bargauge", w=8),
        panel("GGR (stakes - wins) by currency", [target(
            f'sum by (currency) (increase(rgs_stakes_minor_total{{{J}}}[$window])) - '
            f'sum by (currency) (increase(rgs_wins_minor_total{{{J}}}[$window]))',
            "{{currency}}")], kind="bargauge", w=8),
        panel("GGR per hour by variant and currency", [target(
            f'sum by (variant, currency) (rate(rgs_stakes_minor_total{{{J}}}[$__rate_interval]))'
            f' * 3600 - sum by (variant, currency) (rate(rgs_wins_minor_total{{{J}}}'
            f'[$__rate_interval])) * 3600', "{{variant}} {{currency}}")], w=24,
            description="Minor units of each currency: never summed across currencies."),
        row("Return to player (main game)"),
        panel("Observed RTP vs theoretical, with the 4-sigma band", [
            target(rtp, "observed {{variant}}"),
            target(theo, "theoretical {{variant}}"),
            target(f'{theo} + 4 * {sd} / sqrt({rounds})', "upper band {{variant}}"),
            target(f'{theo} - 4 * {sd} / sqrt({rounds})', "lower band {{variant}}"),
        ], unit="percentunit", w=16,
            description="Observed = wins / stakes of main bets on rounds settled in $window. "
                        "RgsObservedRtpOutOfBand fires above the band (1 day window); below it "
                        "is expected from human play, but watch a variant that stays far "
                        "below."),
        panel("Observed minus theoretical RTP", [target(f'{rtp} - on (variant) {theo}',
                                                        "{{variant}}")],
              unit="percentunit", w=8),
        panel("Side bets and insurance RTP", [target(
            f'sum by (variant, bet) (increase(rgs_wins_minor_total{{{J}, bet!="main"}}[$window]))'
            f' / sum by (variant, bet) (increase(rgs_stakes_minor_total{{{J}, bet!="main"}}'
            f'[$window]))', "{{variant}} {{bet}}")], unit="percentunit", w=24),
    ], ["business"])
    d["templating"]["list"].append(
        {"name": "window", "type": "custom", "label": "RTP window",
         "query": "1h,6h,1d,7d,30d", "current": {"text": "1d", "value": "1d"},
         "options": [{"text": v, "value": v, "selected": v == "1d"}
                     for v in ("1h", "6h", "1d", "7d", "30d")], "hide": 0})
    return d


def wallet() -> dict[str, Any]:
    """Wallet calls and the outbox."""
    return dashboard("rgs-wallet-outbox", "RGS / Wallet and outbox",
                     "Calls to the operator wallet and the outbox of unfinished money calls.", [
        row("Wallet calls"),
        panel("Wallet calls per second by operation and outcome", [target(
            f'sum by (operation, outcome) (rate(rgs_wallet_calls_total{{{J}}}'
            f'[$__rate_interval]))', "{{operation}} {{outcome}}")], unit="reqps"),
        panel("Wallet failure ratio (unavailable + error)", [target(
            f'sum(rate(rgs_wallet_calls_total{{{J}, outcome=~"unavailable|error"}}'
            f'[$__rate_interval])) / sum(rate(rgs_wallet_calls_total{{{J}}}[$__rate_interval]))',
            "failures")], unit="percentunit",
            description="Refusals (insufficient funds, limits) are final answers, not failures."),
        panel("Wallet calls per second by operator and outcome", [target(
            f'sum by (operator, outcome) (rate(rgs_wallet_calls_total{{{J}}}'
            f'[$__rate_interval]))', "{{operator}} {{outcome}}")], unit="reqps",
            description="not_sent: the operator's breaker or bulkhead refused the call before it "
                        "was sent; the player sees a failure."),
        panel("Wallet failure ratio by operator (unavailable + error + not_sent)", [target(
            f'sum by (operator) (rate(rgs_wallet_calls_total{{{J}, '
            f'outcome=~"unavailable|error|not_sent"}}[$__rate_interval])) / sum by (operator) '
            f'(rate(rgs_wallet_calls_total{{{J}}}[$__rate_interval]))', "{{operator}}")],
            unit="percentunit",
            description="What RgsWalletFailures reads: above 5% for 5 minutes pages, per "
                        "operator."),
        panel("Wallet p99 latency by operator", [target(
            f'histogram_quantile(0.99, sum by (operator, le) (rate('
            f'rgs_wallet_latency_seconds_bucket{{{J}}}[$__rate_interval])))', "{{operator}}")],
            unit="s", description="What RgsWalletSlow reads: above 2 s for 10 minutes."),
        panel("Wallet p99 latency by operation", [target(
            f'histogram_quantile(0.99, sum by (operation, le) (rate('
            f'rgs_wallet_latency_seconds_bucket{{{J}}}[$__rate_interval])))', "{{operation}}")],
            unit="s"),
        panel("Wallet p50 latency by operation", [target(
            f'histogram_quantile(0.5, sum by (operation, le) (rate('
            f'rgs_wallet_latency_seconds_bucket{{{J}}}[$__rate_interval])))', "{{operation}}")],
            unit="s"),
        row("Outbox"),
        panel("Outbox rows not final", [target(f'max(rgs_outbox_pending{{{J}}})', "pending")],
              description="Alert RgsOutboxBacklog above 100 for 10 minutes."),
        panel("Oldest pending outbox row", [target(
            f'max(rgs_outbox_oldest_pending_age_seconds{{{J}}})', "age")], unit="s",
            description="Alert RgsOutboxStale above 15 minutes."),
    ], ["wallet"])


def database() -> dict[str, Any]:
    """The journal database: the replicas' side, the pools and the server."""
    d = dashboard("rgs-database", "RGS / Journal database",
                  "Journal transactions, lease waits, connection pools, the database server "
                  "and reachability.", [
        row("Transactions"),
        panel("Journal p99 latency by operation", [target(
            f'histogram_quantile(0.99, sum by (operation, le) (rate('
            f'rgs_journal_tx_latency_seconds_bucket{{{J}}}[$__rate_interval])))',
            "{{operation}}")], unit="s"),
        panel("Journal operations per second", [target(
            f'sum by (operation) (rate(rgs_journal_tx_latency_seconds_count{{{J}}}'
            f'[$__rate_interval]))', "{{operation}}")], unit="ops"),
        panel("Player lease wait p99", [target(
            f'histogram_quantile(0.99, sum by (le) (rate(rgs_journal_lock_wait_seconds_bucket'
            f'{{{J}}}[$__rate_interval])))', "p99")], unit="s",
            description="Time a call waits to take its player's lease (the same player's "
                        "other call finishing, or a dead replica's lease expiring)."),
        panel("Journal errors by operation", [target(
            f'sum by (operation) (rate(rgs_journal_errors_total{{{J}}}[$__rate_interval]))',
            "{{operation}}")], unit="ops"),
        row("Connection pool (each replica's, and PgBouncer's)"),
        panel("Journal connections per replica: in use / open / max", [
            target(f'sum by (instance, state) (rgs_journal_pool_connections{{{J}}})',
                   "{{instance}} {{state}}")], w=12,
            description="A replica whose in_use reaches max queues its calls before they "
                        "reach the database (RGS_DATABASE_POOL_SIZE; budget in "
                        "ops/database.md)."),
        panel("Pool wait p99 by pool", [target(
            f'histogram_quantile(0.99, sum by (pool, le) (rate('
            f'rgs_journal_pool_wait_seconds_bucket{{{J}}}[$__rate_interval])))', "{{pool}}")],
            unit="s", w=12,
            description="Time a call waits for a pooled connection (journal: solo play and "
                        "the back office; tables: the shared tables' commands). Alert "
                        "RgsJournalPoolSaturated above 100 ms."),
        panel("Replicas' journal connections in use, all replicas", [
            target(f'sum(rgs_journal_pool_connections{{{J}, state="in_use"}})', "in use"),
            target(f'sum(rgs_journal_pool_connections{{{J}, state="max"}})', "max")], w=12),
        panel("PgBouncer clients active / waiting", [
            target('sum by (database) (pgbouncer_pools_client_active_connections'
                   '{database=~"$database"})', "{{database}} active"),
            target('sum by (database) (pgbouncer_pools_client_waiting_connections'
                   '{database=~"$database"})', "{{database}} waiting")], w=8,
            description="pgbouncer_exporter. Waiting clients: the server pool is too small."),
        panel("PgBouncer server connections active / idle", [
            target('sum by (database) (pgbouncer_pools_server_active_connections'
                   '{database=~"$database"})', "{{database}} active"),
            target('sum by (database) (pgbouncer_pools_server_idle_connections'
                   '{database=~"$database"})', "{{database}} idle")], w=8),
        panel("PgBouncer longest client wait", [target(
            'max by (database) (pgbouncer_pools_client_maxwait_seconds{database=~"$database"})',
            "{{database}}")], unit="s", w=8),
        row("Database server (postgres_exporter)"),
        panel("Server up", [target('min(pg_up)', "up")], kind="stat", w=4),
        panel("Backends / max_connections", [target(
            'sum(pg_stat_database_numbackends) / max(pg_settings_max_connections)',
            "used")], unit="percentunit", kind="stat", w=4),
        panel("Backends by state", [target(
            'sum by (state) (pg_stat_activity_count{datname=~"$database"})', "{{state}}")],
            w=8),
        panel("Transactions per second: commits / rollbacks", [
            target('sum(rate(pg_stat_database_xact_commit{datname=~"$database"}'
                   '[$__rate_interval]))', "commit"),
            target('sum(rate(pg_stat_database_xact_rollback{datname=~"$database"}'
                   '[$__rate_interval]))', "rollback")], unit="ops", w=8),
        panel("Buffer cache hit ratio", [target(
            'sum(rate(pg_stat_database_blks_hit{datname=~"$database"}[$__rate_interval])) / '
            '(sum(rate(pg_stat_database_blks_hit{datname=~"$database"}[$__rate_interval])) + '
            'sum(rate(pg_stat_database_blks_read{datname=~"$database"}[$__rate_interval])))',
            "hit ratio")], unit="percentunit", w=8),
        panel("Deadlocks", [target(
            'sum(increase(pg_stat_database_deadlocks{datname=~"$database"}[$__rate_interval]))',
            "deadlocks")], w=8),
        panel("Replication lag (standbys)", [target(
            'max by (instance) (pg_replication_lag_seconds)', "{{instance}}")], unit="s", w=8,
            description="What a failover would lose with asynchronous replication "
                        "(ops/database.md)."),
        row("Reachability"),
        panel("Database reachable per replica", [target(
            f'rgs_journal_database_up{{{J}}}', "{{instance}}")], kind="stat"),
        panel("Age of the last outbox/session sample", [target(
            f'time() - max(rgs_ops_sample_timestamp_seconds{{{J}}})', "age")], unit="s"),
    ], ["database"])
    d["templating"]["list"].append(_label_variable(
        "database", "Database", "label_values(pg_stat_database_numbackends, datname)"))
    return d


def _budget_panels(slo: str, title: str, ratio: str, bad_30d: str, all_30d: str
                   ) -> list[dict[str, Any]]:
    """The row of one SLO: its SLI and budget left over 30 days, and its burn rates."""
    budget = OBJECTIVES[slo]
    sel = f'{{{J}}}'
    return [
        row(f"{title} (objective {100 * (1 - budget):g}% over 30 days)"),
        panel("SLI, last 30 days", [target(f"1 - ({bad_30d}) / ({all_30d})", "SLI")],
              unit="percentunit", kind="stat", w=4),
        panel("Error budget left, last 30 days", [target(
            f"1 - (({bad_30d}) / ({all_30d})) / {budget}", "budget left")],
            unit="percentunit", kind="stat", w=4,
            description="1 = untouched, 0 = spent, below 0 = the objective is missed."),
        panel("Burn rate by window", [
            target(f"max by (namespace, job) ({ratio}:ratio_rate{w}{sel}) / {budget}",
                   f"{w} {{{{namespace}}}}/{{{{job}}}}")
            for w in ("5m", "30m", "1h", "6h")], w=16,
            description="Error ratio over the budget. Pages at 14.4 over 1h and 5m, or 6 "
                        "over 6h and 30m (ops/slo.md)."),
    ]


def slo() -> dict[str, Any]:
    """The SLOs: SLI, error budget left and burn rates (ops/slo.md)."""
    def increase(selector: str) -> str:
        return f"sum(increase({selector}[30d]))"

    calls = f'rgs_rpc_requests_total{{{J}, {PLAYER}}}'
    faults = f'rgs_rpc_requests_total{{{J}, {PLAYER}, {SERVER_FAULTS}}}'
    latency = f'rgs_rpc_latency_seconds_count{{{J}, {PLAYER}}}'
    fast = f'rgs_rpc_latency_seconds_bucket{{{J}, {PLAYER}, le="1.0"}}'
    wins = f'rgs_win_payment_delay_seconds_count{{{J}}}'
    prompt = f'rgs_win_payment_delay_seconds_bucket{{{J}, le="10.0"}}'
    return dashboard("rgs-slo", "RGS / SLOs",
                     "Service level objectives: SLI and error budget over 30 days, burn rates "
                     "(the recording rules of ops/prometheus/rules.yml).", [
        *_budget_panels("player-availability", "Player availability",
                        "namespace_job:rgs_player_rpc_errors", increase(faults),
                        increase(calls)),
        *_budget_panels("player-latency", "Player latency (within 1 s)",
                        "namespace_job:rgs_player_rpc_slow",
                        f"{increase(latency)} - {increase(fast)}", increase(latency)),
        *_budget_panels("win-payment", "Win payment (within 10 s)",
                        "namespace_job:rgs_win_payments_late",
                        f"{increase(wins)} - {increase(prompt)}", increase(wins)),
        row("Win payment delay"),
        panel("Win payment delay p50 / p99", [
            target(f'histogram_quantile({q}, sum by (le) (rate('
                   f'rgs_win_payment_delay_seconds_bucket{{{J}}}[$__rate_interval])))',
                   f"p{int(q * 100)}") for q in (0.5, 0.99)], unit="s", w=24),
    ], ["slo"])


DASHBOARDS = {"rgs-service-health.json": service_health, "rgs-business.json": business,
              "rgs-wallet-outbox.json": wallet, "rgs-database.json": database,
              "rgs-slo.json": slo}
"""File name -> builder."""


def render() -> dict[str, str]:
    """Every dashboard file's text."""
    return {name: json.dumps(build(), indent=2, sort_keys=True) + "\n"
            for name, build in DASHBOARDS.items()}


def main() -> int:
    """Write the dashboards."""
    OUT.mkdir(exist_ok=True)
    for name, text in render().items():
        (OUT / name).write_text(text, "utf-8")
        print(f"wrote {OUT / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
