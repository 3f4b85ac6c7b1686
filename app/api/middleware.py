"""The request's own line and numbers: who sent it, a request id, one log line, the request metrics,
and the headers every answer carries.

A pure ASGI middleware, the outermost (it never buffers a body, so a streamed answer streams).

- **The client** is the socket's peer. Only when that peer is one of ``ARBITER_TRUSTED_PROXIES``
  (addresses or CIDR networks) is ``X-Forwarded-For`` read: the client is the right-most address in
  it that is not a trusted proxy (each proxy appends the address it was reached from, so what lies
  left of it is the client's own word), and a trusted proxy's ``X-Forwarded-Proto`` (``http`` or
  ``https``) is the request's scheme. The scope's ``client`` is rewritten here, so the guard's
  limits, the live streams' count per client and this log line all see the same address.
  ``arbiter serve`` turns uvicorn's own proxy headers off (it would trust 127.0.0.1): this is the
  one place that reads them (docs/operations.md "Deploy").
- **The request id** comes from ``X-Request-ID`` when the client sent a usable one, else is made
  here; it is answered in the response's ``X-Request-ID`` and kept in the context while the request
  runs, so every line the request logs and every job it enqueues carry it (``app/jobs.py``). When
  the answer is sent one line is logged — method, route template, status, duration, client, request
  id — and the request is counted under its route template, never its raw path (docs/operations.md
  "Logs").
- **The security headers** (docs/operations.md "Security headers"): every answer says
  ``X-Content-Type-Options: nosniff``; a page (``text/html``) also carries a Content-Security-Policy
  that admits only the server's own scripts, styles, images and connections (no inline script or
  style, no plugin, forms posting only to the server), ``Referrer-Policy: same-origin`` and a
  ``Permissions-Policy`` denying the camera, the microphone, geolocation, payment and USB. The pages
  that act with a token (the console, the player's pages, ``/docs``) may not be framed
  (``frame-ancestors 'none'``, ``X-Frame-Options: DENY``); the public, read-only pages may be, as
  they always could (a club's site showing its standings, a stream's overlay of the projector);
  the embeds (``/embed/…``) by the origins of ``ARBITER_EMBED_ORIGINS`` (``frame-ancestors``; any
  site by default).
"""

from __future__ import annotations

import ipaddress
import logging
import re
import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.observability import metrics
from app.observability.logs import accept_request_id, event, request_context

log = logging.getLogger("arbiter.http")

HEADER = "x-request-id"

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address

PAGE_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'"
)
UNFRAMED = re.compile(r"^/(console|docs)(/|$)|^/e/[^/]+/(me|m)(/|$)")
PERMISSIONS = "camera=(), microphone=(), geolocation=(), payment=(), usb=()"
_NOSNIFF = (b"x-content-type-options", b"nosniff")
_PAGE_HEADERS = [
    (b"referrer-policy", b"same-origin"),
    (b"permissions-policy", PERMISSIONS.encode()),
]
_FRAMEABLE_CSP = (b"content-security-policy", PAGE_POLICY.encode())
_UNFRAMED_CSP = (b"content-security-policy", f"{PAGE_POLICY}; frame-ancestors 'none'".encode())
_NO_FRAMES = (b"x-frame-options", b"DENY")


