"""Test fixtures: a throwaway Postgres database and SQLite file, both built by `alembic upgrade head`,
and Redis, all real. URLs come from TEST_DATABASE_URL / TEST_REDIS_URL (tests/services.sh writes them);
the code behind the fixtures is in tests/support."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from sqlalchemy.engine import make_url

from app.cli import migrate
from app.db.session import make_engine, make_sessionmaker
from app.main import create_app
from app.settings import Settings
from app.wiring import build_registry
from tests.support.api import ADMIN_TOKEN, Api, api_client
from tests.support.services import admin_execute, clean, in_thread, server_url

# Property tests are judged by their examples, not by wall-clock: a loaded 2-core CI machine must not
# turn a slow example into a failure. The examples stay derandomized per test, so a run is repeatable.
settings.register_profile(
    "arbiter", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("arbiter")


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    server = server_url()
    name = f"arbiter_test_{uuid.uuid4().hex[:10]}"
    in_thread(asyncio.run, admin_execute(server, f'CREATE DATABASE "{name}"'))
    url = make_url(server).set(database=name).render_as_string(hide_password=False)
    in_thread(migrate, url)
    yield url
    in_thread(asyncio.run, admin_execute(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture(scope="session")
def sqlite_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    path: Path = tmp_path_factory.mktemp("sqlite") / "arbiter.db"
    url = f"sqlite+aiosqlite:///{path}"
    in_thread(migrate, url)
    return url


@pytest.fixture(scope="session", params=["postgres", "sqlite"])
async def _app(request: pytest.FixtureRequest) -> AsyncIterator[tuple[Any, str]]:
    backend = request.param
    url = request.getfixturevalue("pg_url" if backend == "postgres" else "sqlite_url")
    settings = Settings(
        database_url=url,
        redis_url=None,
        arbiter_admin_token=ADMIN_TOKEN,
        arbiter_sweep_seconds=3600,
        arbiter_webhook_allow_private=True,  # the receivers of the tests listen on the loopback
        arbiter_heavy_burst=1_000_000,  # the suite calls the tools far faster than a client may
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        yield app, backend


@pytest.fixture
async def api(_app: tuple[Any, str]) -> AsyncIterator[Api]:
    """The API on Postgres and on the SQLite default (every API test runs on both)."""
    app, backend = _app
    await clean(app.state.engine)
    async with api_client(app, backend) as client:
        yield client
    await client.drain_jobs()


@pytest.fixture(scope="session")
async def pg_engine(pg_url: str) -> AsyncIterator[Any]:
    engine = make_engine(pg_url)
    yield engine
    await engine.dispose()


@pytest.fixture
async def pg_sessionmaker(pg_engine: Any) -> Any:
    await clean(pg_engine)
    return make_sessionmaker(pg_engine, build_registry().session_info())
