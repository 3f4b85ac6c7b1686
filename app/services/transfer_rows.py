"""An event file read as untrusted input (api.md "Moving an event"): the bytes, then every row, then
whom every row names — all before anything is written.

* **The bytes:** at most ``MAX_FILE_BYTES``, UTF-8, no NUL, JSON without NaN or Infinity, nested at
  most ``MAX_DEPTH`` deep, no text longer than ``MAX_TEXT`` characters, no NUL or lone surrogate in
  any text.
* **The rows:** one model per table, with the bounds the API's request schemas use (app/core/limits.py);
  unknown keys are refused — a token or a token's hash among them: tokens are never imported.
* **Whom they name:** the file's one event and what hangs from it. Every row's event is the file's
  event, every match's round, seat's match and entry, entry's player, starting rating's pool and
  player is a row of the file; and every id in the documents the engine acts on (settings, stage,
  round and match details, game logs, claims) is one of the file's ids. Audit histories may name
  what did not travel (a staff member, a player an identity split left): those ids are kept as text.

A refusal is an ``InvalidInput`` whose first problem names the row (``tables/entries/3/name``) and
what is wrong with it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    model_validator,
)

from app.core import limits
from app.core import ratings as rating_core
from app.core.errors import InvalidInput, Problem
from app.core.vocabulary import EntryStatus, EventStatus, MatchStatus, StageFormatName, StageStatus

FORMAT = "arbiter-event"
VERSION = 2
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_DEPTH = 32
MAX_TEXT = 100_000
INT32 = 2**31 - 1
YEARS = (1900, 9998)  # a time of a row: stored as UTC, whatever offset it was written with
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_SURROGATE = re.compile(r"[\ud800-\udfff]")

Loc = tuple[str | int, ...]


def _show(part: str | int) -> str:
    """A part of a location as one printable line (a key of the file may hold anything)."""
    text = str(part)
    if not text.isprintable():
        text = text.encode("unicode_escape", "backslashreplace").decode("ascii")
    return text if len(text) <= 40 else text[:40] + "…"


def refuse(loc: Loc, msg: str) -> InvalidInput:
    return InvalidInput(f"{'/'.join(map(_show, loc))}: {msg}", [Problem(loc, msg)])


# --------------------------------------------------------------------------- the bytes
def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number")


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refused when it gives a key twice (JSON keeps the last one silently)."""
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise ValueError(f"the key {json.dumps(key)[:40]} is given twice in one object")
        seen.add(key)
    return dict(pairs)


