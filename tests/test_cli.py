"""The ``arbiter`` command as an operator runs it, in real processes: ``migrate`` says the revision it
reached; a database that is missing, unreachable, behind or ahead, a malformed URL, a bad or unknown
setting, a secret's file and a Redis out of reach are one line (one JSON object with
ARBITER_LOG_FORMAT=json) and exit status 1, never a traceback; ``postgres://`` URLs with libpq's
parameters work; ``backup`` copies a SQLite database that is being written to; ``serve`` writes JSON
lines, and ``serve --workers 2`` runs two processes whose /metrics count the requests of both."""

from __future__ import annotations

import asyncio
import json
import socket
import sqlite3
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy.engine import make_url

from app.cli import head_revision, migrate
from app.core.database_url import BadDatabaseUrl, connect_arguments
from app.db.session import make_engine
from app.settings import Settings, SettingsProblem, normalize_database_url
from app.version import __version__
from tests.support.processes import arbiter, env, finish, free_port, spawn, wait_http
from tests.support.services import admin_execute, in_thread, server_url

HEAD = head_revision()


def refused(result: object, *fragments: str) -> str:
    """The one line a refusal prints (and its exit status 1)."""
    out = f"{result.stdout}{result.stderr}"  # type: ignore[attr-defined]
    assert result.returncode == 1, out  # type: ignore[attr-defined]
    assert "Traceback" not in out, out
    lines = [line for line in result.stderr.splitlines() if line.strip()]  # type: ignore[attr-defined]
    assert len(lines) == 1, out
    for f in fragments:
        assert f in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def empty_pg() -> Iterator[str]:
    """A Postgres database of the test's own, with nothing in it, as a plain ``postgresql://`` URL."""
    server = server_url()
    name = f"arbiter_cli_{uuid.uuid4().hex[:10]}"
    in_thread(asyncio.run, admin_execute(server, f'CREATE DATABASE "{name}"'))
    url = make_url(server).set(drivername="postgresql", database=name).render_as_string(hide_password=False)
    yield url
    in_thread(asyncio.run, admin_execute(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def test_urls_hosting_platforms_hand_out_mean_asyncpg() -> None:
    assert normalize_database_url("postgres://u:p@db:5432/x") == "postgresql+asyncpg://u:p@db:5432/x"
    assert normalize_database_url("postgresql://u@db/x") == "postgresql+asyncpg://u@db/x"
    assert (
        normalize_database_url("postgres://u@db/x?sslmode=require&application_name=a")
        == "postgresql+asyncpg://u@db/x?ssl=require&application_name=a"
    )
    assert normalize_database_url("sqlite:///./a.db") == "sqlite+aiosqlite:///./a.db"
    for kept in ("postgresql+asyncpg://u@db/x", "sqlite+aiosqlite:///a.db"):
        assert normalize_database_url(kept) == kept
    # a password apart from the URL is written into it, quoted
    assert normalize_database_url("postgres://u@db/x", "p@ss/w") == "postgresql+asyncpg://u:p%40ss%2Fw@db/x"
    # libpq's parameters, in asyncpg's form
    query = {"ssl": "verify-full", "connect_timeout": "7", "application_name": "desk"}
    query["options"] = "-c statement_timeout=5000 -csearch_path=public --lock_timeout=2s"
    assert connect_arguments({"user": "u", **query}) == {
        "user": "u",
        "ssl": "verify-full",
        "timeout": 7.0,
        "server_settings": {
            "application_name": "desk",
            "statement_timeout": "5000",
            "search_path": "public",
            "lock_timeout": "2s",
        },
    }


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("db.internal/arbiter", "not a URL"),
        ("mysql://u@db/x", "scheme mysql://"),
        ("postgres://u@db:54x/x", "port '54x'"),
        ("postgres://u@db/x?sslmode=yes", "sslmode=yes"),
        ("postgres://u@db/x?connect_timeout=soon", "connect_timeout=soon"),
        ("postgres://u@db/x?options=-j", "only -c name=value"),
        ("postgres://u@db/x?sslrootcert=/ca.pem", "set PGSSLROOTCERT"),
        ("postgres://u@db/x?pool=5", "pool is not understood"),
        ("postgres://u@db/x?sslmode=require&channel_binding=require", "channel_binding is not supported"),
        ("postgres://u@db/x?ssl=require&sslmode=require", "both given"),
        ("postgres://u:p@db/x", "given twice"),  # and DATABASE_PASSWORD
    ],
)
def test_a_database_url_the_driver_would_not_take_is_refused_by_name(url: str, said: str) -> None:
    with pytest.raises(BadDatabaseUrl, match=said.replace("?", r"\?")):
        normalize_database_url(url, "pw" if "given twice" in said else None)
    with pytest.raises(ValueError, match="DATABASE_URL"):
        Settings(database_url=url, database_password="pw" if "given twice" in said else None)


