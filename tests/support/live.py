"""The two clients of live updates, real ones: a webhook receiver (an HTTP server on the loopback,
in a thread of its own, that can be told to fail) and an SSE client (a streamed GET over TCP, parsed
as the SSE specification says: ``id``, ``event``, ``data`` lines, comments, a blank line ending a
message); and ``serving``, an app already started served over TCP on the loopback (an in-memory
transport answers a stream only once it ends)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import uvicorn


@dataclass
class Delivery:
    headers: dict[str, str]
    body: bytes
    at: float

    @property
    def json(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.body)
        return data


@dataclass
class Receiver:
    """Records every POST; answers 500 to the first ``fail_first`` of them, 204 afterwards."""

    fail_first: int = 0
    received: list[Delivery] = field(default_factory=list)
    port: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks/arbiter"

    async def wait_for(self, count: int, within: float = 2.0) -> list[Delivery]:
        """Until ``count`` deliveries arrived (fails after ``within`` seconds)."""
        deadline = time.monotonic() + within
        while len(self.received) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"{len(self.received)} of {count} deliveries within {within} s")
            await asyncio.sleep(0.02)
        return list(self.received)


@asynccontextmanager
async def receiver(fail_first: int = 0) -> AsyncIterator[Receiver]:
    rec = Receiver(fail_first=fail_first)
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            with lock:
                rec.received.append(
                    Delivery({k.lower(): v for k, v in self.headers.items()}, body, time.monotonic())
                )
                failing = len(rec.received) <= rec.fail_first
            self.send_response(500 if failing else 204)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    rec.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield rec
    finally:
        server.shutdown()
        server.server_close()


@dataclass
class Message:
    id: str | None
    event: str
    data: dict[str, Any]
    at: float


@dataclass
class Stream:
    """One SSE connection: its status, its messages as they come, the comments (heartbeats) seen."""

    status: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    messages: asyncio.Queue[Message] = field(default_factory=asyncio.Queue)
    comments: list[str] = field(default_factory=list)
    retry: int | None = None
    seen: list[Message] = field(default_factory=list)
    body: str = ""

    async def next(self, type: str | None = None, within: float = 2.0) -> Message:
        """The next message (of ``type``, skipping others) within ``within`` seconds."""
        deadline = time.monotonic() + within
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(
                    f"no {type or 'message'} within {within} s; seen {[m.event for m in self.seen]}"
                )
            try:
                msg = await asyncio.wait_for(self.messages.get(), timeout=left)
            except TimeoutError:
                continue
            if type is None or msg.event == type:
                return msg


async def _read(response: httpx.Response, stream: Stream, opened: asyncio.Event) -> None:
    fields: dict[str, list[str]] = {}
    async for line in response.aiter_lines():
        if line == "":
            opened.set()  # the server's first block (retry, a comment) is in
            if "data" in fields:
                msg = Message(
                    fields.get("id", [None])[-1],
                    fields.get("event", ["message"])[-1],
                    json.loads("\n".join(fields["data"])),
                    time.monotonic(),
                )
                stream.seen.append(msg)
                await stream.messages.put(msg)
            fields = {}
            continue
        if line.startswith(":"):
            stream.comments.append(line[1:].strip())
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "retry":
            stream.retry = int(value)
        else:
            fields.setdefault(name, []).append(value)


@asynccontextmanager
async def serving(app: Any) -> AsyncIterator[str]:
    """``app`` (its lifespan already run: the API tests' shared one) served by uvicorn on a port of
    the loopback, in the test's own event loop; its base URL."""
    config = uvicorn.Config(
        app, host="127.0.0.1", port=0, lifespan="off", log_level="warning", timeout_keep_alive=75
    )  # as arbiter serve keeps an idle connection (ARBITER_KEEP_ALIVE)
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()  # it could not start: say why
        await asyncio.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


@asynccontextmanager
async def sse(
    base_url: str,
    event_id: str,
    last_event_id: str | None = None,
    ready: bool = True,
    path: str | None = None,
) -> AsyncIterator[Stream]:
    """Subscribe to the event's stream (or the stream at ``path``: a season's); with ``ready``, once
    the server has answered and sent its first lines (so that a change made afterwards is on it)."""
    stream = Stream()
    headers = {"Accept": "text/event-stream"}
    if last_event_id is not None:
        headers["Last-Event-ID"] = last_event_id
    opened = asyncio.Event()
    async with httpx.AsyncClient(base_url=base_url, timeout=httpx.Timeout(30, read=None)) as client:

        async def run() -> None:
            url = path or f"/v1/events/{event_id}/stream"
            async with client.stream("GET", url, headers=headers) as r:
                stream.status, stream.headers = r.status_code, dict(r.headers)
                if r.status_code != 200:
                    stream.body = (await r.aread()).decode()
                    opened.set()
                    return
                await _read(r, stream, opened)

        task = asyncio.create_task(run())
        try:
            if ready:
                await asyncio.wait_for(opened.wait(), timeout=10)
            yield stream
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, httpx.HTTPError):
                await task
