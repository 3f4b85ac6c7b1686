from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from app.api.deps import MaybePrincipal, SessionDep
from app.api.schemas import JobRead
from app.core.access import Principal
from app.core.vocabulary import JobKindName, JobStatus, Role
from app.db.models import Job
from app.jobs import INTERNAL_ERROR, job_progress
from app.jobs import get_job as load_job


def is_admin(principal: Principal | None) -> bool:
    return principal is not None and principal.role is Role.ADMIN


router = APIRouter(prefix="/v1/jobs", tags=["jobs"])


def accepted(job: Job) -> JSONResponse:
    """The answer to a request whose work runs as a job: 202, its id, and where to follow it."""
    return JSONResponse({"job_id": job.id}, status_code=202, headers={"Location": f"/v1/jobs/{job.id}"})


def job_read(j: Job, principal: Principal | None = None) -> JobRead:
    """A job as the API shows it: an unexpected failure's traceback only to the admin."""
    error = j.error
    if error is not None and error.startswith(INTERNAL_ERROR) and not is_admin(principal):
        error = f"{INTERNAL_ERROR} (the server's log holds it under request id {j.request_id or '-'})"
    return JobRead(
        id=j.id,
        kind=JobKindName(j.kind),
        status=JobStatus(j.status),
        progress=job_progress(j),
        result=j.result,
        error=error,
        attempts=j.attempts,
        created_at=j.created_at,
        finished_at=j.finished_at,
        request_id=j.request_id,
    )


@router.get("/{job_id}", operation_id="get_job", response_model=JobRead)
async def get_job(job_id: str, session: SessionDep, principal: MaybePrincipal) -> JobRead:
    """A job's status (queued, running, done, failed), progress (0–1) and result or error (an
    unexpected failure's details only to the admin)."""
    return job_read(await load_job(session, job_id), principal)
