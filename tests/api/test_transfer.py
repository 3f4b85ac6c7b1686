"""`arbiter export EVENT_ID > event.json` and `arbiter import event.json`: a whole rated event moved
from one backend to the other (SQLite → Postgres, and back) under new ids and new tokens, standings
and ratings identical after the move (read through the import's map of ids); a file of another
kind, or an event already there, changes nothing (the corpus of hostile files:
tests/test_import_corpus.py)."""

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
from app.services.transfer_rows import UUID
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
    assert "token_hash" not in exported.stdout, "no token or token hash leaves in the file"
    done = arbiter(target, "import", str(path))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    ids: dict[str, str] = result["ids"]
    moved_id = result["event_id"]
    assert result["source_event_id"] == event_id and moved_id != event_id
    assert set(ids.values()).isdisjoint(ids), "every row has a new id"
    settings = Settings(database_url=target, arbiter_admin_token=ADMIN_TOKEN, arbiter_sweep_seconds=3600)
    app = create_app(settings)
    async with app.router.lifespan_context(app), api_client(app, "target") as moved:
        after = await _snapshot(moved, moved_id, [ids[p] for p in players])
        imported = after["/history"]["items"].pop()
        assert imported["action"] == "imported" and imported["actor"] == f"import:{event_id}"
        expected = json.loads(UUID.sub(lambda m: ids.get(m.group(0), m.group(0)), json.dumps(before)))
        # players of equal rating are listed by player id: new ids may list them in another order
        for side in (expected, after):
            side["ratings"].sort(key=lambda row: json.dumps(row, sort_keys=True))
        for key in expected:
            assert after[key] == expected[key], key
        assert after.keys() == expected.keys()
        ada = made["Ada"]
        url = f"/v1/events/{moved_id}/entries/{ids[ada['id']]}"
        # the old token is nothing here; the import's new one acts for the entry
        assert (await moved.client.delete(url, headers=bearer(ada["entry_token"]))).status_code == 401
        new = {e["source_entry_id"]: e["entry_token"] for e in result["entries"]}
        r = await moved.client.delete(url, headers=bearer(new[ada["id"]]))
        assert r.status_code == 200, r.text
        r = await moved.client.get(f"/v1/events/{moved_id}", headers=bearer(token))
        assert r.status_code == 200
        r = await moved.client.post(
            f"/v1/events/{moved_id}/entries/{ids[made['Bob']['id']]}/token", headers=bearer(token)
        )
        assert r.status_code in (401, 403), "the old organizer token organizes nothing here"
        r = await moved.client.post(
            f"/v1/events/{moved_id}/entries/{ids[made['Bob']['id']]}/token",
            headers=bearer(result["organizer_token"]),
        )
        assert r.status_code == 200, r.text  # how the organizer hands out links again
    again = arbiter(target, "import", str(path))
    assert again.returncode == 1 and "already in this database" in again.stderr
    assert arbiter(target, "import", "-", stdin='{"format": "something"}').returncode == 1
    assert arbiter(source, "export", "no-such-event").returncode == 1
