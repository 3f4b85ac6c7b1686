"""Ratings resources (api.md "Ratings": ``/v1/ratings``, ``/v1/ratings/{pool}``,
``/v1/players/{id}/ratings``; battlebooks.md "World rankings").

Rulings where the spec is silent: ratings and history values are shown rounded to 0.1 (stored
unrounded); the leaderboard lists every rating row of the pool (also a player given a starting
rating who has not played yet); ``PUT …/settings`` creates a pool that does not exist yet, every other
route answers 404 for an unknown pool; the leaderboard cursor is opaque. The pools and a leaderboard
also answer as CSV (``?format=csv`` or ``Accept: text/csv``), with their own ETag: the pools' page
as the JSON pages them, a leaderboard whole (a league's spreadsheet wants every row).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field, WithJsonSchema

from app.api.auth import Admin
from app.api.caching import cached
from app.api.csv_io import CSV_CONTENT, FormatQuery, cached_csv, list_answer, wants_csv
from app.api.deps import SessionDep
from app.api.jobs import accepted
from app.api.paging import DEFAULT_LIMIT, Cursor, Limit, bad_cursor, decode_cursor, encode_cursor, from_list
from app.api.schemas import Instant, JobAccepted, Strict
from app.core import limits
from app.core import ratings as core
from app.services import ratings as svc

router = APIRouter(tags=["ratings"])


def _r(x: float) -> float:
    return round(x, 1)


class LeaderboardRow(BaseModel):
    rank: int
    player_id: str
    name: str
    rating: float
    games: int
    title: str | None = None


class Leaderboard(BaseModel):
    pool: str
    items: list[LeaderboardRow]
    next_cursor: str | None = None


class PoolRead(BaseModel):
    pool: str
    game: str | None = Field(description="the game whose events feed it (null: a pool of its own)")
    character: str | None = Field(description="the hero or character it rates (BATTLEBOOKS' Roll Call)")
    players: int
    games: int = Field(description="rated games (matches) in its history")
    updated_at: datetime | None = Field(description="when a rating of it last changed")


class PoolPage(BaseModel):
    items: list[PoolRead]
    next_cursor: str | None = None


class HistoryItem(BaseModel):
    match_id: str | None
    before: float
    after: float
    at: datetime | None = Field(default=None, description="when the game was reported")


class PlayerRating(BaseModel):
    pool: str
    rating: float
    games: int
    title: str | None
    start_rating: float | None = None
    history: list[HistoryItem]


class PlayerRatingPage(BaseModel):
    items: list[PlayerRating]
    next_cursor: str | None = None


class StartRating(Strict):
    rating: float = Field(ge=limits.START_RATING[0], le=limits.START_RATING[1])


class StartRatingRead(BaseModel):
    pool: str
    player_id: str
    rating: float
    games: int
    start_rating: float | None
    job_id: str | None = None


class PoolSettings(BaseModel):
    """A pool's rating rule. ``k`` is a number or ``[[games_limit, K], …, [null, K]]``."""

    k: float | Annotated[list[Annotated[list[Any], Field(max_length=2)]], Field(max_length=32)] = Field(
        default=32, description="a number or [[games_limit, K], …, [null, K]]"
    )
    start: float = Field(default=1500, ge=-core.SETTING_LIMIT, le=core.SETTING_LIMIT)
    min: float = Field(default=0, ge=-core.SETTING_LIMIT, le=core.SETTING_LIMIT)
    max: float = Field(default=3000, ge=-core.SETTING_LIMIT, le=core.SETTING_LIMIT)
    period: Literal["game", "event"] = "game"
    rate_forfeits: bool = False


