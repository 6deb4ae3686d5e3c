"""Requests at the protocols' edges get a status a client can act on, never INTERNAL or
UNKNOWN and never a traceback in the log (issue 22): undecodable WatchTable bytes on native
gRPC, an envelope flagged compressed with no encoding named (Connect and gRPC-Web), and
native gRPC's content type over HTTP/1.1 to the browser edge."""

from __future__ import annotations

import base64
import gzip
import json
import struct
import urllib.parse

import grpc
import httpx
import pytest
from google.rpc import error_details_pb2, status_pb2
from test_connect_edge import connect_error
from test_table_streams_end import BAD_LINE
from web_stack import Web

from rgs.api.browser_edge.connect import _Envelopes
from rgs.generated.table.v1 import table_pb2 as tb
from support.errors import error_reason

pytestmark = pytest.mark.asyncio(loop_scope="session")

SERVICE = "rgs.table.v1.TableService"
TABLE = "vip-streams"


def envelope(raw: bytes, flags: int = 0) -> bytes:
    return struct.pack(">BI", flags, len(raw)) + raw


async def post(web: Web, method: str, headers: dict[str, str], content: bytes
               ) -> httpx.Response:
    async with httpx.AsyncClient(base_url=web.base_url, timeout=10) as client:
        return await client.post(f"/{SERVICE}/{method}", headers=headers, content=content)


def end_of_stream(resp: httpx.Response) -> dict[str, object]:
    """A Connect stream's end-of-stream message (flag 0x02), after any messages."""
    buf = resp.content
    while buf:
        flags, size = struct.unpack(">BI", buf[:5])
        if flags & 0x02:
            return dict(json.loads(buf[5:5 + size]))
        buf = buf[5 + size:]
    raise AssertionError(f"no end-of-stream message in {resp.content[:200]!r}")


def grpc_web_status(resp: httpx.Response) -> tuple[int, str, str]:
    """(grpc-status, grpc-message, ErrorInfo reason) of a gRPC-Web response: in its headers
    (a trailers-only answer) or in its trailer frame (flag 0x80)."""
    fields = {k.lower(): v for k, v in resp.headers.items()}
    if "grpc-status" not in fields:
        buf = resp.content
        while buf:
            flags, size = struct.unpack(">BI", buf[:5])
            if flags & 0x80:
                for line in buf[5:5 + size].decode().split("\r\n"):
                    if line:
                        key, _, value = line.partition(":")
                        fields[key.strip().lower()] = value.strip()
            buf = buf[5 + size:]
    reason = ""
    details = fields.get("grpc-status-details-bin", "")
    if details:
        status = status_pb2.Status.FromString(base64.b64decode(details + "=" * (-len(details) % 4)))
        for d in status.details:
            info = error_details_pb2.ErrorInfo()
            if d.Unpack(info):
                reason = info.reason
    return (int(fields["grpc-status"]), urllib.parse.unquote(fields.get("grpc-message", "")),
            reason)


async def test_undecodable_watch_table_bytes_are_malformed_request_on_native_grpc(
        web: Web) -> None:
    token = await web.session_token(await web.new_player())
    offset = web.log_size()
    async with grpc.aio.insecure_channel(web.stack.replicas[0].target) as channel:
        watch = channel.unary_stream(f"/{SERVICE}/WatchTable",
                                     request_serializer=lambda b: b,
                                     response_deserializer=lambda b: b)
        with pytest.raises(grpc.aio.AioRpcError) as err:
            async for _ in watch(b"\xff\xff\xff", timeout=10,
                                 metadata=(("authorization", f"Bearer {token}"),)):
                pass
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, err.value
    assert error_reason(err.value) == "MALFORMED_REQUEST"
    assert err.value.details() == "the request is not a valid protobuf message"
    assert not [line for line in web.logged_since(offset) if BAD_LINE.search(line)]


