"""The request guard: what every request passes before a route sees it (api.md "Limits").

A pure ASGI middleware, in this order:

1. **Size.** A ``Content-Length`` over ``ARBITER_MAX_BODY_BYTES`` is a 413 before a byte is read;
   a body that grows past it while it streams in is a 413 too.
2. **The token before the body.** A request that carries a body and an ``Authorization`` header has
   its token resolved first (a malformed or unknown one is a 401, nothing read); the route reuses
   the principal (``deps.get_principal``).
3. **Time.** The body must arrive within ``ARBITER_BODY_TIMEOUT`` seconds (408 otherwise), so a
   client announcing a large body and sending nothing holds nothing for long.
4. **NUL.** A NUL character anywhere in the query, the path or a JSON string (or key) is a 422
   naming the field — on both backends alike: Postgres cannot store one, SQLite would keep it.
5. **Rate.** The anonymous CPU-heavy tools (``/v1/schedules/round-robin``, ``/v1/adjudicate/*``)
   take at most ``ARBITER_HEAVY_BURST`` requests per client address at once, refilled at
   ``ARBITER_HEAVY_PER_MINUTE``; past it a 429 with ``Retry-After``. The address is the one the
   request log middleware resolved (the socket's peer, or a trusted proxy's ``X-Forwarded-For``),
   and the count is shared by every process through Redis when it is configured
   (``app/api/limits.py``); so is the allowance of unknown tokens checked in step 2.

Then the buffered body is handed to the app as one message (a streamed *answer* still streams).
"""

from __future__ import annotations

import asyncio
import json
import math
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.deps import PRINCIPAL_STATE, parse_bearer, resolve_principal
from app.api.limits import TooManyFailures, client_of, limits_of
from app.api.problems import database_unavailable, is_database_outage, problem
from app.core.errors import Unauthorized
from app.db.session import READ_ONLY_OPTION

HEAVY_PREFIXES = ("/v1/schedules/round-robin", "/v1/adjudicate/")
_BODY_METHODS = {"POST", "PUT", "PATCH", "DELETE"}


def nul_path(value: Any, path: tuple[str | int, ...] = ()) -> tuple[str | int, ...] | None:
    """Where the first NUL character sits in a decoded JSON document (None: nowhere)."""
    if isinstance(value, str):
        return path if "\x00" in value else None
    if isinstance(value, dict):
        for k, v in value.items():
            if "\x00" in k:
                return (*path, k)
            found = nul_path(v, (*path, k))
            if found is not None:
                return found
    if isinstance(value, list):
        for i, v in enumerate(value):
            found = nul_path(v, (*path, i))
            if found is not None:
                return found
    return None


def _nul_problem(loc: list[Any]) -> JSONResponse:
    where = ".".join(str(p) for p in loc)
    return problem(
        422,
        "Invalid input",
        f"{where}: a NUL character is not allowed",
        type_="/problems/InvalidInput",
        errors=[{"loc": loc, "msg": "a NUL character is not allowed"}],
    )


class RequestGuardMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    def _settings(self, scope: Scope) -> Any:
        return scope["app"].state.settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        settings = self._settings(scope)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", ())}
        limit = int(settings.arbiter_max_body_bytes)

        # 1. the announced size
        length_text = headers.get("content-length")
        if length_text is not None:
            if not length_text.strip().isdigit():
                await problem(400, "Bad request", "Content-Length must be a number")(scope, receive, send)
                return
            if int(length_text) > limit:
                await self._too_large(scope, receive, send, limit)
                return

        # 4. NUL in the query or the path
        query = scope.get("query_string", b"")
        if b"%00" in query or b"\x00" in query:
            request = Request(scope)
            name = next((k for k, v in request.query_params.multi_items() if "\x00" in k + v), "")
            await _nul_problem(["query", name])(scope, receive, send)
            return
        raw_path = scope.get("raw_path") or scope.get("path", "").encode()
        if b"%00" in raw_path or "\x00" in scope.get("path", ""):
            await _nul_problem(["path"])(scope, receive, send)
            return

        # 5. the rate of the heavy tools
        path: str = scope.get("path", "")
        if path.startswith(HEAVY_PREFIXES):
            limits = limits_of(scope["app"])
            wait = await limits.take(limits.heavy, client_of(scope))
            if wait > 0:
                await problem(
                    429,
                    "Too many requests",
                    "this client sent too many requests to the scheduling and adjudication tools; "
                    "retry after the time in Retry-After",
                    retry_after=max(1, math.ceil(wait)),
                )(scope, receive, send)
                return

        # 2. a malformed Authorization is a 401 on every route, public ones too
        authorization = headers.get("authorization")
        if authorization is not None:
            try:
                parse_bearer(authorization)
            except Unauthorized as exc:
                await problem(401, "Unauthorized", exc.detail)(scope, receive, send)
                return

        has_body = length_text not in (None, "0") or "transfer-encoding" in headers
        if not has_body or scope.get("method") not in _BODY_METHODS:
            await self.app(scope, receive, send)
            return

        # 2. the token before the body
        if authorization:
            try:
                principal = await self._principal(scope, authorization)
            except Unauthorized as exc:
                await problem(401, "Unauthorized", exc.detail)(scope, receive, send)
                return
            except TooManyFailures as exc:
                await problem(
                    429, exc.title, exc.detail, type_="/problems/TooManyFailures", retry_after=exc.retry_after
                )(scope, receive, send)
                return
            except Exception as exc:
                if not is_database_outage(exc):
                    raise
                await database_unavailable(exc)(scope, receive, send)
                return
            scope.setdefault("state", {})[PRINCIPAL_STATE] = principal

        # 3. the body, within its time and size
        chunks: list[bytes] = []
        size = 0
        try:
            async with asyncio.timeout(float(settings.arbiter_body_timeout)):
                while True:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        return
                    chunk = message.get("body", b"")
                    size += len(chunk)
                    if size > limit:
                        await self._too_large(scope, receive, send, limit)
                        return
                    chunks.append(chunk)
                    if not message.get("more_body", False):
                        break
        except TimeoutError:
            await problem(
                408,
                "Request timeout",
                f"the request body did not arrive within {settings.arbiter_body_timeout} s",
                headers={"Connection": "close"},
            )(scope, receive, send)
            return
        body = b"".join(chunks)

        # 4. NUL in the body
        if b"\\u0000" in body or b"\x00" in body:
            loc: list[Any] | None = None
            if "json" in headers.get("content-type", "json"):
                try:
                    found = nul_path(json.loads(body))
                except ValueError:
                    found = None  # not JSON: the route's own parsing answers
                if found is not None:
                    loc = ["body", *found]
            else:
                loc = ["body"]
            if loc is not None:
                await _nul_problem(loc)(scope, receive, send)
                return

        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _principal(self, scope: Scope, authorization: str) -> Any:
        """The token's principal, on a connection of its own that opens no transaction: one
        statement, before the request's own session exists (which may wait for SQLite's writer)."""
        request = Request(scope)
        engine = scope["app"].state.engine
        async with engine.connect() as conn:
            if engine.dialect.name == "postgresql":
                conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
            else:  # SQLite: a WAL reader's deferred transaction (app/db/session.py)
                conn = await conn.execution_options(**{READ_ONLY_OPTION: True})
            return await resolve_principal(request, conn, authorization)

    async def _too_large(self, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        await problem(
            413,
            "Content too large",
            f"the request body is larger than {limit} bytes",
            headers={"Connection": "close"},
        )(scope, receive, send)
