"""What the console's forms send, as the bodies the services take (the API's own shapes)."""

from __future__ import annotations

import copy
import hmac
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from app.api.bga import TableIn
from app.core.errors import DomainError, InvalidInput, Problem
from app.core.games.rite_of_command import MAX_DECK_SIZE
from app.core.vocabulary import EntryStatus, EventStatus, StaffRole
from app.db.models import Event, Match
from app.services.reads import settings_of
from app.services.rite_of_command import DEFAULT_DECK


def same_token(sent: object, expected: str) -> bool:
    """Whether what a browser sent (a form's ``csrf`` field, a signed cookie's signature) is the
    expected token, compared as bytes in constant time: any text (non-ASCII too) is an answer,
    never an error."""
    return hmac.compare_digest(str(sent).encode("utf-8", "surrogatepass"), expected.encode())


@dataclass(frozen=True)
class Knob:
    """One scalar setting of a preset's document, at a dotted path (``stages.0.rounds``)."""

    path: str
    value: Any
    optional: bool = False  # a blank leaves the setting to the engine (a Swiss stage's rounds)
    hint: str = "swiss_rounds_hint"  # the words under an optional knob: what a blank does
    typed: str = ""  # the kind of a setting the preset leaves unset (no value to say it): int, datetime

    @property
    def kind(self) -> str:
        if self.typed:
            return self.typed
        if isinstance(self.value, bool):
            return "bool"
        if isinstance(self.value, int):
            return "int"
        if isinstance(self.value, float):
            return "float"
        return "str"

    @property
    def field(self) -> str:
        return f"knob:{self.path}"


def knobs(
    settings: dict[str, Any] | list[Any], prefix: str = "", offered: dict[str, str] | None = None
) -> list[Knob]:
    """Every scalar of a settings document (lists of scalars and objects without scalars are kept
    as they are: the API takes them), then each setting the preset leaves unset that its form
    offers (``offered``: path → kind, ``int`` or ``datetime``), blank."""
    out = _scalars(settings, prefix)
    known = {k.path for k in out}
    for path, kind in (offered or {}).items():
        if path not in known:
            hint = f"knob_{path.rsplit('.', 1)[-1]}_hint"
            out.append(Knob(path, None, optional=True, hint=hint, typed=kind))
    return out


def _scalars(settings: dict[str, Any] | list[Any], prefix: str = "") -> list[Knob]:
    out: list[Knob] = []
    items: list[tuple[str, Any]] = (
        [(str(i), v) for i, v in enumerate(settings)]
        if isinstance(settings, list)
        else list(settings.items())
    )
    for k, v in items:
        path = f"{prefix}{k}"
        if isinstance(v, dict | list) and not (
            isinstance(v, list) and all(not isinstance(x, dict) for x in v)
        ):
            out.extend(_scalars(v, f"{path}."))
        elif isinstance(v, bool | int | float | str):
            swiss_rounds = k == "rounds" and isinstance(settings, dict) and settings.get("format") == "swiss"
            out.append(Knob(path, v, optional=swiss_rounds))
    if isinstance(settings, dict) and settings.get("format") == "swiss" and "rounds" not in settings:
        # a Swiss stage whose rounds follow the field (the BATTLEBOOKS presets' chart at the start,
        # else ceil(log2 n)): offered blank, a number sets them
        hint = "block_rounds_hint" if "block" in settings else "swiss_rounds_hint"
        out.append(Knob(f"{prefix}rounds", 0, optional=True, hint=hint))
    return out


def when(text: str, loc: tuple[str, ...], example: str) -> datetime:
    """A date and time as typed (ISO 8601; ``Z`` for UTC; without an offset, UTC)."""
    try:
        at = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        msg = f"give a date and time such as {example}"
        raise InvalidInput(f"{'.'.join(loc)}: {msg} (not {text!r})", [Problem(loc, msg)]) from None
    return at if at.tzinfo else at.replace(tzinfo=UTC)


def _parse(knob: Knob, raw: str | None) -> Any:
    if knob.kind == "bool":
        return raw is not None
    text = (raw or "").strip()
    if knob.kind == "str":
        return text
    if knob.kind == "datetime":
        return when(text, ("settings", *knob.path.split(".")), "2026-12-20T23:59+09:00").isoformat()
    try:
        return int(text) if knob.kind == "int" else float(text)
    except ValueError:
        raise InvalidInput(
            f"{knob.path} must be a number",
            [Problem(("settings", *knob.path.split(".")), "must be a number")],
        ) from None


def _has(settings: dict[str, Any], path: str) -> bool:
    node: Any = settings
    for part in path.split("."):
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return False
    return True


