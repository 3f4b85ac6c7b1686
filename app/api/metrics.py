"""``GET /metrics``: Prometheus's text format, for the admin token or the metrics token
(docs/operations.md "Metrics"). Not part of the JSON contract, so not in the OpenAPI document."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from app.api.auth import Monitor
from app.api.deps import SessionDep
from app.observability.metrics import CONTENT_TYPE, render
from app.services.operations import metrics_snapshot

router = APIRouter(tags=["operations"])


@router.get("/metrics", include_in_schema=False)
async def metrics(request: Request, session: SessionDep, who: Monitor) -> Response:
    state = request.app.state
    snapshot = await metrics_snapshot(
        session,
        state.registry.job_kinds,
        database=state.engine.dialect.name,
        queue="redis" if state.settings.redis_url else "in-process",
    )
    return Response(render(snapshot), media_type=CONTENT_TYPE)
