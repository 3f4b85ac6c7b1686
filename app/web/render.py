"""The pages' one Jinja2 environment, the language of a request, and the answer of a page."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse, Response
from fastapi.routing import APIRoute
from jinja2 import Environment, FileSystemLoader, select_autoescape

from app.core.errors import DomainError
from app.web.i18n import LANGUAGES, decided_words, knob_label, pick_language, translator

HERE = Path(__file__).resolve().parent
LANG_COOKIE = "arbiter_lang"

env = Environment(
    loader=FileSystemLoader(HERE / "templates"),
    autoescape=select_autoescape(["html"]),
    trim_blocks=True,
    lstrip_blocks=True,
)


def site_url(request: Request) -> str:
    """The address this server is reached at, without a trailing slash: the base of every absolute
    link a page prints (QR codes, personal links, embed snippets)."""
    return str(request.base_url).rstrip("/")


def language(request: Request) -> str:
    """``?lang=`` (which also sets the cookie), then the cookie, then ``Accept-Language``."""
    asked = request.query_params.get("lang")
    if asked in LANGUAGES:
        return asked
    kept = request.cookies.get(LANG_COOKIE)
    if kept in LANGUAGES:
        return kept
    return pick_language(request.headers.get("accept-language", ""))


def page(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
    lang = language(request)
    t = translator(lang)
    html = env.get_template(template).render(
        request=request,
        lang=lang,
        t=t,
        decided=lambda reason: decided_words(lang, reason),
        knob_label=lambda path: knob_label(lang, path),
        path=request.url.path,
        **context,
    )
    response = HTMLResponse(html, status_code=status)
    if request.query_params.get("lang") in LANGUAGES:
        response.set_cookie(LANG_COOKIE, lang, max_age=365 * 86400, samesite="lax")
    response.headers["Content-Language"] = lang
    response.headers["Cache-Control"] = "no-store"
    return response


class PageRoute(APIRoute):
    """A page's route: a browser asking for a page (``GET``, ``Accept: text/html``) that the
    service refuses (an event that does not exist, say) gets an HTML page with the status and the
    reason; any other client keeps the API's problem+json."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def run(request: Request) -> Response:
            try:
                return await handler(request)
            except DomainError as exc:
                if request.method != "GET" or "text/html" not in request.headers.get("accept", ""):
                    raise
                return page(
                    request, "error.html", status=exc.status, status_code=exc.status, detail=exc.detail
                )

        return run
