"""The ``arbiter`` command: migrate, serve, worker, backup, healthcheck, openapi, export, import,
rotate-keys.

A problem an operator can fix — the configuration, a database that is missing or unreachable, a
schema behind this version — is answered with one line naming it and the fix, and exit status 1,
never a traceback (docs/operations.md "Deploy").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


class Refusal(Exception):
    """A problem the operator fixes: printed as one line, exit status 1."""


def migrations_dir() -> Path:
    """The Alembic scripts: ``ARBITER_MIGRATIONS_DIR`` (the image sets it), else the source tree's."""
    env = os.environ.get("ARBITER_MIGRATIONS_DIR")
    path = Path(env) if env else ROOT / "migrations"
    if not (path / "env.py").is_file():
        raise Refusal(f"no migrations at {path}: set ARBITER_MIGRATIONS_DIR to the migrations directory")
    return path


def alembic_config(database_url: str | None = None):  # type: ignore[no-untyped-def]
    from alembic.config import Config

    where = migrations_dir()
    cfg = Config(str(where / "alembic.ini"))
    cfg.set_main_option("script_location", str(where))
    if database_url:
        cfg.attributes["database_url"] = _database_url(database_url)
    return cfg


def head_revision() -> str:
    from alembic.script import ScriptDirectory

    heads = ScriptDirectory.from_config(alembic_config()).get_heads()
    return ",".join(sorted(heads))


def migrate(database_url: str | None = None, revision: str = "head") -> str:
    """Upgrade the database to ``revision``; the revision it is at afterwards."""
    from alembic import command

    cfg = alembic_config(database_url)
    cfg.attributes["configure_logging"] = False
    command.upgrade(cfg, revision)
    return current_revision(database_url) or "base"


def _database_url(database_url: str | None) -> str:
    if database_url:
        from app.settings import normalize_database_url

        try:
            return normalize_database_url(database_url)
        except ValueError as exc:
            raise Refusal(f"DATABASE_URL: {exc}") from None
    return _settings().database_url


def current_revision(database_url: str | None = None, *, missing_file_ok: bool = False) -> str | None:
    """The revision the database is at (None: no schema yet); a Refusal when it cannot be reached.
    A SQLite file that does not exist is not created (unless ``missing_file_ok``: None then)."""
    from sqlalchemy.engine import make_url

    url = _database_url(database_url)
    u = make_url(url)
    if u.get_backend_name() == "sqlite" and u.database not in (None, "", ":memory:"):
        if not Path(u.database).exists():
            if missing_file_ok:
                return None
            raise Refusal(f"no database file at {u.database}: run `arbiter migrate` to create it")
    return asyncio.run(_current_revision(url))


async def _current_revision(url: str) -> str | None:
    from alembic.migration import MigrationContext

    from app.db.session import make_engine
    from app.observability.logs import redact

    engine = make_engine(url)
    try:
        async with engine.connect() as conn:
            heads = await conn.run_sync(lambda c: MigrationContext.configure(c).get_current_heads())
    except Exception as exc:
        raise Refusal(_unreachable(redact(url), exc)) from None
    finally:
        await engine.dispose()
    return ",".join(sorted(heads)) or None


def _unreachable(url: str, exc: BaseException) -> str:
    cause: BaseException = getattr(exc, "orig", None) or exc
    cause = cause.__cause__ or cause  # the driver's own error, under SQLAlchemy's adapter
    code = getattr(cause, "sqlstate", None)
    if code == "3D000":  # invalid_catalog_name
        return f"the database of {url} does not exist: create it (createdb), then run `arbiter migrate`"
    if code in ("28P01", "28000"):  # invalid_password, invalid_authorization_specification
        return f"the database at {url} refused the credentials: {cause}"
    text = str(cause).strip()
    detail = text.splitlines()[0] if text else type(cause).__name__
    return f"cannot reach the database at {url}: {detail}"


