"""The queue seam: durable jobs carried by arq in production, run in-process on the embedded default.

A job's row is the truth. It is written in the same transaction as the change that needs it
(``create_job``), and only after that transaction commits is its id handed to a carrier
(``commit_and_dispatch``); a rollback drops it. arq runs a job at least once and forgets
jobs when Redis loses data, so:

- ``run_job`` *claims* the row atomically (queued, or running past its deadline) before
  running, so a duplicate delivery is a no-op and a job whose worker died is taken over;
- the job function writes its answer and the row's ``done`` in one transaction, so a
  job killed midway leaves nothing half-written and simply runs again;
- ``sweep`` (an arq cron, or a loop in-process) re-dispatches jobs stuck queued or
  running past their deadline, and fails those that used up their attempts.

Each job kind (``JobKind``: its function, its time limit, its attempts) is the one source of its
limits: ``run_job`` stops a job at its kind's ``timeout`` (a running row's deadline is a lease,
renewed while the attempt runs and never past that time: ``run_job``'s docstring), and
``run_job`` and ``sweep`` both give up after the kind's ``max_attempts``. The kinds themselves are
handed in by the entry points (``app/wiring.py``); this module knows none of them.

A job carries the id of the request that enqueued it: its log lines bear it, and ``run_job`` writes
one line per attempt (kind, id, attempt, duration, outcome) and counts it in the metrics. An attempt
the carrier cancels (a worker stopping) is handed back: its deadline ends at once, so the next sweep
gives it to another worker.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import traceback
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from sqlalchemy import or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.core.errors import DomainError, NotFound
from app.core.vocabulary import JobStatus
from app.db.base import utcnow
from app.db.models import Job
from app.observability.logs import current_request_id, event, request_context
from app.observability.metrics import observe_job

log = logging.getLogger("arbiter.jobs")

PENDING_KEY = "arbiter_pending_jobs"


# Progress of jobs running in this process on SQLite, where it cannot be written to the job's row
# while the job's own transaction holds the database's one write lock (GET /v1/jobs reads it here).
_LIVE_PROGRESS: dict[str, float] = {}


def live_progress(job_id: str) -> float | None:
    return _LIVE_PROGRESS.get(job_id)


class JobContext:
    """What a job function gets besides its session: its id, its args and a progress reporter."""

    def __init__(self, sessionmaker: async_sessionmaker[AsyncSession], job: Job) -> None:
        self.sessionmaker = sessionmaker
        self.job_id = job.id
        self.kind = job.kind
        self.args = dict(job.args)
        self.attempt = job.attempts
        self.request_id = job.request_id
        self._last = 0.0
        bind = sessionmaker.kw.get("bind")
        self._single_writer = bind is not None and bind.dialect.name == "sqlite"

    async def progress(self, value: float) -> None:
        """Record progress (0–1) in its own short transaction, at most every 1% (in memory on SQLite)."""
        value = max(0.0, min(1.0, value))
        if value < 1.0 and value - self._last < 0.01:
            return
        self._last = value
        if self._single_writer:
            _LIVE_PROGRESS[self.job_id] = value
            return
        async with self.sessionmaker() as s:
            await s.execute(
                update(Job)
                .where(Job.id == self.job_id, Job.status == JobStatus.RUNNING)
                .values(progress=value)
            )
            await s.commit()


# A job's answer is JSON; its function's return type (a TypedDict) is that answer's schema in the
# OpenAPI document (``JobRead.result``, app/api/contract.py).
JobFn = Callable[[AsyncSession, JobContext], Awaitable[Mapping[str, Any]]]


@dataclass(frozen=True)
class JobKind:
    """A kind of job: its function, the seconds one attempt may run, and the attempts it gets."""

    fn: JobFn
    timeout: int = 600
    max_attempts: int = 5


JobKinds = Mapping[str, JobKind]


def max_attempts(kinds: JobKinds, kind: str) -> int:
    """The kind's attempts; a kind this process does not know counts JobKind's default."""
    spec = kinds.get(kind)
    return spec.max_attempts if spec is not None else JobKind.max_attempts


class Dispatcher(Protocol):
    async def dispatch(self, job_ids: list[str]) -> None: ...

    async def close(self) -> None: ...


async def create_job(
    session: AsyncSession,
    kind: str,
    args: dict[str, Any] | None = None,
    *,
    dedup_key: str | None = None,
) -> Job:
    """Add a job row to the caller's transaction; it is dispatched once that transaction commits.

    With ``dedup_key``, an unfinished job with the same key is returned instead of a new one.
    """
    if dedup_key is not None:
        existing = (
            await session.execute(
                select(Job).where(Job.dedup_key == dedup_key, Job.status == JobStatus.QUEUED).limit(1)
            )
        ).scalar_one_or_none()
        if existing is not None:
            return existing
    job = Job(
        id=str(uuid.uuid4()),
        kind=kind,
        args=args or {},
        dedup_key=dedup_key,
        request_id=current_request_id(),
        status=JobStatus.QUEUED,
        progress=0.0,
        attempts=0,
        enqueued_at=utcnow(),
    )
    session.add(job)
    session.info.setdefault(PENDING_KEY, []).append(job.id)
    return job


async def commit_and_dispatch(session: AsyncSession, dispatcher: Dispatcher) -> None:
    """Commit, then hand the jobs created in this transaction to the carrier."""
    await session.commit()
    ids: list[str] = session.info.pop(PENDING_KEY, [])
    if ids:
        try:
            await dispatcher.dispatch(ids)
        except Exception:  # the rows are committed: the sweep will carry them later
            log.exception("could not dispatch jobs %s; the sweep will retry", ids)


def discard_pending(session: AsyncSession) -> None:
    session.info.pop(PENDING_KEY, None)


async def get_job(session: AsyncSession, job_id: str) -> Job:
    job = await session.get(Job, job_id)
    if job is None:
        raise NotFound(f"job {job_id} not found")
    return job


def job_progress(job: Job) -> float:
    """A job's progress, live for a job running in this process on SQLite."""
    if job.status == JobStatus.RUNNING:
        return live_progress(job.id) or job.progress
    return job.progress


