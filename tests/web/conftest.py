"""The browser tests: one real server on the embedded default (SQLite, jobs in-process) and one on
Postgres for the hall's pages, each started once per test process and shared by its modules (a
server start and a migration cost seconds; every test makes its own events), and one Chromium per
module — Debian's, launched from its executable (tests/services.sh installs it), never a browser
Playwright downloads. Screenshots go to screenshots/ (not committed) for a reviewer."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import sync_playwright
from sqlalchemy.engine import make_url

from tests.support.processes import ROOT, arbiter, env, finish, free_port, spawn, wait_http
from tests.support.services import admin_execute, in_thread, server_url

ADMIN = "web-admin-token"
SHOTS = ROOT / "screenshots"
CHROMIUM = os.environ.get("ARBITER_TEST_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


def _serve(where: Path, database_url: str) -> Iterator[str]:
    environ = env(
        DATABASE_URL=database_url,
        ARBITER_ADMIN_TOKEN=ADMIN,
        ARBITER_LOG_FORMAT="json",
        ARBITER_SSE_POLL_SECONDS="0.2",
        ARBITER_API_SHUTDOWN_WAIT="2",  # a page left open holds a stream: the server stops anyway
    )
    done = arbiter("migrate", environ=environ)
    assert done.returncode == 0, done.stderr
    port = free_port()
    log = where / "serve.log"
    proc = spawn("serve", "--host", "127.0.0.1", "--port", str(port), environ=environ, log=log)
    base = f"http://127.0.0.1:{port}"
    wait_http(f"{base}/readyz", proc)
    yield base
    finish(proc, log)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of ``arbiter serve`` on a SQLite file of its own, one per test process: every
    test makes the events it looks at, so the modules share it (``own_server`` for one of a
    module's own)."""
    where = tmp_path_factory.mktemp("web")
    yield from _serve(where, f"sqlite+aiosqlite:///{where / 'arbiter.db'}")


@pytest.fixture(scope="module")
def own_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server on a SQLite file of the module's own, for tests that read what the whole server holds."""
    where = tmp_path_factory.mktemp("own")
    yield from _serve(where, f"sqlite+aiosqlite:///{where / 'arbiter.db'}")


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of ``arbiter serve`` on a Postgres database of its own (jobs in-process), one per
    test process, shared as ``server`` is."""
    where = tmp_path_factory.mktemp("pg")
    server_db = server_url()
    name = f"arbiter_web_{uuid.uuid4().hex[:10]}"
    in_thread(asyncio.run, admin_execute(server_db, f'CREATE DATABASE "{name}"'))
    try:
        yield from _serve(where, make_url(server_db).set(database=name).render_as_string(hide_password=False))
    finally:
        in_thread(asyncio.run, admin_execute(server_db, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture(scope="session", params=["sqlite", "postgres"])
def hall_server(request: pytest.FixtureRequest) -> str:
    """The shared server of each backend in turn (``server``, ``pg_server``): the hall's pages
    (clock, staff, offline results, check-in) are tested on both."""
    return str(request.getfixturevalue("server" if request.param == "sqlite" else "pg_server"))


# one Chromium per module: Playwright's sync API runs its own event loop in the test process while it
# is open, and a loop left running past the browser tests fails every async test after them
@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    assert Path(CHROMIUM).exists(), f"no Chromium at {CHROMIUM}: run tests/services.sh (it installs it)"
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-dev-shm-usage"])
        yield b
        b.close()


@pytest.fixture(autouse=True)
def _quick_timeouts(browser: Any) -> None:
    """A page that does not show what a test waits for fails in seconds, not Playwright's 30."""
    for context in browser.contexts:
        context.set_default_timeout(10_000)


