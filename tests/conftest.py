"""Test fixtures: a throwaway Postgres database and SQLite file, both built by `alembic upgrade head`,
and Redis, all real. URLs come from TEST_DATABASE_URL / TEST_REDIS_URL (tests/services.sh writes them)."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, settings
from sqlalchemy import text
from sqlalchemy.engine import make_url

from app.cli import migrate
from app.db.base import Base
from app.db.session import make_engine, make_sessionmaker
from app.main import create_app
from app.settings import Settings
from app.wiring import build_registry

# Property tests are judged by their examples, not by wall-clock: a loaded 2-core CI machine must not
# turn a slow example into a failure. The examples stay derandomized per test, so a run is repeatable.
settings.register_profile(
    "arbiter", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("arbiter")

ADMIN_TOKEN = "test-admin-token"
SHIPPED_GAMES = (
    "generic",
    "titan-the-arena",
    "colossal-arena",
    "rite-of-command",
    "strategic-titan",
    "titan",
    "battlebooks",
    "seasons",
    "puerto-rico",
)


def _server_url() -> str:
    url = os.environ.get("TEST_DATABASE_URL")
    if not url:
        pytest.exit(
            "TEST_DATABASE_URL is not set: run `make test` (it finds or starts Postgres and Redis)",
            returncode=2,
        )
    return url


def redis_url() -> str:
    url = os.environ.get("TEST_REDIS_URL")
    if not url:
        pytest.exit("TEST_REDIS_URL is not set: run `make test`", returncode=2)
    return url


async def _admin_execute(server_url: str, sql: str) -> None:
    import asyncpg

    u = make_url(server_url)
    conn = await asyncpg.connect(
        host=u.host,
        port=u.port or 5432,
        user=u.username,
        password=u.password,
        database=u.database or "postgres",
    )
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def _in_thread(fn: Any, *args: Any) -> Any:
    """Run blocking set-up (asyncio.run inside) off the event loop, wherever the fixture is requested."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(fn, *args).result()


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    server = _server_url()
    name = f"arbiter_test_{uuid.uuid4().hex[:10]}"
    _in_thread(asyncio.run, _admin_execute(server, f'CREATE DATABASE "{name}"'))
    url = make_url(server).set(database=name).render_as_string(hide_password=False)
    _in_thread(migrate, url)
    yield url
    _in_thread(asyncio.run, _admin_execute(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture(scope="session")
def sqlite_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    path: Path = tmp_path_factory.mktemp("sqlite") / "arbiter.db"
    url = f"sqlite+aiosqlite:///{path}"
    _in_thread(migrate, url)
    return url


async def clean(engine: Any) -> None:
    """Empty every table but the shipped game catalog (tests share one migrated database)."""
    tables = [t.name for t in reversed(Base.metadata.sorted_tables) if t.name != "games"]
    async with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            await conn.execute(text(f"TRUNCATE {', '.join(tables)} CASCADE"))
        else:
            for name in tables:
                await conn.execute(text(f"DELETE FROM {name}"))
        keep = ", ".join(f"'{k}'" for k in SHIPPED_GAMES)
        await conn.execute(text(f"DELETE FROM games WHERE key NOT IN ({keep})"))


@dataclass
class Api:
    """An HTTP client on the app plus the app itself (for draining in-process jobs)."""

    client: httpx.AsyncClient
    app: Any
    backend: str

    async def drain_jobs(self) -> None:
        drain = getattr(self.app.state.dispatcher, "drain", None)
        if drain is not None:
            await drain()

    def admin(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {ADMIN_TOKEN}"}


@pytest.fixture(scope="session", params=["postgres", "sqlite"])
async def _app(request: pytest.FixtureRequest) -> AsyncIterator[tuple[Any, str]]:
    backend = request.param
    url = request.getfixturevalue("pg_url" if backend == "postgres" else "sqlite_url")
    settings = Settings(
        database_url=url, redis_url=None, arbiter_admin_token=ADMIN_TOKEN, arbiter_sweep_seconds=3600
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        yield app, backend


@pytest.fixture
async def api(_app: tuple[Any, str]) -> AsyncIterator[Api]:
    """The API on Postgres and on the SQLite default (every API test runs on both)."""
    app, backend = _app
    await clean(app.state.engine)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://arbiter.test") as client:
        yield Api(client, app, backend)
    await Api(client, app, backend).drain_jobs()


@pytest.fixture(scope="session")
async def pg_engine(pg_url: str) -> AsyncIterator[Any]:
    engine = make_engine(pg_url)
    yield engine
    await engine.dispose()


@pytest.fixture
async def pg_sessionmaker(pg_engine: Any) -> Any:
    await clean(pg_engine)
    return make_sessionmaker(pg_engine, build_registry().session_info())
