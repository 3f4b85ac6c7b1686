"""Every job kind the workers run, by name. Each is a thin call into a service."""

from __future__ import annotations

from app.jobs import JobKind
from app.services.integrity import integrity_job
from app.services.ratings import recompute_job, update_job
from app.services.schedules import schedule_job, stage_schedule_job

KINDS: dict[str, JobKind] = {
    "integrity_check": JobKind(fn=integrity_job, timeout=300, max_attempts=5),
    "ratings_update": JobKind(fn=update_job, timeout=300, max_attempts=5),
    "ratings_recompute": JobKind(fn=recompute_job, timeout=900, max_attempts=5),
    "round_robin_schedule": JobKind(fn=schedule_job, timeout=300, max_attempts=3),
    "stage_schedule": JobKind(fn=stage_schedule_job, timeout=300, max_attempts=3),
}