def check_schema(database_url: str | None = None) -> str:
    """Refuse to serve a database whose schema is not this version's; its revision otherwise."""
    current = current_revision(database_url)
    head = head_revision()
    if current == head:
        return current
    if current is None:
        raise Refusal("the database has no schema yet: run `arbiter migrate`")
    from alembic.script import ScriptDirectory

    known = {rev.revision for rev in ScriptDirectory.from_config(alembic_config()).walk_revisions()}
    if not set(current.split(",")) <= known:
        raise Refusal(
            f"the database is at revision {current}, which this version ({head}) does not know: "
            "a newer Arbiter migrated it; run that version, or restore a backup"
        )
    raise Refusal(f"the database is at revision {current}, this version needs {head}: run `arbiter migrate`")


def check_keys(settings: Any) -> str:
    """Refuse to serve without the server's keys, or with keys that do not open what the database
    holds sealed (docs/operations.md "Keys"); where the keys come from otherwise."""
    from app.services import keyring

    async def load() -> str:
        ring = keyring.Keyring.of(settings)
        await _with_sessionmaker(settings.database_url, ring.load)
        return ring.source

    try:
        return asyncio.run(load())
    except keyring.KeyProblem as exc:
        raise Refusal(str(exc)) from None


async def _with_sessionmaker(database_url: str, use: Any) -> Any:
    from app.db.session import make_engine, make_sessionmaker

    engine = make_engine(database_url)
    try:
        return await use(make_sessionmaker(engine, {}))
    finally:
        await engine.dispose()


def rotate_keys(settings: Any) -> str:
    """Re-seal every stored secret under the first server key — on the embedded default without a
    key setting, under a new key drawn into its key file — and say so; a Refusal when a stored
    secret opens under none of the keys, or when one written meanwhile still needs an old key."""
    from app.services import keyring

    try:
        return _rotate_keys(settings)
    except keyring.KeyProblem as exc:
        raise Refusal(str(exc)) from None


def _rotate_keys(settings: Any) -> str:
    from app.services import keyring

    keys, source = keyring.server_keys(settings)
    path = None if settings.secret_keys else keyring.key_file_of(settings.database_url)
    if path is not None:  # the new key joins the file first: a crash at any step leaves every key needed
        keys = (keyring.new_key(), *keys)
        keyring.write_key_file(path, keys, replace=True)
    ring = keyring.Keyring(keys, source)

    async def run(sessionmaker: Any) -> tuple[keyring.Rotated, list[str]]:
        from app.db.session import read_only, write_turn

        await ring.load(sessionmaker)
        async with write_turn(sessionmaker), sessionmaker() as s:
            done = await keyring.rotate(s, ring)
            await s.commit()
        async with sessionmaker() as s:
            await read_only(s)
            return done, await keyring.not_sealed_by_first(s, ring)

    done, left = asyncio.run(_with_sessionmaker(settings.database_url, run))
    if left:
        raise Refusal(
            f"{', '.join(left)} still need an old key (written meanwhile by a process without the new "
            "one): give every process the new key first, then run arbiter rotate-keys again"
        )
    if path is not None:
        keyring.write_key_file(path, keys[:1], replace=True)
    where = f"a new key in {path} (the former one is gone from it)" if path else f"the first key of {source}"
    return (
        f"re-sealed {done.webhook_secrets} webhook secrets and {done.sealing_keys} sealed keys under {where}"
        + ("" if path else "; the other keys can go")
    )