async def test_a_compressed_connect_envelope_without_its_encoding_is_invalid_argument(
        web: Web) -> None:
    token = await web.session_token(await web.new_player())
    raw = json.dumps({"tableId": TABLE}).encode()
    headers = {"content-type": "application/connect+json", "connect-protocol-version": "1",
               "authorization": f"Bearer {token}"}
    offset = web.log_size()
    refused = await post(web, "WatchTable", headers, envelope(raw, flags=1))
    error = end_of_stream(refused)["error"]
    assert isinstance(error, dict)
    assert error["code"] == "invalid_argument", error
    assert "Connect-Content-Encoding" in str(error["message"]), error
    assert "uncompressed" in str(error["message"]), error
    _, info = connect_error(httpx.Response(200, json=error))
    assert info.reason == "MALFORMED_REQUEST"
    # The encoding named, the same envelope compressed is served (the message's advice holds).
    async with httpx.AsyncClient(base_url=web.base_url, timeout=10) as client, client.stream(
            "POST", f"/{SERVICE}/WatchTable",
            headers={**headers, "connect-content-encoding": "gzip"},
            content=envelope(gzip.compress(raw), flags=1)) as served:
        first = b""
        async for chunk in served.aiter_bytes():
            first += chunk
            if len(first) >= 5:
                break
    assert served.status_code == 200 and first[0] == 0  # a message: the snapshot
    assert not [line for line in web.logged_since(offset) if BAD_LINE.search(line)]


@pytest.mark.parametrize("method", ["ListTables", "WatchTable"])
async def test_a_compressed_grpc_web_message_without_grpc_encoding_is_invalid_argument(
        web: Web, method: str) -> None:
    token = await web.session_token(await web.new_player())
    raw = (tb.WatchTableRequest(table_id=TABLE) if method == "WatchTable"
           else tb.ListTablesRequest()).SerializeToString()
    offset = web.log_size()
    refused = await post(web, method, {
        "content-type": "application/grpc-web+proto", "x-grpc-web": "1",
        "authorization": f"Bearer {token}"}, envelope(raw, flags=1))
    status, message, reason = grpc_web_status(refused)
    assert (status, reason) == (grpc.StatusCode.INVALID_ARGUMENT.value[0],
                                "MALFORMED_REQUEST"), (status, message)
    assert "grpc-encoding" in message and "uncompressed" in message, message
    assert not [line for line in web.logged_since(offset) if BAD_LINE.search(line)]


async def test_native_grpc_over_http1_to_the_browser_edge_says_what_to_use(web: Web) -> None:
    token = await web.session_token(await web.new_player())
    offset = web.log_size()
    refused = await post(web, "ListTables", {
        "content-type": "application/grpc", "te": "trailers",
        "authorization": f"Bearer {token}"},
        envelope(tb.ListTablesRequest().SerializeToString()))
    assert refused.status_code == 415, (refused.status_code, refused.headers, refused.text)
    assert "gRPC-Web" in refused.text and "Connect" in refused.text, refused.text
    assert "HTTP/2" in refused.text, refused.text
    assert refused.headers["grpc-status"] == str(grpc.StatusCode.UNIMPLEMENTED.value[0])
    assert "gRPC-Web" in urllib.parse.unquote(refused.headers["grpc-message"])
    assert not [line for line in web.logged_since(offset) if BAD_LINE.search(line)]


async def test_an_encoding_the_edge_does_not_have_is_unimplemented_naming_gzip(
        web: Web) -> None:
    """The gRPC compression spec's answer to a named encoding the server lacks (the library's)."""
    token = await web.session_token(await web.new_player())
    refused = await post(web, "ListTables", {
        "content-type": "application/grpc-web+proto", "x-grpc-web": "1", "grpc-encoding": "br",
        "authorization": f"Bearer {token}"},
        envelope(tb.ListTablesRequest().SerializeToString(), flags=1))
    status, message, _ = grpc_web_status(refused)
    assert status == grpc.StatusCode.UNIMPLEMENTED.value[0] and "gzip" in message, message


async def test_every_envelope_of_a_body_is_seen_however_it_is_cut() -> None:
    body = envelope(b"abcdef") + envelope(b"") + envelope(b"xyz", flags=1)
    flags_at = len(envelope(b"abcdef") + envelope(b""))  # the compressed one's flags byte
    for cut in range(len(body) + 1):
        for step in (1, 2, 7):
            seen = _Envelopes()
            chunks = [body[:cut], *(body[i:i + step] for i in range(cut, len(body), step))]
            first = [seen.compressed(c) for c in chunks].index(True)
            before = sum(len(c) for c in chunks[:first])
            assert before <= flags_at < before + len(chunks[first]), (cut, step)
    plain = _Envelopes()
    assert not any(plain.compressed(body[i:min(i + 3, flags_at)])
                   for i in range(0, flags_at, 3))
