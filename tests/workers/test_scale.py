"""Several processes against one Postgres and one Redis, as `arbiter serve` and `arbiter worker` run
them in production (no Docker needed): two API processes and two workers. An event is run with its
registrations, pairings and results posted to both APIs (retries crossing from one to the other);
jobs land on both workers; afterwards both APIs answer the same, every job ran exactly once, every
confirmed match was rated exactly once, and the Redis keys left name the test's queue (the queue
fixture checks and removes them).

Live updates: one SSE client subscribes to each API's stream of the event before the start, and
every result, posted to either API, reaches both streams within 2 s (the outbox is the truth,
Postgres NOTIFY the wake-up across processes); each stream carries every confirmed result once."""

from __future__ import annotations

import asyncio
import signal
import time
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import func, select

from app.db.models import Entry, Job, Match, RatingHistory
from tests.support.api import ADMIN_TOKEN, Api, bearer, better_name_wins, make_event, standings, start
from tests.support.live import sse
from tests.support.processes import env, free_port, log_lines, spawn, stop, wait_http
from tests.support.services import redis_url

PLAYERS = ["Ada", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"]
ROUNDS = 3
CHECKS = 12  # integrity checks fired at once through both APIs


@asynccontextmanager
async def client(port: int) -> AsyncIterator[Api]:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as c:
        yield Api(c, None, "postgres+redis")


async def wait_for_jobs(sessionmaker: Any, within: float = 120) -> list[Job]:
    """Until no job is queued or running; every job then."""
    deadline = time.monotonic() + within
    while True:
        async with sessionmaker() as s:
            jobs = list((await s.execute(select(Job))).scalars())
        if jobs and all(j.status in ("done", "failed") for j in jobs):
            return jobs
        if time.monotonic() > deadline:
            raise AssertionError(f"jobs still open: {Counter(j.status for j in jobs)}")
        await asyncio.sleep(0.3)


async def test_two_apis_and_two_workers_share_one_database_and_queue(
    pg_url: str, pg_sessionmaker: Any, queue: str, worker_procs: list[Any], tmp_path: Path
) -> None:
    environ = env(
        DATABASE_URL=pg_url,
        REDIS_URL=redis_url(),
        ARBITER_QUEUE_NAME=queue,
        ARBITER_ADMIN_TOKEN=ADMIN_TOKEN,
        ARBITER_LOG_FORMAT="json",
        ARBITER_WORKER_CONCURRENCY="2",  # each worker takes two at a time: a burst must spread
    )
    ports = [free_port(), free_port()]
    api_logs = [tmp_path / "api-a.log", tmp_path / "api-b.log"]
    worker_logs = [tmp_path / "worker-1.log", tmp_path / "worker-2.log"]
    apis = [
        spawn("serve", "--port", str(p), environ=environ, log=log)
        for p, log in zip(ports, api_logs, strict=True)
    ]
    workers = [spawn("worker", environ=environ, log=log) for log in worker_logs]
    worker_procs.extend(apis + workers)
    for port, proc in zip(ports, apis, strict=True):
        wait_http(f"http://127.0.0.1:{port}/readyz", proc)

    async with client(ports[0]) as a, client(ports[1]) as b, AsyncExitStack() as stack:
        both = [a, b]
        # the event, created on A; its players registered on both, each retried on the other API
        settings = {"rated": True, "stages": [{"format": "swiss", "rounds": ROUNDS}]}
        event, token = await make_event(a, name="Scale Open", settings=settings)
        eid = event["id"]
        for i, name in enumerate(PLAYERS):
            first, retry = both[i % 2], both[(i + 1) % 2]
            key = {"Idempotency-Key": f"reg-{name}", **bearer(token)}
            r = await first.client.post(f"/v1/events/{eid}/entries", json={"name": name}, headers=key)
            assert r.status_code == 201, r.text
            again = await retry.client.post(f"/v1/events/{eid}/entries", json={"name": name}, headers=key)
            assert again.status_code == 201 and again.headers["idempotent-replayed"] == "true"
            assert again.json()["id"] == r.json()["id"]

        # a live client on each API, subscribed before the start
        live = [await stack.enter_async_context(sse(f"http://127.0.0.1:{port}", eid)) for port in ports]
        assert [s.status for s in live] == [200, 200]

        rnd = (await start(b, eid, token))["round"]
        for stream in live:
            assert (await stream.next("round.paired", within=2.0)).data["data"]["round"] == 1
        reported = 0
        confirmed_ids: list[str] = []
        for number in range(1, ROUNDS + 1):
            for i, m in enumerate(rnd["matches"]):
                if m["status"] == "bye":
                    continue
                places = better_name_wins(m)
                body = {
                    "seats": [
                        {"entry_id": s["entry_id"], "place": p}
                        for s, p in zip(m["seats"], places, strict=True)
                    ]
                }
                key = {"Idempotency-Key": f"result-{m['id']}", **bearer(token)}
                first, retry = both[(i + number) % 2], both[(i + number + 1) % 2]
                r = await first.client.post(f"/v1/matches/{m['id']}/result", json=body, headers=key)
                assert r.status_code == 200 and r.json()["status"] == "confirmed", r.text
                again = await retry.client.post(f"/v1/matches/{m['id']}/result", json=body, headers=key)
                assert again.status_code == 200 and again.headers["idempotent-replayed"] == "true"
                reported += 1
                confirmed_ids.append(m["id"])
                for stream in live:  # the result reaches both APIs' streams within 2 s
                    got = await stream.next("match.confirmed", within=2.0)
                    assert got.data["data"]["match_id"] == m["id"]
            if number < ROUNDS:
                r = await both[number % 2].client.post(f"/v1/events/{eid}/rounds", headers=bearer(token))
                assert r.status_code == 201, r.text
                rnd = r.json()

        # a burst of jobs through both APIs at once, each with the id of its request
        checks = []
        for i in range(CHECKS):
            other, other_token = await make_event(both[i % 2], name=f"Check {i}")
            checks.append((both[i % 2], other["id"], other_token, f"check-{i}"))
        answers = await asyncio.gather(
            *(
                api.client.post(
                    f"/v1/events/{ev}/integrity-check", headers={**bearer(tok), "X-Request-ID": rid}
                )
                for api, ev, tok, rid in checks
            )
        )
        assert [r.status_code for r in answers] == [202] * CHECKS
        check_ids = {r.json()["job_id"]: rid for r, (_, _, _, rid) in zip(answers, checks, strict=True)}

        jobs = await wait_for_jobs(pg_sessionmaker)
        for stream in live:  # every confirmed result once, in the order they were posted
            seen = [m.data["data"]["match_id"] for m in stream.seen if m.event == "match.confirmed"]
            assert seen == confirmed_ids
        await stack.aclose()

        # both APIs answer the same: standings, the rounds, the ratings
        assert await standings(a, eid) == await standings(b, eid)
        for number in range(1, ROUNDS + 1):
            ra = (await a.client.get(f"/v1/events/{eid}/rounds/{number}")).json()
            rb = (await b.client.get(f"/v1/events/{eid}/rounds/{number}")).json()
            assert ra == rb and all(m["status"] in ("confirmed", "bye") for m in ra["matches"])
        board_a = (await a.client.get("/v1/ratings/generic")).json()
        assert board_a == (await b.client.get("/v1/ratings/generic")).json()
        assert len(board_a["items"]) == len(PLAYERS)
        for job_id, rid in check_ids.items():
            seen = (await both[hash(job_id) % 2].client.get(f"/v1/jobs/{job_id}")).json()
            assert seen["status"] == "done" and seen["request_id"] == rid

    for proc in workers:
        assert stop(proc) == 0
    for proc, log in zip(apis, api_logs, strict=True):
        # uvicorn shuts down gracefully, then ends by the signal it was sent
        assert stop(proc) in (0, -signal.SIGTERM)
        assert any(line["msg"] == "Application shutdown complete." for line in log_lines(log))

    # nothing lost, nothing twice: every job done at its first attempt, each run by one worker once
    assert all(j.status == "done" and j.attempts == 1 for j in jobs), [
        (j.kind, j.status, j.error) for j in jobs
    ]
    ran = [
        [
            line["job_id"]
            for line in log_lines(log)
            if line["logger"] == "arbiter.jobs" and line["outcome"] == "done"
        ]
        for log in worker_logs
    ]
    assert all(ran), f"a worker ran nothing: {[len(r) for r in ran]}"
    assert sorted(ran[0] + ran[1]) == sorted(j.id for j in jobs)  # each once, on one worker only
    assert set(check_ids) <= {j.id for j in jobs}
    assert Counter(j.kind for j in jobs)["integrity_check"] == CHECKS

    async with pg_sessionmaker() as s:
        entries = (
            await s.execute(select(func.count()).select_from(Entry).where(Entry.event_id == eid))
        ).scalar()
        confirmed = (
            await s.execute(
                select(func.count())
                .select_from(Match)
                .where(Match.event_id == eid, Match.status == "confirmed")
            )
        ).scalar()
        rated = (
            await s.execute(
                select(func.count()).select_from(RatingHistory).where(RatingHistory.pool_key == "generic")
            )
        ).scalar()
        distinct = (
            await s.execute(
                select(func.count(func.distinct(RatingHistory.match_id))).where(
                    RatingHistory.pool_key == "generic"
                )
            )
        ).scalar()
    assert entries == len(PLAYERS)  # the retried registrations registered no one twice
    assert confirmed == reported == ROUNDS * len(PLAYERS) // 2
    assert rated == 2 * confirmed and distinct == confirmed  # every game rated once, for both seats

    # both APIs served, and each request's line carries its id into the job it enqueued
    served = [
        {line["request_id"] for line in log_lines(log) if line["logger"] == "arbiter.http"}
        for log in api_logs
    ]
    assert all(served)
    assert set(check_ids.values()) <= served[0] | served[1]
    for log in worker_logs:
        for line in log_lines(log):
            if line["logger"] == "arbiter.jobs" and line["job_id"] in check_ids:
                assert line["request_id"] == check_ids[line["job_id"]]
