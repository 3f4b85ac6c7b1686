"""Live updates from a real ``arbiter serve`` process on the embedded default (a SQLite file, jobs
in-process), read by a real SSE client over TCP and a real webhook receiver: a reported result
reaches both within 2 s; a client reconnecting with ``Last-Event-ID`` gets what it missed; idle
streams carry heartbeats; a client's streams are bounded; a stopping process ends its streams.
(Two API processes on Postgres: tests/workers/test_scale.py.)"""

from __future__ import annotations

import asyncio
import json
import signal
from pathlib import Path
from typing import Any

import httpx
import jsonschema_rs
import standardwebhooks

from app.cli import migrate
from tests.support.api import ADMIN_TOKEN, bearer
from tests.support.live import receiver, sse
from tests.support.processes import env, free_port, log_lines, spawn, stop, wait_http
from tests.support.services import in_thread


async def _event(c: httpx.AsyncClient, names: list[str]) -> tuple[str, str, list[dict[str, Any]]]:
    r = await c.post(
        "/v1/events",
        json={
            "name": "Live Open",
            "game": "generic",
            "settings": {"stages": [{"format": "swiss", "rounds": 2}]},
        },
        headers=bearer(ADMIN_TOKEN),
    )
    assert r.status_code == 201, r.text
    eid, token = r.json()["id"], r.json()["organizer_token"]
    for name in names:
        assert (
            await c.post(f"/v1/events/{eid}/entries", json={"name": name}, headers=bearer(token))
        ).status_code == 201
    r = await c.post(f"/v1/events/{eid}/start", headers=bearer(token))
    assert r.status_code == 200, r.text
    return eid, token, r.json()["round"]["matches"]


async def _report(c: httpx.AsyncClient, token: str, match: dict[str, Any]) -> None:
    body = {"seats": [{"entry_id": s["entry_id"], "place": i + 1} for i, s in enumerate(match["seats"])]}
    r = await c.post(f"/v1/matches/{match['id']}/result", json=body, headers=bearer(token))
    assert r.status_code == 200 and r.json()["status"] == "confirmed", r.text


async def test_the_embedded_default_streams_and_delivers_live(
    tmp_path: Path, worker_procs: list[Any]
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'arbiter.db'}"
    in_thread(migrate, url)
    port = free_port()
    log = tmp_path / "api.log"
    proc = spawn(
        "serve",
        "--port",
        str(port),
        environ=env(
            DATABASE_URL=url,
            ARBITER_ADMIN_TOKEN=ADMIN_TOKEN,
            ARBITER_LOG_FORMAT="json",
            ARBITER_WEBHOOK_ALLOW_PRIVATE="true",  # the receiver listens on the loopback
            ARBITER_SSE_HEARTBEAT_SECONDS="0.5",
            ARBITER_SSE_MAX_PER_CLIENT="3",
            ARBITER_API_SHUTDOWN_WAIT="2",
        ),
        log=log,
    )
    worker_procs.append(proc)
    base = f"http://127.0.0.1:{port}"
    wait_http(f"{base}/readyz", proc)

    async with httpx.AsyncClient(base_url=base, timeout=30) as c, receiver() as rec:
        eid, token, matches = await _event(c, ["Ada", "Bob", "Cy", "Dee"])
        r = await c.post(
            f"/v1/events/{eid}/webhooks",
            json={"url": rec.url, "events": ["match.confirmed"]},
            headers=bearer(token),
        )
        assert r.status_code == 201, r.text
        secret = r.json()["secret"]

        async with sse(base, eid) as live:
            assert live.status == 200 and live.headers["content-type"].startswith("text/event-stream")
            assert live.retry == 3000
            await _report(c, token, matches[0])
            got = await live.next("match.confirmed", within=2.0)  # within 2 s on the stream…
            delivered = (await rec.wait_for(1, within=2.0))[0]  # …and at the receiver
            assert got.data["data"]["match_id"] == matches[0]["id"] == delivered.json["data"]["match_id"]
            assert got.id == str(got.data["id"]) == delivered.headers["webhook-id"]
            standardwebhooks.Webhook(secret).verify(delivered.body, delivered.headers)
            standings = await live.next("standings.changed")
            assert standings.data["data"] == {"event_id": eid, "stage": 0, "final": False}
            await asyncio.sleep(1.2)
            assert "heartbeat" in live.comments  # an idle stream is kept open
            last = standings.id
            metrics = (await c.get("/metrics", headers=bearer(ADMIN_TOKEN))).text
            assert "arbiter_sse_subscribers 1.0" in metrics

        # while no stream is open: the other result; reconnecting with Last-Event-ID brings it
        await _report(c, token, matches[1])
        assert last is not None
        async with sse(base, eid, last_event_id=last) as again:
            missed = await again.next("match.confirmed", within=2.0)
            assert missed.data["data"]["match_id"] == matches[1]["id"]
            assert int(missed.id or 0) > int(last)
            await again.next("standings.changed")
            r = await c.post(f"/v1/events/{eid}/rounds", headers=bearer(token))
            assert r.status_code == 201
            paired = await again.next("round.paired")
            assert paired.data["data"]["round"] == 2
            assert [int(m.id or 0) for m in again.seen] == sorted(int(m.id or 0) for m in again.seen)

        # an id from another database: the client is told to read the event again
        async with sse(base, eid, last_event_id="999999") as ahead:
            reset = await ahead.next("stream.reset")
            assert "ahead" in reset.data["data"]["reason"] and reset.data["event_id"] == eid

        # every message as a client parses it is what the document says a message is
        spec = (await c.get("/openapi.json")).json()
        item = spec["paths"]["/v1/events/{event_id}/stream"]["get"]["responses"]["200"]["content"]
        item = item["text/event-stream"]["schema"]
        parsed = jsonschema_rs.validator_for(item)
        data = jsonschema_rs.validator_for({**item["properties"]["data"]["contentSchema"], **spec})
        for m in [*live.seen, *again.seen, *ahead.seen]:
            as_parsed = {"id": m.id, "event": m.event, "data": json.dumps(m.data)}
            assert [e.message for e in parsed.iter_errors(as_parsed)] == [], m
            assert [e.message for e in data.iter_errors(m.data)] == [], m
        assert not parsed.is_valid(m.data)  # the envelope alone is not a parsed message

        # bad requests are problems, before any stream starts
        r = await c.get(f"/v1/events/{eid}/stream", headers={"Last-Event-ID": "yesterday"})
        assert r.status_code == 422 and r.json()["errors"][0]["loc"] == ["header", "Last-Event-ID"]
        assert (await c.get("/v1/events/no-such-event/stream")).status_code == 404

        # one client holds at most ARBITER_SSE_MAX_PER_CLIENT streams
        async with sse(base, eid) as s1, sse(base, eid) as s2, sse(base, eid) as s3, sse(base, eid) as s4:
            assert [s.status for s in (s1, s2, s3)] == [200, 200, 200]
            assert s4.status == 429 and s4.headers["retry-after"] == "30"
            assert s4.headers["content-type"].startswith("application/problem+json")

        # a stopping process ends the streams still open (the client reconnects elsewhere)
        async with sse(base, eid) as held:
            assert held.status == 200
            assert stop(proc, signal.SIGTERM, within=20) in (0, -signal.SIGTERM)
    lines = log_lines(log)
    assert any(line["msg"] == "Application shutdown complete." for line in lines)
    streams = [line for line in lines if line.get("route") == "/v1/events/{event_id}/stream"]
    assert streams and all(line["status"] in (200, 404, 422, 429) for line in streams)