def openapi_document() -> str:
    from app.main import create_app
    from app.settings import Settings

    spec = create_app(Settings(database_url="sqlite+aiosqlite:///:memory:")).openapi()
    return json.dumps(spec, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


async def _transfer(database_url: str, action: str, arg: Any) -> Any:
    """Run one transfer (app/services/transfer.py) in its own transaction on ``database_url``."""
    from app.db.session import make_engine, make_sessionmaker
    from app.services import transfer
    from app.wiring import build_registry

    engine = make_engine(database_url)
    try:
        async with make_sessionmaker(engine, build_registry().session_info())() as session:
            if action == "export":
                return await transfer.export_event(session, arg)
            result = await transfer.import_event(session, arg)
            await session.commit()
            return result
    finally:
        await engine.dispose()


def export_command(event_id: str, database_url: str) -> int:
    import asyncio

    from app.core.errors import DomainError

    check_schema(database_url)  # reachable and at this version's schema, or one line saying why not
    try:
        doc = asyncio.run(_transfer(database_url, "export", event_id))
    except DomainError as exc:
        sys.stderr.write(f"arbiter export: {exc.detail}\n")
        return 1
    sys.stdout.write(json.dumps(doc, ensure_ascii=False, sort_keys=True) + "\n")
    return 0


def _read_file(path: str) -> bytes:
    """The file's bytes (``-``: standard input), read no further than the largest file taken."""
    from app.services.transfer_rows import MAX_FILE_BYTES

    try:
        if path == "-":
            return sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
        with open(path, "rb") as fh:
            return fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise Refusal(f"cannot read {path}: {exc.strerror or exc}") from None


def import_command(path: str, database_url: str) -> int:
    """Import one event file: its new ids and tokens on standard output as JSON, exit 0; or one line
    on standard error naming the row and the problem, exit 1, and the database unchanged."""
    from sqlalchemy.exc import SQLAlchemyError

    from app.core.errors import DomainError, InvalidInput

    try:
        data = _read_file(path)
        # reachable, or one line saying why not; migrated when behind
        if current_revision(database_url, missing_file_ok=True) != head_revision():
            migrate(database_url)
        result = asyncio.run(_transfer(database_url, "import", data))
    except Refusal as exc:
        return _import_refused(str(exc))
    except DomainError as exc:
        kind = "invalid file" if isinstance(exc, InvalidInput) else "refused"
        return _import_refused(f"{kind}: {exc.detail}")
    except SQLAlchemyError as exc:  # a row the database refused: the transaction was rolled back
        cause = getattr(exc, "orig", None) or exc
        return _import_refused(f"the database refused the file: {_first_line(cause)}")
    except Exception as exc:  # noqa: BLE001 (a file no check foresaw: still one line, nothing written)
        return _import_refused(f"cannot import {path}: {type(exc).__name__}: {_first_line(exc)}")
    sys.stdout.write(json.dumps(result) + "\n")
    return 0


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:300] if text else type(exc).__name__


def _import_refused(why: str) -> int:
    sys.stderr.write(f"arbiter import: {' '.join(why.split())[:1000]}\n")
    return 1


def healthcheck(url: str, timeout: float = 5.0) -> str:
    """GET ``url``; the answer's status line, or a Refusal."""
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:  # noqa: S310 (a local URL)
            return f"{url}: {r.status}"
    except urllib.error.HTTPError as exc:
        raise Refusal(f"{url}: {exc.code}") from None
    except OSError as exc:
        raise Refusal(f"{url}: {exc}") from None


def _settings() -> Any:
    """The settings, or a Refusal naming each one that is wrong — a variable ARBITER_… that is no
    setting among them (a typo would otherwise leave its default in force without a word)."""
    import difflib

    from pydantic import ValidationError

    from app.settings import Settings, SettingsProblem, get_settings, unknown_variables

    unknown = unknown_variables()
    if unknown:
        names = [f.upper() for f in Settings.model_fields]
        said = []
        for name in unknown:
            close = difflib.get_close_matches(name, names, n=1)
            said.append(f"{name} (did you mean {close[0]}?)" if close else name)
        raise Refusal(f"bad configuration: no such setting: {', '.join(said)}")
    try:
        return get_settings()
    except SettingsProblem as exc:
        raise Refusal(f"bad configuration: {exc}") from None
    except ValidationError as exc:
        problems = "; ".join(_problem(e) for e in exc.errors())
        raise Refusal(f"bad configuration: {problems}") from None


def _problem(error: Any) -> str:
    msg = str(error["msg"]).removeprefix("Value error, ")
    where = ".".join(str(p) for p in error["loc"]).upper()
    return f"{where}: {msg}" if where else msg


def check_redis(url: str) -> None:
    """Refuse, in one line, a Redis the worker cannot reach (arq would retry, then raise)."""
    from redis import asyncio as aioredis

    from app.observability.logs import redact

    async def ping() -> None:
        client = aioredis.from_url(url, socket_connect_timeout=5, socket_timeout=5)
        try:
            await client.ping()
        finally:
            await client.aclose()

    try:
        asyncio.run(ping())
    except Exception as exc:  # noqa: BLE001 (refused, timed out, wrong password, not a URL)
        raise Refusal(f"cannot reach Redis at {redact(url)}: {_first_line(exc)}") from None


