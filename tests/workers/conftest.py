"""Fixtures of the worker tests: a queue of their own, the worker processes they start (killed at
the end), and the API on Postgres with Redis as its queue."""

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
from tests.support.workers import stop


@pytest.fixture
def queue() -> str:
    return f"arbiter:test:{uuid.uuid4().hex[:8]}"


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
