"""Test fixtures: a throwaway Postgres database and SQLite file, both built by `alembic upgrade head`,
and Redis, all real. URLs come from TEST_DATABASE_URL / TEST_REDIS_URL (tests/services.sh writes them);
the code behind the fixtures is in tests/support."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack
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
from tests.support.services import admin_execute, clean, in_thread, server_url, worker_id

# The suite's server key (docs/operations.md "Keys"): every app and process the tests start on Postgres
# needs one, and they share its databases; the tests of the key file and of rotation set their own.
os.environ.setdefault("ARBITER_SECRET_KEY", "arbiter-test-suite-key")

# Property tests are judged by their examples, not by wall-clock: a loaded 2-core CI machine must not
# turn a slow example into a failure. The examples stay derandomized per test, so a run is repeatable.
settings.register_profile(
    "arbiter", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("arbiter")


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    server = server_url()
    name = f"arbiter_test_{worker_id()}_{uuid.uuid4().hex[:10]}"
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


class Apps:
    """The app on each backend, started when a test first asks for it and stopped at the end of the
    run: the tests of a backend share it, and a run that interleaves the backends, as a parallel one
    does, starts each once rather than once per switch."""

    def __init__(self, urls: dict[str, str], stack: AsyncExitStack) -> None:
        self.urls, self.stack, self.started = urls, stack, {}

    async def on(self, backend: str) -> Any:
        if backend not in self.started:
            settings = Settings(
                database_url=self.urls[backend],
                redis_url=None,
                arbiter_admin_token=ADMIN_TOKEN,
                arbiter_sweep_seconds=3600,
                arbiter_webhook_allow_private=True,  # the receivers of the tests listen on the loopback
                arbiter_heavy_burst=1_000_000,  # the suite calls the tools far faster than a client may
                arbiter_auth_failures=1_000_000,  # and sends its unknown tokens from one address
            )
            app = create_app(settings)
            await self.stack.enter_async_context(app.router.lifespan_context(app))
            self.started[backend] = app
        return self.started[backend]


@pytest.fixture(scope="session")
async def _apps(pg_url: str, sqlite_url: str) -> AsyncIterator[Apps]:
    async with AsyncExitStack() as stack:
        yield Apps({"postgres": pg_url, "sqlite": sqlite_url}, stack)


@pytest.fixture(params=["postgres", "sqlite"])
async def _app(request: pytest.FixtureRequest, _apps: Apps) -> tuple[Any, str]:
    backend: str = request.param
    return await _apps.on(backend), backend


@pytest.fixture
async def api(_app: tuple[Any, str]) -> AsyncIterator[Api]:
    """The API on Postgres and on the SQLite default (every API test runs on both)."""
    app, backend = _app
    await clean(app.state.engine)
    async with api_client(app, backend) as client:
        yield client
    await client.drain_jobs()


@pytest.fixture(params=["postgres", "sqlite"])
def backend_url(request: pytest.FixtureRequest) -> str:
    """The database URL of each backend in turn, for a test that starts an app of its own settings."""
    return str(request.getfixturevalue("pg_url" if request.param == "postgres" else "sqlite_url"))


@pytest.fixture(scope="session")
async def pg_engine(pg_url: str) -> AsyncIterator[Any]:
    engine = make_engine(pg_url)
    yield engine
    await engine.dispose()


@pytest.fixture
async def pg_sessionmaker(pg_engine: Any) -> Any:
    await clean(pg_engine)
    return make_sessionmaker(pg_engine, build_registry().session_info())


# The longest files first (from `pytest --durations=0`, slowest first): a parallel run hands them out
# before the rest, so that no worker is left running a long one alone at the end. The order of the
# tests inside a file is kept, and the rest of the suite follows in its own order.
SLOWEST_FIRST = (
    "tests/web/test_accessibility.py",
    "tests/contract/test_conformance.py",
    "tests/web/test_battlebooks_console.py",
    "tests/test_cli.py",
    "tests/web/test_formats_console.py",
    "tests/api/test_transfer.py",
    "tests/web/test_offline.py",
    "tests/workers/test_worker_ops.py",
    "tests/web/test_results.py",
    "tests/api/test_webhooks.py",
    "tests/api/test_battlebooks.py",
    "tests/test_import_corpus.py",
    "tests/api/test_edge.py",
    "tests/test_bench_http.py",
    "tests/api/test_secrets_at_rest.py",
    "tests/web/test_qr.py",
    "tests/contract/test_typescript.py",
    "tests/workers/test_ratings_worker.py",
    "tests/api/test_bga.py",
    "tests/web/test_hall.py",
    "tests/web/test_pages.py",
    "tests/workers/test_scale.py",
    "tests/contract/test_python_client.py",
    "tests/web/test_staff_console.py",
    "tests/workers/test_worker.py",
    "tests/web/test_console.py",
    "tests/test_fuzz.py",
)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {path: i for i, path in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))
