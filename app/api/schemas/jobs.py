"""Jobs and the health answers (api.md "Jobs", "Health")."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import (
    BaseModel,
)

from app.core.vocabulary import (
    JobKindName,
    JobStatus,
)


class JobAccepted(BaseModel):
    job_id: str


class JobRead(BaseModel):
    id: str
    kind: JobKindName
    status: JobStatus
    progress: float
    result: dict[str, Any] | None
    error: str | None
    attempts: int
    created_at: datetime
    finished_at: datetime | None
    request_id: str | None = None


class Health(BaseModel):
    status: str
    version: str
    database: str | None = None
    queue: str | None = None
