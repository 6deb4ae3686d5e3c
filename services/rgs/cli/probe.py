"""``rgs probe``: the synthetic client. It calls the public address as an operator's platform
does and says whether that path works end to end.

One check is two calls: the gRPC health of the whole server (``SERVING`` expected), then
``OperatorService/ListOpenRounds`` (one row at most, idle for ten years: a read of the journal
that returns nothing) with the probe operator's key — TLS, the gateway, the Service, a replica,
the key store and the journal database all answer or the check fails. Each check prints one
JSON line (``success``, ``stage``: health or call, ``code``, ``reason``, ``duration_s``; never
the key).

Two ways to report (the Helm chart's ``probe.mode``; alert RgsProbeFailing reads either):

* **Deployment**: ``--interval`` repeats the check and ``--metrics-listen`` serves
  ``rgs_probe_success``, ``rgs_probe_duration_seconds`` and ``rgs_probe_timestamp_seconds`` for
  Prometheus to scrape.
* **CronJob**: one check per run, its series pushed to a Pushgateway (``--pushgateway``) under
  job ``--push-job`` and the grouping labels ``--push-label namespace=<ns>``, so the pushed
  series carry the installation's namespace and job as the scraped ones do (the Pushgateway is
  scraped with ``honor_labels``). The Pushgateway keeps the last push for ever: the alert also
  fires when ``rgs_probe_timestamp_seconds`` stops moving.

Exit status of a single check: 0 success, 1 failure, 2 bad usage; with ``--pushgateway``, 0
when the result reached the Pushgateway (whatever it says: the alert reads it) and 1 when it
did not, so a CronJob's failed runs mean "the probe cannot report".
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import grpc
from google.rpc import error_details_pb2, status_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client import CollectorRegistry, Gauge, push_to_gateway, start_http_server

from rgs.api.errors import STATUS_DETAILS_KEY
from rgs.cli.common import UserError
from rgs.generated.operator.v1 import operator_pb2 as op
from rgs.generated.operator.v1 import operator_pb2_grpc as op_grpc

#: The series the probe serves (ops/grafana/build_dashboards.py names them for the rules' test).
PROBE_SERIES = ("rgs_probe_success", "rgs_probe_duration_seconds",
                "rgs_probe_timestamp_seconds")
KEY_ENV = "RGS_PROBE_OPERATOR_KEY"
_TEN_YEARS_S = 10 * 365 * 86400


@dataclass(frozen=True, slots=True)
class ProbeResult:
    """The outcome of one check."""

    success: bool
    stage: str
    code: str
    reason: str
    duration_s: float


def _channel(address: str, tls_ca: Path | None, server_name: str | None) -> grpc.Channel:
    if tls_ca is None:
        return grpc.insecure_channel(address)
    options = (("grpc.ssl_target_name_override", server_name),) if server_name else ()
    return grpc.secure_channel(
        address, grpc.ssl_channel_credentials(root_certificates=tls_ca.read_bytes()),
        options=options)


def _reason(exc: grpc.RpcError) -> str:
    """The ErrorInfo reason of a failed call, else its details."""
    if not isinstance(exc, grpc.Call):
        return ""
    for key, value in exc.trailing_metadata() or ():
        if key == STATUS_DETAILS_KEY and isinstance(value, bytes):
            status = status_pb2.Status.FromString(value)
            for detail in status.details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    return str(info.reason)
    return str(exc.details() or "")


def check(address: str, operator_key: str, *, timeout_s: float = 5.0,
          tls_ca: Path | None = None, server_name: str | None = None) -> ProbeResult:
    """One end-to-end check of ``address`` (never raises for the server's answers)."""
    started = time.monotonic()
    stage = "health"
    try:
        with _channel(address, tls_ca, server_name) as channel:
            resp = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=""), timeout=timeout_s)
            status = health_pb2.HealthCheckResponse.ServingStatus.Name(resp.status)
            if status != "SERVING":
                return ProbeResult(False, stage, "OK", status, time.monotonic() - started)
            stage = "call"
            op_grpc.OperatorServiceStub(channel).ListOpenRounds(
                op.ListOpenRoundsRequest(idle_seconds=_TEN_YEARS_S, page_size=1),
                timeout=timeout_s, metadata=(("authorization", f"Bearer {operator_key}"),))
    except grpc.RpcError as exc:
        code = exc.code().name if isinstance(exc, grpc.Call) else "UNKNOWN"
        return ProbeResult(False, stage, code, _reason(exc), time.monotonic() - started)
    return ProbeResult(True, stage, "OK", "", time.monotonic() - started)


