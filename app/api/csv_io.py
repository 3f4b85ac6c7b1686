"""CSV in and out of the API: registration rows read from ``text/csv``, and tables written as CSV
(standings, pairings, the cross-table, and every list: api.md "CSV"). Parsing and formatting only;
the services own the rules.

A list's CSV is made from its item model (``list_answer``): one column per field, in the model's
order, so that the header is the same for an empty list; a nested model's fields as dotted columns
(``winner.name``), a list of plain values joined with ``; ``, any other nested value as compact JSON
text, times as the JSON writes them (ISO 8601), true and false as JSON spells them.
"""

from __future__ import annotations

import csv
import io
import json
import types
from collections.abc import Iterable, Iterator, Sequence
from typing import Annotated, Any, Literal, Union, get_args, get_origin
from urllib.parse import quote, urlencode

from fastapi import Query, Request
from fastapi.responses import Response
from pydantic import BaseModel

from app.api.caching import CSV_LISTS, cached, cached_json
from app.api.paging import Fetch
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


def cached_csv(
    request: Request,
    header: Sequence[str],
    rows: Iterable[Sequence[Any]],
    filename: str,
    headers: dict[str, str] | None = None,
) -> Response:
    """A read's CSV rendering (``?format=csv`` or ``Accept: text/csv``), with its own ETag."""
    return cached_json(
        request,
        csv_text(header, rows).encode(),
        media_type="text/csv; charset=utf-8",
        headers={**(headers or {}), "Content-Disposition": attachment(filename)},
    )


# --------------------------------------------------------------------------- a list as CSV
CSV_MAX_ROWS = 10_000  # items in one CSV answer of a list; past them, a Link to the rest


def _bare(hint: Any) -> Any:
    """A field's type without ``Annotated`` and without ``None`` (``X | None`` is ``X``)."""
    while get_origin(hint) is Annotated:
        hint = get_args(hint)[0]
    if get_origin(hint) in (Union, types.UnionType):
        rest = [a for a in get_args(hint) if a is not type(None)]
        if len(rest) == 1:
            return _bare(rest[0])
    return hint


def _model(hint: Any) -> type[BaseModel] | None:
    bare = _bare(hint)
    return bare if isinstance(bare, type) and issubclass(bare, BaseModel) else None


def item_model(page_model: type[BaseModel]) -> type[BaseModel]:
    """The model of a page's ``items`` (``list[X]``: ``X``)."""
    (item,) = get_args(_bare(page_model.model_fields["items"].annotation))
    found = _model(item)
    if found is None:
        raise TypeError(f"{page_model.__name__}.items is not a list of models")
    return found


def _paths(model: type[BaseModel], prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """The columns of ``model``: each field, a nested model's fields under its name."""
    out: list[tuple[str, ...]] = []
    for name, field in model.model_fields.items():
        nested = _model(field.annotation)
        out += _paths(nested, (*prefix, name)) if nested is not None else [(*prefix, name)]
    return out


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _text(value: Any) -> Any:
    """One dumped value as a cell: a number as it is, true/false, a list of plain values joined
    with ``; ``, anything else nested as compact JSON."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list) and all(_scalar(v) for v in value):
        return "; ".join(str(_text(v)) for v in value if v is not None)
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return value


def _at(dumped: dict[str, Any] | None, path: tuple[str, ...]) -> Any:
    for part in path:
        if dumped is None:
            return None
        dumped = dumped.get(part)
    return _text(dumped)


def csv_table(
    model: type[BaseModel], items: Iterable[BaseModel], explode: str | None = None
) -> tuple[list[str], Iterator[list[Any]]]:
    """The header and lines of ``items`` (instances of ``model``). ``explode`` names a field that
    holds a list of models: an item is then one line per element of it (its columns dotted under
    the field's name), or one line with them empty when it has none."""
    paths = _paths(model)
    if explode is not None:
        at = paths.index((explode,))
        element = _model(get_args(_bare(model.model_fields[explode].annotation))[0])
        if element is None:
            raise TypeError(f"{model.__name__}.{explode} is not a list of models")
        paths[at : at + 1] = [(explode, *p) for p in _paths(element)]
    header = [".".join(p) for p in paths]

    def lines() -> Iterator[list[Any]]:
        for item in items:
            dumped = item.model_dump(mode="json")
            if explode is None:
                yield [_at(dumped, p) for p in paths]
                continue
            for element in dumped[explode] or [None]:
                row = {**dumped, explode: element}
                yield [_at(row, p) for p in paths]

    return header, lines()


def csv_table_answer(
    request: Request,
    model: type[BaseModel],
    items: Iterable[BaseModel],
    filename: str,
    explode: str | None = None,
    headers: dict[str, str] | None = None,
) -> Response:
    """``items`` as a CSV answer with its ETag (``cached_csv``)."""
    header, lines = csv_table(model, items, explode)
    return cached_csv(request, header, lines, filename, headers)


def next_link(request: Request, cursor: str) -> str:
    """The ``Link`` to the rest of a list's CSV: this request's query, from ``cursor`` on."""
    kept = [(k, v) for k, v in request.query_params.multi_items() if k not in ("cursor", "format")]
    query = urlencode([*kept, ("format", "csv"), ("cursor", cursor)])
    return f'<{request.url.path}?{query}>; rel="next"'


async def list_answer(
    request: Request,
    format: str,
    page_model: type[BaseModel],
    fetch: Fetch[BaseModel],
    filename: str,
    *,
    limit: int | None = None,
    cursor: str | None = None,
    explode: str | None = None,
) -> Response:
    """A list's answer, with its ETag (api.md "Paging", "CSV"). As JSON, the page ``limit`` and
    ``cursor`` ask for. As CSV, every item from the cursor on, up to ``CSV_MAX_ROWS``, or ``limit``
    of them when the request names it; with a ``Link`` (``rel="next"``) to the rest when some
    remain. ``fetch`` may answer fewer items than asked with a cursor (``paging.from_service`` reads
    its service a chunk at a time): the rest is asked again. ``limit`` None: a list that does not page (it is read whole)."""
    route = request.scope.get("route")
    if getattr(route, "operation_id", None) not in CSV_LISTS:
        raise RuntimeError(f"{getattr(route, 'operation_id', None)} is not declared in CSV_LISTS")
    if not wants_csv(request, format):
        items, nxt = await fetch(limit or CSV_MAX_ROWS, cursor)
        return cached(request, page_model(items=items, next_cursor=nxt))
    wanted = limit if limit is not None and "limit" in request.query_params else CSV_MAX_ROWS
    rows: list[BaseModel] = []
    after = cursor
    while len(rows) < wanted:
        items, after = await fetch(wanted - len(rows), after)
        rows += items
        if after is None:
            break
    headers = {"Link": next_link(request, after)} if after is not None else None
    return csv_table_answer(request, item_model(page_model), rows, filename, explode, headers)
