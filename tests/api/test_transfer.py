"""`arbiter export EVENT_ID > event.json` and `arbiter import event.json`: a whole rated event moved
from one backend to the other (SQLite → Postgres, and back), standings and ratings identical after
the move; a file of another kind, or an event already there, changes nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app.db.session import make_engine
from app.main import create_app
from app.settings import Settings
from tests.support.api import ADMIN_TOKEN, Api, api_client, bearer, play_stage, setup_event, start
from tests.support.services import clean

ROOT = Path(__file__).resolve().parents[2]


def arbiter(url: str, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": url}
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        cwd=ROOT,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


async def _snapshot(api: Api, event_id: str, players: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for path in ("", "/standings", "/rounds", "/entries", "/history", "/crosstable"):
        r = await api.client.get(f"/v1/events/{event_id}{path}")
        assert r.status_code == 200, r.text
        out[path] = r.json()
    board = (await api.client.get("/v1/ratings/generic", params={"limit": 200})).json()
    out["ratings"] = board["items"]
    for p in players:
        out[p] = (await api.client.get(f"/v1/players/{p}/ratings")).json()["items"]
    for rnd in out["/rounds"]["items"]:
        for m in rnd["matches"]:
            out[m["id"]] = (await api.client.get(f"/v1/matches/{m['id']}")).json()
    return out


async def test_a_rated_event_moves_to_the_other_backend(
    api: Api, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    names = ["Ada", "Bob", "Cy", "Di", "Eve"]
    event_id, token, made = await setup_event(
        api,
        {n: {"club": "Red" if i % 2 else "Blue", "rating": 1500 + 10 * i} for i, n in enumerate(names)},
        settings={"rated": True, "stages": [{"format": "swiss", "rounds": 3}]},
    )
    first = (await start(api, event_id, token))["round"]
    await play_stage(api, event_id, token, first)
    await api.client.post(f"/v1/events/{event_id}/advance", headers=bearer(token))
    await api.drain_jobs()
    players = [e["player_id"] for e in made.values()]
    before = await _snapshot(api, event_id, players)
    assert before["ratings"], "the event rated its players"

    source = api.app.state.settings.database_url
    target = request.getfixturevalue("sqlite_url" if api.backend == "postgres" else "pg_url")
    exported = arbiter(source, "export", event_id)
    assert exported.returncode == 0, exported.stderr
    path = tmp_path / "event.json"
    path.write_text(exported.stdout)
    doc = json.loads(exported.stdout)
    assert doc["format"] == "arbiter-event" and doc["tables"]["events"][0]["seed"]

    engine = make_engine(target)
    await clean(engine)  # the other backend's tests share its database: start it empty
    await engine.dispose()
    done = arbiter(target, "import", str(path))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["event_id"] == event_id
    settings = Settings(database_url=target, arbiter_admin_token=ADMIN_TOKEN, arbiter_sweep_seconds=3600)
    app = create_app(settings)
    async with app.router.lifespan_context(app), api_client(app, "target") as moved:
        after = await _snapshot(moved, event_id, players)
        assert after == before
        # the entry tokens still work: a player acts with the same token
        ada = made["Ada"]
        url = f"/v1/events/{event_id}/entries/{ada['id']}"
        r = await moved.client.delete(url, headers=bearer(ada["entry_token"]))
        assert r.status_code == 200, r.text
    again = arbiter(target, "import", str(path))
    assert again.returncode == 1 and "already in this database" in again.stderr
    assert arbiter(target, "import", "-", stdin='{"format": "something"}').returncode == 1
    assert arbiter(source, "export", "no-such-event").returncode == 1
