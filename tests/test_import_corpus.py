"""`arbiter import` of untrusted files, on Postgres and on SQLite: a corpus of malformed and malicious
files (truncated, wrong types, NUL bytes, 5 MB names, huge numbers, rows naming another event's
entries, matches and players, planted tokens, duplicate ids, unknown keys, wrong versions, binary
garbage, deep nesting ...) is each refused with exit status 1 and one line naming the problem, and
the database is left as it was; the file of the event itself, with fresh ids, imports as a new event
whose new tokens work and whose old ones do not.

Most files run through the command's own function in this process (``app.cli.main``); a few through
the real ``arbiter import`` process."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import io
import json
import re
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from app import cli
from app.core.errors import Unauthorized
from app.db.base import Base
from app.db.session import make_sessionmaker
from app.services import transfer
from app.services.tokens import hash_token, principal_of_token
from app.services.transfer_rows import MAX_FILE_BYTES, UUID
from app.settings import get_settings
from app.wiring import build_registry
from tests.api.test_transfer import arbiter
from tests.support.api import Api, bearer, play_stage, setup_event, start

PLANTED = "planted-token-of-an-attacker"
Doc = dict[str, Any]
Case = tuple[
    str, bytes | Callable[[Doc], None], str
]  # name, the file (or a change of a valid one), expected words


def _fresh(doc: Doc) -> Doc:
    """The same event under new ids: a file this database has never seen."""
    text = json.dumps(doc)
    ids = {i: str(uuid.uuid4()) for i in set(UUID.findall(text))}
    return json.loads(UUID.sub(lambda m: ids[m.group(0)], text))


def _set(path: str, value: Any) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        *parents, last = [int(p) if p.isdigit() else p for p in path.split("/")]
        node: Any = doc
        for p in parents:
            node = node[p]
        node[last] = value

    return change


def _do(fn: Callable[[Doc], Any]) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        fn(doc)

    return change


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"x": value}
    return value


def corpus(victim: Doc) -> list[Case]:
    """Every file of the corpus: bytes as they are, or a change of a valid file of a new event."""
    v = victim["tables"]
    ventry, vmatch, vround = v["entries"][0]["id"], v["matches"][0]["id"], v["rounds"][0]["id"]
    vplayer, vevent = victim["players"][0]["id"], victim["event_id"]
    big = "x" * (5 * 1024 * 1024)
    return [
        ("empty file", b"", "not JSON"),
        ("truncated JSON", b'{"format": "arbiter-event", "version": 2, "tables": {"events": [', "not JSON"),
        ("binary garbage", bytes(range(128, 256)) * 64, "not UTF-8"),
        ("binary garbage with NUL", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "NUL byte"),
        ("a JSON array", b"[1, 2, 3]", "must be a JSON object"),
        ("a JSON string", b'"arbiter-event"', "must be a JSON object"),
        ("NaN", b'{"format": NaN}', "NaN is not a number"),
        (
            "an integer of 5000 digits",
            b'{"format": "arbiter-event", "version": ' + b"9" * 5000 + b"}",
            "not JSON",
        ),
        ("nested 100000 deep", b"[" * 100_000 + b"]" * 100_000, "nested deeper"),
        ("nested 40 deep in a stage", _set("tables/stages/0/details/extra", _nested(40)), "nested deeper"),
        ("larger than the bound", b" " * (MAX_FILE_BYTES + 1), "larger than"),
        ("wrong format", _set("format", "something"), "format"),
        ("version 1 (token hashes)", _set("version", 1), "export it again"),
        ("version 99", _set("version", 99), "version"),
        ("version as text", _set("version", "2"), "version"),
        ("missing event", _set("tables/events", []), "tables/events"),
        (
            "two events",
            _do(lambda d: d["tables"]["events"].append(copy.deepcopy(d["tables"]["events"][0]))),
            "tables/events",
        ),
        ("no tables", _do(lambda d: d.pop("tables")), "tables"),
        ("NUL escape in a name", _set("tables/entries/0/name", "Ada\u0000"), "NUL character"),
        ("NUL in a settings key", _set("tables/events/0/settings/x\u0000", 1), "NUL character"),
        ("lone surrogate", _set("players/0/name", "Ada\ud800"), "lone surrogate"),
        ("5 MB player name", _set("players/0/name", big), "players/0/name"),
        ("201-character name", _set("tables/entries/2/name", "n" * 201), "at most 200 characters"),
        ("101-character club", _set("tables/entries/2/club", "c" * 101), "at most 100 characters"),
        ("17 characters", _set("tables/entries/2/characters", ["c"] * 17), "at most 16 items"),
        ("seed number 0", _set("tables/entries/2/seed", 0), "tables/entries/2/seed"),
        ("rating 10**18", _set("tables/entries/2/rating_at_entry", 10**18), "rating_at_entry"),
        ("5 MB entry name", _set("tables/entries/1/name", big), "tables/entries/1/name"),
        ("5 MB text in a match's details", _set("tables/matches/0/details/note", big), "longer than"),
        ("invisible name", _set("tables/entries/0/name", "\u200b\u200b"), "visible character"),
        ("rounds 10**18", _set("tables/events/0/settings/stages/0/rounds", 10**18), "rounds"),
        (
            "rounds 10**18 in a stage only",
            _set("tables/stages/0/settings/rounds", 10**18),
            "tables/stages/0/settings",
        ),
        ("huge float in settings", _set("tables/events/0/settings/capacity", 1e300), "capacity"),
        ("infinite score (1e400)", b"", "finite"),  # filled in below: JSON text, not a Python float
        ("seat number 10**18", _set("tables/seats/0/seat", 10**18), "tables/seats/0/seat"),
        ("negative table", _set("tables/matches/0/table", -1), "tables/matches/0/table"),
        ("rating as text", _set("tables/entries/0/rating_at_entry", "1500"), "rating_at_entry"),
        ("rating as boolean", _set("tables/entries/0/rating_at_entry", True), "rating_at_entry"),
        ("organizer as 1", _set("tables/entries/0/organizer", 1), "organizer"),
        ("entries as an object", _set("tables/entries", {}), "tables/entries"),
        ("unknown status", _set("tables/entries/0/status", "royal"), "status"),
        ("garbage date", _set("tables/entries/0/created_at", "yesterday"), "created_at"),
        ("a date without its offset", _set("tables/entries/0/created_at", "2026-01-01T00:00:00"), "offset"),
        ("a date of the year 1", _set("tables/matches/0/created_at", "0001-01-01T00:00:00+05:00"), "years"),
        ("a key given twice", b'{"format": "arbiter-event", "format": "x"}', "given twice"),
        ("unknown top-level key", _set("extra", 1), "unknown key"),
        ("unknown column", _set("tables/matches/0/admin", True), "unknown key"),
        ("unknown table", _set("tables/staff", []), "unknown key"),
        (
            "planted entry token hash",
            _set("tables/entries/0/token_hash", hash_token(PLANTED)),
            "tokens are never imported",
        ),
        (
            "planted organizer token hash",
            _set("tables/events/0/organizer_token_hash", hash_token(PLANTED)),
            "tokens are never imported",
        ),
        ("entry in another event", _set("tables/entries/0/event_id", vevent), "not its own"),
        ("stage in another event", _set("tables/stages/0/event_id", vevent), "not its own"),
        (
            "history in another event",
            _do(
                lambda d: d["tables"]["event_history"].append(
                    {
                        "id": str(uuid.uuid4()),
                        "event_id": vevent,
                        "action": "cancel",
                        "actor": "organizer",
                        "payload": {},
                        "created_at": "2026-01-01T00:00:00+00:00",
                    }
                )
            ),
            "not its own",
        ),
        ("seat of another event's entry", _set("tables/seats/0/entry_id", ventry), "not its own"),
        ("match in another event's round", _set("tables/matches/0/round_id", vround), "not its own"),
        (
            "claim on another event's match",
            _do(
                lambda d: d["tables"]["result_reports"].append(
                    {
                        "id": str(uuid.uuid4()),
                        "match_id": vmatch,
                        "reporter": "organizer",
                        "payload": {},
                        "created_at": "2026-01-01T00:00:00+00:00",
                    }
                )
            ),
            "not its own",
        ),
        (
            "another event's entry in a stage's details",
            _do(lambda d: d["tables"]["stages"][0]["details"]["entries"].append(ventry)),
            "not the file's own",
        ),
        (
            "another event's entry as the winner",
            _set("tables/events/0/winner_entry_id", ventry),
            "not its own",
        ),
        ("entry of another database's player", _set("tables/entries/0/player_id", vplayer), "not its own"),
        (
            "a player no entry plays",
            _do(
                lambda d: d["players"].append(
                    {
                        "id": vplayer,
                        "name": "Mallory",
                        "name_key": "mallory",
                        "external_id": None,
                        "created_at": "2026-01-01T00:00:00+00:00",
                    }
                )
            ),
            "no entry's player",
        ),
        ("event_id not the file's event", _set("event_id", vevent), "event_id"),
        ("another game", _set("tables/events/0/game_key", "chess"), "game"),
        (
            "duplicate entry id",
            _do(
                lambda d: d["tables"]["entries"].__setitem__(
                    1, {**d["tables"]["entries"][1], "id": d["tables"]["entries"][0]["id"]}
                )
            ),
            "second row of the same id",
        ),
        (
            "two entries of one player",
            _set("tables/entries/1/player_id", "@entries/0/player_id"),
            "second entry of the same player",
        ),
        ("id that is no id", _set("tables/rounds/0/id", "'; DROP TABLE events; --"), "tables/rounds/0/id"),
        (
            "a pool the event does not feed",
            _set("rating_pools/0/key", "chess"),
            "not a pool the file's event feeds",
        ),
        (
            "starting rating of another's player",
            _do(
                lambda d: d["start_ratings"].append(
                    {"pool_key": d["rating_pools"][0]["key"], "player_id": vplayer, "start_rating": 1500}
                )
            ),
            "not a player of the file",
        ),
        (
            "two seats of one number",
            _do(
                lambda d: d["tables"]["seats"][1].update(
                    {k: d["tables"]["seats"][0][k] for k in ("match_id", "seat")}
                )
            ),
            "second row of the same",
        ),
        (
            "two rounds of one number",
            _do(
                lambda d: d["tables"]["rounds"][1].update(
                    {k: d["tables"]["rounds"][0][k] for k in ("stage_id", "number")}
                )
            ),
            "second row of the same",
        ),
        ("an unknown preset", _set("tables/events/0/preset", "no-such-preset"), "preset"),
        (
            "an unknown settings key",
            _set("tables/events/0/settings/admin", True),
            "tables/events/0/settings/admin",
        ),
        ("the event itself again", b"", "already in this database"),  # filled in below: the victim's own file
    ]


def _materialize(case: Case, victim: Doc, valid: Doc) -> bytes:
    name, change, _ = case
    if name == "the event itself again":
        return json.dumps(victim).encode()
    if name == "infinite score (1e400)":
        doc = copy.deepcopy(valid)
        doc["tables"]["seats"][0]["score"] = "@INF@"
        return json.dumps(doc).replace('"@INF@"', "1e400").encode()
    if isinstance(change, bytes):
        return change
    doc = copy.deepcopy(valid)
    change(doc)
    text = json.dumps(doc)
    # a reference to another row of the same file: "@entries/0/player_id"
    for ref in set(re.findall(r'"@(\w+)/(\d+)/(\w+)"', text)):
        table, i, column = ref
        text = text.replace(f'"@{table}/{i}/{column}"', json.dumps(doc["tables"][table][int(i)][column]))
    return text.encode()


async def _dump(api: Api) -> dict[str, list[str]]:
    """Every row of every table, as text."""
    out: dict[str, list[str]] = {}
    async with api.app.state.engine.connect() as conn:
        for table in Base.metadata.sorted_tables:
            out[table.name] = sorted(repr(tuple(r)) for r in (await conn.execute(select(table))).all())
    return out


@contextlib.contextmanager
def _database(url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("DATABASE_URL", url)
    get_settings.cache_clear()
    try:
        yield
    finally:
        get_settings.cache_clear()


def _import_in_process(path: Path) -> tuple[int, str, str]:
    """``arbiter import PATH`` through the command's own entry point, in this process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            cli.main(["import", str(path)])
            code = 0
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