def check_worker() -> str:
    """``arbiter worker --check``: this worker's heartbeat is fresh, or a Refusal saying why not."""
    from workers import heartbeat

    settings = _settings()
    try:
        return heartbeat.check(settings.heartbeat_path, settings.arbiter_worker_heartbeat_seconds)
    except heartbeat.Unhealthy as exc:
        raise Refusal(str(exc)) from None


def _worker() -> None:
    from app.observability import logs

    settings = _settings()
    logs.configure(settings.arbiter_log_format, settings.arbiter_log_level)
    if not settings.redis_url:
        raise Refusal("REDIS_URL must be set to run a worker (without it, the API runs jobs itself)")
    check_redis(settings.redis_url)
    where = settings.heartbeat_path.parent
    if not (where.is_dir() and os.access(where, os.W_OK)):
        raise Refusal(
            f"ARBITER_WORKER_HEARTBEAT_PATH: cannot write in {where} (no such directory, or not writable)"
        )
    check_schema()
    check_keys(settings)
    from workers.main import main as worker_main

    worker_main()


def check_port(host: str, port: int) -> None:
    """Refuse, in one line, an address the API cannot listen on (uvicorn would log it among its
    start-up lines and exit with status 3)."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _, address = infos[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
            probe.bind(address)
    except OSError as exc:
        raise Refusal(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


def _serve(args: argparse.Namespace) -> None:
    import uvicorn

    from app.observability import logs, metrics

    settings = _settings()
    logs.configure(settings.arbiter_log_format, settings.arbiter_log_level)
    check_schema()
    check_keys(settings)
    check_port(args.host, args.port)
    if os.environ.get("FORWARDED_ALLOW_IPS") and not settings.arbiter_trusted_proxies:
        logging.getLogger("arbiter").warning(
            "FORWARDED_ALLOW_IPS is not read: name the reverse proxies in ARBITER_TRUSTED_PROXIES "
            "(until then every client is the address of the socket's peer)"
        )
    multiproc: str | None = None
    if args.workers > 1 and not os.environ.get(metrics.MULTIPROCESS_ENV):
        # several processes answer /metrics from one shared directory of counters
        multiproc = tempfile.mkdtemp(prefix="arbiter-metrics-")
        os.environ[metrics.MULTIPROCESS_ENV] = multiproc
    try:
        uvicorn.run(
            "app.main:create_app",
            factory=True,
            host=args.host,
            port=args.port,
            workers=args.workers,
            log_config=logs.log_config(settings.arbiter_log_format, settings.arbiter_log_level),
            access_log=False,  # the app writes its own line per request
            # live streams never end by themselves: a stopping process ends them after this
            timeout_graceful_shutdown=settings.arbiter_api_shutdown_wait,
            # longer than the clients' own idle pools (httpx and many others keep 5 s, as uvicorn
            # does): a server that closes first races the client's next request on that connection,
            # which then fails with no answer (a POST is not retried by the client)
            timeout_keep_alive=settings.arbiter_keep_alive,
            server_header=False,
            # uvicorn would trust X-Forwarded-For from 127.0.0.1 (or FORWARDED_ALLOW_IPS): the app
            # reads it itself, from ARBITER_TRUSTED_PROXIES only (app/api/middleware.py)
            proxy_headers=False,
        )
    finally:
        if multiproc:
            shutil.rmtree(multiproc, ignore_errors=True)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="arbiter", description=__doc__)
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("migrate", help="alembic upgrade head on DATABASE_URL; prints the revision reached")
    serve = sub.add_parser("serve", help="serve the API with uvicorn")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--workers", type=int, default=1, help="API processes sharing the port (default 1)")
    worker = sub.add_parser("worker", help="run an arq worker (needs REDIS_URL)")
    worker.add_argument(
        "--check",
        action="store_true",
        help="exit 0 when this worker's heartbeat is fresh (the container's health check)",
    )
    backup = sub.add_parser("backup", help="copy the SQLite database to PATH while it serves")
    backup.add_argument("path", type=Path)
    backup.add_argument("--force", action="store_true", help="replace PATH if it exists")
    health = sub.add_parser("healthcheck", help="exit 0 when the API answers (the image's HEALTHCHECK)")
    health.add_argument("--url", default="http://127.0.0.1:8000/healthz")
    oa = sub.add_parser("openapi", help="print the OpenAPI document")
    oa.add_argument("--out", type=Path)
    ex = sub.add_parser(
        "export", help="print a whole event as JSON (DATABASE_URL): arbiter export ID > event.json"
    )
    ex.add_argument("event_id")
    im = sub.add_parser("import", help="write an exported event into DATABASE_URL (migrated first)")
    im.add_argument("file", help="the file of arbiter export, or - for standard input")
    sub.add_parser(
        "rotate-keys",
        help="re-seal every stored secret under the first key of ARBITER_SECRET_KEY (without it, on the "
        "embedded default, under a new key in the key file); the other keys can go afterwards",
    )
    return parser


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)

    try:
        _run(args)
    except Refusal as exc:
        _say(args.cmd, str(exc))
        raise SystemExit(1) from None
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as exc:  # noqa: BLE001 (what no check foresaw: still one line, exit status 1)
        debug = os.environ.get("ARBITER_LOG_LEVEL", "").upper() == "DEBUG"
        hint = "" if debug else " (ARBITER_LOG_LEVEL=DEBUG shows where)"
        _say(args.cmd, f"{type(exc).__name__}: {_first_line(exc)}{hint}")
        if debug:
            import traceback

            traceback.print_exc()
        raise SystemExit(1) from None


def _say(cmd: str, why: str) -> None:
    """A refusal's one line on standard error: one JSON object when ARBITER_LOG_FORMAT=json (read
    as it is: the setting may be what is wrong)."""
    line = " ".join(why.split())
    if os.environ.get("ARBITER_LOG_FORMAT", "").strip().lower() == "json":
        from datetime import UTC, datetime

        now = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        doc = {"ts": now, "level": "ERROR", "logger": "arbiter", "msg": f"arbiter {cmd}: {line}"}
        print(json.dumps({**doc, "pid": os.getpid(), "command": cmd}, ensure_ascii=False), file=sys.stderr)
    else:
        print(f"arbiter {cmd}: {line}", file=sys.stderr)


def _run(args: argparse.Namespace) -> None:
    if args.cmd == "migrate":
        from app.observability import logs
        from app.observability.logs import redact

        settings = _settings()
        logs.configure(settings.arbiter_log_format, settings.arbiter_log_level)
        logging.getLogger("alembic.runtime.migration").setLevel(logging.INFO)  # each step it takes
        current_revision(missing_file_ok=True)  # reachable, or one line saying why not
        reached = migrate()
        print(f"{redact(settings.database_url)} is at revision {reached} (head {head_revision()})")
    elif args.cmd == "serve":
        if args.workers < 1:
            raise Refusal("--workers must be at least 1")
        _serve(args)
    elif args.cmd == "worker":
        if args.check:
            print(check_worker())
        else:
            _worker()
    elif args.cmd == "backup":
        from app.db.backup import BackupRefused, backup_sqlite

        settings = _settings()
        try:
            done = backup_sqlite(settings.database_url, args.path, replace=args.force)
        except BackupRefused as exc:
            raise Refusal(str(exc)) from None
        print(done)
    elif args.cmd == "healthcheck":
        print(healthcheck(args.url))
    elif args.cmd == "openapi":
        doc = openapi_document()
        if args.out:
            args.out.write_text(doc)
        else:
            sys.stdout.write(doc)
    elif args.cmd == "rotate-keys":
        settings = _settings()
        check_schema()
        print(rotate_keys(settings))
    elif args.cmd in ("export", "import"):
        url = _settings().database_url
        code = export_command(args.event_id, url) if args.cmd == "export" else import_command(args.file, url)
        raise SystemExit(code)


if __name__ == "__main__":
    main()
