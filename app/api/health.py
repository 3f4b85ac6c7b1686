from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from app.api.deps import SessionDep
from app.api.problems import OUTAGE_RETRY_AFTER, problem
from app.api.schemas import Health
from app.db.session import ping as ping_database
from app.version import __version__

router = APIRouter(tags=["health"])


@router.get("/healthz", operation_id="healthz", response_model=Health)
async def healthz() -> Health:
    """The process is up (and its version)."""
    return Health(status="ok", version=__version__)


@router.get(
    "/readyz", operation_id="readyz", response_model=Health, responses={503: {"description": "not ready"}}
)
async def readyz(request: Request, session: SessionDep) -> Health | JSONResponse:
    """The database and the queue are reachable."""
    try:
        await ping_database(session)
    except Exception as exc:
        return problem(
            503,
            "Not ready",
            f"database unreachable: {type(exc).__name__}",
            retry_after=OUTAGE_RETRY_AFTER,
        )
    queue = "in-process"
    ping = getattr(request.app.state.dispatcher, "ping", None)
    if ping is not None:
        try:
            await ping()
            queue = "ok"
        except Exception as exc:
            return problem(
                503, "Not ready", f"queue unreachable: {type(exc).__name__}", retry_after=OUTAGE_RETRY_AFTER
            )
    return Health(status="ok", version=__version__, database="ok", queue=queue)
