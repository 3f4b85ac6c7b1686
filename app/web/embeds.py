"""The embeds: an event's standings, current round and brackets, and a rating pool's leaderboard, as
small pages for other sites to frame (docs/web.md "Embeds"). An event's read it as its public page
does (``views.event_page``) and follow its live stream as every page does; the leaderboard reads
``ratings.leaderboard``, as ``GET /v1/ratings/{pool}`` does, and follows the pool's stream as the
leaderboard's page does; a season's table reads ``seasons.table``, as ``GET
/v1/seasons/{id}/standings`` and the season's page do, and follows the season's stream as its page
does. All may be framed by the origins of ``ARBITER_EMBED_ORIGINS`` (the ``frame-ancestors`` the
request middleware sends for ``/embed/``)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from app.api.deps import SessionDep
from app.core.errors import NotFound
from app.services import ratings as rating_svc
from app.services import seasons as season_svc
from app.web.render import PageRoute, page
from app.web.views import LIVE_TYPES, POOL_LIVE_TYPES, SEASON_LIVE_TYPES, event_page

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


BOARD_ROWS = 20  # a leaderboard embed's rows unless ``limit`` says


@router.get("/embed/ratings/{pool}", response_class=HTMLResponse)
async def leaderboard(
    request: Request, pool: str, session: SessionDep, theme: Theme = "light", limit: Limit = None
) -> HTMLResponse:
    rows, _ = await rating_svc.leaderboard(session, pool, min(limit or BOARD_ROWS, 500), None, None)
    return page(
        request, "embed_leaderboard.html", pool=pool, rows=rows, theme=theme, live_types=POOL_LIVE_TYPES
    )


@router.get("/embed/seasons/{season_id}", response_class=HTMLResponse)
async def season(
    request: Request, season_id: str, session: SessionDep, theme: Theme = "light", limit: Limit = None
) -> HTMLResponse:
    table = await season_svc.table(session, season_id)
    return page(
        request,
        "embed_season.html",
        table=table,
        theme=theme,
        limit=limit or BOARD_ROWS,
        live_types=SEASON_LIVE_TYPES,
    )


def frame(src: str, title: str) -> str:
    """The copy-paste ``<iframe>`` of one embed."""
    return f'<iframe src="{src}" title="{title}" width="100%" height="420" loading="lazy"></iframe>'


def snippets(base: str, event_id: str) -> list[tuple[str, str]]:
    """The copy-paste ``<iframe>`` of each embed of an event, as its public page shows them."""
    return [(part, frame(f"{base}/embed/e/{event_id}/{part}?theme=light", part)) for part in EMBEDS]
