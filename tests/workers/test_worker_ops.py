"""The worker as an operator sees it, as a real process on real Redis and Postgres: it says what it
runs with, writes one JSON line per job carrying the id of the request that enqueued it, and one when
it stops; stopped mid-job, it hands the job back, and another worker finishes it at once instead of
after the job's deadline; ``arbiter worker --check`` follows that worker's own heartbeat, and a
metrics port that is taken leaves the worker running without metrics."""

from __future__ import annotations

import asyncio
import signal
import socket
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from app.db.base import utcnow
from app.db.models import Job
from app.jobs import ArqDispatcher, commit_and_dispatch, create_job
from app.version import __version__
from tests.support.api import Api, bearer, setup_event
from tests.support.processes import arbiter, env, log_lines, spawn, stop
from tests.support.services import redis_url
from tests.support.workers import start_worker, wait_job


async def test_the_worker_says_it_starts_runs_each_job_and_stops(
    redis_api: Api, pg_url: str, pg_sessionmaker: Any, queue: str, worker_procs: list[Any], tmp_path: Path
) -> None:
    log = tmp_path / "worker.log"
    environ = env(
        DATABASE_URL=pg_url, REDIS_URL=redis_url(), ARBITER_QUEUE_NAME=queue, ARBITER_LOG_FORMAT="json"
    )
    worker = spawn("worker", environ=environ, log=log)
    worker_procs.append(worker)
    sent: dict[str, str] = {}
    for i in range(3):
        eid, token, _ = await setup_event(redis_api, ["Ada", "Grace"], name=f"Check {i}")
        r = await redis_api.client.post(
            f"/v1/events/{eid}/integrity-check", headers={**bearer(token), "X-Request-ID": f"desk-{i}"}
        )
        sent[r.json()["job_id"]] = f"desk-{i}"
    for job_id in sent:
        assert (await wait_job(pg_sessionmaker, job_id, {"done", "failed"})).status == "done"
    assert stop(worker) == 0
    lines = log_lines(log)

    hello = lines[0]
    assert hello["msg"].startswith(f"arbiter worker {__version__} started")
    assert hello["database"] == "postgresql" and queue in hello["queue"] and hello["concurrency"] == 10
    jobs = [line for line in lines if line["logger"] == "arbiter.jobs"]
    assert {line["job_id"]: line["request_id"] for line in jobs} == sent
    assert all(line["kind"] == "integrity_check" and line["outcome"] == "done" for line in jobs)
    assert all(line["attempt"] == 1 and line["duration_ms"] > 0 for line in jobs) and len(jobs) == 3
    bye = lines[-1]
    assert bye["msg"] == "arbiter worker stopped: ran 3 done" and bye["done"] == 3
    assert not [line for line in lines if line["logger"].startswith("arq")]  # arq's own lines stay quiet


async def test_a_stopped_worker_hands_its_job_back(
    pg_url: str, pg_sessionmaker: Any, queue: str, worker_procs: list[Any], tmp_path: Path
) -> None:
    log = tmp_path / "first.log"
    first = start_worker(
        "tests.workers.slow_worker",
        pg_url,
        queue,
        log=log,
        ARBITER_LOG_FORMAT="json",
        ARBITER_WORKER_SHUTDOWN_WAIT="1",
    )
    worker_procs.append(first)
    async with pg_sessionmaker() as s:
        job = await create_job(s, "stalling_integrity_check", {"event_id": "no-such-event"})
        await commit_and_dispatch(s, ArqDispatcher(redis_url(), queue))
    running = await wait_job(pg_sessionmaker, job.id, {"running"})
    # a lease, renewed while it runs, not the kind's ten minutes
    assert running.deadline_at is not None and running.deadline_at < utcnow() + timedelta(seconds=60)

    stopped_at = time.monotonic()
    first.send_signal(signal.SIGTERM)  # a deploy: the job still has ten minutes of its time
    assert first.wait(timeout=30) == 0
    assert time.monotonic() - stopped_at < 15
    async with pg_sessionmaker() as s:
        back = await s.get(Job, job.id)
        assert back is not None and back.status == "running" and back.attempts == 1
        assert back.deadline_at is not None and back.deadline_at <= utcnow()  # handed back
    (line,) = [line for line in log_lines(log) if line.get("job_id") == job.id]
    assert line["outcome"] == "handed back" and line["attempt"] == 1

    worker_procs.append(start_worker("tests.workers.slow_worker", pg_url, queue))
    done = await wait_job(pg_sessionmaker, job.id, {"done", "failed"}, within=30)
    # the second attempt runs the real check: the event does not exist
    assert done.status == "failed" and "not found" in (done.error or "") and done.attempts == 2