DEFAULT_LEASE = 30  # seconds (ARBITER_JOB_LEASE)
INTERNAL_ERROR = "internal error"  # the first line of an unexpected failure: all a non-admin sees


def _single_writer(sessionmaker: async_sessionmaker[AsyncSession]) -> bool:
    bind = sessionmaker.kw.get("bind")
    return bind is not None and bind.dialect.name == "sqlite"


async def run_job(
    sessionmaker: async_sessionmaker[AsyncSession],
    job_id: str,
    kinds: JobKinds,
    *,
    lease: int = DEFAULT_LEASE,
    dispatcher: Dispatcher | None = None,
) -> str:
    """Claim and run one job; returns the job's status afterwards (or 'skipped', 'timed out'). The
    jobs the job itself created (a webhook delivery of a change it announced) are handed to
    ``dispatcher`` once its transaction commits (without one, the sweep carries them).

    A running job holds a *lease*: its row's deadline, ``lease`` seconds ahead, renewed every third
    of it while the attempt runs. A worker that dies stops renewing, so the sweep takes the job over
    within a lease and a sweep interval. On SQLite — one process, one writer, whose job transaction
    holds the write lock — the deadline is the kind's timeout instead (a process that dies takes its
    jobs with it; the next start resumes them)."""
    now = utcnow()
    single_writer = _single_writer(sessionmaker)
    async with sessionmaker() as s:
        job = await s.get(Job, job_id)
        if job is None:
            return "skipped"
        spec = kinds.get(job.kind)
        if spec is None:
            await _fail(s, job_id, f"unknown job kind {job.kind!r}")
            _finished(job.kind, job_id, job.attempts, JobStatus.FAILED, 0.0, job.request_id)
            return JobStatus.FAILED
        if job.attempts >= spec.max_attempts and job.status in (JobStatus.QUEUED, JobStatus.RUNNING):
            await _fail(s, job_id, f"gave up after {job.attempts} attempts")
            _finished(job.kind, job_id, job.attempts, JobStatus.FAILED, 0.0, job.request_id)
            return JobStatus.FAILED
        claimed = await s.execute(
            update(Job)
            .where(
                Job.id == job_id,
                or_(
                    Job.status == JobStatus.QUEUED,
                    (Job.status == JobStatus.RUNNING) & (Job.deadline_at < now),
                ),
            )
            .values(
                status=JobStatus.RUNNING,
                attempts=Job.attempts + 1,
                started_at=now,
                timeout_seconds=spec.timeout,
                deadline_at=now
                + timedelta(seconds=spec.timeout if single_writer else min(lease, spec.timeout)),
                error=None,
            )
        )
        await s.commit()
        if claimed.rowcount != 1:  # type: ignore[attr-defined]
            return "skipped"
        job = await s.get(Job, job_id, populate_existing=True)
        assert job is not None
        ctx = JobContext(sessionmaker, job)

    started = time.monotonic()
    outcome = HANDED_BACK
    ends = now + timedelta(seconds=spec.timeout)  # no lease outlives the attempt's own time
    renewal = None if single_writer else asyncio.create_task(_keep_lease(ctx, lease, ends))
    try:
        with request_context(ctx.request_id):
            async with sessionmaker() as s:
                try:
                    outcome = await _run(s, spec, ctx)
                finally:
                    _LIVE_PROGRESS.pop(job_id, None)
                created: list[str] = s.info.pop(PENDING_KEY, [])
        if created and outcome == JobStatus.DONE and dispatcher is not None:
            try:
                await dispatcher.dispatch(created)
            except Exception:  # the rows are committed: the sweep will carry them later
                log.exception("could not dispatch jobs %s; the sweep will retry", created)
    finally:
        if renewal is not None:
            renewal.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await renewal
        _finished(ctx.kind, job_id, ctx.attempt, outcome, time.monotonic() - started, ctx.request_id)
    return outcome


