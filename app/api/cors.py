"""Cross-origin calls from browsers (docs/api.md "CORS").

``ARBITER_CORS_ORIGINS`` lists the origins a front end may call the API from, with every method and
header (Starlette's ``CORSMiddleware`` answers for them). ``*`` in the list opens the **public reads**
to every other origin: a ``GET`` or ``HEAD`` that carries no token — what a league site's script
reads (events, standings, rounds, leaderboards, seasons, the live stream). A request that carries a
token (``Authorization``, or a cookie), and every other method, is answered without
``Access-Control-Allow-Origin`` for an origin not listed, and its preflight is refused: a token is
only ever sent from an origin the operator named.

**Ruling:** ``*`` never admits a token-bearing request, not even one with the browser's credentials
left out. Why: an origin that is not listed may be any site at all; a token pasted into one (a
player's link, an organizer's) must not be usable from it against this server.
"""

from __future__ import annotations

from starlette.datastructures import Headers, MutableHeaders
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

EXPOSED = ["ETag", "Location", "X-Request-ID", "Retry-After", "Idempotent-Replayed", "Link"]
PUBLIC_METHODS = ("GET", "HEAD")
# what a public read may ask to send besides the CORS-safelisted headers: a cache's tag and a
# stream's resumption point
PUBLIC_HEADERS = frozenset(
    {"accept", "accept-language", "content-language", "if-none-match", "last-event-id"}
)
MAX_AGE = "600"


class Cors:
    """The listed origins through Starlette's middleware; with ``*``, the token-less reads of any other."""

    def __init__(self, app: ASGIApp, origins: list[str]) -> None:
        self.app = app
        self.public = "*" in origins
        listed = [o for o in origins if o != "*"]
        self.listed = set(listed)
        self.full = CORSMiddleware(
            app, allow_origins=listed, allow_methods=["*"], allow_headers=["*"], expose_headers=EXPOSED
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        origin = headers.get("origin")
        if origin is None or origin in self.listed or not self.public:
            await self.full(scope, receive, send)
            return
        method = scope["method"]
        if method == "OPTIONS" and "access-control-request-method" in headers:
            await self._preflight(headers)(scope, receive, send)
            return
        if method not in PUBLIC_METHODS or "authorization" in headers or "cookie" in headers:
            await self.app(scope, receive, send)  # answered, but not readable by that origin's script
            return

        async def public(message: Message) -> None:
            if message["type"] == "http.response.start":
                out = MutableHeaders(scope=message)
                out["Access-Control-Allow-Origin"] = "*"
                out["Access-Control-Expose-Headers"] = ", ".join(EXPOSED)
                out.add_vary_header("Origin")
            await send(message)

        await self.app(scope, receive, public)

    @staticmethod
    def _preflight(headers: Headers) -> PlainTextResponse:
        asked = headers["access-control-request-method"].upper()
        wanted = {
            h.strip().lower()
            for h in headers.get("access-control-request-headers", "").split(",")
            if h.strip()
        }
        vary = {"Vary": "Origin"}
        if asked not in PUBLIC_METHODS:
            return PlainTextResponse(
                f"{asked} is not allowed from this origin: only GET and HEAD of public reads",
                400,
                headers=vary,
            )
        if not wanted <= PUBLIC_HEADERS:
            refused = ", ".join(sorted(wanted - PUBLIC_HEADERS))
            return PlainTextResponse(
                f"header {refused} is not allowed from this origin: public reads carry no token",
                400,
                headers=vary,
            )
        return PlainTextResponse(
            "OK",
            200,
            headers={
                **vary,
                "Access-Control-Allow-Origin": "*",
                "Access-Control-Allow-Methods": ", ".join(PUBLIC_METHODS),
                "Access-Control-Allow-Headers": ", ".join(sorted(wanted)) if wanted else "",
                "Access-Control-Max-Age": MAX_AGE,
            },
        )
