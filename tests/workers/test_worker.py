"""Jobs through real Redis and a real arq worker process, against real Postgres."""

from __future__ import annotations

import asyncio
import signal
from datetime import timedelta
from typing import Any

from app.db.base import utcnow
from app.db.models import Job
from app.jobs import ArqDispatcher, commit_and_dispatch, create_job
from tests.support.api import Api, bearer, setup_event
from tests.support.services import redis_url
from tests.support.workers import drop_queue_keys, start_worker, stop, wait_job


async def test_integrity_job_runs_in_a_real_worker(
    redis_api: Api, pg_url: str, pg_sessionmaker: Any, queue: str, worker_procs: list[Any]
) -> None:
    api = redis_api
    r = await api.client.get("/readyz")
    assert r.json()["queue"] == "ok"
    eid, token, _ = await setup_event(api, ["Ada", "Grace"], name="Q")
    r = await api.client.post(f"/v1/events/{eid}/integrity-check", headers=bearer(token))
    job_id = r.json()["job_id"]
    # nothing runs it until a worker comes: it waits queued in Redis
    await asyncio.sleep(0.3)
    assert (await api.client.get(f"/v1/jobs/{job_id}")).json()["status"] == "queued"
    worker_procs.append(start_worker("workers.main", pg_url, queue))
    await wait_job(pg_sessionmaker, job_id, {"done", "failed"})
    job = (await api.client.get(f"/v1/jobs/{job_id}")).json()
    assert job["status"] == "done", job
    assert job["result"]["ok"] is True and job["result"]["checked"]["entries"] == 2
    assert job["attempts"] == 1


async def test_killed_worker_job_is_finished_by_the_sweep(
    redis_api: Api, pg_url: str, pg_sessionmaker: Any, queue: str, worker_procs: list[Any]
) -> None:
    api = redis_api
    eid, _, _ = await setup_event(api, ["Ada"], name="K")

    first = start_worker("tests.workers.slow_worker", pg_url, queue)
    worker_procs.append(first)
    async with pg_sessionmaker() as s:
        job = await create_job(s, "slow_integrity_check", {"event_id": eid})
        await commit_and_dispatch(s, ArqDispatcher(redis_url(), queue))
    running = await wait_job(pg_sessionmaker, job.id, {"running"})
    assert running.attempts == 1

    stop(first, signal.SIGKILL)  # killed mid-job
    # and Redis loses all it carried for the queue: only the database still knows about the job
    assert await drop_queue_keys(queue) > 0
    async with pg_sessionmaker() as s:
        assert (await s.get(Job, job.id)).status == "running"

    worker_procs.append(start_worker("tests.workers.slow_worker", pg_url, queue))
    done = await wait_job(pg_sessionmaker, job.id, {"done", "failed"}, within=45)
    assert done.status == "done", done.error
    assert done.attempts == 2
    assert done.result is not None and done.result["ok"] is True


async def test_sweep_carries_a_job_whose_message_was_lost(
    pg_url: str, pg_sessionmaker: Any, queue: str, worker_procs: list[Any]
) -> None:
    """The job row committed but never reached Redis (say, Redis was down): the sweep enqueues it."""
    async with pg_sessionmaker() as s:
        job = await create_job(s, "integrity_check", {"event_id": "no-such-event"})
        job.enqueued_at = utcnow() - timedelta(minutes=5)
        await s.commit()  # committed, never dispatched
    worker_procs.append(start_worker("workers.main", pg_url, queue))
    done = await wait_job(pg_sessionmaker, job.id, {"done", "failed"})
    # a job for a missing event fails with the domain error, once, and is not retried
    assert done.status == "failed" and "not found" in (done.error or "")
    assert done.attempts == 1


async def test_schedule_search_runs_in_a_real_worker(
    redis_api: Api, pg_url: str, pg_sessionmaker: Any, queue: str, worker_procs: list[Any]
) -> None:
    worker_procs.append(start_worker("workers.main", pg_url, queue))
    r = await redis_api.client.post(
        "/v1/schedules/round-robin", json={"players": 15, "table_size": 3, "rounds": True, "time_budget": 10}
    )
    assert r.status_code == 202
    job = await wait_job(pg_sessionmaker, r.json()["job_id"], {"done", "failed"})
    assert job.status == "done", job.error
    assert job.result is not None and len(job.result["tables"]) == 35 and len(job.result["rounds"]) == 7
    assert job.progress == 1.0
