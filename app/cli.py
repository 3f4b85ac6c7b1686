"""The ``arbiter`` command: migrate, serve, worker, openapi, export, import."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def alembic_config(database_url: str | None = None):  # type: ignore[no-untyped-def]
    from alembic.config import Config

    cfg = Config(str(ROOT / "migrations" / "alembic.ini"))
    cfg.set_main_option("script_location", str(ROOT / "migrations"))
    if database_url:
        cfg.attributes["database_url"] = database_url
    return cfg


def migrate(database_url: str | None = None, revision: str = "head") -> None:
    from alembic import command

    cfg = alembic_config(database_url)
    cfg.attributes["configure_logging"] = False
    command.upgrade(cfg, revision)


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

    try:
        doc = asyncio.run(_transfer(database_url, "export", event_id))
    except DomainError as exc:
        sys.stderr.write(f"arbiter export: {exc.detail}\n")
        return 1
    sys.stdout.write(json.dumps(doc, ensure_ascii=False, sort_keys=True) + "\n")
    return 0


def import_command(path: str, database_url: str) -> int:
    import asyncio

    from app.core.errors import DomainError, InvalidInput

    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
        doc = json.loads(text)
    except (OSError, ValueError) as exc:
        sys.stderr.write(f"arbiter import: cannot read {path}: {exc}\n")
        return 1
    migrate(database_url)
    try:
        result = asyncio.run(_transfer(database_url, "import", doc))
    except DomainError as exc:
        problems = "".join(f"\n  {'/'.join(map(str, p.loc))}: {p.msg}" for p in getattr(exc, "problems", []))
        kind = "invalid file" if isinstance(exc, InvalidInput) else "refused"
        sys.stderr.write(f"arbiter import: {kind}: {exc.detail}{problems}\n")
        return 1
    sys.stdout.write(json.dumps(result) + "\n")
    return 0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="arbiter", description=__doc__)
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("migrate", help="alembic upgrade head on DATABASE_URL")
    serve = sub.add_parser("serve", help="serve the API with uvicorn")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    sub.add_parser("worker", help="run an arq worker (needs REDIS_URL)")
    oa = sub.add_parser("openapi", help="print the OpenAPI document")
    oa.add_argument("--out", type=Path)
    ex = sub.add_parser(
        "export", help="print a whole event as JSON (DATABASE_URL): arbiter export ID > event.json"
    )
    ex.add_argument("event_id")
    im = sub.add_parser("import", help="write an exported event into DATABASE_URL (migrated first)")
    im.add_argument("file", help="the file of arbiter export, or - for standard input")
    args = parser.parse_args(argv)

    if args.cmd == "migrate":
        migrate()
    elif args.cmd == "serve":
        import uvicorn

        uvicorn.run("app.main:create_app", factory=True, host=args.host, port=args.port)
    elif args.cmd == "worker":
        from workers.main import main as worker_main

        worker_main()
    elif args.cmd == "openapi":
        doc = openapi_document()
        if args.out:
            args.out.write_text(doc)
        else:
            sys.stdout.write(doc)
    elif args.cmd in ("export", "import"):
        from app.settings import Settings

        url = Settings().database_url
        code = export_command(args.event_id, url) if args.cmd == "export" else import_command(args.file, url)
        raise SystemExit(code)


if __name__ == "__main__":
    main()
