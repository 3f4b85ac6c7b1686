from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from app.api.deps import SessionDep
from app.api.schemas import JobRead
from app.core.vocabulary import JobKindName, JobStatus
from app.db.models import Job
from app.jobs import get_job as load_job
from app.jobs import job_progress

router = APIRouter(prefix="/v1/jobs", tags=["jobs"])


def accepted(job: Job) -> JSONResponse:
    """The answer to a request whose work runs as a job: 202, its id, and where to follow it."""
    return JSONResponse({"job_id": job.id}, status_code=202, headers={"Location": f"/v1/jobs/{job.id}"})


def job_read(j: Job) -> JobRead:
    return JobRead(
        id=j.id,
        kind=JobKindName(j.kind),
        status=JobStatus(j.status),
        progress=job_progress(j),
        result=j.result,
        error=j.error,
        attempts=j.attempts,
        created_at=j.created_at,
        finished_at=j.finished_at,
        request_id=j.request_id,
    )


@router.get("/{job_id}", operation_id="get_job", response_model=JobRead)
async def get_job(job_id: str, session: SessionDep) -> JobRead:
    """A job's status (queued, running, done, failed), progress (0–1) and result or error."""
    return job_read(await load_job(session, job_id))
