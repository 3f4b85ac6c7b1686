"""Strategic Titan's record keeper over HTTP (api.md "Stateless tools"; strategic-titan.md).

- ``POST /v1/adjudicate/strategic-titan``: replay a whole record, no token, no state. A broken rule
  is a verdict (200 with ``valid: false`` and the violation); a malformed event is a 422. Its body
  is declared here (``VERDICT_ROUTE``); app/api/verdicts.py makes the route.
- ``POST /v1/matches/{id}/log`` / ``GET``: a match's record, appended event by event
  (app/services/strategic_titan.py; a broken rule is a 422 problem with ``rule``; ``If-Match`` is
  optional, ``Idempotency-Key`` is honoured).

Every rule lives in app/core/games/strategic_titan/; this module parses, calls the core or the
service and shapes the answer.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from app.api.auth import SeatedOrOrganizer
from app.api.deps import SessionDep
from app.api.idempotency import run_idempotent
from app.api.verdicts import VerdictRoute
from app.core.games import strategic_titan as st
from app.services import strategic_titan as svc

router = APIRouter(tags=["strategic-titan"])

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

BOUNDS_DOC = (
    'Types are strict (`true` is not a number, "3" is not an integer) and every number is bounded: '
    f"`points` 0-{st.MAX_POINTS:,} in one event (and per player in an encounter's `points`); "
    f"`count` 1-{st.MAX_COUNT:,}; `centre` and an encounter's `legions` 0-{st.MAX_MARKERS}; "
    f"`stacks` 1-{st.MAX_MARKERS}; `to` (a hex) 1-{st.MAX_HEX:,}; "
    f"a record holds at most {st.MAX_EVENTS:,} events."
)

EVENT_DOC = (
    """One event of a Strategic Titan record. `player`, `attacker`, `defender` and the keys of
`legions`/`points` name a player (as listed in `players`) or give its number from 1 (an integer; a
digit string only as an object's key). """
    + BOUNDS_DOC
    + """ Types:
`start {towers, options?, order?}` (first, once) · `movement {player, number: 1-6|"pass", centre?,
centre_blocked?}` · `teleport {player, to, first_move?}` · `stop {player, tower}` · `split {player,
forgotten?}` · `retract {player, what: "movement"|"split", stacks?}` · `recombine {player}` ·
`attack {attacker, defender, titan?}` · `reroll {player, titan?, count?}` · `encounter {attacker,
defender, outcome: destroyed|mutual|surrendered|defended|time-out|forfeited, titan?, legions?, points?}`
· `mulligan {player, count, reason: retraction|correction|split-retraction|forgotten-split|reroll|
battleland|recruit, number?, creature?}` · `recruit {player, creature, mulligans?, tower?}` ·
`titan_killed {player, tower?}` · `points {player, points}` · `end {}`. Towers are 100-600."""
)


class StrategicTitanEvent(BaseModel):
    # the fields beyond `type` are checked by the core's vocabulary, strictly and within bounds
    model_config = ConfigDict(extra="allow", strict=True, json_schema_extra={"examples": EVENT_EXAMPLES})

    type: str = Field(description=EVENT_DOC, examples=["movement"])


class StrategicTitanOptions(BaseModel):
    # unknown options: refused (the schema says so), in the core's words
    model_config = ConfigDict(extra="allow", strict=True, json_schema_extra={"additionalProperties": False})

    # the values the core knows (it words the refusal of another)
    start: str | None = Field(
        default=None,
        description="standard | warlock (9.1) | variety (9.2)",
        json_schema_extra={"enum": [*st.OPTION_VALUES["start"], None]},
    )
    titans: str | None = Field(
        default=None,
        description="single | double | triple (9.3)",
        json_schema_extra={"enum": [*st.OPTION_VALUES["titans"], None]},
    )
    legion_markers: int | None = Field(
        default=None, ge=1, le=st.MAX_MARKERS, description="1-12, default 5 (9.4, 9.5)"
    )


class AdjudicateStrategicTitan(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        strict=True,
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

    # distinct names that show a character (parse_players, which words the refusal)
    players: list[Annotated[str, Field(max_length=100, json_schema_extra={"pattern": r"\S"})]] = Field(
        min_length=2,
        max_length=6,
        description="distinct names, in seat order",
        json_schema_extra={"uniqueItems": True},
    )
    options: StrategicTitanOptions | None = None
    events: list[StrategicTitanEvent] = Field(max_length=st.MAX_EVENTS)


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


VERDICT_ROUTE = VerdictRoute(
    "strategic-titan",
    body=AdjudicateStrategicTitan,
    verdict=StrategicTitanVerdict,
    tag="strategic-titan",
    summary="Adjudicate",  # as first published
    description="Replay a Strategic Titan record (no token, no state); a broken rule is a verdict, not an error.",
)


# --- the match's record ------------------------------------------------------------------------
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
    who: SeatedOrOrganizer,
    if_match: Annotated[str | None, Header()] = None,
) -> Response:
    """Append one event to the match's Strategic Titan record (organizer, or an entry seated here)."""
    event = body.model_dump(exclude_none=True)

    async def handler() -> tuple[int, object, dict[str, str]]:
        done = await svc.append_event(session, match_id, who, if_match, event)
        payload = MatchLogAppended(index=done.index, state=done.state, version=done.version)
        headers = {"Location": f"/v1/matches/{match_id}/log", "ETag": f'"{done.version}"'}
        return 201, payload, headers

    return await run_idempotent(request, session, who, event, handler)


@router.get("/v1/matches/{match_id}/log", operation_id="get_match_log", response_model=MatchLogRead)
async def get_log(match_id: str, session: SessionDep) -> JSONResponse:
    """The match's Strategic Titan record and the state it replays to."""
    view = await svc.read_log(session, match_id)
    result = view.replay
    read = MatchLogRead(
        match_id=view.match.id,
        version=view.match.version,
        record=MatchLogRecord(**view.record),
        state=result.state.to_dict(),
        valid=result.valid,
        violation=ViolationRead(**result.violation.to_dict()) if result.violation else None,
    )
    return JSONResponse(read.model_dump(mode="json"), headers={"ETag": f'"{view.match.version}"'})