def read(data: bytes) -> Any:
    """The JSON document of an event file's bytes, or an ``InvalidInput`` saying why not."""
    if len(data) > MAX_FILE_BYTES:
        raise refuse(("file",), f"is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")
    if (at := data.find(b"\x00")) >= 0:
        raise refuse(("file",), f"holds a NUL byte at offset {at}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise refuse(("file",), f"is not UTF-8 (byte {exc.start})") from None
    try:
        doc = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_object)
    except RecursionError:
        raise refuse(("file",), f"is nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # json.JSONDecodeError, a constant, an integer of too many digits
        raise refuse(("file",), f"is not JSON: {str(exc).splitlines()[0]}") from None
    _check_values(doc)
    return doc


def _check_text(text: str, loc: Loc) -> None:
    if "\x00" in text:
        raise refuse(loc, "holds a NUL character")
    if _SURROGATE.search(text):
        raise refuse(loc, "holds a lone surrogate (not a character)")
    if len(text) > MAX_TEXT:
        raise refuse(loc, f"is longer than {MAX_TEXT} characters")


def _check_values(doc: Any) -> None:
    """Every value of the document: depth, and texts (keys included) without NUL, surrogates or
    excess (walked without recursion: the depth is what is being checked)."""
    stack: list[tuple[Any, Loc]] = [(doc, ())]
    while stack:
        value, loc = stack.pop()
        if len(loc) > MAX_DEPTH:
            raise refuse(loc[:4] or ("file",), f"is nested deeper than {MAX_DEPTH} levels")
        if isinstance(value, str):
            _check_text(value, loc or ("file",))
        elif isinstance(value, float) and not math.isfinite(value):
            raise refuse(loc or ("file",), "is not a finite number")
        elif isinstance(value, dict):
            for k, v in value.items():
                _check_text(k, (*loc, k[:40]))
                stack.append((v, (*loc, k)))
        elif isinstance(value, list):
            stack.extend((v, (*loc, i)) for i, v in enumerate(value))


# --------------------------------------------------------------------------- the rows
def _when(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError("must be a date and time (ISO 8601)") from None
    if when.tzinfo is None:
        raise ValueError("must name its offset from UTC (…+00:00)")
    if not YEARS[0] <= when.year <= YEARS[1]:
        raise ValueError(f"must be within the years {YEARS[0]}–{YEARS[1]}")
    return when


def _visible(text: str) -> str:
    if limits.invisible(text):
        raise ValueError("must contain a visible character")
    return text


When = Annotated[datetime, BeforeValidator(_when)]
Uuid = Annotated[str, StringConstraints(pattern=UUID.pattern + "$", max_length=36)]
Name = Annotated[
    str, StringConstraints(min_length=1, max_length=limits.NAME_LENGTH), AfterValidator(_visible)
]
Key = Annotated[str, StringConstraints(min_length=1, max_length=limits.KEY_LENGTH)]
Character = Annotated[str, StringConstraints(max_length=limits.CHARACTER_LENGTH)]
Word16 = Annotated[str, StringConstraints(max_length=16)]
Action16 = Annotated[str, StringConstraints(min_length=1, max_length=16)]
Action32 = Annotated[str, StringConstraints(min_length=1, max_length=32)]
Actor = Annotated[str, StringConstraints(min_length=1, max_length=64)]
Count = Annotated[int, Field(ge=0, le=INT32)]
Score = Annotated[float, Field(ge=-limits.SCORE, le=limits.SCORE)]
Place = Annotated[int, Field(ge=1, le=limits.SEATS)]
PoolKey = Annotated[str, StringConstraints(min_length=1, max_length=128)]
Blob = dict[str, Any]
# words of the vocabulary, read from their text
EventStatusWord = Annotated[EventStatus, Field(strict=False)]
EntryStatusWord = Annotated[EntryStatus, Field(strict=False)]
StageStatusWord = Annotated[StageStatus, Field(strict=False)]
MatchStatusWord = Annotated[MatchStatus, Field(strict=False)]
FormatWord = Annotated[StageFormatName, Field(strict=False)]


class Row(BaseModel):
    """A row of the file: every column named, none more; types as JSON gives them."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)


class GameRow(Row):
    key: Annotated[
        str, StringConstraints(min_length=1, max_length=limits.KEY_LENGTH, pattern=limits.GAME_KEY_PATTERN)
    ]
    name: Name
    min_seats: Place
    max_seats: Place
    adjudicator: Key | None
    created_at: When

    @model_validator(mode="after")
    def _range(self) -> GameRow:
        if self.max_seats < self.min_seats:
            raise ValueError("max_seats must be at least min_seats")
        return self


class PlayerRow(Row):
    id: Uuid
    name: Name
    name_key: Annotated[str, StringConstraints(max_length=limits.NAME_LENGTH)] | None = None
    external_id: Annotated[str, StringConstraints(min_length=1, max_length=limits.EXTERNAL_ID_LENGTH)] | None
    created_at: When


class EventRow(Row):
    id: Uuid
    name: Name
    game_key: Key
    preset: Key | None
    settings: Blob
    seed: Annotated[
        str, StringConstraints(min_length=limits.SEED_LENGTH[0], max_length=limits.SEED_LENGTH[1])
    ]
    seed_commitment: Annotated[str, StringConstraints(max_length=64)]
    status: EventStatusWord
    version: Annotated[int, Field(ge=1, le=INT32)]
    forbidden_pairs: list[Annotated[list[Uuid], Field(max_length=limits.FORBIDDEN_GROUP)]] = Field(
        max_length=limits.FORBIDDEN_PAIRS
    )
    winner_entry_id: Uuid | None
    created_at: When
    updated_at: When | None


class EntryRow(Row):
    id: Uuid
    event_id: Uuid
    player_id: Uuid
    name: Name
    rating_at_entry: Annotated[float, Field(ge=-limits.ENTRY_RATING, le=limits.ENTRY_RATING)] | None
    seed: Annotated[int, Field(ge=1, le=limits.SEED_NUMBER)] | None
    club: Annotated[str, StringConstraints(min_length=1, max_length=limits.CLUB_LENGTH)] | None
    matched_by: Literal["player_id", "external_id", "name", "new"]
    checked_in_at: When | None
    tiebreak_value: Score | None
    characters: list[Character] = Field(max_length=limits.CHARACTERS)
    group: Annotated[str, StringConstraints(max_length=limits.GROUP_LENGTH)] | None
    organizer: bool
    status: EntryStatusWord
    created_at: When
    dropped_at: When | None


class StageRow(Row):
    id: Uuid
    event_id: Uuid
    index: Annotated[int, Field(ge=0, le=63)]
    format: FormatWord
    settings: Blob
    details: Blob
    status: StageStatusWord
    created_at: When


class RoundRow(Row):
    id: Uuid
    event_id: Uuid
    stage_id: Uuid
    number: Annotated[int, Field(ge=1, le=100_000)]
    details: Blob
    created_at: When


class MatchRow(Row):
    id: Uuid
    event_id: Uuid
    round_id: Uuid
    table: Annotated[int, Field(ge=0, le=1_000_000)]
    status: MatchStatusWord
    outcome: Word16 | None
    best_of: Annotated[int, Field(ge=1, le=99)]
    game_log: Blob | None
    details: Blob
    version: Annotated[int, Field(ge=1, le=INT32)]
    reported_at: When | None
    created_at: When


class SeatRow(Row):
    id: Uuid
    match_id: Uuid
    entry_id: Uuid
    seat: Annotated[int, Field(ge=0, le=limits.SEATS)]
    character: Character | None
    first_token: bool
    place: Place | None
    score: Score | None
    body_points: Score | None
    differential: Score | None
    violation: bool


class ReportRow(Row):
    id: Uuid
    match_id: Uuid
    reporter: Actor
    payload: Blob
    created_at: When


class ResultHistoryRow(Row):
    id: Uuid
    match_id: Uuid
    match_version: Count
    action: Action16
    actor: Actor
    payload: Blob
    created_at: When


class EventHistoryRow(Row):
    id: Uuid
    event_id: Uuid
    action: Action32
    actor: Actor
    payload: Blob
    created_at: When


class PoolRow(Row):
    key: PoolKey
    game_key: Key | None
    character: Character | None
    settings: Blob
    version: Count
    last_seq: Count | None
    last_match_id: Uuid | None
    created_at: When


class StartRow(Row):
    pool_key: PoolKey
    player_id: Uuid
    start_rating: Annotated[float, Field(ge=limits.START_RATING[0], le=limits.START_RATING[1])]


class Tables(Row):
    events: list[EventRow] = Field(min_length=1, max_length=1)
    entries: list[EntryRow]
    stages: list[StageRow]
    rounds: list[RoundRow]
    matches: list[MatchRow]
    seats: list[SeatRow]
    result_reports: list[ReportRow]
    result_history: list[ResultHistoryRow]
    event_history: list[EventHistoryRow]


# the model of each table's rows (tests/test_import_corpus.py: one field per exported column)
ROW_MODELS: dict[str, type[Row]] = {
    "events": EventRow,
    "entries": EntryRow,
    "stages": StageRow,
    "rounds": RoundRow,
    "matches": MatchRow,
    "seats": SeatRow,
    "result_reports": ReportRow,
    "result_history": ResultHistoryRow,
    "event_history": EventHistoryRow,
}


class EventFile(Row):
    format: Literal["arbiter-event"]
    version: Literal[2]
    event_id: Uuid
    game: GameRow
    players: list[PlayerRow]
    tables: Tables
    rating_pools: list[PoolRow]
    start_ratings: list[StartRow]

    @property
    def event(self) -> EventRow:
        return self.tables.events[0]


def parse(doc: Any) -> EventFile:
    """The file's rows, each checked against its model; the first problem refuses the file."""
    if not isinstance(doc, dict):
        raise refuse(("file",), "must be a JSON object")
    if doc.get("format") != FORMAT:
        raise refuse(("format",), f"must be {FORMAT!r}")
    if doc.get("version") != VERSION:
        got = doc.get("version")
        hint = (
            ": export it again with this version (files of version 1 carry token hashes)" if got == 1 else ""
        )
        raise refuse(("version",), f"{json.dumps(got)[:40]} is not {VERSION}{hint}")
    try:
        return EventFile.model_validate(doc)
    except ValidationError as exc:
        first = exc.errors(include_url=False, include_input=False)[0]
        loc = tuple(first["loc"]) or ("file",)
        msg = first["msg"]
        if first["type"] == "extra_forbidden" and "token" in str(loc[-1]):
            msg = "tokens are never imported: new ones are minted (remove it)"
        elif first["type"] == "extra_forbidden":
            msg = "unknown key"
        raise refuse(loc, msg) from None


# --------------------------------------------------------------------------- whom they name
def _ids_in(value: Any) -> Iterator[str]:
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            yield from UUID.findall(v)
        elif isinstance(v, dict):
            for k, item in v.items():
                yield from UUID.findall(k)
                stack.append(item)
        elif isinstance(v, list):
            stack.extend(v)


class _Own:
    """The file's ids, table by table, and the first problem found."""

    def __init__(self, f: EventFile) -> None:
        self.f = f
        self.all: set[str] = set()
        self.of: dict[str, set[str]] = {}
        for name, rows in self.tables():
            self.of[name] = set()
            for i, row in enumerate(rows):
                rid = row.id
                if rid in self.all:
                    raise refuse((*_where(name), i, "id"), f"{rid} is a second row of the same id")
                self.all.add(rid)
                self.of[name].add(rid)

    def tables(self) -> Iterator[tuple[str, list[Any]]]:
        yield "players", self.f.players
        for name in Tables.model_fields:
            yield name, getattr(self.f.tables, name)

    def need(self, name: str, i: int, column: str, value: str | None, table: str) -> None:
        if value is not None and value not in self.of[table]:
            raise refuse(
                (*_where(name), i, column), f"{value} is not a row of the file's {table}: it is not its own"
            )

    def blob(self, loc: Loc, value: Any) -> None:
        for found in _ids_in(value):
            if found not in self.all:
                raise refuse(loc, f"names {found}, which is not the file's own")


def _where(name: str) -> Loc:
    return (name,) if name == "players" else ("tables", name)


def check_own(f: EventFile) -> None:
    """Refuse the file when any row names an event, entry, player, match or pool that is not its own."""
    own = _Own(f)
    event = f.event
    if f.event_id != event.id:
        raise refuse(("event_id",), f"{f.event_id} is not the id of the file's event ({event.id})")
    if event.game_key != f.game.key:
        raise refuse(("tables", "events", 0, "game_key"), f"{event.game_key!r} is not the file's game")
    for name, rows in own.tables():
        for i, row in enumerate(rows):
            if hasattr(row, "event_id") and row.event_id != event.id:
                raise refuse(
                    (*_where(name), i, "event_id"),
                    f"{row.event_id} is not the file's event: it is not its own",
                )
    for i, e in enumerate(f.tables.entries):
        own.need("entries", i, "player_id", e.player_id, "players")
    for i, r in enumerate(f.tables.rounds):
        own.need("rounds", i, "stage_id", r.stage_id, "stages")
        own.blob(("tables", "rounds", i, "details"), r.details)
    for i, m in enumerate(f.tables.matches):
        own.need("matches", i, "round_id", m.round_id, "rounds")
        own.blob(("tables", "matches", i, "details"), m.details)
        own.blob(("tables", "matches", i, "game_log"), m.game_log)
    for i, s in enumerate(f.tables.seats):
        own.need("seats", i, "match_id", s.match_id, "matches")
        own.need("seats", i, "entry_id", s.entry_id, "entries")
    for name in ("result_reports", "result_history"):
        for i, row in enumerate(getattr(f.tables, name)):
            own.need(name, i, "match_id", row.match_id, "matches")
    for i, rep in enumerate(f.tables.result_reports):
        own.blob(("tables", "result_reports", i, "reporter"), rep.reporter)
        own.blob(("tables", "result_reports", i, "payload"), rep.payload)
    _check_event(f, own)
    _check_players(f, own)
    _check_pools(f, own)
    _check_unique(f)


# What the database holds once per parent: a second row of the same key is refused here, by row,
# rather than by the database's constraint at the end of the write.
_UNIQUE: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("rounds", ("stage_id", "number")),
    ("matches", ("round_id", "table")),
    ("seats", ("match_id", "seat")),
    ("seats", ("match_id", "entry_id")),
    ("result_reports", ("match_id", "reporter")),
)


def _check_unique(f: EventFile) -> None:
    for name, columns in _UNIQUE:
        seen: set[tuple[Any, ...]] = set()
        for i, row in enumerate(getattr(f.tables, name)):
            key = tuple(getattr(row, c) for c in columns)
            if key in seen:
                raise refuse(
                    ("tables", name, i, columns[-1]), f"a second row of the same {' and '.join(columns)}"
                )
            seen.add(key)


def _check_event(f: EventFile, own: _Own) -> None:
    event = f.event
    own.need("events", 0, "winner_entry_id", event.winner_entry_id, "entries")
    for pair in event.forbidden_pairs:
        for entry_id in pair:
            own.need("events", 0, "forbidden_pairs", entry_id, "entries")
    own.blob(("tables", "events", 0, "settings"), event.settings)
    indexes: set[int] = set()
    for i, stage in enumerate(f.tables.stages):
        if stage.index in indexes:
            raise refuse(("tables", "stages", i, "index"), f"{stage.index} is a second stage of that index")
        indexes.add(stage.index)
        own.blob(("tables", "stages", i, "settings"), stage.settings)
        own.blob(("tables", "stages", i, "details"), stage.details)


def _check_players(f: EventFile, own: _Own) -> None:
    entrants: set[str] = set()
    for i, e in enumerate(f.tables.entries):
        if e.player_id in entrants:
            raise refuse(("tables", "entries", i, "player_id"), "a second entry of the same player")
        entrants.add(e.player_id)
    used = {e.player_id for e in f.tables.entries}
    held: set[str] = set()
    for i, p in enumerate(f.players):
        if p.id not in used:
            raise refuse(("players", i, "id"), f"{p.id} is no entry's player: it is not the event's")
        if p.external_id is not None:
            if p.external_id in held:
                raise refuse(("players", i, "external_id"), "a second player of the same external_id")
            held.add(p.external_id)


def _check_pools(f: EventFile, own: _Own) -> None:
    event = f.event
    plan = rating_core.pool_plan(event.game_key, event.preset, event.settings)
    keys: set[str] = set()
    for i, pool in enumerate(f.rating_pools):
        loc: Loc = ("rating_pools", i)
        fed = plan is not None and (
            pool.key == plan.overall
            or (plan.character_base is not None and pool.key.startswith(f"{plan.character_base}:"))
        )
        if not fed:
            raise refuse((*loc, "key"), f"{pool.key!r} is not a pool the file's event feeds")
        if pool.key in keys:
            raise refuse((*loc, "key"), "a second pool of the same key")
        keys.add(pool.key)
        if pool.game_key not in (None, f.game.key):
            raise refuse((*loc, "game_key"), f"{pool.game_key!r} is not the file's game")
        if problems := rating_core.settings_problems(pool.settings):
            where, msg = problems[0]
            raise refuse((*loc, "settings", *where), msg)
    seen: set[tuple[str, str]] = set()
    for i, s in enumerate(f.start_ratings):
        if s.pool_key not in keys:
            raise refuse(("start_ratings", i, "pool_key"), f"{s.pool_key!r} is not a pool of the file")
        if s.player_id not in own.of["players"]:
            raise refuse(("start_ratings", i, "player_id"), f"{s.player_id} is not a player of the file")
        if (s.pool_key, s.player_id) in seen:
            raise refuse(("start_ratings", i), "a second starting rating of the same player and pool")
        seen.add((s.pool_key, s.player_id))


def load(data: bytes) -> EventFile:
    """An event file's bytes, read, parsed and checked whole: an ``EventFile`` that names only itself."""
    f = parse(read(data))
    check_own(f)
    return f