def _address(text: str) -> Address | None:
    """An address as a hop of ``X-Forwarded-For`` writes it (bare, ``v4:port``, ``[v6]:port``)."""
    text = text.strip()
    if text.startswith("["):
        text = text[1 : text.find("]")] if "]" in text else ""
    elif text.count(":") == 1:
        text = text.split(":", 1)[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _trusted(address: Address, proxies: tuple[Network, ...]) -> bool:
    return any(address in net for net in proxies)


def client_address(peer: str | None, forwarded: list[str], proxies: tuple[Network, ...]) -> str | None:
    """Who sent the request: ``peer``, unless it is a trusted proxy, then the right-most hop of
    ``forwarded`` (the ``X-Forwarded-For`` values, in order) that is not one; the left-most when
    every hop is trusted; the last trusted hop when the one before it is not an address."""
    if not proxies or peer is None:
        return peer
    current = _address(peer)
    if current is None or not _trusted(current, proxies):
        return peer
    hops = [hop for value in forwarded for hop in value.split(",") if hop.strip()]
    for hop in reversed(hops):
        address = _address(hop)
        if address is None:
            break
        current = address
        if not _trusted(address, proxies):
            break
    return str(current)


def _route(scope: Scope) -> str:
    route: Any = scope.get("route")
    path = getattr(route, "path", None)
    return path if isinstance(path, str) else metrics.UNMATCHED_ROUTE


def _answer_headers(
    headers: list[tuple[bytes, bytes]], path: str, request_id: str, embedders: str = "*"
) -> list[tuple[bytes, bytes]]:
    out = [(k, v) for k, v in headers if k.lower() != HEADER.encode()]
    out.append((HEADER.encode(), request_id.encode("latin-1")))
    names = {k.lower() for k, _ in out}
    if _NOSNIFF[0] not in names:
        out.append(_NOSNIFF)
    content_type = next((v for k, v in out if k.lower() == b"content-type"), b"")
    if content_type.startswith(b"text/html") and b"content-security-policy" not in names:
        out.extend(_PAGE_HEADERS)
        if UNFRAMED.match(path):
            out += [_UNFRAMED_CSP, _NO_FRAMES]
        elif path.startswith("/embed/"):
            out.append((b"content-security-policy", f"{PAGE_POLICY}; frame-ancestors {embedders}".encode()))
        else:
            out.append(_FRAMEABLE_CSP)
    return out


class RequestLogMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._proxies: tuple[Network, ...] | None = None
        self._embed_ancestors: str | None = None

    def _embedders(self, scope: Scope) -> str:
        """Who may frame the embeds (``ARBITER_EMBED_ORIGINS``), read once."""
        if self._embed_ancestors is None:
            self._embed_ancestors = str(scope["app"].state.settings.embed_ancestors)
        return self._embed_ancestors

    def _resolve_client(self, scope: Scope) -> None:
        """Rewrite the scope's client (and scheme) when its peer is a trusted proxy."""
        if self._proxies is None:
            self._proxies = scope["app"].state.settings.trusted_proxies
        if not self._proxies:
            return
        peer = scope.get("client")
        forwarded: list[str] = []
        proto: str | None = None
        for name, value in scope.get("headers", ()):
            if name == b"x-forwarded-for":
                forwarded.append(value.decode("latin-1"))
            elif name == b"x-forwarded-proto":
                proto = value.decode("latin-1").strip().lower()
        host = client_address(peer[0] if peer else None, forwarded, self._proxies)
        if host is None or not peer or host == peer[0]:
            return
        scope["client"] = (host, 0)
        if proto in ("http", "https"):
            scope["scheme"] = proto if scope["type"] == "http" else proto.replace("http", "ws")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            self._resolve_client(scope)
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        self._resolve_client(scope)
        sent = None
        for name, value in scope.get("headers", ()):
            if name == HEADER.encode():
                sent = value.decode("latin-1")
                break
        request_id = accept_request_id(sent)
        status = 500
        started = time.perf_counter()
        path = scope.get("path", "")

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message = {
                    **message,
                    "headers": _answer_headers(
                        list(message.get("headers", ())), path, request_id, self._embedders(scope)
                    ),
                }
            await send(message)

        try:
            with request_context(request_id):
                await self.app(scope, receive, send_with_id)
        finally:
            seconds = time.perf_counter() - started
            route = _route(scope)
            method = scope.get("method", "")
            metrics.observe_request(method, route, status, seconds)
            client = scope.get("client")
            with request_context(request_id):
                event(
                    log,
                    logging.INFO if status < 500 else logging.ERROR,
                    f"{method} {route} {status} {seconds * 1000:.1f}ms",
                    method=method,
                    route=route,
                    path=path,
                    status=status,
                    duration_ms=round(seconds * 1000, 3),
                    client=client[0] if client else None,
                )
