"""Real arq worker processes on real Redis and Postgres: starting and stopping them, and waiting for
the jobs they run."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from redis.asyncio import Redis

from app.db.models import Job
from tests.support.services import redis_url

ROOT = Path(__file__).resolve().parents[2]


def start_worker(
    module: str, db: str, queue: str, *, log: Path | None = None, **settings: str
) -> subprocess.Popen[bytes]:
    """``python -m module`` as a worker on ``db`` and the test Redis, taking jobs from ``queue``;
    ``settings`` are more environment variables; its log lines go to the file ``log`` (or nowhere: a
    pipe nobody reads would stall a worker that writes a line per job)."""
    env = {
        **os.environ,
        "DATABASE_URL": db,
        "REDIS_URL": redis_url(),
        "ARBITER_QUEUE_NAME": queue,
        "ARBITER_SWEEP_SECONDS": "1",
        "ARBITER_JOB_STALE_QUEUED": "1",
        **settings,
    }
    err = log.open("ab") if log is not None else subprocess.DEVNULL
    try:
        return subprocess.Popen(
            [sys.executable, "-m", module], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=err
        )
    finally:
        if log is not None:
            err.close()  # type: ignore[union-attr]


async def redis_keys(pattern: str = "*") -> set[str]:
    """The keys of the test Redis database matching ``pattern`` (SCAN, never KEYS)."""
    redis = Redis.from_url(redis_url(), decode_responses=True)
    try:
        return {k async for k in redis.scan_iter(match=pattern, count=500)}
    finally:
        await redis.aclose()


async def drop_queue_keys(queue: str) -> int:
    """Delete every key that names ``queue`` — all a queue's keys do (app/jobs.py ArqDispatcher,
    workers/main.py) — and nothing else: the suite never FLUSHDBs a database it shares."""
    keys = await redis_keys(f"*{queue}*")
    if not keys:
        return 0
    redis = Redis.from_url(redis_url())
    try:
        return int(await redis.delete(*keys))
    finally:
        await redis.aclose()


def stop(proc: subprocess.Popen[bytes], sig: int = signal.SIGTERM) -> None:
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


async def wait_job(sessionmaker: Any, job_id: str, want: set[str], within: float = 30) -> Job:
    """Poll the job's row until its status is one of ``want``; fail after ``within`` seconds."""
    deadline = time.monotonic() + within
    while True:
        async with sessionmaker() as s:
            job = await s.get(Job, job_id)
            assert job is not None
            if job.status in want:
                return job
        if time.monotonic() > deadline:
            raise AssertionError(f"job {job_id} stayed {job.status} (attempts {job.attempts})")
        await asyncio.sleep(0.2)
