"""The embeds: an event's standings, current round and brackets as small pages for other sites to
frame (docs/web.md "Embeds"). Each reads the event as its public page does (``views.event_page``),
follows the live stream as every page does, and may be framed by the origins of
``ARBITER_EMBED_ORIGINS`` (the ``frame-ancestors`` the request middleware sends for ``/embed/``)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from app.api.deps import SessionDep
from app.core.errors import NotFound
from app.web.render import PageRoute, page
from app.web.views import LIVE_TYPES, event_page

router = APIRouter(include_in_schema=False, route_class=PageRoute)

Theme = Annotated[Literal["light", "dark"], Query(description="the embed's colours")]
Limit = Annotated[int | None, Query(ge=1, le=1000, description="rows (or tables) shown at most")]
EMBEDS = ("standings", "round", "bracket")


@router.get("/embed/e/{event_id}/{part}", response_class=HTMLResponse)
async def embed(
    request: Request,
    event_id: str,
    part: str,
    session: SessionDep,
    theme: Theme = "light",
    limit: Limit = None,
) -> HTMLResponse:
    if part not in EMBEDS:
        raise NotFound(f"no embed {part!r}: there are {', '.join(EMBEDS)}")
    p = await event_page(session, event_id)
    return page(request, "embed.html", p=p, part=part, theme=theme, limit=limit, live_types=LIVE_TYPES)


def snippets(base: str, event_id: str) -> list[tuple[str, str]]:
    """The copy-paste ``<iframe>`` of each embed of an event, as its public page shows them."""
    return [
        (
            part,
            f'<iframe src="{base}/embed/e/{event_id}/{part}?theme=light" title="{part}" '
            f'width="100%" height="420" loading="lazy"></iframe>',
        )
        for part in EMBEDS
    ]