def test_every_secret_may_come_from_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    token = tmp_path / "admin_token"
    token.write_text("s3cret-token\n")
    monkeypatch.setenv("ARBITER_ADMIN_TOKEN_FILE", str(token))
    monkeypatch.delenv("ARBITER_ADMIN_TOKEN", raising=False)
    (tmp_path / "pw").write_text("pa ss\r\n")
    monkeypatch.setenv("DATABASE_PASSWORD_FILE", str(tmp_path / "pw"))
    monkeypatch.setenv("DATABASE_URL", "postgres://arbiter@db/arbiter")
    settings = Settings()
    assert settings.arbiter_admin_token == "s3cret-token"  # the trailing newline is no part of it
    assert settings.database_url == "postgresql+asyncpg://arbiter:pa%20ss@db/arbiter"
    monkeypatch.setenv("ARBITER_ADMIN_TOKEN", "another")
    with pytest.raises(SettingsProblem, match="ARBITER_ADMIN_TOKEN and ARBITER_ADMIN_TOKEN_FILE"):
        Settings()
    monkeypatch.delenv("ARBITER_ADMIN_TOKEN")
    token.write_text("\n")
    with pytest.raises(SettingsProblem, match="ARBITER_ADMIN_TOKEN_FILE: .* is empty"):
        Settings()
    monkeypatch.setenv("ARBITER_ADMIN_TOKEN_FILE", str(tmp_path / "missing"))
    with pytest.raises(SettingsProblem, match="cannot read .*missing"):
        Settings()


async def test_libpq_parameters_reach_the_server(empty_pg: str) -> None:
    url = f"{empty_pg}?sslmode=disable&connect_timeout=5&application_name=arbiter-desk"
    url += "&options=-c%20statement_timeout%3D4321"
    engine = make_engine(normalize_database_url(url))
    try:
        async with engine.connect() as conn:
            shown = [
                (await conn.exec_driver_sql(f"SHOW {name}")).scalar()
                for name in ("application_name", "statement_timeout")
            ]
    finally:
        await engine.dispose()
    assert shown == ["arbiter-desk", "4321ms"]


def test_migrate_prints_the_revision_it_reaches_on_a_postgres_url(empty_pg: str, tmp_path: Path) -> None:
    assert empty_pg.startswith("postgresql://")
    # as a hosting platform hands it out, the password in a file (docker secrets)
    url = empty_pg.replace("postgresql://", "postgres://", 1) + "?sslmode=disable&connect_timeout=10"
    url += "&application_name=arbiter-migrate"
    (tmp_path / "pw").write_text("not-asked-for\n")  # the test server trusts: a password is unused
    done = arbiter("migrate", environ=env(DATABASE_URL=url, DATABASE_PASSWORD_FILE=str(tmp_path / "pw")))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith(f"is at revision {HEAD} (head {HEAD})"), done.stdout
    assert "postgresql+asyncpg://postgres:***@" in done.stdout  # the file's password, hidden
    url = url.split("?")[0]
    again = arbiter("migrate", environ=env(DATABASE_URL=url))
    assert again.returncode == 0 and f"revision {HEAD}" in again.stdout


