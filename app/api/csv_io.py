"""CSV in and out of the API: registration rows read from ``text/csv``, and tables written as CSV
(standings, pairings, the cross-table). Parsing and formatting only; the services own the rules."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from typing import Annotated, Any, Literal
from urllib.parse import quote

from fastapi import Query, Request
from fastapi.responses import Response

from app.core.errors import InvalidInput, Problem

# Registration columns; ``team`` is read as ``club``. ``characters`` are separated by ``|``.
ENTRY_COLUMNS = ("name", "player_id", "external_id", "rating", "seed", "club", "characters", "organizer")
ALIASES = {"team": "club"}
MAX_ROWS = 5000
BOOLEAN_CELLS = {"true": True, "false": False}


def read_entry_rows(text: str) -> list[dict[str, Any]]:
    """The rows of a registration CSV (a header line, then one player a line) as request bodies.
    An unknown or missing header is an InvalidInput naming it; empty cells are left out."""
    reader = csv.reader(io.StringIO(text))
    try:
        header = next(reader)
    except StopIteration:
        raise InvalidInput("the CSV is empty", [Problem(("csv", 1), "a header line is required")]) from None
    except csv.Error as exc:
        raise InvalidInput("the CSV cannot be read", [Problem(("csv", 1), str(exc))]) from None
    columns = [ALIASES.get(h.strip().lower(), h.strip().lower()) for h in header]
    problems = [
        Problem(("csv", 1, i), f"unknown column {h!r}; use {', '.join(ENTRY_COLUMNS)}")
        for i, h in enumerate(columns)
        if h not in ENTRY_COLUMNS
    ]
    if "name" not in columns and "player_id" not in columns:
        problems.append(Problem(("csv", 1), "a name (or player_id) column is required"))
    if len(set(columns)) != len(columns):
        problems.append(Problem(("csv", 1), "a column is named twice"))
    if problems:
        raise InvalidInput("the CSV header is not valid", problems)
    rows: list[dict[str, Any]] = []
    try:
        for line in reader:
            if not any(cell.strip() for cell in line):
                rows.append({})  # kept so that row numbers stay line numbers; reported as empty
                continue
            row: dict[str, Any] = {}
            for col, cell in zip(columns, line, strict=False):
                value = cell.strip()
                if not value:
                    continue
                if col == "characters":
                    row[col] = [c.strip() for c in value.split("|") if c.strip()]
                elif col == "organizer":
                    # a boolean cell says true or false (any case, as spreadsheets write it); any other
                    # text stays text and is refused by the row's check, never guessed (api.md)
                    row[col] = BOOLEAN_CELLS.get(value.lower(), value)
                else:
                    row[col] = value
            if len(line) > len(columns):
                row["__extra__"] = line[len(columns) :]
            rows.append(row)
            if len(rows) > MAX_ROWS:
                raise InvalidInput(
                    "too many rows", [Problem(("csv",), f"at most {MAX_ROWS} rows in one registration")]
                )
    except csv.Error as exc:
        raise InvalidInput("the CSV cannot be read", [Problem(("csv", reader.line_num), str(exc))]) from None
    return rows


# A text cell a spreadsheet would run as a formula starts with one of these (OWASP's list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


class Notation(str):
    """A cell the server writes in a fixed notation that starts with a sign (a cross-table's
    ``+5w``, ``=3b``): written as it is, since nobody's text can reach it."""

    __slots__ = ()


def cell(value: Any) -> Any:
    """One cell as written: nothing for None, a number as it is (``-1.5`` stays a number), a text
    that would start a formula prefixed with ``'`` so that a spreadsheet shows it as text."""
    if value is None:
        return ""
    if isinstance(value, str) and not isinstance(value, Notation) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def csv_text(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """Every CSV the API writes: a header line, then the rows, each text cell neutralised."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([cell(h) for h in header])
    for row in rows:
        writer.writerow([cell(v) for v in row])
    return out.getvalue()


def attachment(filename: str) -> str:
    """The ``Content-Disposition`` of a download (RFC 6266): a name every client reads (printable
    ASCII, quotes and backslashes as ``_``) and, when that is not the name, the exact one in UTF-8
    — a name made of a pool's key may hold any character, a header only Latin-1."""
    plain = "".join(c if " " <= c <= "~" and c not in '"\\' else "_" for c in filename)
    if plain == filename:
        return f'attachment; filename="{filename}"'
    return f"attachment; filename=\"{plain}\"; filename*=UTF-8''{quote(filename, safe='')}"


def csv_response(header: Sequence[str], rows: Iterable[Sequence[Any]], filename: str) -> Response:
    return Response(
        csv_text(header, rows),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": attachment(filename)},
    )


CSV_CONTENT: dict[int | str, dict[str, Any]] = {
    200: {
        "content": {"text/csv": {"schema": {"type": "string"}}},
        "description": "JSON, or CSV with ?format=csv",
    }
}


# ``?format=`` of a read that also answers as a spreadsheet
FormatQuery = Annotated[Literal["json", "csv"], Query(description="json, or csv for a spreadsheet")]


def wants_csv(request: Request, format: str) -> bool:
    """Whether a read that also answers as a spreadsheet is asked for CSV: ``?format=csv``, or an
    ``Accept`` that names ``text/csv`` before (or without) JSON."""
    if format == "csv":
        return True
    accept = request.headers.get("accept", "").lower()
    at = accept.find("text/csv")
    if at < 0:
        return False
    json_at = accept.find("application/json")
    return json_at < 0 or at < json_at
