"""Table streams end cleanly on every edge (issue 22): 500 WatchTable streams opened at once and
cancelled by their clients, over native gRPC (grpc.aio) and over real HTTP on the browser edge
(Connect and gRPC-Web over HTTP/1.1, and Connect over h2c, its clients' connections closed as a
closed tab's are), against the real RGS process. Each cancelled stream gives back its
table-feed subscriber and its tasks, read from the replica's /metrics (``rgs_table_watchers``,
``rgs_event_loop_tasks``), and the replica's log has no warning or error from the cancels.

Run with ``-s`` to see the figures: watchers and tasks before, at the peak and after, per edge.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import struct
import time
from collections.abc import AsyncIterator, Awaitable, Callable

import grpc
import httpx
import pytest
from web_stack import Web

from rgs.api.browser_edge.connect import _until
from rgs.generated.table.v1 import table_pb2 as tb
from rgs.generated.table.v1 import table_pb2_grpc

pytestmark = pytest.mark.asyncio(loop_scope="session")

SERVICE = "rgs.table.v1.TableService"
TABLE = "vip-streams"
STREAMS = 500
#: Streams of one HTTP/2 connection (hypercorn's h2_max_concurrent_streams, the edge's).
H2_STREAMS = 100
#: Tasks the replica may have above its count before the streams (its own background work
#: comes and goes: the outbox, the table clock, a scrape); each leaked stream holds several.
TASK_SLACK = 10
#: A log line that must not be there (a level of the text format, or the words of the defect
#: this test was written for).
BAD_LINE = re.compile(r" (WARNING|ERROR|CRITICAL) |Traceback|aclose\(\)|never retrieved")


async def gauges(web: Web) -> tuple[int, int]:
    """(table watchers, event-loop tasks) as the replica's /metrics shows them now."""
    async with httpx.AsyncClient(timeout=10) as client:
        page = (await client.get(web.metrics_url)).text
    values = {}
    for name in ("rgs_table_watchers", "rgs_event_loop_tasks"):
        line = next((ln for ln in page.splitlines() if ln.startswith(name + " ")), None)
        assert line is not None, f"{name} is not on /metrics"
        values[name] = int(float(line.split()[1]))
    return values["rgs_table_watchers"], values["rgs_event_loop_tasks"]


async def quiet(web: Web) -> tuple[int, int]:
    """The gauges once two reads a moment apart agree (nothing else of the run in flight)."""
    last = await gauges(web)
    for _ in range(50):
        await asyncio.sleep(0.3)
        now = await gauges(web)
        if now == last:
            return now
        last = now
    return last


async def settled(web: Web, watchers: int, tasks: int, timeout: float = 60.0
                  ) -> tuple[int, int]:
    """The gauges once the watchers are back to ``watchers`` and the tasks to ``tasks`` (give
    or take :data:`TASK_SLACK`), or as they are at ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        now = await gauges(web)
        if (now[0] == watchers and now[1] <= tasks + TASK_SLACK) or time.monotonic() > deadline:
            return now
        await asyncio.sleep(0.25)


async def open_and_cancel(web: Web, edge: str,
                          streams: Callable[[contextlib.AsyncExitStack], Awaitable[None]]
                          ) -> None:
    """Open :data:`STREAMS` streams with ``streams`` (each has its first message, the snapshot,
    when it returns; the exit stack cancels them), then cancel them all; the watchers and tasks
    come back, and the replica's log has nothing above INFO from it."""
    before = await quiet(web)
    offset = web.log_size()
    async with contextlib.AsyncExitStack() as held:
        await streams(held)
        peak = await gauges(web)
    after = await settled(web, before[0], before[1])
    await asyncio.sleep(0.5)  # a line logged as the last stream ends reaches the file
    logged = web.logged_since(offset)
    print(f"\n{edge}: {STREAMS} WatchTable streams opened and cancelled; table watchers "
          f"before {before[0]}, peak {peak[0]}, after {after[0]}; event-loop tasks before "
          f"{before[1]}, peak {peak[1]}, after {after[1]}")
    assert peak[0] == before[0] + STREAMS
    assert after[0] == before[0], f"{after[0] - before[0]} subscribers of the feed leaked"
    assert after[1] <= before[1] + TASK_SLACK, f"{after[1] - before[1]} tasks left behind"
    bad = [line for line in logged if BAD_LINE.search(line)]
    assert not bad, "\n".join(bad[:20])
    # A client leaving is how every watch ends: its line is DEBUG, not a line per stream.
    assert not [line for line in logged if "WatchTable" in line], logged[:5]


async def token_for(web: Web) -> str:
    return await web.session_token(await web.new_player())