def test_a_missing_or_unreachable_database_is_one_line() -> None:
    missing = make_url(server_url()).set(database=f"arbiter_nope_{uuid.uuid4().hex[:8]}")
    url = missing.render_as_string(hide_password=False)
    for cmd in ("migrate", "serve"):
        refused(arbiter(cmd, environ=env(DATABASE_URL=url)), "does not exist", "arbiter migrate")
    closed = f"postgresql://postgres@127.0.0.1:{free_port()}/arbiter"
    refused(arbiter("migrate", environ=env(DATABASE_URL=closed)), "cannot reach the database")
    refused(
        arbiter("worker", environ=env(DATABASE_URL=closed, REDIS_URL="redis://127.0.0.1:6379/0")),
        "cannot reach",
    )


def test_a_schema_behind_or_ahead_is_refused_in_one_line(empty_pg: str) -> None:
    in_thread(migrate, empty_pg, "0004")
    behind = refused(arbiter("serve", environ=env(DATABASE_URL=empty_pg)), "revision 0004", f"needs {HEAD}")
    assert "arbiter migrate" in behind
    refused(
        arbiter("worker", environ=env(DATABASE_URL=empty_pg, REDIS_URL="redis://127.0.0.1:6379/0")), "0004"
    )
    in_thread(migrate, empty_pg)
    in_thread(asyncio.run, _set_revision(empty_pg, "9999"))
    refused(arbiter("serve", environ=env(DATABASE_URL=empty_pg)), "9999", "does not know")


async def _set_revision(url: str, revision: str) -> None:
    await admin_execute(url, f"UPDATE alembic_version SET version_num = '{revision}'")


def test_sqlite_without_its_file_or_schema_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "arbiter.db"
    refused(
        arbiter("serve", environ=env(DATABASE_URL=f"sqlite:///{db}")), "no database file", "arbiter migrate"
    )
    assert not db.exists()  # the check creates nothing
    sqlite3.connect(db).close()
    refused(arbiter("serve", environ=env(DATABASE_URL=f"sqlite:///{db}")), "no schema yet")
    refused(arbiter("worker", environ=env(DATABASE_URL=f"sqlite:///{db}")), "REDIS_URL")


def test_a_bad_setting_is_one_line(tmp_path: Path) -> None:
    result = arbiter(
        "migrate", environ=env(DATABASE_URL=f"sqlite:///{tmp_path}/a.db", ARBITER_LOG_FORMAT="xml")
    )
    refused(result, "bad configuration", "ARBITER_LOG_FORMAT")


