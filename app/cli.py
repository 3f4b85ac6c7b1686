"""The ``arbiter`` command: migrate, serve, worker, openapi."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

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


if __name__ == "__main__":
    main()