_K = {"type": "number", "exclusiveMinimum": 0, "maximum": 1000}
_RATING = {"type": "number", "minimum": -core.SETTING_LIMIT, "maximum": core.SETTING_LIMIT}
# The document PUT …/settings takes, as ``core.settings_problems`` checks it; what a schema cannot
# compare (min < max, start between them, a K schedule's rising limits ending in null) stays the
# checker's, its 422 naming the key.
PoolSettingsDocument = Annotated[
    dict[str, Any],
    WithJsonSchema(
        {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "k": {
                    "anyOf": [
                        _K,
                        {
                            "type": "array",
                            "minItems": 1,
                            "items": {
                                "type": "array",
                                "prefixItems": [
                                    {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]},
                                    _K,
                                ],
                                "minItems": 2,
                                "maxItems": 2,
                            },
                        },
                    ],
                    "description": "a number in (0, 1000], or [[games_limit, K], …, [null, K]] with "
                    "rising limits (default 32)",
                },
                "start": {**_RATING, "description": "between min and max (default 1500)"},
                "min": {**_RATING, "minimum": 0, "description": "below max (default 0)"},
                "max": {**_RATING, "exclusiveMinimum": 0, "description": "above min (default 3000)"},
                "period": {"enum": ["game", "event"], "description": 'default "game"'},
                "rate_forfeits": {"type": "boolean", "description": "default false"},
            },
        }
    ),
]


class PoolSettingsRead(BaseModel):
    pool: str
    settings: PoolSettings
    job_id: str | None = None


POOL_COLUMNS = ("pool", "game", "character", "players", "games", "updated_at")
BOARD_COLUMNS = ("rank", "player_id", "name", "rating", "games", "title")


@router.get("/v1/ratings", operation_id="list_rating_pools", response_model=PoolPage, responses=CSV_CONTENT)
async def list_rating_pools(
    request: Request,
    session: SessionDep,
    limit: Limit = DEFAULT_LIMIT,
    cursor: Cursor = None,
    format: FormatQuery = "json",
) -> Response:
    """The rating pools by key, each with its players, rated games and last change (`?format=csv`:
    this page, one pool a line)."""
    after = None
    if cursor:
        after = decode_cursor(cursor)
        if not isinstance(after, str):
            raise bad_cursor()
    rows, last = await svc.pools(session, limit, after)
    items = [
        PoolRead(
            pool=r.key,
            game=r.game,
            character=r.character,
            players=r.players,
            games=r.games,
            updated_at=r.updated_at,
        )
        for r in rows
    ]
    if wants_csv(request, format):
        lines = [
            (i.pool, i.game, i.character, i.players, i.games, i.updated_at and i.updated_at.isoformat())
            for i in items
        ]
        return cached_csv(request, POOL_COLUMNS, lines, "rating-pools.csv")
    return cached(request, PoolPage(items=items, next_cursor=encode_cursor(last) if last else None))


@router.get(
    "/v1/ratings/{pool}", operation_id="get_leaderboard", response_model=Leaderboard, responses=CSV_CONTENT
)
async def get_leaderboard(
    request: Request,
    pool: str,
    session: SessionDep,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
    cursor: str | None = None,
    q: Annotated[
        str | None, Query(max_length=200, description="only the names containing it (case-insensitive)")
    ] = None,
    format: FormatQuery = "json",
) -> Response:
    """A pool's leaderboard, highest rating first; equal ratings share a rank (`?q=`: the players
    whose name contains it, each with its rank in the whole pool; `?format=csv`: the whole board, one
    player a line)."""
    if wants_csv(request, format):
        whole: list[svc.BoardRow] = []
        after = None
        while True:
            chunk, after = await svc.leaderboard(session, pool, 500, after, q)
            whole += chunk
            if after is None:
                break
        lines = [(r.rank, r.player_id, r.name, _r(r.rating), r.games, core.title(r.rating)) for r in whole]
        return cached_csv(request, BOARD_COLUMNS, lines, f"leaderboard-{pool}.csv")
    rows, nxt = await svc.leaderboard(session, pool, limit, cursor, q)
    board = Leaderboard(
        pool=pool,
        items=[
            LeaderboardRow(
                rank=r.rank,
                player_id=r.player_id,
                name=r.name,
                rating=_r(r.rating),
                games=r.games,
                title=core.title(r.rating),
            )
            for r in rows
        ],
        next_cursor=nxt,
    )
    return cached(request, board)