def test_every_start_up_failure_is_one_line(tmp_path: Path) -> None:
    """What an operator gets wrong at 2 a.m., under every command that starts: one line naming it
    (one JSON object when the logs are JSON), exit status 1."""
    sqlite = f"sqlite:///{tmp_path}/a.db"
    redis = "redis://127.0.0.1:6379/0"
    migrated = f"sqlite:///{tmp_path}/migrated.db"
    in_thread(migrate, migrated)
    (tmp_path / "token").write_text("t\n")
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    cases: list[tuple[tuple[str, ...], dict[str, str | None], list[str]]] = [
        (("migrate",), {"DATABASE_URL": "db.internal:5432/arbiter"}, ["DATABASE_URL", "not a URL"]),
        (("serve",), {"DATABASE_URL": "postgres://u@db/x?pool_size=5"}, ["pool_size is not understood"]),
        (
            ("serve", "--port", str(taken.getsockname()[1])),
            {"DATABASE_URL": migrated},
            ["cannot listen on 127.0.0.1:", "in use"],
        ),
        (
            ("worker",),
            {"DATABASE_URL": sqlite, "REDIS_URL": redis, "ARBITER_WORKER_CONCURENCY": "4"},
            ["no such setting", "did you mean ARBITER_WORKER_CONCURRENCY"],
        ),
        (
            ("worker",),
            {"DATABASE_URL": sqlite, "REDIS_URL": f"redis://127.0.0.1:{free_port()}/0"},
            ["cannot reach Redis at redis://127.0.0.1"],
        ),
        (
            ("worker",),
            {"DATABASE_URL": sqlite, "REDIS_URL": redis, "ARBITER_WORKER_HEARTBEAT_PATH": "/nowhere/hb"},
            ["ARBITER_WORKER_HEARTBEAT_PATH", "/nowhere"],
        ),
        (
            ("export", "some-event"),
            {"ARBITER_ADMIN_TOKEN": "t", "ARBITER_ADMIN_TOKEN_FILE": str(tmp_path / "token")},
            ["ARBITER_ADMIN_TOKEN and ARBITER_ADMIN_TOKEN_FILE are both set"],
        ),
        (
            ("import", "-"),
            {"ARBITER_SECRET_KEY": None, "ARBITER_SECRET_KEY_FILE": str(tmp_path / "nope")},
            ["cannot read", "nope"],
        ),
    ]
    try:
        for i, (argv, values, said) in enumerate(cases):
            json_logs = i % 2 == 1
            environ = env(ARBITER_LOG_FORMAT="json" if json_logs else None, **values)
            line = refused(arbiter(*argv, environ=environ), *said)
            if json_logs:
                doc = json.loads(line)
                assert doc["level"] == "ERROR" and doc["msg"].startswith(f"arbiter {argv[0]}: "), doc
            else:
                assert line.startswith(f"arbiter {argv[0]}: "), line
    finally:
        taken.close()


# --------------------------------------------------------------------------- backup


def test_backup_copies_a_sqlite_database_while_it_is_written(tmp_path: Path) -> None:
    db = tmp_path / "arbiter.db"
    environ = env(DATABASE_URL=f"sqlite:///{db}")
    assert arbiter("migrate", environ=environ).returncode == 0
    live = sqlite3.connect(db, isolation_level=None)
    live.execute("PRAGMA journal_mode=WAL")
    live.execute(
        "INSERT INTO players (id, name, name_key, created_at) VALUES ('p1', 'Ada', 'ada', '2026-12-01 10:00:00')"
    )
    live.execute("BEGIN IMMEDIATE")  # a writer in the middle of its transaction
    live.execute(
        "INSERT INTO players (id, name, name_key, created_at) VALUES ('p2', 'Bob', 'bob', '2026-12-01 10:01:00')"
    )
    try:
        done = arbiter("backup", str(tmp_path / "copy.db"), environ=environ)
    finally:
        live.execute("COMMIT")
        live.close()
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"backed up {db} to {tmp_path / 'copy.db'}")
    copy = sqlite3.connect(tmp_path / "copy.db")
    assert copy.execute("SELECT name FROM players").fetchall() == [("Ada",)]  # as of one moment
    assert copy.execute("SELECT version_num FROM alembic_version").fetchone() == (HEAD,)
    copy.close()
    assert not list(tmp_path.glob(".*partial"))

    refused(arbiter("backup", str(tmp_path / "copy.db"), environ=environ), "exists", "--force")
    again = arbiter("backup", "--force", str(tmp_path / "copy.db"), environ=environ)
    assert again.returncode == 0, again.stderr
    assert sqlite3.connect(tmp_path / "copy.db").execute("SELECT count(*) FROM players").fetchone() == (2,)
    refused(arbiter("backup", str(db), "--force", environ=environ), "cannot replace the database")
    pg = env(DATABASE_URL="postgres://arbiter@127.0.0.1/arbiter")
    refused(arbiter("backup", str(tmp_path / "pg.db"), environ=pg), "pg_dump")


# --------------------------------------------------------------------------- serve