def overrides(
    settings: dict[str, Any], form: dict[str, str], offered: dict[str, str] | None = None
) -> dict[str, Any]:
    """The settings to send with the preset: each top-level key whose knobs the form changed, whole
    (a checkbox left out is unchecked, as browsers send them); a setting the preset leaves unset
    and the form left blank is not sent."""
    changed: dict[str, Any] = {}
    for knob in knobs(settings, offered=offered):
        if knob.kind != "bool" and knob.field not in form:  # not on the form: the preset's value
            continue
        blank = knob.optional and not str(form.get(knob.field) or "").strip()
        if blank and not _has(settings, knob.path):  # left to the engine, as the preset leaves it
            continue
        value = None if blank else _parse(knob, form.get(knob.field))
        if value == knob.value:
            continue
        top, *rest = knob.path.split(".")
        if not rest:
            changed[top] = value
            continue
        doc = changed.setdefault(top, copy.deepcopy(settings[top]))
        node: Any = doc
        for part in rest[:-1]:
            node = node[int(part)] if isinstance(node, list) else node[part]
        last = rest[-1]
        if blank:  # the engine's default: a Swiss stage without rounds plays ceil(log2 N)
            node.pop(last, None)
        elif isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return changed


def names_rows(text: str) -> list[dict[str, Any]]:
    """A pasted list: one name a line (blank lines skipped)."""
    return [{"name": line.strip()} for line in text.splitlines() if line.strip()]


def result_body(match: Match, choice: str) -> dict[str, Any]:
    """One click's result: ``draw`` (every seat named, as the API asks of every result), or
    ``seat:N`` (that seat first, the others after it in seat order)."""
    seats = sorted(match.seats, key=lambda s: s.seat)
    if choice == "draw":
        return {"outcome": "draw", "seats": [{"entry_id": s.entry_id} for s in seats]}
    kind, _, number = choice.partition(":")
    if kind != "seat" or not number.isdigit() or int(number) >= len(seats):
        raise InvalidInput("unknown result", [Problem(("choice",), "must be draw or seat:N of a seat")])
    winner = seats[int(number)]
    rest = [s for s in seats if s is not winner]
    return {
        "seats": [{"entry_id": winner.entry_id, "place": 1}]
        + [{"entry_id": s.entry_id, "place": i + 2} for i, s in enumerate(rest)]
    }


def named(text: str, names: dict[str, str]) -> str:
    """A service's message for a person: every entry id in it replaced by that entry's name."""
    for entry_id, name in sorted(names.items(), key=lambda kv: -len(kv[0])):
        if entry_id:
            text = text.replace(entry_id, name)
    return text


# "seat 2", "seats 1, 3" in a refusal of a record that numbers its seats from 0 (not "seats 0–7")
SEAT_NUMBERS = re.compile(r"\bseats? (\d+(?:, \d+)*)(?![\d–])")
DIGITS = re.compile(r"\d+")


def seats_named(exc: DomainError, seats: list[str]) -> DomainError:
    """The refusal of a record that numbers the table's seats from 0, each seat number of the
    table followed by its player's name (``seats``, seat 0 first): "seat 2 (Cleo)". The same
    error, its words changed."""

    def one(number: re.Match[str]) -> str:
        k = int(number.group(0))
        return f"{k} ({seats[k]})" if k < len(seats) else number.group(0)

    def said(text: str) -> str:
        return SEAT_NUMBERS.sub(
            lambda m: m.group(0)[: m.start(1) - m.start(0)] + DIGITS.sub(one, m.group(1)), text
        )

    exc.detail = said(exc.detail)
    exc.args = (exc.detail,)
    if isinstance(exc, InvalidInput):
        exc.problems = [Problem(p.loc, said(p.msg)) for p in exc.problems]
    return exc


RESULT_FIELDS = ("score", "body_points", "differential")


def number(raw: str) -> float | int:
    value = float(raw.replace(",", "."))
    return int(value) if value.is_integer() else value


def places_body(match: Match, form: dict[str, Any]) -> dict[str, Any]:
    """A table's places (``place:N``, shared places allowed) and, where the preset scores them,
    each seat's ``score:N``, ``body_points:N``, ``differential:N`` (N: the seat's index in seat
    order; a blank field is left out), as the API's result body."""
    seats = sorted(match.seats, key=lambda s: s.seat)
    rows: list[dict[str, Any]] = []
    problems: list[Problem] = []
    for i, seat in enumerate(seats):
        row: dict[str, Any] = {"entry_id": seat.entry_id}
        for key in ("place", *RESULT_FIELDS):
            raw = str(form.get(f"{key}:{i}", "")).strip()
            if not raw:
                continue
            try:
                row[key] = int(raw) if key == "place" else number(raw)
            except ValueError:
                what = key.replace("_", " ")
                problems.append(Problem(("seats", i, key), f"{seat.entry_id}'s {what} must be a number"))
        if form.get(f"violation:{i}") == "yes":
            row["violation"] = True
        rows.append(row)
    placed = [r for r in rows if "place" in r]
    scored = [r for r in rows if "score" in r]
    if not problems and 0 < len(placed) < len(rows) and len(scored) < len(rows):
        missing = ", ".join(r["entry_id"] for r in rows if "place" not in r)
        problems.append(Problem(("seats",), f"choose a place for every seat; no place for {missing}"))
    if not problems and not placed and 0 < len(scored) < len(rows):
        missing = ", ".join(r["entry_id"] for r in rows if "score" not in r)
        problems.append(Problem(("seats",), f"give every seat's score; no score for {missing}"))
    if not problems and not placed and not scored:
        problems.append(Problem(("seats",), "choose each seat's place (equal places for a tie)"))
    if problems:
        raise InvalidInput(problems[0].msg, problems)
    return {"seats": rows}


