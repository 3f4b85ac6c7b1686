"""A Postgres outage: a throwaway cluster this test starts itself (initdb in a temporary folder), stopped
under a running API and started again. While it is down every request that needs the database answers
503 problem+json with Retry-After (the app raises nothing, so the connection stays), /readyz says 503
too, the log has a line, not a traceback per request; once it is back the API answers again by itself.
And a connection the server closed while it sat in the pool is replaced before a request uses it."""

from __future__ import annotations

import asyncio
import contextlib
import glob
import logging
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.exc import TimeoutError as SATimeoutError

from app.api import problems
from app.cli import migrate
from app.db.session import make_engine, make_sessionmaker
from app.main import create_app
from app.settings import Settings
from tests.support.api import ADMIN_TOKEN, Api, api_client, assert_problem
from tests.support.processes import free_port
from tests.support.services import in_thread


def _bin(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else shutil.which(name)


def _as_postgres(args: list[str]) -> list[str]:
    """Postgres refuses to run as root: run its tools as the postgres user then."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *args]
    return args


class Cluster:
    def __init__(self, root: Path) -> None:
        self.data = root / "data"
        self.port = free_port()
        self.log = root / "postgres.log"
        self.root = root

    def _ctl(self, *args: str) -> None:
        pg_ctl = _bin("pg_ctl")
        assert pg_ctl is not None
        subprocess.run(_as_postgres([pg_ctl, "-D", str(self.data), *args]), check=True, capture_output=True)

    def init(self) -> None:
        initdb = _bin("initdb")
        assert initdb is not None
        subprocess.run(
            _as_postgres([initdb, "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync"]),
            check=True,
            capture_output=True,
        )

    def start(self) -> None:
        opts = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._ctl("-l", str(self.log), "-o", opts, "-w", "start")

    def stop(self) -> None:
        self._ctl("-m", "fast", "-w", "stop")

    @property
    def url(self) -> str:
        return f"postgresql+asyncpg://postgres@127.0.0.1:{self.port}/postgres"


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    if _bin("initdb") is None or _bin("pg_ctl") is None:
        pytest.skip("no Postgres server binaries on this machine")
    # a folder of its own under the system's temporary one: the postgres user must reach it
    root = Path(tempfile.mkdtemp(prefix="arbiter-outage-"))
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
    c = Cluster(root)
    c.init()
    c.start()
    try:
        yield c
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):
            c.stop()
        shutil.rmtree(root, ignore_errors=True)


async def test_a_database_outage_answers_503_and_recovers(
    cluster: Cluster, caplog: pytest.LogCaptureFixture
) -> None:
    in_thread(migrate, cluster.url)
    settings = Settings(
        database_url=cluster.url, redis_url=None, arbiter_admin_token=ADMIN_TOKEN, arbiter_sweep_seconds=3600
    )
    app = create_app(settings)
    admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    async with app.router.lifespan_context(app), api_client(app, "postgres") as api:
        r = await api.client.post("/v1/events", json={"name": "Before", "game": "generic"}, headers=admin)
        assert r.status_code == 201, r.text
        event_id = r.json()["id"]
        await asyncio.to_thread(cluster.stop)
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            answers = []
            for _ in range(10):
                answers.append(await api.client.get("/v1/events"))
                answers.append(await api.client.get(f"/v1/events/{event_id}"))
                answers.append(
                    await api.client.post(
                        "/v1/events", json={"name": "During", "game": "generic"}, headers=admin
                    )
                )
            ready = await api.client.get("/readyz")
        for answer in answers:
            assert_problem(answer, 503)
            assert int(answer.headers["retry-after"]) > 0
        assert_problem(ready, 503)
        assert int(ready.headers["retry-after"]) > 0
        api_lines = [r for r in caplog.records if r.name == "arbiter.api"]
        assert 1 <= len(api_lines) <= 2, [r.getMessage() for r in api_lines]
        assert not any(r.exc_info for r in api_lines)  # a line, not a traceback

        await asyncio.to_thread(cluster.start)
        started, status = time.monotonic(), 0
        while time.monotonic() - started < 30:
            status = (await api.client.get(f"/v1/events/{event_id}")).status_code
            if status == 200:
                break
            await asyncio.sleep(0.2)
        assert status == 200, "the API did not recover by itself"
        assert (await api.client.get("/readyz")).status_code == 200
        names = [e["name"] for e in (await api.client.get("/v1/events")).json()["items"]]
        assert names == ["Before"]  # nothing half-written during the outage


async def test_a_connection_the_server_closed_is_replaced_before_it_is_used(pg_engine: Any) -> None:
    """The pool checks a connection's socket at checkout (app/db/session.py), not the server: a
    backend terminated while its connection sat in the pool costs the next request nothing."""
    async with pg_engine.connect() as other:
        async with pg_engine.connect() as conn:
            pid = (await conn.execute(text("SELECT pg_backend_pid()"))).scalar_one()
        # that connection is back in the pool; the server ends its backend
        assert (await other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})).scalar_one()
    await asyncio.sleep(0.2)  # the driver sees the socket close
    for _ in range(3):  # every pooled connection that was closed is replaced, none fails a statement
        async with pg_engine.connect() as conn:
            assert (await conn.execute(text("SELECT 1"))).scalar_one() == 1


async def test_a_request_that_waits_too_long_for_a_connection_is_told_the_server_is_busy(
    api: Api, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Every pooled connection held elsewhere: a request that waits past the pool's timeout answers
    503 "Server busy" with Retry-After, the database reachable all along; the log says busy, not
    unreachable; once a connection is free the same requests are answered."""
    r = await api.client.post("/v1/events", json={"name": "Busy", "game": "generic"}, headers=api.admin())
    assert r.status_code == 201, r.text
    event_id = r.json()["id"]
    # a pool of two, waited for 0.2 s, in place of the server's
    url = api.app.state.engine.url.render_as_string(hide_password=False)
    small = make_engine(url, pool_size=2, max_overflow=0, pool_timeout=0.2)
    served = api.app.state.sessionmaker
    api.app.state.sessionmaker = make_sessionmaker(small, served.kw["info"])
    monkeypatch.setitem(problems._busy, "logged_at", -1e9)  # this test's line is not held back
    held = []
    try:
        while True:  # take every connection the pool has, until it makes us wait too long
            try:
                held.append(await small.connect())
            except SATimeoutError:
                break
        assert len(held) == 2
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            answers = [
                await api.client.get(f"/v1/events/{event_id}"),
                await api.client.post(
                    "/v1/events", json={"name": "No", "game": "generic"}, headers=api.admin()
                ),
            ]
        for answer in answers:
            body = assert_problem(answer, 503)
            assert body["title"] == "Server busy" and "unreachable" not in body["detail"], body
            assert int(answer.headers["retry-after"]) > 0
        lines = [r.getMessage() for r in caplog.records if r.name == "arbiter.api"]
        assert len(lines) == 1 and "server busy" in lines[0] and "unavailable" not in lines[0], lines
        await held.pop().close()
        assert (await api.client.get(f"/v1/events/{event_id}")).status_code == 200
        names = {e["name"] for e in (await api.client.get("/v1/events")).json()["items"]}
        assert names == {"Busy"}  # the refused creation wrote nothing
    finally:
        api.app.state.sessionmaker = served
        for conn in held:
            await conn.close()
        await small.dispose()