async def _keep_lease(ctx: JobContext, lease: int, ends: datetime) -> None:
    """Renew the attempt's lease every third of it while it runs; a failed renewal is tried again at
    the next beat (the lease outlives two missed beats)."""
    while True:
        await asyncio.sleep(lease / 3)
        try:
            async with ctx.sessionmaker() as s:
                renewed = await s.execute(
                    update(Job)
                    .where(Job.id == ctx.job_id, Job.status == JobStatus.RUNNING, Job.attempts == ctx.attempt)
                    .values(deadline_at=min(utcnow() + timedelta(seconds=lease), ends))
                )
                await s.commit()
            if renewed.rowcount != 1:  # type: ignore[attr-defined]
                return  # finished, or taken over by another attempt: nothing of ours to keep
        except Exception:
            log.warning("could not renew the lease of job %s; trying again", ctx.job_id)


HANDED_BACK = "handed back"


def _finished(
    kind: str, job_id: str, attempt: int, outcome: str, seconds: float, request_id: str | None
) -> None:
    """The attempt's one log line and its metrics."""
    observe_job(kind, outcome, seconds)
    with request_context(request_id):
        event(
            log,
            logging.INFO if outcome == JobStatus.DONE else logging.WARNING,
            f"job {kind} {outcome} {seconds * 1000:.1f}ms",
            kind=kind,
            job_id=job_id,
            attempt=attempt,
            outcome=str(outcome),
            duration_ms=round(seconds * 1000, 3),
        )


async def _run(s: AsyncSession, spec: JobKind, ctx: JobContext) -> str:
    """Run the job function and record its end in the same transaction as its answer."""
    job_id = ctx.job_id
    try:
        async with asyncio.timeout(spec.timeout):
            result = await spec.fn(s, ctx)
        await s.execute(
            update(Job)
            .where(Job.id == job_id)
            .values(status=JobStatus.DONE, progress=1.0, result=result, finished_at=utcnow())
        )
        await s.commit()
        return JobStatus.DONE
    except TimeoutError:
        # The attempt used its kind's time: the row stays running past its deadline, so the sweep
        # retries it (or fails it once its attempts are used up), as after a crash.
        await s.rollback()
        log.warning("job %s ran out of its %d s; the sweep retries it", job_id, spec.timeout)
        return "timed out"
    except DomainError as exc:
        await s.rollback()
        await _fail(s, job_id, exc.detail)
        return JobStatus.FAILED
    except asyncio.CancelledError:
        # The carrier cancelled it (a worker stopping, or arq's own timeout): hand it back.
        with contextlib.suppress(Exception):
            await s.rollback()
        await _hand_back(ctx)
        raise
    except Exception as exc:
        await s.rollback()
        log.exception("job %s failed", job_id)
        await _fail(
            s, job_id, f"{INTERNAL_ERROR}\n{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)}"
        )
        return JobStatus.FAILED


