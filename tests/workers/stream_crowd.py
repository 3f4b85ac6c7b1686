"""A crowd of SSE clients in a process of its own (so that reading them costs the test's own loop
nothing): ``python stream_crowd.py PORT EVENT_ID STREAMS ADDRESSES EXPECT``. It opens STREAMS
streams of the event over bare sockets, from ADDRESSES loopback addresses (127.0.0.2 on), prints
one JSON line once all are open (their statuses), then counts the ``entry.registered`` messages of
each until every one has EXPECT of them (or 120 s passed) and prints one JSON line of the counts
and of the streams the server ended."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time

MARK = b"event: entry.registered\n"


async def main(port: int, event_id: str, streams: int, addresses: int, expect: int) -> None:
    seen = [0] * streams
    ended = [False] * streams
    statuses = [0] * streams

    async def one(i: int, opened: asyncio.Event) -> None:
        source = f"127.0.0.{2 + i % addresses}"
        reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
        try:
            writer.write(
                f"GET /v1/events/{event_id}/stream HTTP/1.1\r\nHost: arbiter\r\n"
                "Accept: text/event-stream\r\n\r\n".encode()
            )
            await writer.drain()
            head = await reader.readuntil(b"\r\n\r\n")
            statuses[i] = int(head.split(b" ", 2)[1])
            opened.set()
            tail = b""
            while chunk := await reader.read(65536):
                data = tail + chunk
                seen[i] += data.count(MARK)
                tail = data[-(len(MARK) - 1) :]  # a mark split between two reads is counted once
            ended[i] = True
        finally:
            opened.set()
            writer.close()

    tasks = []
    for i in range(streams):
        opened = asyncio.Event()
        tasks.append(asyncio.create_task(one(i, opened)))
        await opened.wait()
    print(json.dumps({"statuses": sorted(set(statuses))}), flush=True)
    deadline = time.monotonic() + 120
    while min(seen) < expect and time.monotonic() < deadline:  # noqa: ASYNC110 (counted by the readers)
        await asyncio.sleep(0.1)
    await asyncio.sleep(0.5)  # anything more than expected would have arrived by now
    print(json.dumps({"seen": [min(seen), max(seen)], "ended": sum(ended)}), flush=True)
    for task in tasks:
        task.cancel()
    with contextlib.suppress(Exception):
        await asyncio.gather(*tasks, return_exceptions=True)


if __name__ == "__main__":
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    port, event_id, streams, addresses, expect = sys.argv[1:6]
    asyncio.run(main(int(port), event_id, int(streams), int(addresses), int(expect)))