async def _victim(api: Api) -> tuple[Doc, dict[str, dict[str, Any]]]:
    """A rated event already in the database, a round of it played: what a crafted file attacks."""
    event_id, token, made = await setup_event(
        api,
        {n: {"rating": 1500 + 10 * i} for i, n in enumerate(["Ada", "Bob", "Cy", "Di", "Eve"])},
        settings={"rated": True, "stages": [{"format": "swiss", "rounds": 2}]},
    )
    await play_stage(api, event_id, token, (await start(api, event_id, token))["round"])
    await api.drain_jobs()
    async with make_sessionmaker(api.app.state.engine, build_registry().session_info())() as session:
        return await transfer.export_event(session, event_id), made


async def test_the_corpus_is_refused_whole_and_a_fresh_file_imports(
    api: Api, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    victim, made = await _victim(api)
    assert "token_hash" not in victim["tables"]["entries"][0], "no token hash leaves in a file"
    valid = _fresh(victim)
    cases = corpus(victim)
    assert len(cases) >= 25
    url = api.app.state.settings.database_url
    before = await _dump(api)
    outcomes: dict[str, str] = {}
    with _database(url, monkeypatch):
        for i, case in enumerate(cases):
            name, _, expected = case
            path = tmp_path / f"case-{i}.json"
            path.write_bytes(_materialize(case, victim, valid))
            code, out, err = await in_thread_async(_import_in_process, path)
            lines = err.strip().splitlines()
            ok = code == 1 and len(lines) == 1 and expected in lines[0] and not out and "Traceback" not in err
            outcomes[name] = "refused" if ok else f"WRONG: exit {code}, stderr {err[:300]!r}"
            print(f"{name}: {err.strip()[:160]}")
            assert await _dump(api) == before, f"{name}: the database changed"
        for missing in (tmp_path / "no-such-file.json", tmp_path):  # no file, a directory
            code, out, err = await in_thread_async(_import_in_process, missing)
            assert code == 1 and err.startswith("arbiter import: cannot read") and err.count("\n") == 1, err
    wrong = {k: v for k, v in outcomes.items() if v != "refused"}
    print(
        f"\nimport corpus on {api.backend}: {len(cases)} files, {len(cases) - len(wrong)} refused in one line"
    )
    assert not wrong, wrong

    # the planted token opens nothing
    async with api.app.state.engine.connect() as conn:
        with pytest.raises(Unauthorized):
            await principal_of_token(conn, PLANTED)

    # a few through the real process: one line, exit 1, nothing written
    by_name = {c[0]: i for i, c in enumerate(cases)}
    for name in ("planted entry token hash", "entry in another event"):
        i = by_name[name]
        expected = cases[i][2]
        path = tmp_path / f"case-{i}.json"
        done = arbiter(url, "import", str(path))
        assert done.returncode == 1 and expected in done.stderr, (name, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1 and not done.stdout, (name, done.stderr)
    assert await _dump(api) == before

    # the valid file: a new event, new ids, new tokens; the file's ids and the victim's tokens are not its
    path = tmp_path / "valid.json"
    path.write_text(json.dumps(valid))
    with _database(url, monkeypatch):
        code, out, err = await in_thread_async(_import_in_process, path)
    assert code == 0, err
    result = json.loads(out)
    new_id = result["event_id"]
    assert new_id != valid["event_id"] and new_id not in json.dumps(valid)
    assert result["source_event_id"] == valid["event_id"]
    entry = result["entries"][0]
    r = await api.client.get(f"/v1/events/{new_id}/entries")
    assert r.status_code == 200 and len(r.json()["items"]) == 5
    assert {e["id"] for e in r.json()["items"]} == {e["entry_id"] for e in result["entries"]}
    own = f"/v1/events/{new_id}/entries/{entry['entry_id']}/token"
    r = await api.client.post(own, headers=bearer(result["organizer_token"]))
    assert r.status_code == 200, r.text  # the organizer's new token reissues an entry's
    ada = made["Ada"]["entry_token"]  # a token of the victim: nothing of the imported event
    async with api.app.state.engine.connect() as conn:
        p = await principal_of_token(conn, ada)
        assert p.event_id == victim["event_id"]
        q = await principal_of_token(conn, result["entries"][1]["entry_token"])
        assert q.event_id == new_id
    # the same file again is the event already here
    with _database(url, monkeypatch):
        code, _, err = await in_thread_async(_import_in_process, path)
    assert code == 1 and "already in this database" in err


async def in_thread_async(fn: Callable[..., Any], *args: Any) -> Any:
    """Run the command (``asyncio.run`` inside) off the test's event loop."""
    return await asyncio.get_running_loop().run_in_executor(None, fn, *args)


def test_every_exported_column_has_its_row_model() -> None:
    """A column added to a table that travels needs its bound in the file's row model (and a column
    the model names must exist), or an export would no longer import."""
    from app.services.transfer_rows import ROW_MODELS

    for model in transfer.TABLES:
        table = model.__table__  # type: ignore[attr-defined]
        columns = {c.name for c in table.columns} - transfer.LOCAL
        assert set(ROW_MODELS[table.name].model_fields) == columns, table.name