async def test_cancelled_native_grpc_streams_release_their_watchers(web: Web) -> None:
    token = await token_for(web)
    metadata = (("authorization", f"Bearer {token}"),)

    async def streams(held: contextlib.AsyncExitStack) -> None:
        channel = await held.enter_async_context(
            grpc.aio.insecure_channel(web.stack.replicas[0].target))
        stub = table_pb2_grpc.TableServiceStub(channel)
        calls = [stub.WatchTable(tb.WatchTableRequest(table_id=TABLE), metadata=metadata)
                 for _ in range(STREAMS)]
        held.callback(lambda: [c.cancel() for c in calls])  # before the channel closes
        firsts = await asyncio.gather(*(c.read() for c in calls))
        assert all(f.HasField("snapshot") for f in firsts)

    await open_and_cancel(web, "native gRPC", streams)


def _request(protocol: str) -> tuple[dict[str, str], bytes]:
    """Headers and body of a WatchTable request in ``protocol`` (``connect`` with JSON, as
    connect-web sends it, or ``grpc-web`` with binary protobuf)."""
    if protocol == "connect":
        raw = json.dumps({"tableId": TABLE}).encode()
        return ({"content-type": "application/connect+json", "connect-protocol-version": "1"},
                struct.pack(">BI", 0, len(raw)) + raw)
    raw = tb.WatchTableRequest(table_id=TABLE).SerializeToString()
    return ({"content-type": "application/grpc-web+proto", "x-grpc-web": "1"},
            struct.pack(">BI", 0, len(raw)) + raw)


async def _first_message(chunks: AsyncIterator[bytes]) -> bytes:
    """The first enveloped message of a streaming response's ``chunks`` (the snapshot). The
    caller keeps ``chunks``: httpx closes the response when that iterator is dropped."""
    buf = b""
    async for chunk in chunks:
        buf += chunk
        if len(buf) >= 5 and len(buf) >= 5 + struct.unpack(">I", buf[1:5])[0]:
            flags, size = struct.unpack(">BI", buf[:5])
            assert flags == 0, buf[5:5 + size]  # a message, not the end of the stream
            return buf[5:5 + size]
    raise AssertionError("the stream ended before its first message")


@pytest.mark.parametrize(("protocol", "http"), [("connect", "HTTP/1.1"),
                                              ("grpc-web", "HTTP/1.1"), ("connect", "h2c")])
async def test_cancelled_browser_edge_streams_release_their_watchers(
        web: Web, protocol: str, http: str) -> None:
    token = await token_for(web)
    headers, content = _request(protocol)
    headers["authorization"] = f"Bearer {token}"
    opening = asyncio.Semaphore(50)

    async def streams(held: contextlib.AsyncExitStack) -> None:
        # HTTP/1.1: a connection per stream, as a browser's; h2c: streams multiplexed on
        # connections of H2_STREAMS each (the edge's limit per connection).
        per_client = H2_STREAMS if http == "h2c" else STREAMS
        clients = [await held.enter_async_context(httpx.AsyncClient(
            base_url=web.base_url, timeout=60, http1=http == "HTTP/1.1", http2=http == "h2c",
            limits=httpx.Limits(max_connections=per_client + 10)))
            for _ in range(STREAMS // per_client)]

        async def one(n: int) -> bytes:
            async with opening:
                resp = await held.enter_async_context(clients[n // per_client].stream(
                    "POST", f"/{SERVICE}/WatchTable", headers=headers, content=content))
                assert resp.status_code == 200
                assert resp.http_version == http.replace("h2c", "HTTP/2")
                chunks = resp.aiter_bytes()
                held.push_async_callback(chunks.aclose)  # type: ignore[attr-defined]
                return await _first_message(chunks)

        firsts = await asyncio.gather(*(one(n) for n in range(STREAMS)))
        assert len(firsts) == STREAMS

    await open_and_cancel(web, f"browser edge, {protocol} over {http}", streams)


async def test_a_stream_cancelled_while_it_waits_closes_what_it_reads() -> None:
    """The browser edge's race of each read against the drain (``_until``): a client leaving
    while the table is quiet cancels the pending read, so the table's stream runs its cleanup
    at once (it used to stay waiting, and ``aclose()`` raised 'already running')."""
    closed = asyncio.Event()

    async def table_events() -> AsyncIterator[str]:
        try:
            yield "snapshot"
            await asyncio.sleep(3600)  # a quiet table
            yield "never"
        finally:
            closed.set()

    got: asyncio.Queue[str] = asyncio.Queue()

    async def watcher() -> None:
        async for item in _until(table_events(), asyncio.Event()):
            await got.put(item)

    task = asyncio.create_task(watcher())
    assert await got.get() == "snapshot"
    await asyncio.sleep(0.05)  # the next read waits
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert closed.is_set()
