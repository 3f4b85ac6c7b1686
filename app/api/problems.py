"""Every failure as application/problem+json (RFC 9457), mapped in one place."""

from __future__ import annotations

import logging
import time
from typing import Any

import asyncpg
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DBAPIError, IntegrityError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as SATimeoutError
from sqlalchemy.orm.exc import StaleDataError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import compile_path

from app.core.errors import DomainError, InvalidInput

log = logging.getLogger("arbiter.api")

PROBLEM = "application/problem+json"


def problem(
    status: int,
    title: str,
    detail: str,
    *,
    type_: str = "about:blank",
    retry_after: int | None = None,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> JSONResponse:
    body: dict[str, Any] = {"type": type_, "title": title, "status": status, "detail": detail}
    body.update(extra)
    out = {"WWW-Authenticate": "Bearer"} if status == 401 else {}
    out.update(headers or {})
    if retry_after is not None:
        out["Retry-After"] = str(retry_after)
    return JSONResponse(body, status_code=status, media_type=PROBLEM, headers=out or None)


# --------------------------------------------------------------------------- the database away

OUTAGE_RETRY_AFTER = 5  # seconds a client is asked to wait while the database is unreachable
_OUTAGE_LOG_EVERY = 30.0
_outage: dict[str, Any] = {"logged_at": -_OUTAGE_LOG_EVERY, "since_logged": 0}
BUSY_RETRY_AFTER = 1  # seconds a client is asked to wait when no pooled connection came free in time
_busy: dict[str, Any] = {"logged_at": -_OUTAGE_LOG_EVERY, "since_logged": 0}


def is_database_outage(exc: BaseException) -> bool:
    """The database cannot be reached (refused, dropped, shutting down, pool exhausted, locked),
    as opposed to a bug or bad data: the error or anything it was raised from."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, (OperationalError, InterfaceError, SATimeoutError, OSError)):
            return True
        if isinstance(current, DBAPIError) and current.connection_invalidated:
            return True
        if isinstance(current, (asyncpg.PostgresConnectionError, asyncpg.InterfaceError)):
            return True
        if isinstance(current, asyncpg.exceptions.OperatorInterventionError):
            return True
        current = current.__cause__ or current.__context__
    return False


def pool_exhausted(exc: BaseException) -> bool:
    """No connection of the pool came free within its timeout (``sqlalchemy.exc.TimeoutError``,
    which the pool alone raises): the server is busy, the database may well be fine."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, SATimeoutError):
            return True
        current = current.__cause__ or current.__context__
    return False


def _log_throttled(state: dict[str, Any], message: str, *args: Any) -> None:
    """``message`` (with the requests answered so since the last line) at most once per
    ``_OUTAGE_LOG_EVERY`` seconds."""
    now = time.monotonic()
    state["since_logged"] += 1
    if now - state["logged_at"] >= _OUTAGE_LOG_EVERY:
        log.warning(message + " (%d request(s) since the last line)", *args, state["since_logged"])
        state["logged_at"] = now
        state["since_logged"] = 0


def database_unavailable(exc: BaseException) -> JSONResponse:
    """A 503 with Retry-After — the server busy (no pooled connection came free in time) or the
    database unreachable; one log line per ``_OUTAGE_LOG_EVERY`` seconds saying which, not a
    traceback per request."""
    first_line = str(exc).splitlines()[0][:200] if str(exc) else ""
    if pool_exhausted(exc):
        _log_throttled(
            _busy,
            "server busy: no database connection came free in time (%s); answering 503 with Retry-After",
            first_line,
        )
        return problem(
            503,
            "Server busy",
            "every database connection of this server is in use and none came free in time; the "
            "database is reachable: retry after the time in Retry-After",
            type_="/problems/ServerBusy",
            retry_after=BUSY_RETRY_AFTER,
        )
    _log_throttled(
        _outage,
        "database unavailable (%s: %s); answering 503 with Retry-After",
        type(exc).__name__,
        first_line,
    )
    return problem(
        503,
        "Service unavailable",
        "the database is unreachable; retry after the time in Retry-After",
        type_="/problems/ServiceUnavailable",
        retry_after=OUTAGE_RETRY_AFTER,
    )


def _loc(loc: tuple[Any, ...] | list[Any]) -> list[Any]:
    return [p for p in loc]


def _leaf_routes(routes: Any, prefix: str = "") -> Any:
    for route in routes:
        inner = getattr(route, "original_router", None)
        if inner is not None:  # a router included in the app
            context = getattr(route, "include_context", None)
            yield from _leaf_routes(inner.routes, prefix + str(getattr(context, "prefix", "") or ""))
        elif getattr(route, "methods", None) and isinstance(getattr(route, "path", None), str):
            yield prefix + route.path, set(route.methods)


def allowed_methods(request: Request) -> str:
    """Every method the request's path takes, over all the routes that share it (the router names only
    the first route it met)."""
    table = getattr(request.app.state, "allow_table", None)
    if table is None:
        table = [(compile_path(path)[0], methods) for path, methods in _leaf_routes(request.app.routes)]
        request.app.state.allow_table = table
    path = request.scope.get("path", "")
    methods: set[str] = set()
    for regex, route_methods in table:
        if regex.match(path):
            methods |= route_methods
    return ", ".join(sorted(methods))


def install(app: FastAPI) -> None:
    @app.exception_handler(DomainError)
    async def _domain(_: Request, exc: DomainError) -> JSONResponse:
        extra: dict[str, Any] = {}
        if isinstance(exc, InvalidInput):
            extra["errors"] = [{"loc": _loc(p.loc), "msg": p.msg} for p in exc.problems]
        rule = getattr(exc, "rule", None)
        if rule is not None:
            extra["rule"] = rule
        slug = type(exc).__name__
        retry_after = getattr(exc, "retry_after", None)
        return problem(
            exc.status, exc.title, exc.detail, type_=f"/problems/{slug}", retry_after=retry_after, **extra
        )

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [{"loc": _loc(e.get("loc", ())), "msg": e.get("msg", "invalid")} for e in exc.errors()]
        first = errors[0] if errors else {"loc": [], "msg": "invalid"}
        detail = f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}"
        if len(errors) > 1:
            detail += f" (and {len(errors) - 1} more)"
        return problem(422, "Invalid input", detail, type_="/problems/InvalidInput", errors=errors)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        titles = {404: "Not found", 405: "Method not allowed", 401: "Unauthorized", 403: "Forbidden"}
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            headers["Allow"] = allowed_methods(request)
        return problem(
            exc.status_code, titles.get(exc.status_code, "Error"), str(exc.detail), headers=headers
        )

    @app.exception_handler(StaleDataError)
    async def _stale(_: Request, exc: StaleDataError) -> JSONResponse:
        return problem(
            409, "Conflict", "the resource was changed by another request; read it again and retry"
        )

    @app.exception_handler(IntegrityError)
    async def _integrity(_: Request, exc: IntegrityError) -> JSONResponse:
        log.info("integrity error: %s", exc.orig)
        return problem(
            409, "Conflict", "the request conflicts with existing data (a duplicate or a missing reference)"
        )

    async def _outage_or_bug(_: Request, exc: Exception) -> JSONResponse:
        if is_database_outage(exc):
            return database_unavailable(exc)
        log.exception("unhandled error")
        return problem(500, "Internal server error", "an unexpected error occurred; it has been logged")

    for kind in (DBAPIError, SATimeoutError, OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
        app.add_exception_handler(kind, _outage_or_bug)

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
        if is_database_outage(exc):
            return database_unavailable(exc)
        log.exception("unhandled error")
        return problem(500, "Internal server error", "an unexpected error occurred; it has been logged")
