"""A league's public pages (docs/web.md "Rating pages"): the rating pools, a pool's leaderboard (live:
it follows the pool's stream, ``GET /v1/ratings/{pool}/stream``), a player's page with their events
and rating charts, the seasons, and a season's table (live: it follows the season's stream, ``GET
/v1/seasons/{id}/stream``, as an event's page follows the event's). Each reads the service the API's
route reads (``GET /v1/ratings``, ``GET /v1/ratings/{pool}``, ``GET /v1/players/{id}/ratings``,
``GET /v1/seasons``, ``GET /v1/seasons/{id}/standings``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from app.api.deps import SessionDep
from app.api.paging import bad_cursor, decode_cursor, encode_cursor
from app.core import ratings as core
from app.services import profiles as profile_svc
from app.services import ratings as rating_svc
from app.services import seasons as season_svc
from app.web.charts import rating_chart
from app.web.embeds import frame
from app.web.i18n import translator
from app.web.render import PageRoute, language, page, site_url
from app.web.views import POOL_LIVE_TYPES, SEASON_LIVE_TYPES

router = APIRouter(include_in_schema=False, route_class=PageRoute)

POOLS_PER_PAGE = 50
SEASONS_PER_PAGE = 50
ROWS_PER_PAGE = 50
Cursor = Annotated[str | None, Query(max_length=200)]


@router.get("/ratings", response_class=HTMLResponse)
async def pools(request: Request, session: SessionDep, cursor: Cursor = None) -> HTMLResponse:
    after = decode_cursor(cursor) if cursor else None
    if cursor and not isinstance(after, str):
        raise bad_cursor()
    rows, last = await rating_svc.pools(session, POOLS_PER_PAGE, after)
    return page(request, "ratings.html", pools=rows, next_cursor=encode_cursor(last) if last else None)


@router.get("/ratings/{pool}", response_class=HTMLResponse)
async def leaderboard(
    request: Request,
    pool: str,
    session: SessionDep,
    q: Annotated[str | None, Query(max_length=200)] = None,
    cursor: Cursor = None,
    limit: Annotated[int, Query(ge=1, le=500)] = ROWS_PER_PAGE,
) -> HTMLResponse:
    """The board a page at a time (``limit`` rows, the API's cursor), ``q`` searching by name."""
    q = (q or "").strip() or None
    rows, nxt = await rating_svc.leaderboard(session, pool, limit, cursor, q)
    keep = {"q": q, "limit": limit if limit != ROWS_PER_PAGE else None}
    return page(
        request,
        "leaderboard.html",
        pool=pool,
        rows=rows,
        q=q,
        cursor=cursor,
        first=_link(pool, keep),
        more=_link(pool, {**keep, "cursor": nxt}) if nxt else None,
        title=core.title,
        live_types=POOL_LIVE_TYPES,
        embed=frame(f"{site_url(request)}/embed/ratings/{quote(pool, safe='')}?theme=light", pool),
    )


def _link(pool: str, params: Mapping[str, object]) -> str:
    """A leaderboard page's address with the query it keeps (the search, the page size)."""
    query = urlencode({k: v for k, v in params.items() if v is not None})
    return f"/ratings/{quote(pool, safe='')}" + (f"?{query}" if query else "")


@router.get("/players/{player_id}", response_class=HTMLResponse)
async def player(request: Request, player_id: str, session: SessionDep) -> HTMLResponse:
    found = await profile_svc.profile(session, player_id)
    t = translator(language(request))
    charts = {r.pool: rating_chart(r.history, t, r.pool) for r in found.ratings}
    return page(request, "player_profile.html", profile=found, charts=charts)


@router.get("/seasons", response_class=HTMLResponse)
async def seasons(request: Request, session: SessionDep, cursor: Cursor = None) -> HTMLResponse:
    """The seasons, newest first, a page at a time (``GET /v1/seasons``'s cursor)."""
    rows, nxt = await season_svc.listing(session, SEASONS_PER_PAGE, cursor)
    return page(request, "seasons.html", seasons=rows, next_cursor=nxt)


@router.get("/seasons/{season_id}", response_class=HTMLResponse)
async def season(request: Request, season_id: str, session: SessionDep) -> HTMLResponse:
    table = await season_svc.table(session, season_id)
    base = site_url(request)
    embed = frame(f"{base}/embed/seasons/{quote(season_id, safe='')}?theme=light", table.view.season.name)
    return page(request, "season.html", table=table, embed=embed, live_types=SEASON_LIVE_TYPES)
