"""Strategic Titan's record keeper over HTTP (api.md "Stateless tools"; strategic-titan.md).

- ``POST /v1/adjudicate/strategic-titan``: replay a whole record, no token, no state. A broken rule
  is a verdict (200 with ``valid: false`` and the violation); a malformed event is a 422.
- ``POST /v1/matches/{id}/log``: append one event to the match's record (``Match.game_log``) —
  the organizer of the match's event, or the entry token of an entry seated at the match. The whole
  record is replayed with the new event; a broken rule is a 422 problem with ``rule`` and nothing is
  stored. The first call fixes ``players`` (the seats' entry names, seat 0 first); the options of the
  game travel in the record's first event, ``start`` (its ``options``); the record's own ``options``
  stays ``{}``. ``If-Match`` is optional (412 when stale); ``Idempotency-Key`` is honoured.
- ``GET /v1/matches/{id}/log``: the record and its replayed state (public, like every result).

Only matches whose game's adjudicator is ``strategic-titan`` keep such a record (else 409), and a
match that is a bye, void or confirmed takes no more events (409). Every rule lives in
app/core/games/strategic_titan.py; this module loads rows, calls the core and shapes the answer.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.api.deps import MaybePrincipal, Principal, SessionDep, check_if_match, ensure_organizer
from app.api.idempotency import run_idempotent
from app.core.errors import Conflict, Forbidden, NotFound, RuleViolation, Unauthorized
from app.core.games import strategic_titan as st
from app.db.models import Entry, Event, Game, Match, Seat

router = APIRouter(tags=["strategic-titan"])

ADJUDICATOR = "strategic-titan"
CLOSED = ("bye", "void", "confirmed")

EVENT_EXAMPLES: list[Any] = [
    {"type": "start", "towers": [100, 300, 500], "options": {"titans": "double", "legion_markers": 4}},
    {"type": "movement", "player": "Ann", "number": 4},
    {"type": "movement", "player": 2, "number": "pass"},
    {"type": "movement", "player": "Ann", "number": 1, "centre": 1, "centre_blocked": True},
    {"type": "split", "player": "Ann"},
    {"type": "split", "player": "Ann", "forgotten": True},
    {"type": "retract", "player": "Ann", "what": "movement", "stacks": 2},
    {"type": "retract", "player": "Ann", "what": "split"},
    {"type": "recombine", "player": "Ann"},
    {"type": "teleport", "player": "Ann", "to": 400},
    {"type": "stop", "player": "Ann", "tower": 300},
    {"type": "recruit", "player": "Ann", "creature": "Gorgon", "mulligans": True, "tower": 300},
    {"type": "attack", "attacker": "Ann", "defender": "Bob", "titan": True},
    {"type": "reroll", "player": "Bob", "titan": True},
    {
        "type": "encounter",
        "attacker": "Ann",
        "defender": "Bob",
        "outcome": "destroyed",
        "legions": {"Bob": 2},
        "points": {"Ann": 24},
    },
    {"type": "mulligan", "player": "Bob", "count": 1, "reason": "correction", "number": 5},
    {"type": "mulligan", "player": "Bob", "count": 2, "reason": "recruit", "creature": "Ranger"},
    {"type": "points", "player": "Ann", "points": 60},
    {"type": "titan_killed", "player": "Bob", "tower": 600},
    {"type": "end"},
]

EVENT_DOC = """One event of a Strategic Titan record. `player`, `attacker`, `defender` and the keys of
`legions`/`points` name a player (as listed in `players`) or give its number from 1. Types:
`start {towers, options?, order?}` (first, once) · `movement {player, number: 1-6|"pass", centre?,
centre_blocked?}` · `teleport {player, to, first_move?}` · `stop {player, tower}` · `split {player,
forgotten?}` · `retract {player, what: "movement"|"split", stacks?}` · `recombine {player}` ·
`attack {attacker, defender, titan?}` · `reroll {player, titan?, count?}` · `encounter {attacker,
defender, outcome: destroyed|mutual|surrendered|defended|time-out|forfeited, titan?, legions?, points?}`
· `mulligan {player, count, reason: retraction|correction|split-retraction|forgotten-split|reroll|
battleland|recruit, number?, creature?}` · `recruit {player, creature, mulligans?, tower?}` ·
`titan_killed {player, tower?}` · `points {player, points}` · `end {}`. Towers are 100-600."""


class StrategicTitanEvent(BaseModel):
    model_config = ConfigDict(extra="allow", json_schema_extra={"examples": EVENT_EXAMPLES})

    type: str = Field(description=EVENT_DOC, examples=["movement"])


class StrategicTitanOptions(BaseModel):
    model_config = ConfigDict(extra="allow")

    start: str | None = Field(default=None, description="standard | warlock (9.1) | variety (9.2)")
    titans: str | None = Field(default=None, description="single | double | triple (9.3)")
    legion_markers: int | None = Field(default=None, description="1-12, default 5 (9.4, 9.5)")


class AdjudicateStrategicTitan(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "players": ["Ann", "Bob"],
                    "events": [
                        {"type": "start", "towers": [100, 400]},
                        {"type": "movement", "player": "Ann", "number": 3},
                        {"type": "movement", "player": "Bob", "number": 5},
                        {"type": "movement", "player": "Ann", "number": 3},
                    ],
                }
            ]
        },
    )

    players: list[str] = Field(min_length=2, max_length=6, description="names, in seat order")
    options: StrategicTitanOptions | None = None
    events: list[StrategicTitanEvent]


class ViolationRead(BaseModel):
    index: int = Field(description="the position of the violating event in `events`")
    rule: str = Field(description='the section of the rules broken, e.g. "4.2" ("record" for bookkeeping)')
    message: str


class StrategicTitanVerdict(BaseModel):
    valid: bool
    state: dict[str, Any] = Field(
        description="every player's state (movement numbers, towers, legion markers, legions on the board, "
        "mulligans with their ledger, points, alive/resurrected), the turn and the places once finished; "
        "with a violation, the state before the violating event"
    )
    violation: ViolationRead | None = None


class MatchLogAppended(BaseModel):
    index: int = Field(description="the appended event's position in the record")
    state: dict[str, Any]
    version: int = Field(description="the match's version after the append")


class MatchLogRecord(BaseModel):
    players: list[str]
    options: dict[str, Any]
    events: list[dict[str, Any]]


class MatchLogRead(BaseModel):
    match_id: str
    version: int
    record: MatchLogRecord
    state: dict[str, Any]
    valid: bool
    violation: ViolationRead | None = None


def _events(events: list[StrategicTitanEvent]) -> list[dict[str, Any]]:
    return [e.model_dump(exclude_none=True) for e in events]


@router.post(
    "/v1/adjudicate/strategic-titan",
    operation_id="adjudicate_strategic_titan",
    response_model=StrategicTitanVerdict,
)
async def adjudicate(body: AdjudicateStrategicTitan) -> StrategicTitanVerdict:
    """Replay a Strategic Titan record (no token, no state); a broken rule is a verdict, not an error."""
    options = body.options.model_dump(exclude_none=True) if body.options else None
    result = st.replay(body.players, options, _events(body.events))
    return StrategicTitanVerdict.model_validate(result.to_dict())


# --- the match's record ------------------------------------------------------------------------
async def _load(
    session: AsyncSession, match_id: str, *, for_update: bool = False
) -> tuple[Match, list[tuple[str, str]]]:
    stmt = select(Match).where(Match.id == match_id)
    if for_update:
        stmt = stmt.with_for_update()
    match = (await session.execute(stmt)).scalar_one_or_none()
    if match is None:
        raise NotFound(f"no match {match_id!r}")
    adjudicator = (
        await session.execute(
            select(Game.adjudicator).join(Event, Event.game_key == Game.key).where(Event.id == match.event_id)
        )
    ).scalar_one_or_none()
    if adjudicator != ADJUDICATOR:
        raise Conflict("this match's game does not keep a Strategic Titan record")
    seats = (
        await session.execute(
            select(Entry.id, Entry.name)
            .join(Seat, Seat.entry_id == Entry.id)
            .where(Seat.match_id == match_id)
            .order_by(Seat.seat)
        )
    ).all()
    return match, [(row.id, row.name) for row in seats]


def _authorize(principal: Principal | None, match: Match, seats: list[tuple[str, str]]) -> Principal:
    if principal is None:
        raise Unauthorized("the organizer's token or a seated entry's token is required")
    if principal.kind == "entry":
        if principal.event_id == match.event_id and principal.entry_id in {e for e, _ in seats}:
            return principal
        raise Forbidden("this entry is not seated at this match")
    return ensure_organizer(principal, match.event_id)


def _record(match: Match, seats: list[tuple[str, str]]) -> dict[str, Any]:
    log = match.game_log or {}
    return {
        "players": list(log.get("players") or [name for _, name in seats]),
        "options": dict(log.get("options") or {}),
        "events": list(log.get("events") or []),
    }


@router.post(
    "/v1/matches/{match_id}/log",
    operation_id="append_match_log",
    status_code=201,
    response_model=MatchLogAppended,
    responses={422: {"description": "a malformed event, or a broken rule (with `rule`); nothing is stored"}},
)
async def append_log(
    request: Request,
    match_id: str,
    body: StrategicTitanEvent,
    session: SessionDep,
    principal: MaybePrincipal,
    if_match: Annotated[str | None, Header()] = None,
) -> JSONResponse:
    """Append one event to the match's Strategic Titan record (organizer, or an entry seated here)."""
    match, seats = await _load(session, match_id, for_update=True)
    who = _authorize(principal, match, seats)
    event = body.model_dump(exclude_none=True)

    async def handler() -> tuple[int, object, dict[str, str]]:
        if if_match is not None:
            check_if_match(if_match, match.version)
        if match.status in CLOSED:
            raise Conflict(f"the match is {match.status}; its record takes no more events")
        record = _record(match, seats)
        events = [*record["events"], event]
        result = st.replay(record["players"], record["options"], events)
        if result.violation is not None:
            raise RuleViolation(result.violation.rule, result.violation.message)
        match.game_log = {**record, "events": events}
        await session.flush()
        payload = MatchLogAppended(index=len(events) - 1, state=result.state.to_dict(), version=match.version)
        headers = {"Location": f"/v1/matches/{match_id}/log", "ETag": f'"{match.version}"'}
        return 201, payload, headers

    return await run_idempotent(request, session, who, event, handler)


@router.get("/v1/matches/{match_id}/log", operation_id="get_match_log", response_model=MatchLogRead)
async def get_log(match_id: str, session: SessionDep) -> JSONResponse:
    """The match's Strategic Titan record and the state it replays to."""
    match, seats = await _load(session, match_id)
    record = _record(match, seats)
    result = st.replay(record["players"], record["options"], record["events"])
    read = MatchLogRead(
        match_id=match.id,
        version=match.version,
        record=MatchLogRecord(**record),
        state=result.state.to_dict(),
        valid=result.valid,
        violation=ViolationRead(**result.violation.to_dict()) if result.violation else None,
    )
    return JSONResponse(read.model_dump(mode="json"), headers={"ETag": f'"{match.version}"'})