def body_of(match: Match, form: dict[str, Any]) -> dict[str, Any]:
    """The result a console form sends: one click (``choice``), or the places-and-scores form, with
    the hero each seat played where the form asks (``character:N``, BATTLEBOOKS)."""
    choice = str(form.get("choice", ""))
    body = places_body(match, form) if choice == "places" else result_body(match, choice)
    return with_heroes(match, body, form)


def with_heroes(match: Match, body: dict[str, Any], form: dict[str, Any]) -> dict[str, Any]:
    """Each seat's hero chosen with a result (``character:N``, N the seat's index in seat order;
    a blank leaves it to the declaration, or to the hero rule's one choice): the seat's
    ``character`` in the API's result body, checked by the hero rule there."""
    seats = sorted(match.seats, key=lambda s: s.seat)
    chosen = {s.entry_id: str(form.get(f"character:{i}", "")).strip() for i, s in enumerate(seats)}
    for row in body.get("seats", []):
        if chosen.get(row["entry_id"]):
            row["character"] = chosen[row["entry_id"]]
    return body


def heat_tables(form: dict[str, Any], entry_ids: list[str]) -> list[list[str]]:
    """The tables the organizer opens at once (``heat:{entry_id}`` = the new table's number, 1…,
    a blank for a player who sits out), each in the order of the entries' list, by number."""
    tables: dict[int, list[str]] = {}
    for entry_id in entry_ids:
        raw = str(form.get(f"heat:{entry_id}", "")).strip()
        if raw.isdigit() and int(raw) > 0:
            tables.setdefault(int(raw), []).append(entry_id)
    if not tables:
        raise InvalidInput(
            "choose the players of each table to open", [Problem(("tables",), "give at least one table")]
        )
    return [tables[k] for k in sorted(tables)]


def staff_fields(form: dict[str, Any]) -> tuple[str, StaffRole]:
    """A new member of the staff as the form names it: a name (1–200 characters, as the API's
    ``StaffCreate``) and a role, scorekeeper or judge."""
    name = str(form.get("member", "")).strip()
    problems: list[Problem] = []
    if not 1 <= len(name) <= 200:
        problems.append(Problem(("name",), "give the member a name (at most 200 characters)"))
    role = str(form.get("role", ""))
    if role not in {r.value for r in StaffRole}:
        problems.append(Problem(("role",), "must be scorekeeper or judge"))
    if problems:
        raise InvalidInput(problems[0].msg, problems)
    return name, StaffRole(role)


def missing(event: Event, entries: list[Any]) -> list[Any] | None:
    """Who is still to check in before the start (``None``: the event takes no check-in, or has
    started): the active entries not checked in, in the entries' order."""
    if event.status != EventStatus.REGISTRATION or not settings_of(event).check_in:
        return None
    return [
        e.entry for e in entries if e.entry.status == EntryStatus.ACTIVE and e.entry.checked_in_at is None
    ]


def bga_table_body(form: dict[str, Any], seated: list[str], keys: list[str]) -> dict[str, Any]:
    """A BGA table as the console's form (and the player's page's) gives it, checked by the API's
    own ``TableIn``: the table id, when it was created (ISO 8601; without an offset, UTC), the seats
    ticked as its players, each table setting as the site shows it, and the organizer's permission
    (the service refuses it to anyone else)."""
    created = str(form.get("created_at", "")).strip()
    body = {
        "table": str(form.get("table", "")).strip(),
        "created_at": when(created, ("created_at",), "2026-12-02T18:30") if created else None,
        "players": [e for e in seated if form.get(f"player:{e}") == "yes"],
        "settings": {k: str(form.get(f"setting:{k}", "")).strip() for k in keys},
        "allowed": form.get("allowed") == "yes",
    }
    try:
        return TableIn.model_validate(body).model_dump()
    except ValidationError as exc:
        problems = [Problem(tuple(str(x) for x in e["loc"]), e.get("msg", "invalid")) for e in exc.errors()]
        words = {
            "table": "the BGA table's number",
            "created_at": "when it was created",
            "players": "its players",
        }
        first = problems[0]
        raise InvalidInput(f"{words.get(str(first.loc[0]), first.loc[0])}: {first.msg}", problems) from None


def deck_size(raw: object) -> int:
    """A Rite of Command deal's cards a player as typed (blank: the console's default, six)."""
    text = str(raw if raw is not None else "").strip() or str(DEFAULT_DECK)
    if not text.isdigit() or not 1 <= int(text) <= MAX_DECK_SIZE:
        raise InvalidInput(
            f"the deck size must be a whole number from 1 to {MAX_DECK_SIZE}",
            [Problem(("deck_size",), f"a whole number from 1 to {MAX_DECK_SIZE}")],
        )
    return int(text)
