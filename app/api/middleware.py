"""The request's own line and numbers: a request id, one log line, the request metrics.

A pure ASGI middleware (it never buffers a body, so a streamed answer streams). It takes the
request id from ``X-Request-ID`` when the client sent a usable one, else makes one; returns it in
the response's ``X-Request-ID``; keeps it in the context while the request runs, so every line the
request logs and every job it enqueues carry it (``app/jobs.py``). When the answer is sent it logs
one line — method, route template, status, duration, request id — and counts the request under its
route template, never its raw path (docs/operations.md "Logs").
"""

from __future__ import annotations

import logging
import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.observability import metrics
from app.observability.logs import accept_request_id, event, request_context

log = logging.getLogger("arbiter.http")

HEADER = "x-request-id"


def _route(scope: Scope) -> str:
    route: Any = scope.get("route")
    path = getattr(route, "path", None)
    return path if isinstance(path, str) else metrics.UNMATCHED_ROUTE


class RequestLogMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        sent = None
        for name, value in scope.get("headers", ()):
            if name == HEADER.encode():
                sent = value.decode("latin-1")
                break
        request_id = accept_request_id(sent)
        status = 500
        started = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = [(k, v) for k, v in message.get("headers", ()) if k.lower() != HEADER.encode()]
                headers.append((HEADER.encode(), request_id.encode("latin-1")))
                message = {**message, "headers": headers}
            await send(message)

        try:
            with request_context(request_id):
                await self.app(scope, receive, send_with_id)
        finally:
            seconds = time.perf_counter() - started
            route = _route(scope)
            method = scope.get("method", "")
            metrics.observe_request(method, route, status, seconds)
            with request_context(request_id):
                event(
                    log,
                    logging.INFO if status < 500 else logging.ERROR,
                    f"{method} {route} {status} {seconds * 1000:.1f}ms",
                    method=method,
                    route=route,
                    path=scope.get("path", ""),
                    status=status,
                    duration_ms=round(seconds * 1000, 3),
                )
