"""Fixtures of the worker tests: a queue of their own, the worker processes they start (killed at
the end), and the API on Postgres with Redis as its queue. Nothing here empties a Redis database: each
test's keys name its queue, and only those are deleted."""

from __future__ import annotations

import signal
import subprocess
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from app.main import create_app
from app.settings import Settings
from tests.support.api import ADMIN_TOKEN, Api, api_client
from tests.support.services import redis_url
from tests.support.workers import drop_queue_keys, redis_keys, stop


@pytest.fixture
async def queue() -> AsyncIterator[str]:
    """A queue of the test's own. Afterwards every key the test's processes left in Redis must name
    it, and those keys are deleted: the suite leaves nothing behind in a Redis it shares."""
    name = f"arbiter:test:{uuid.uuid4().hex[:8]}"
    before = await redis_keys()
    yield name
    stray = {k for k in await redis_keys() - before if "arbiter:test:" not in k}
    await drop_queue_keys(name)
    assert not stray, f"keys that name no queue: {sorted(stray)}"


@pytest.fixture
def worker_procs() -> Iterator[list[subprocess.Popen[bytes]]]:
    procs: list[subprocess.Popen[bytes]] = []
    yield procs
    for p in procs:
        stop(p, signal.SIGKILL)


@pytest.fixture
async def redis_api(pg_url: str, pg_sessionmaker: Any, queue: str) -> AsyncIterator[Api]:
    settings = Settings(
        database_url=pg_url, redis_url=redis_url(), arbiter_admin_token=ADMIN_TOKEN, arbiter_queue_name=queue
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app), api_client(app, "postgres+redis") as client:
        yield client
