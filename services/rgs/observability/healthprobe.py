"""A gRPC health check for Kubernetes exec probes: ``python -m rgs.observability.healthprobe``.

The kubelet's native gRPC probe speaks plaintext only; a replica serving TLS is probed by this
client instead (the Helm chart picks one or the other). Exit status 0 means SERVING, 1 anything
else (NOT_SERVING, unreachable, timeout), 2 bad arguments.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc


def check(address: str, *, service: str = "", timeout_s: float = 3.0,
          tls_ca: Path | None = None, tls_server_name: str | None = None) -> str:
    """The health status name of ``service`` at ``address`` (raises grpc.RpcError)."""
    if tls_ca is None:
        channel = grpc.insecure_channel(address)
    else:
        options = ((("grpc.ssl_target_name_override", tls_server_name),)
                   if tls_server_name else ())
        channel = grpc.secure_channel(
            address, grpc.ssl_channel_credentials(root_certificates=tls_ca.read_bytes()),
            options=options)
    with channel:
        stub = health_pb2_grpc.HealthStub(channel)
        resp = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=timeout_s)
    return str(health_pb2.HealthCheckResponse.ServingStatus.Name(resp.status))


def main(argv: Sequence[str] | None = None) -> int:
    """Probe once; print the status; exit 0 only when SERVING."""
    parser = argparse.ArgumentParser(prog="python -m rgs.observability.healthprobe")
    parser.add_argument("--address", default="127.0.0.1:50051", help="host:port to probe")
    parser.add_argument("--service", default="", help="service name ('' = the whole server)")
    parser.add_argument("--timeout", type=float, default=3.0, help="seconds")
    parser.add_argument("--tls-ca", type=Path, help="PEM CA bundle: probe over TLS")
    parser.add_argument("--tls-server-name", help="name the certificate is issued to")
    ns = parser.parse_args(argv)
    try:
        status = check(ns.address, service=ns.service, timeout_s=ns.timeout, tls_ca=ns.tls_ca,
                       tls_server_name=ns.tls_server_name)
    except grpc.RpcError as exc:
        print(f"unhealthy: {exc.code().name if hasattr(exc, 'code') else exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"cannot read the CA bundle: {exc}", file=sys.stderr)
        return 2
    print(status)
    return 0 if status == "SERVING" else 1


if __name__ == "__main__":
    sys.exit(main())
