"""``Idempotency-Key`` on creating and reporting POSTs (api.md "Idempotency").

The first response is stored in the same transaction as the change it reports (the request's,
committed by the request boundary). A retry with the same key and the same body gets that
response again; the same key with another body is a 409. Keys are scoped to the caller (its
token) and the route, so two clients can never collide. Two concurrent first attempts: one
commits, the other's insert of the key conflicts, its change is rolled back and it answers with
the stored response.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import Request
from fastapi.encoders import jsonable_encoder
from fastapi.responses import JSONResponse
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.access import Principal
from app.core.errors import Conflict
from app.db.models import IdempotencyKey
from app.jobs import discard_pending

# The operations that accept an Idempotency-Key (api.md "Idempotency"); the OpenAPI document declares
# the header on them, and run_idempotent refuses to serve any other.
IDEMPOTENT = frozenset(
    {
        "create_player",
        "create_game",
        "create_event",
        "create_entry",
        "create_round",
        "report_result",
        "confirm_result",
        "append_match_log",
    }
)

Handler = Callable[[], Awaitable[tuple[int, Any, dict[str, str]]]]


def _hash(body: Any) -> str:
    return hashlib.sha256(json.dumps(jsonable_encoder(body), sort_keys=True).encode()).hexdigest()


async def _replay(session: AsyncSession, scope: str, key: str, digest: str) -> JSONResponse | None:
    row = await session.get(IdempotencyKey, (scope, key), populate_existing=True)
    if row is None:
        return None
    if row.request_hash != digest:
        raise Conflict(f"Idempotency-Key {key!r} was already used with a different request body")
    headers = dict(row.headers or {})
    headers["Idempotent-Replayed"] = "true"
    return JSONResponse(row.response, status_code=row.status_code, headers=headers)


async def run_idempotent(
    request: Request,
    session: AsyncSession,
    principal: Principal | None,
    body: Any,
    handler: Handler,
) -> JSONResponse:
    """Run ``handler`` (which changes the session; the request boundary commits) at most once per key."""
    route = request.scope.get("route")
    if getattr(route, "operation_id", None) not in IDEMPOTENT:
        raise RuntimeError(f"{getattr(route, 'operation_id', None)} is not declared in IDEMPOTENT")
    key = request.headers.get("Idempotency-Key")
    if not key:
        status, payload, headers = await handler()
        return JSONResponse(jsonable_encoder(payload), status_code=status, headers=headers)
    if len(key) > 200:
        raise Conflict("Idempotency-Key is longer than 200 characters")
    scope = f"{principal.scope if principal else 'anonymous'}|{request.method} {request.url.path}"
    digest = _hash(body)
    replay = await _replay(session, scope, key, digest)
    if replay is not None:
        return replay
    status, payload, headers = await handler()
    encoded = jsonable_encoder(payload)
    session.add(
        IdempotencyKey(
            scope=scope, key=key, request_hash=digest, status_code=status, response=encoded, headers=headers
        )
    )
    try:
        await session.flush()
    except IntegrityError:
        await session.rollback()
        discard_pending(session)
        replay = await _replay(session, scope, key, digest)
        if replay is None:
            raise
        return replay
    return JSONResponse(encoded, status_code=status, headers=headers)
