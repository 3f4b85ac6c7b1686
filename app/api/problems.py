"""Every failure as application/problem+json (RFC 9457), mapped in one place."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm.exc import StaleDataError
from starlette.exceptions import HTTPException as StarletteHTTPException

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
    **extra: Any,
) -> JSONResponse:
    body: dict[str, Any] = {"type": type_, "title": title, "status": status, "detail": detail}
    body.update(extra)
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else {}
    if retry_after is not None:
        headers["Retry-After"] = str(retry_after)
    return JSONResponse(body, status_code=status, media_type=PROBLEM, headers=headers or None)


def _loc(loc: tuple[Any, ...] | list[Any]) -> list[Any]:
    return [p for p in loc]


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
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        titles = {404: "Not found", 405: "Method not allowed", 401: "Unauthorized", 403: "Forbidden"}
        return problem(exc.status_code, titles.get(exc.status_code, "Error"), str(exc.detail))

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

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error")
        return problem(500, "Internal server error", "an unexpected error occurred; it has been logged")
