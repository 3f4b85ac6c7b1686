"""The pages' one Jinja2 environment, the language of a request, and the answer of a page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from jinja2 import Environment, FileSystemLoader, select_autoescape

from app.web.i18n import LANGUAGES, decided_words, pick_language, translator

HERE = Path(__file__).resolve().parent
LANG_COOKIE = "arbiter_lang"

env = Environment(
    loader=FileSystemLoader(HERE / "templates"),
    autoescape=select_autoescape(["html"]),
    trim_blocks=True,
    lstrip_blocks=True,
)


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
        path=request.url.path,
        **context,
    )
    response = HTMLResponse(html, status_code=status)
    if request.query_params.get("lang") in LANGUAGES:
        response.set_cookie(LANG_COOKIE, lang, max_age=365 * 86400, samesite="lax")
    response.headers["Content-Language"] = lang
    response.headers["Cache-Control"] = "no-store"
    return response