async def _hand_back(ctx: JobContext) -> None:
    """End a cancelled attempt's deadline now, so the next sweep re-dispatches it; should this fail,
    the deadline passes on its own."""
    try:
        async with asyncio.timeout(5), ctx.sessionmaker() as s:
            await s.execute(
                update(Job)
                .where(Job.id == ctx.job_id, Job.status == JobStatus.RUNNING)
                .values(deadline_at=utcnow())
            )
            await s.commit()
    except Exception:
        log.warning("could not hand job %s back; the sweep retries it after its deadline", ctx.job_id)


async def _fail(s: AsyncSession, job_id: str, error: str) -> None:
    await s.execute(
        update(Job)
        .where(Job.id == job_id)
        .values(status=JobStatus.FAILED, error=error[:4000], finished_at=utcnow())
    )
    await s.commit()


async def sweep(
    sessionmaker: async_sessionmaker[AsyncSession],
    dispatcher: Dispatcher,
    kinds: JobKinds,
    *,
    stale_queued_seconds: int,
) -> list[str]:
    """Re-dispatch jobs stuck queued or running past their deadline; fail those whose kind's
    attempts are used up (a kind this process does not know counts the default attempts)."""
    now = utcnow()
    async with sessionmaker() as s:
        rows = (
            (
                await s.execute(
                    select(Job).where(
                        or_(
                            (Job.status == JobStatus.QUEUED)
                            & (Job.enqueued_at < now - timedelta(seconds=stale_queued_seconds)),
                            (Job.status == JobStatus.RUNNING) & (Job.deadline_at < now),
                        )
                    )
                )
            )
            .scalars()
            .all()
        )
        ids: list[str] = []
        for job in rows:
            if job.attempts >= max_attempts(kinds, job.kind):
                job.status = JobStatus.FAILED
                job.error = f"gave up after {job.attempts} attempts"
                job.finished_at = now
            else:
                job.enqueued_at = now
                ids.append(job.id)
        await s.commit()
    if ids:
        log.warning("sweep: re-dispatching %d stuck job(s)", len(ids))
        await dispatcher.dispatch(ids)
    return ids


class InProcessDispatcher:
    """The embedded default: run each job as an asyncio task in this process."""

    def __init__(
        self, sessionmaker: async_sessionmaker[AsyncSession], kinds: JobKinds, lease: int = DEFAULT_LEASE
    ) -> None:
        self.sessionmaker = sessionmaker
        self.kinds = kinds
        self.lease = lease
        self.tasks: set[asyncio.Task[str]] = set()

    async def dispatch(self, job_ids: list[str]) -> None:
        for job_id in job_ids:
            task = asyncio.create_task(
                run_job(self.sessionmaker, job_id, self.kinds, lease=self.lease, dispatcher=self)
            )
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

    async def drain(self) -> None:
        while self.tasks:
            await asyncio.gather(*list(self.tasks), return_exceptions=True)

    async def close(self, grace: float = 10.0) -> None:
        """Let running jobs finish for ``grace`` seconds, then hand the rest back (cancelled, their
        deadline ended): the next start's sweep resumes them, so a stopping process never waits on a
        queue of long searches."""
        if not self.tasks:
            return
        _, pending = await asyncio.wait(list(self.tasks), timeout=grace)
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)


class ArqDispatcher:
    """Production: enqueue on arq. The arq job id is fresh per dispatch so a re-dispatch is never
    swallowed by arq's de-duplication of an id whose record outlived a dead worker; the claim in
    ``run_job`` makes any duplicate delivery a no-op. It starts with the queue's name, so every key
    arq keeps for a job names its queue (deployments that share one Redis never meet)."""

    def __init__(self, redis_url: str, queue_name: str) -> None:
        self.redis_url = redis_url
        self.queue_name = queue_name
        self._pool: Any = None

    async def _get_pool(self) -> Any:
        if self._pool is None:
            from arq import create_pool
            from arq.connections import RedisSettings

            self._pool = await create_pool(
                RedisSettings.from_dsn(self.redis_url), default_queue_name=self.queue_name
            )
        return self._pool

    async def dispatch(self, job_ids: list[str]) -> None:
        pool = await self._get_pool()
        for job_id in job_ids:
            await pool.enqueue_job(
                "run_job", job_id, _job_id=f"{self.queue_name}:{job_id}:{uuid.uuid4().hex[:12]}"
            )

    async def ping(self) -> bool:
        pool = await self._get_pool()
        return bool(await pool.ping())

    async def close(self) -> None:
        if self._pool is not None:
            await self._pool.aclose()
            self._pool = None