async def test_a_killed_workers_job_is_taken_over_within_its_lease(
    pg_url: str, pg_sessionmaker: Any, queue: str, worker_procs: list[Any]
) -> None:
    """The job has ten minutes of its kind's time, but its lease is 6 s: renewed while the worker
    lives, it lapses once the worker is SIGKILLed, and another worker takes the job over."""
    lease = 6
    first = start_worker("tests.workers.slow_worker", pg_url, queue, ARBITER_JOB_LEASE=str(lease))
    worker_procs.append(first)
    async with pg_sessionmaker() as s:
        job = await create_job(s, "stalling_integrity_check", {"event_id": "no-such-event"})
        await commit_and_dispatch(s, ArqDispatcher(redis_url(), queue))
    running = await wait_job(pg_sessionmaker, job.id, {"running"})
    assert running.deadline_at is not None
    await asyncio.sleep(lease * 0.8)
    async with pg_sessionmaker() as s:
        renewed = await s.get(Job, job.id)
        assert renewed is not None and renewed.deadline_at is not None
        assert renewed.deadline_at > running.deadline_at  # the lease was renewed while it ran
    second = start_worker("tests.workers.slow_worker", pg_url, queue, ARBITER_JOB_LEASE=str(lease))
    worker_procs.append(second)
    await asyncio.sleep(1)  # the second worker is up and sweeping
    killed_at = time.monotonic()
    stop(first, signal.SIGKILL)
    while time.monotonic() - killed_at < 60:
        async with pg_sessionmaker() as s:
            row = await s.get(Job, job.id)
            assert row is not None
            if row.attempts >= 2:
                break
        await asyncio.sleep(0.1)
    takeover = time.monotonic() - killed_at
    print(f"takeover {takeover:.1f} s after the worker was killed (lease {lease} s, sweep 1 s)")
    assert row.attempts == 2, "the job was not taken over"
    assert takeover < lease + 1 + 5
    done = await wait_job(pg_sessionmaker, job.id, {"done", "failed"}, within=30)
    assert done.status == "failed" and "not found" in (done.error or "") and done.attempts == 2


async def test_the_check_follows_this_workers_heartbeat(
    pg_url: str, queue: str, worker_procs: list[Any], tmp_path: Path
) -> None:
    """Healthy while it runs; stuck (SIGSTOP) it fails within three beats; stopped, at once — while
    another worker of the same queue runs on. Its metrics port taken, it runs without metrics."""
    beat = 1.0
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]

    def environ(name: str, **more: str) -> dict[str, str]:
        return env(
            DATABASE_URL=pg_url,
            REDIS_URL=redis_url(),
            ARBITER_QUEUE_NAME=queue,
            ARBITER_LOG_FORMAT="json",
            ARBITER_WORKER_HEARTBEAT_PATH=str(tmp_path / f"{name}.heartbeat"),
            ARBITER_WORKER_HEARTBEAT_SECONDS=str(beat),
            **more,
        )

    def check(name: str) -> Any:
        return arbiter("worker", "--check", environ=environ(name))

    log = tmp_path / "worker.log"
    worker = spawn("worker", environ=environ("one", ARBITER_WORKER_METRICS_PORT=str(port)), log=log)
    other = spawn("worker", environ=environ("two"), log=tmp_path / "other.log")
    worker_procs.extend([worker, other])
    try:
        assert check("one").returncode == 1  # nothing beats before the worker is up
        await _until(lambda: (tmp_path / "one.heartbeat").exists() and (tmp_path / "two.heartbeat").exists())
        healthy = check("one")
        assert healthy.returncode == 0 and f"worker {worker.pid} healthy" in healthy.stdout, healthy.stderr

        worker.send_signal(signal.SIGSTOP)  # stuck: its file stays, its beats stop
        stuck_at = time.monotonic()
        while (stuck := check("one")).returncode == 0:
            assert time.monotonic() - stuck_at < 3 * beat + 5, "still healthy long after its last beat"
        print(
            f"stuck worker unhealthy {time.monotonic() - stuck_at:.1f} s after it stopped (bound {3 * beat} s)"
        )
        assert "last heartbeat" in stuck.stderr and "stuck or cannot reach Redis" in stuck.stderr
        assert check("two").returncode == 0  # the other replica is healthy, and says nothing of this one
        worker.send_signal(signal.SIGCONT)
        await _until(lambda: check("one").returncode == 0)

        assert stop(worker) == 0
        gone = check("one")
        assert gone.returncode == 1 and "no heartbeat" in gone.stderr  # stopped: unhealthy at once
        assert check("two").returncode == 0
    finally:
        taken.close()
    lines = log_lines(log)
    (warning,) = [line for line in lines if line["level"] == "WARNING"]
    assert f"cannot serve metrics on 127.0.0.1:{port}" in warning["msg"] and "without them" in warning["msg"]
    hello = next(line for line in lines if "started" in line["msg"])
    assert hello["metrics_port"] is None and hello["heartbeat_path"] == str(tmp_path / "one.heartbeat")


async def _until(condition: Any, within: float = 30) -> None:
    deadline = time.monotonic() + within
    while not condition():
        assert time.monotonic() < deadline, "the condition did not come true in time"
        await asyncio.sleep(0.1)
