"""A rating pool announces its changes (api.md "Live updates", "Webhooks", "Ratings"), on Postgres and
on the SQLite default: a webhook of every event, a real receiver, gets a signed ``ratings.updated``
when the pool's first game is rated (a recompute: it had no history), when the next one is (the
incremental update) and when a player's starting rating is taken at once; the pool's stream, read
by a real SSE client over TCP, sends them and resumes with ``Last-Event-ID``; an event's own webhook
cannot ask for them, and an unknown pool has no stream."""

from __future__ import annotations

import uuid
from typing import Any

import standardwebhooks

from app.services import outbox
from tests.support.api import Api, assert_problem, bearer, report, setup_event, start
from tests.support.live import receiver, serving, sse


async def _rated(api: Api) -> tuple[str, str, list[dict[str, Any]]]:
    """A started rated Swiss of four into a pool of its own: the pool, the organizer's token, its two
    tables."""
    pool = f"live-{uuid.uuid4().hex[:8]}"
    settings = {"rated": True, "rating": {"pool": pool}, "stages": [{"format": "swiss", "rounds": 1}]}
    event_id, org, _ = await setup_event(api, ["Ada", "Bea", "Cy", "Di"], settings=settings)
    return pool, org, (await start(api, event_id, org))["round"]["matches"]


async def _play(api: Api, org: str, table: dict[str, Any]) -> None:
    """The table's first seat wins; its rating job runs."""
    await report(api, org, table, [1, 2])
    await api.drain_jobs()


async def _newcomer(api: Api, pool: str) -> None:
    """A player without games given a starting rating in the pool: taken at once."""
    r = await api.client.post("/v1/players", json={"name": "Eve"}, headers=api.admin())
    assert r.status_code == 201, r.text
    r = await api.client.put(
        f"/v1/players/{r.json()['id']}/ratings/{pool}", json={"rating": 1620}, headers=api.admin()
    )
    assert r.status_code == 200 and r.json()["job_id"] is None, r.text


async def test_a_webhook_of_every_event_hears_the_pool_change(api: Api) -> None:
    async with receiver() as rec:
        r = await api.client.post(
            "/v1/webhooks", json={"url": rec.url, "events": ["ratings.updated"]}, headers=api.admin()
        )
        assert r.status_code == 201, r.text
        secret = r.json()["secret"]
        pool, org, tables = await _rated(api)
        for table in tables:
            await _play(api, org, table)
        await _newcomer(api, pool)

        got = await rec.wait_for(3, within=5.0)
        await api.drain_jobs()
        assert len(rec.received) == 3
        bodies = sorted((d.json for d in got), key=lambda b: b["id"])
        assert [b["data"] for b in bodies] == [
            {"pool": pool, "reason": "recomputed", "games": 1},  # its first game: no history to add to
            {"pool": pool, "reason": "rated", "games": 1},
            {"pool": pool, "reason": "start_rating", "games": 0},
        ]
        for delivery in got:
            body = delivery.json
            assert body["type"] == "ratings.updated" and body["pool"] == pool
            assert "event_id" not in body  # a pool's envelope names the pool
            assert delivery.headers["webhook-id"] == str(body["id"])
            standardwebhooks.Webhook(secret).verify(delivery.body, delivery.headers)

    # the rows are keyed by the pool, one per change, in commit order
    async with api.app.state.sessionmaker() as s:
        rows = await outbox.since(s, outbox.pool_key(pool), 0)
        await s.commit()
    assert [r.data["reason"] for r in rows] == ["recomputed", "rated", "start_rating"]

    # an event's own webhook is never sent a pool's change: asking for one is refused, naming it
    event_id = tables[0]["event_id"]
    r = await api.client.post(
        f"/v1/events/{event_id}/webhooks",
        json={"url": "http://127.0.0.1:9/hook", "events": ["ratings.updated"]},
        headers=bearer(org),
    )
    assert "ratings.updated" in str(assert_problem(r, 422)["errors"])


async def test_the_pool_stream_sends_its_changes_and_resumes(api: Api) -> None:
    pool, org, (first, second) = await _rated(api)
    path = f"/v1/ratings/{pool}/stream"
    assert_problem(await api.client.get(path), 404)  # no game rated yet: no pool
    await _play(api, org, first)
    assert_problem(await api.client.get("/v1/ratings/nope/stream"), 404)
    assert_problem(await api.client.get(path, headers={"Last-Event-ID": "x"}), 422)
    async with serving(api.app) as base:
        async with sse(base, pool, path=path) as live:
            assert live.status == 200 and live.headers["content-type"].startswith("text/event-stream")
            await _play(api, org, second)
            got = await live.next("ratings.updated")
            assert got.data["pool"] == pool and got.id == str(got.data["id"])
            assert got.data["data"] == {"pool": pool, "reason": "rated", "games": 1}

        # while no stream is open a starting rating is taken: resuming with Last-Event-ID brings it
        await _newcomer(api, pool)
        async with sse(base, pool, last_event_id=got.id, path=path) as again:
            missed = await again.next("ratings.updated")
            assert missed.data["data"]["reason"] == "start_rating" and int(missed.id or 0) > int(got.id or 0)
            assert [m.event for m in again.seen] == ["ratings.updated"]  # the pool's changes only

        # an id ahead of every change: read the leaderboard again, the reset naming the pool
        async with sse(base, pool, last_event_id="999999999", path=path) as ahead:
            reset = await ahead.next("stream.reset")
            assert reset.data["pool"] == pool and reset.data["data"]["pool"] == pool