def one_response(conn: socket.socket) -> bytes:
    """One whole HTTP/1.1 answer read off a kept-alive connection: its head, then Content-Length bytes
    (the server may send the two in separate segments; a single recv could leave the body for the next)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(4096)
        if not chunk:
            return data  # closed by the server
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        (
            int(line.split(b":", 1)[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        ),
        0,
    )
    while len(body) < length:
        chunk = conn.recv(4096)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


def test_serve_writes_json_lines_and_says_what_it_runs_with(tmp_path: Path) -> None:
    db = tmp_path / "arbiter.db"
    environ = env(DATABASE_URL=f"sqlite:///{db}", ARBITER_LOG_FORMAT="json", ARBITER_ADMIN_TOKEN=None)
    assert arbiter("migrate", environ=environ).returncode == 0
    port = free_port()
    log = tmp_path / "serve.log"
    proc = spawn("serve", "--port", str(port), environ=environ, log=log)
    try:
        wait_http(f"http://127.0.0.1:{port}/healthz", proc)
        r = httpx.get(f"http://127.0.0.1:{port}/v1/events/none", headers={"X-Request-ID": "ops-check-1"})
        assert r.status_code == 404 and r.headers["x-request-id"] == "ops-check-1"
        # an idle connection outlives the client's own pool (5 s in httpx, uvicorn's default too): a
        # server that closed it first would race the client's next request, which gets no answer
        with socket.create_connection(("127.0.0.1", port)) as conn:
            conn.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert one_response(conn).startswith(b"HTTP/1.1 200")
            time.sleep(5.5)
            conn.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert one_response(conn).startswith(b"HTTP/1.1 200")  # still open, still answered
    finally:
        lines = finish(proc, log)
    hello = next(line for line in lines if line["msg"].startswith("arbiter "))
    assert (
        hello["version"] == __version__ and hello["database"] == "sqlite" and hello["queue"] == "in-process"
    )
    assert any(line["level"] == "WARNING" and "ARBITER_ADMIN_TOKEN" in line["msg"] for line in lines)
    (request,) = [line for line in lines if line.get("request_id") == "ops-check-1"]
    assert request["logger"] == "arbiter.http" and request["route"] == "/v1/events/{event_id}"
    assert request["status"] == 404 and request["method"] == "GET" and "duration_ms" in request
    assert any(line["logger"].startswith("uvicorn") for line in lines)  # the server's own lines too


def test_serve_with_two_workers_counts_the_requests_of_both(tmp_path: Path) -> None:
    db = tmp_path / "arbiter.db"
    environ = env(DATABASE_URL=f"sqlite:///{db}", ARBITER_LOG_FORMAT="json", ARBITER_ADMIN_TOKEN="ops-admin")
    assert arbiter("migrate", environ=environ).returncode == 0
    port = free_port()
    log = tmp_path / "serve.log"
    proc = spawn("serve", "--port", str(port), "--workers", "2", environ=environ, log=log)
    base = f"http://127.0.0.1:{port}"
    admin = {"Authorization": "Bearer ops-admin", "Connection": "close"}
    try:
        wait_http(f"{base}/healthz", proc)
        time.sleep(1)  # the second process starts too
        before = healthz_count(httpx.get(f"{base}/metrics", headers=admin).text)
        for _ in range(40):  # a connection each: either process may take it
            assert httpx.get(f"{base}/healthz", headers={"Connection": "close"}).status_code == 200
        scrapes = [healthz_count(httpx.get(f"{base}/metrics", headers=admin).text) for _ in range(6)]
    finally:
        lines = finish(proc, log)
    started = {line["pid"] for line in lines if line["msg"].startswith("arbiter ")}
    served = {line["pid"] for line in lines if line.get("route") == "/healthz"}
    assert len(started) == 2 and served == started, lines
    # whichever process answers the scrape, it counts the requests both answered
    assert scrapes == [before + 40] * 6


def healthz_count(exposition: str) -> float:
    return sum(
        s.value
        for family in text_string_to_metric_families(exposition)
        for s in family.samples
        if s.name == "arbiter_http_requests_total" and s.labels.get("route") == "/healthz"
    )
