"""What a refused gRPC call carried: the ``google.rpc.ErrorInfo`` reason of its status details."""

from __future__ import annotations

import grpc
from google.rpc import error_details_pb2, status_pb2


def error_reason(err: grpc.aio.AioRpcError) -> str:
    """The ErrorInfo reason of a refusal ("" when it carried none)."""
    for key, value in err.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            for d in status_pb2.Status.FromString(value).details:
                info = error_details_pb2.ErrorInfo()
                if d.Unpack(info):
                    return str(info.reason)
    return ""
