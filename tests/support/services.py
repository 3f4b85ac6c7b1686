"""The real services the suite runs on: Postgres and Redis from TEST_DATABASE_URL / TEST_REDIS_URL
(tests/services.sh writes them), throwaway databases on them, and emptying one between tests."""

from __future__ import annotations

import os
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from app.db.base import Base

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


def worker_id() -> str:
    """The pytest-xdist worker running this process (``gw0``, ``gw1``, …), or ``main`` in a serial run:
    each worker makes its own databases and names its own Redis keys with it."""
    return os.environ.get("PYTEST_XDIST_WORKER", "main")


def server_url() -> str:
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


async def admin_execute(server_url: str, sql: str) -> None:
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


def in_thread(fn: Any, *args: Any) -> Any:
    """Run blocking set-up (asyncio.run inside) off the event loop, wherever it is called from."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(fn, *args).result()


async def clean(engine: Any) -> None:
    """Empty every table but the shipped game catalog and the database's sealed keys (tests share one
    migrated database; its apps keep the answers' key they opened as they started)."""
    tables = [
        t.name for t in reversed(Base.metadata.sorted_tables) if t.name not in ("games", "sealing_keys")
    ]
    # DELETE, children first, on both backends: a test leaves a few rows, and TRUNCATE's cost is per
    # table (a new file for each, ACCESS EXCLUSIVE locks): ten times a DELETE's on Postgres here
    async with engine.begin() as conn:
        for name in tables:
            await conn.execute(text(f"DELETE FROM {name}"))
        keep = ", ".join(f"'{k}'" for k in SHIPPED_GAMES)
        await conn.execute(text(f"DELETE FROM games WHERE key NOT IN ({keep})"))