def player_rating(p: svc.PlayerPoolRating) -> PlayerRating:
    return PlayerRating(
        pool=p.pool,
        rating=_r(p.rating),
        games=p.games,
        title=core.title(p.rating),
        start_rating=p.start_rating,
        history=[
            HistoryItem(match_id=h.match_id, before=_r(h.before), after=_r(h.after), at=h.at)
            for h in p.history
        ],
    )


@router.get(
    "/v1/players/{player_id}/ratings",
    operation_id="get_player_ratings",
    response_model=PlayerRatingPage,
    responses=CSV_CONTENT,
)
async def get_player_ratings(
    request: Request,
    player_id: str,
    session: SessionDep,
    limit: Limit = DEFAULT_LIMIT,
    cursor: Cursor = None,
    since: Annotated[
        Instant | None,
        Query(description="only the games reported at or after this time (with its offset)"),
    ] = None,
    format: FormatQuery = "json",
) -> Response:
    """A player's rating in every pool, by pool, with the history of changes in rating order
    (`?since=`: the changes of the games reported since then; `?format=csv`: one change a line,
    after its pool's columns, and a pool without changes on a line of its own)."""
    fetch = from_list(await svc.player_ratings(session, player_id, since), lambda p: p.pool, player_rating)
    return await list_answer(
        request,
        format,
        PlayerRatingPage,
        fetch,
        f"ratings-{player_id}.csv",
        limit=limit,
        cursor=cursor,
        explode="history",
    )


@router.post(
    "/v1/ratings/{pool}/recompute",
    operation_id="recompute_ratings",
    status_code=202,
    response_model=JobAccepted,
)
async def recompute(pool: str, session: SessionDep, admin: Admin) -> JSONResponse:
    """Recompute a pool from its whole history in a background job (admin): 202 with the job's id."""
    (job,) = await svc.enqueue_recompute(session, [pool])
    return accepted(job)


@router.put(
    "/v1/players/{player_id}/ratings/{pool}",
    operation_id="set_player_start_rating",
    response_model=StartRatingRead,
)
async def set_start_rating(
    player_id: str, pool: str, body: StartRating, session: SessionDep, admin: Admin
) -> StartRatingRead:
    """Set a player's starting rating in a pool (admin), e.g. importing a league's ratings. A player
    with games in the pool gets it through a recompute (``job_id``)."""
    row, job = await svc.set_start_rating(session, player_id, pool, body.rating)
    return StartRatingRead(
        pool=pool,
        player_id=player_id,
        rating=_r(row.rating),
        games=row.games,
        start_rating=row.start_rating,
        job_id=job.id if job else None,
    )


@router.get(
    "/v1/ratings/{pool}/settings", operation_id="get_rating_pool_settings", response_model=PoolSettingsRead
)
async def get_settings(pool: str, session: SessionDep) -> PoolSettingsRead:
    """A pool's settings: K (or a K schedule by games played), start, clamp, period, forfeits."""
    return PoolSettingsRead(pool=pool, settings=PoolSettings(**await svc.pool_settings(session, pool)))


@router.put(
    "/v1/ratings/{pool}/settings", operation_id="put_rating_pool_settings", response_model=PoolSettingsRead
)
async def put_settings(
    pool: str, body: PoolSettingsDocument, session: SessionDep, admin: Admin
) -> PoolSettingsRead:
    """Replace a pool's settings (admin; 422 lists every problem). A change queues a recompute."""
    settings, job = await svc.put_pool_settings(session, pool, body)
    return PoolSettingsRead(pool=pool, settings=PoolSettings(**settings), job_id=job.id if job else None)