def shot(page: Any, name: str) -> None:
    """A full-page screenshot for a person to look at, when ARBITER_TEST_SCREENSHOTS is set: each
    costs a few hundred milliseconds of encoding, and no test reads them (the tests that decode a
    printed code take their own)."""
    if not os.environ.get("ARBITER_TEST_SCREENSHOTS"):
        return
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def api(base: str) -> httpx.Client:
    return httpx.Client(base_url=base, timeout=30)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def rated(client: httpx.Client, pool: str, games: int, within: float = 15) -> None:
    """Waits until the pool has rated ``games`` games: rating runs as a job after each confirmed
    result, so a test polls the pools' list (at a poll's pace, every page of it: the shared server
    holds many pools) until the job has run."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        params: dict[str, Any] = {"limit": 500}
        found = None
        while found is None:
            page = client.get("/v1/ratings", params=params).json()
            found = next((p for p in page["items"] if p["pool"] == pool), None)
            if page["next_cursor"] is None:
                break
            params["cursor"] = page["next_cursor"]
        if found and found["games"] == games:
            return
        time.sleep(0.05)
    raise AssertionError(f"pool {pool} did not reach {games} rated games in {within} s")


def rated_league(
    client: httpx.Client, name: str, names: list[str], rounds: int, season: dict[str, Any]
) -> dict[str, str]:
    """A rated Swiss of ``rounds`` rounds into a pool of its own, played through the API (the first
    seat wins every table), finished, counted in a new season (``season``: its ``POST /v1/seasons``
    body), its ratings computed: the pool, the event and the season's ids."""
    pool = f"league-{uuid.uuid4().hex[:8]}"
    settings = {"rated": True, "rating": {"pool": pool}, "stages": [{"format": "swiss", "rounds": rounds}]}
    made = client.post(
        "/v1/events", json={"name": name, "game": "generic", "settings": settings}, headers=bearer(ADMIN)
    )
    assert made.status_code == 201, made.text
    event = made.json()
    org = bearer(event["organizer_token"])
    rows = [{"name": n} for n in names]
    assert client.post(f"/v1/events/{event['id']}/entries", json=rows, headers=org).status_code == 201
    matches = client.post(f"/v1/events/{event['id']}/start", headers=org).json()["round"]["matches"]
    for n in range(rounds):
        for m in matches:
            a, b = (s["entry_id"] for s in m["seats"])
            body = {"seats": [{"entry_id": a, "place": 1}, {"entry_id": b, "place": 2}]}
            r = client.post(f"/v1/matches/{m['id']}/result", json=body, headers=org)
            assert r.status_code == 200, r.text
        if n + 1 < rounds:
            r = client.post(f"/v1/events/{event['id']}/rounds", headers=org)
            assert r.status_code in (200, 201), r.text
            matches = r.json()["matches"]
    r = client.post(f"/v1/events/{event['id']}/advance", headers=org)
    assert r.status_code == 200 and r.json()["event"]["status"] == "finished", r.text
    made_season = client.post("/v1/seasons", json=season, headers=bearer(ADMIN)).json()
    r = client.post(
        f"/v1/seasons/{made_season['id']}/events",
        json={"event_id": event["id"]},
        headers=bearer(made_season["organizer_token"]),
    )
    assert r.status_code == 200, r.text
    rated(client, pool, rounds * len(names) // 2)
    return {"pool": pool, "event": event["id"], "season": made_season["id"]}


def four_a_table(client: httpx.Client, names: Sequence[str]) -> tuple[dict[str, Any], dict[str, str]]:
    """A two-round Swiss at tables of four scored by place (3, 2, 1, 0), made through the API with
    these players registered, not started: the event's answer and its organizer's headers."""
    made = client.post(
        "/v1/events",
        json={
            "name": "Four a table",
            "game": "generic",
            "settings": {
                "stages": [{"format": "swiss", "table_size": 4, "rounds": 2}],
                "scoring": {"scheme": "placement", "points": [3, 2, 1, 0]},
            },
        },
        headers=bearer(ADMIN),
    ).json()
    org = bearer(made["organizer_token"])
    rows = [{"name": n} for n in names]
    assert client.post(f"/v1/events/{made['id']}/entries", json=rows, headers=org).status_code == 201
    return made, org


def items(body: Any) -> list[Any]:
    """A list answer, as a bare list or as a page (``{items, next_cursor}``)."""
    return list(body["items"]) if isinstance(body, dict) else list(body)


class OtherOrigin:
    """A club's site on another origin (another port of the loopback), serving one page: what it was
    given (a pasted embed, say)."""

    def __init__(self) -> None:
        self.html = "<!doctype html><title>Club</title>"
        club = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the handler's own name
                body = club.html.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


# --------------------------------------------------------------------------- a console walk's steps
# an id shown to an organizer or a player where a name belongs
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def submit(page: Any, locator: Any) -> None:
    """A click that posts a form: the page is the answer's redirect."""
    with page.expect_navigation():
        locator.click()


def event_tables(client: httpx.Client, event_id: str) -> list[tuple[str, str, int]]:
    """Every table of the event with its status and version: a result, a hero or a round sent again shows."""
    rounds = items(client.get(f"/v1/events/{event_id}/rounds", params={"limit": 500}).json())
    return [(m["id"], m["status"], m["version"]) for r in rounds for m in r["matches"]]


def reloaded(page: Any, client: httpx.Client, event_id: str, live: bool = True) -> None:
    """A reload after an action: the page as it is (the console, live, unless ``live`` is False),
    no refusal, and nothing sent again."""
    before = client.get(f"/v1/events/{event_id}").json()["version"]
    played = event_tables(client, event_id)
    page.reload()
    if live:
        page.wait_for_selector("#live")
    assert page.locator(".error").count() == 0
    assert client.get(f"/v1/events/{event_id}").json()["version"] == before
    assert event_tables(client, event_id) == played
