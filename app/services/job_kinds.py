"""Every job kind the workers run, by name, with its limits (the one place they are set).
Each is a thin call into a service."""

from __future__ import annotations

from collections.abc import Mapping

from app.core.vocabulary import JobKindName
from app.jobs import JobKind
from app.services.integrity import integrity_job
from app.services.ratings import recompute_job, update_job
from app.services.schedules import schedule_job, stage_schedule_job
from app.services.webhooks import delivery_job

KINDS: Mapping[str, JobKind] = {
    JobKindName.INTEGRITY_CHECK: JobKind(fn=integrity_job, timeout=300, max_attempts=5),
    JobKindName.RATINGS_UPDATE: JobKind(fn=update_job, timeout=300, max_attempts=5),
    JobKindName.RATINGS_RECOMPUTE: JobKind(fn=recompute_job, timeout=900, max_attempts=5),
    JobKindName.ROUND_ROBIN_SCHEDULE: JobKind(fn=schedule_job, timeout=300, max_attempts=3),
    JobKindName.STAGE_SCHEDULE: JobKind(fn=stage_schedule_job, timeout=300, max_attempts=3),
    # one attempt at one webhook delivery; a failed attempt schedules the next itself (webhooks.py)
    JobKindName.WEBHOOK_DELIVERY: JobKind(fn=delivery_job, timeout=60, max_attempts=3),
}
