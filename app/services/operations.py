"""What an operator asks of the database: the jobs by kind and status for ``GET /metrics``, and the
retention that prunes what is kept only for a while (docs/operations.md "Retention").

Nothing here commits: ``GET /metrics`` only reads, and the pruning's callers (the worker's cron and
the in-process loop of the embedded default) are their own boundary and commit what it deleted.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.vocabulary import DeliveryStatus, JobStatus
from app.db.base import utcnow
from app.db.models import IdempotencyKey, Job, OutboxEvent, WebhookDelivery
from app.observability.metrics import JobCount, Snapshot
from app.services.ratings import pool_lag
from app.settings import Settings
from app.version import __version__

FINISHED = (JobStatus.DONE, JobStatus.FAILED)


async def job_counts(
    session: AsyncSession, kinds: Iterable[str], now: datetime | None = None
) -> tuple[list[JobCount], dict[str, float]]:
    """Every (kind, status) with its count — zero for the known kinds' statuses that have none — and
    each kind's oldest queued job's age in seconds (0 when none waits). A queued job has never
    started, so its age counts from its creation (the sweep's re-dispatch does not reset it)."""
    now = now or utcnow()
    counts: dict[tuple[str, str], int] = {(k, s): 0 for k in kinds for s in JobStatus}
    oldest: dict[str, float] = {k: 0.0 for k in kinds}
    rows = await session.execute(
        select(Job.kind, Job.status, func.count(), func.min(Job.created_at)).group_by(Job.kind, Job.status)
    )
    for kind, status, count, first in rows:
        counts[(kind, status)] = int(count)
        if status == JobStatus.QUEUED and first is not None:
            oldest[kind] = max(0.0, (now - first).total_seconds())
    return [JobCount(k, s, c) for (k, s), c in sorted(counts.items())], oldest


async def metrics_snapshot(
    session: AsyncSession, kinds: Iterable[str], *, database: str, queue: str
) -> Snapshot:
    """What ``GET /metrics`` reads from the database: jobs, the oldest queued job, rating pools' lag."""
    now = utcnow()
    jobs, oldest = await job_counts(session, kinds, now)
    return Snapshot(
        version=__version__,
        database=database,
        queue=queue,
        jobs=jobs,
        oldest_queued=oldest,
        pools=await pool_lag(session, now),
    )


# --------------------------------------------------------------------------- retention


@dataclass(frozen=True)
class Prunable:
    """Rows kept for a while: the table's model, the column that dates a row, and which rows may go
    at all (a job only once it finished)."""

    name: str
    model: Any
    dated_by: Any
    only: Sequence[Any] = ()


# One row per kind of data that is pruned; its setting is ARBITER_RETAIN_<NAME>_… (app/settings.py).
PRUNABLE: tuple[Prunable, ...] = (
    Prunable("idempotency_keys", IdempotencyKey, IdempotencyKey.created_at),
    Prunable("jobs", Job, Job.finished_at, (Job.status.in_(FINISHED),)),
    Prunable(
        "webhook_deliveries",
        WebhookDelivery,
        WebhookDelivery.created_at,
        (WebhookDelivery.status != DeliveryStatus.PENDING,),
    ),
    Prunable("outbox", OutboxEvent, OutboxEvent.created_at),
)


def retention_of(settings: Settings) -> dict[str, timedelta | None]:
    """How long each prunable kind is kept (None: forever)."""

    def keep(value: float, unit: str) -> timedelta | None:
        return timedelta(**{unit: value}) if value > 0 else None

    return {
        "idempotency_keys": keep(settings.arbiter_retain_idempotency_hours, "hours"),
        "jobs": keep(settings.arbiter_retain_jobs_days, "days"),
        "webhook_deliveries": keep(settings.arbiter_retain_webhook_deliveries_days, "days"),
        "outbox": keep(settings.arbiter_retain_outbox_days, "days"),
    }


async def prune(
    session: AsyncSession, retention: dict[str, timedelta | None], now: datetime | None = None
) -> dict[str, int]:
    """Delete what is older than its retention; the rows deleted, by kind. Not committed."""
    now = now or utcnow()
    deleted: dict[str, int] = {}
    for kind in PRUNABLE:
        keep = retention.get(kind.name)
        if keep is None:
            continue
        res = await session.execute(delete(kind.model).where(kind.dated_by < now - keep, *kind.only))
        deleted[kind.name] = int(res.rowcount or 0)  # type: ignore[attr-defined]
    return deleted
