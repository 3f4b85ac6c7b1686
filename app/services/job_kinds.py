"""Every job kind the workers run, by name. Each is a thin call into a service."""

from __future__ import annotations

from app.jobs import JobKind
from app.services.integrity import integrity_job

KINDS: dict[str, JobKind] = {
    "integrity_check": JobKind(fn=integrity_job, timeout=300, max_attempts=5),
}