class _Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.success = Gauge(PROBE_SERIES[0], "1 when the last end-to-end check passed.",
                             registry=self.registry)
        self.duration = Gauge(PROBE_SERIES[1], "Seconds the last check took.",
                              registry=self.registry)
        self.timestamp = Gauge(PROBE_SERIES[2], "When the last check ended (Unix time).",
                               registry=self.registry)

    def record(self, result: ProbeResult) -> None:
        self.success.set(1 if result.success else 0)
        self.duration.set(result.duration_s)
        self.timestamp.set(time.time())


def _operator_key(args: argparse.Namespace) -> str:
    if args.operator_key_file is not None:
        try:
            key = str(args.operator_key_file.read_text("utf-8")).strip()
        except OSError as exc:
            raise UserError(f"cannot read --operator-key-file: {exc.strerror}") from exc
    else:
        key = os.environ.get(KEY_ENV, "").strip()
    if not key:
        raise UserError(f"no probe operator key: set {KEY_ENV} or pass --operator-key-file "
                        "(a key of an operator kept for probing)")
    return key


def _listen(spec: str) -> tuple[str, int]:
    host, _, port = spec.rpartition(":")
    if not port.isdigit():
        raise UserError(f"--metrics-listen {spec!r}: expected host:port")
    return host or "0.0.0.0", int(port)


def _push_labels(specs: list[str]) -> dict[str, str]:
    labels: dict[str, str] = {}
    for spec in specs:
        name, sep, value = spec.partition("=")
        if not sep or not name.isidentifier() or not value:
            raise UserError(f"--push-label {spec!r}: expected NAME=VALUE, e.g. "
                            "namespace=casino")
        if name == "job":
            raise UserError("--push-label job=...: the job is --push-job")
        labels[name] = value
    return labels


def _push(args: argparse.Namespace, metrics: _Metrics, labels: dict[str, str]) -> bool:
    """Push the last check's series (replacing the group's); False when it did not arrive."""
    try:
        push_to_gateway(args.pushgateway, job=args.push_job, registry=metrics.registry,
                        grouping_key=labels, timeout=args.timeout)
    except OSError as exc:
        print(f"rgs probe: cannot push to the Pushgateway {args.pushgateway}: {exc}; the "
              "alert RgsProbeFailing fires when no result arrives", file=sys.stderr)
        return False
    return True


def run(args: argparse.Namespace) -> int:
    """``rgs probe``."""
    key = _operator_key(args)
    labels = _push_labels(args.push_label)
    if labels and not args.pushgateway:
        raise UserError("--push-label needs --pushgateway")
    if args.tls_ca is not None and not args.tls_ca.is_file():
        raise UserError(f"--tls-ca {args.tls_ca}: no such file")
    metrics = _Metrics()
    if args.metrics_listen:
        host, port = _listen(args.metrics_listen)
        start_http_server(port, addr=host, registry=metrics.registry)
    done = 0
    while True:
        result = check(args.address, key, timeout_s=args.timeout, tls_ca=args.tls_ca,
                       server_name=args.tls_server_name)
        metrics.record(result)
        print(json.dumps({"address": args.address, **asdict(result)}), flush=True)
        pushed = _push(args, metrics, labels) if args.pushgateway else None
        done += 1
        if args.interval is None or (args.count and done >= args.count):
            if pushed is not None:
                return 0 if pushed else 1
            return 0 if result.success else 1
        time.sleep(args.interval)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``probe``."""
    p = sub.add_parser("probe", help="check the public path end to end (synthetic client)",
                       description=__doc__)
    p.add_argument("--address", default="127.0.0.1:50051",
                   help="host:port as operators reach it (the public address)")
    p.add_argument("--operator-key-file", type=Path,
                   help=f"file holding the probe operator's API key (else ${KEY_ENV})")
    p.add_argument("--timeout", type=float, default=5.0, help="seconds per call")
    p.add_argument("--tls-ca", type=Path, help="PEM CA bundle: call over TLS")
    p.add_argument("--tls-server-name", help="name the server's certificate is issued to")
    p.add_argument("--interval", type=float,
                   help="repeat every this many seconds (else check once and exit)")
    p.add_argument("--count", type=int, default=0, help="with --interval: stop after N checks")
    p.add_argument("--metrics-listen", help="serve the probe's metrics on host:port")
    p.add_argument("--pushgateway",
                   help="push the series to this Pushgateway (URL) after each check; the "
                        "exit status then says whether the push arrived")
    p.add_argument("--push-job", default="rgs-probe",
                   help="the job label of the pushed series (the alert's job: <fullname>-probe)")
    p.add_argument("--push-label", action="append", default=[], metavar="NAME=VALUE",
                   help="a grouping label of the pushed series, e.g. namespace=casino "
                        "(repeatable)")
    p.set_defaults(func=run)
