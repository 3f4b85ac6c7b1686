"""The foundation's HTTP contract on Postgres and on the SQLite default."""

from __future__ import annotations

import asyncio
import hashlib

from sqlalchemy import select

from app.db.models import Entry, Event
from app.version import __version__
from tests.support.api import Api, add_entry, assert_problem, bearer, make_event, setup_event


async def test_health_and_ready(api: Api) -> None:
    r = await api.client.get("/healthz")
    assert r.json() == {"status": "ok", "version": __version__, "database": None, "queue": None}
    r = await api.client.get("/readyz")
    assert r.status_code == 200
    assert r.json()["database"] == "ok" and r.json()["queue"] == "in-process"
    assert r.json()["version"] == __version__


async def test_shipped_games(api: Api) -> None:
    r = await api.client.get("/v1/games")
    games = {g["key"]: g for g in r.json()["items"]}
    assert games["titan-the-arena"]["min_seats"] == 3 and games["titan-the-arena"]["max_seats"] == 5
    assert games["rite-of-command"]["max_seats"] == 2
    assert {
        "generic",
        "colossal-arena",
        "strategic-titan",
        "titan",
        "battlebooks",
        "seasons",
        "puerto-rico",
    } <= set(games)


async def test_create_game_needs_admin_and_validates(api: Api) -> None:
    body = {"key": "hive", "name": "Hive", "min_seats": 2, "max_seats": 2}
    assert_problem(await api.client.post("/v1/games", json=body), 401)
    r = await api.client.post("/v1/games", json={**body, "min_seats": 3}, headers=api.admin())
    problem = assert_problem(r, 422)
    assert problem["errors"]
    r = await api.client.post("/v1/games", json=body, headers=api.admin())
    assert r.status_code == 201
    assert_problem(await api.client.post("/v1/games", json=body, headers=api.admin()), 409)


async def test_players_create_get_search_page(api: Api) -> None:
    for name in ["Ada", "Alan", "Grace", "Alonzo"]:
        r = await api.client.post("/v1/players", json={"name": name}, headers=api.admin())
        assert r.status_code == 201, r.text
    pid = r.json()["id"]
    assert (await api.client.get(f"/v1/players/{pid}")).json()["name"] == "Alonzo"
    r = await api.client.get("/v1/players", params={"q": "al", "limit": 1})
    page = r.json()
    assert [p["name"] for p in page["items"]] == ["Alan"] and page["next_cursor"]
    r = await api.client.get("/v1/players", params={"q": "al", "limit": 1, "cursor": page["next_cursor"]})
    assert [p["name"] for p in r.json()["items"]] == ["Alonzo"] and r.json()["next_cursor"] is None
    assert_problem(await api.client.get("/v1/players/nope"), 404)
    assert_problem(await api.client.post("/v1/players", json={"name": "X"}), 401)
    assert_problem(await api.client.post("/v1/players", json={"name": ""}, headers=api.admin()), 422)


async def test_event_creation_returns_token_once_and_hides_seed(api: Api) -> None:
    event, token = await make_event(api, seed="a-known-seed-123")
    assert event["status"] == "registration" and event["preset"] == "generic"
    assert event["seed_commitment"] == hashlib.sha256(b"a-known-seed-123").hexdigest()
    assert event["seed"] is None
    r = await api.client.get(f"/v1/events/{event['id']}")
    assert "organizer_token" not in r.json() and r.json()["seed"] is None
    assert r.headers["etag"] == f'"{event["version"]}"'
    async with api.app.state.sessionmaker() as s:
        row = await s.get(Event, event["id"])
        assert row.organizer_token_hash == hashlib.sha256(token.encode()).hexdigest()
        assert token not in str(row.settings)


async def test_event_requires_admin(api: Api) -> None:
    _, org = await make_event(api)
    r = await api.client.post("/v1/events", json={"name": "x", "game": "generic"}, headers=bearer(org))
    assert_problem(r, 403)
    r = await api.client.post("/v1/events", json={"name": "x", "game": "generic"}, headers=bearer("bogus"))
    assert_problem(r, 401)


async def test_event_settings_validation_lists_every_problem(api: Api) -> None:
    before = len((await api.client.get("/v1/events")).json()["items"])
    settings = {
        "stages": [{"format": "knockout", "table_size": 9}, {"rounds": 0}],
        "colour": "blue",
        "capacity": -1,
        "ranking_basis": "median",
    }
    r = await api.client.post(
        "/v1/events", json={"name": "Bad", "game": "seasons", "settings": settings}, headers=api.admin()
    )
    body = assert_problem(r, 422)
    locs = {tuple(e["loc"]) for e in body["errors"]}
    assert ("settings", "stages", 0, "format") in locs
    assert ("settings", "stages", 0, "table_size") in locs  # 9 seats for a 2–4 seat game
    assert ("settings", "stages", 1, "format") in locs  # required
    assert ("settings", "stages", 1, "rounds") in locs
    assert ("settings", "colour") in locs
    assert ("settings", "capacity") in locs
    assert ("settings", "ranking_basis") in locs
    assert len((await api.client.get("/v1/events")).json()["items"]) == before  # nothing written


async def test_event_unknown_game_and_preset(api: Api) -> None:
    r = await api.client.post("/v1/events", json={"name": "x", "game": "chess"}, headers=api.admin())
    assert assert_problem(r, 422)["errors"][0]["loc"] == ["game"]
    r = await api.client.post(
        "/v1/events", json={"name": "x", "game": "generic", "preset": "nope"}, headers=api.admin()
    )
    assert assert_problem(r, 422)["errors"][0]["loc"] == ["preset"]
    r = await api.client.post(
        "/v1/events", json={"name": "x", "game": "generic", "extra": 1}, headers=api.admin()
    )
    assert_problem(r, 422)


async def test_event_update_needs_if_match(api: Api) -> None:
    event, token = await make_event(api)
    url = f"/v1/events/{event['id']}"
    assert_problem(await api.client.patch(url, json={"name": "Renamed"}, headers=bearer(token)), 428)
    stale = {**bearer(token), "If-Match": '"999"'}
    assert_problem(await api.client.patch(url, json={"name": "Renamed"}, headers=stale), 412)
    ok = {**bearer(token), "If-Match": f'"{event["version"]}"'}
    r = await api.client.patch(url, json={"name": "Renamed", "settings": {"capacity": 8}}, headers=ok)
    assert r.status_code == 200, r.text
    assert r.json()["name"] == "Renamed" and r.json()["settings"]["capacity"] == 8
    assert r.json()["version"] == event["version"] + 1
    # the old version is now stale
    assert_problem(await api.client.patch(url, json={"name": "Again"}, headers=ok), 412)
    # another event's organizer cannot touch it
    _, other = await make_event(api)
    r = await api.client.patch(url, json={"name": "x"}, headers={**bearer(other), "If-Match": '"2"'})
    assert_problem(r, 403)


async def test_entries_add_list_drop(api: Api) -> None:
    event, token = await make_event(api, settings={"capacity": 3})
    eid = event["id"]
    a = await add_entry(api, eid, token, "Ada", characters=["Wizard", "Ranger"])
    assert a["entry_token"] and a["characters"] == ["Wizard", "Ranger"] and a["status"] == "active"
    await add_entry(api, eid, token, "Grace")
    # the same player again
    r = await api.client.post(f"/v1/events/{eid}/entries", json={"name": "Ada"}, headers=bearer(token))
    assert_problem(r, 409)
    # player_id and name together
    r = await api.client.post(
        f"/v1/events/{eid}/entries", json={"name": "Z", "player_id": a["player_id"]}, headers=bearer(token)
    )
    assert_problem(r, 422)
    await add_entry(api, eid, token, "Alan")
    r = await api.client.post(f"/v1/events/{eid}/entries", json={"name": "Extra"}, headers=bearer(token))
    assert "full" in assert_problem(r, 409)["detail"]
    # an entry token may drop its own entry, not another one
    entries = (await api.client.get(f"/v1/events/{eid}/entries")).json()["items"]
    other = next(e for e in entries if e["name"] == "Grace")
    r = await api.client.delete(f"/v1/events/{eid}/entries/{other['id']}", headers=bearer(a["entry_token"]))
    assert_problem(r, 403)
    r = await api.client.delete(f"/v1/events/{eid}/entries/{a['id']}", headers=bearer(a["entry_token"]))
    assert r.status_code == 200 and r.json()["status"] == "dropped"
    assert (await api.client.get(f"/v1/events/{eid}")).json()["entries"] == 2
    # the same player name in another event is the same player
    event2, token2 = await make_event(api)
    a2 = await add_entry(api, event2["id"], token2, "Ada")
    assert a2["player_id"] == a["player_id"]
    # an organizer token never reaches another event
    r = await api.client.post(f"/v1/events/{eid}/entries", json={"name": "Q"}, headers=bearer(token2))
    assert_problem(r, 403)
    async with api.app.state.sessionmaker() as s:
        stored = (await s.execute(select(Entry.token_hash).where(Entry.id == a["id"]))).scalar_one()
        assert stored == hashlib.sha256(a["entry_token"].encode()).hexdigest()


async def test_idempotent_event_creation(api: Api) -> None:
    body = {"name": "Idem Cup", "game": "generic"}
    headers = {**api.admin(), "Idempotency-Key": "create-1"}
    r1 = await api.client.post("/v1/events", json=body, headers=headers)
    r2 = await api.client.post("/v1/events", json=body, headers=headers)
    assert r1.status_code == r2.status_code == 201
    assert r1.json() == r2.json() and r2.headers["idempotent-replayed"] == "true"
    events = (await api.client.get("/v1/events")).json()["items"]
    assert [e["name"] for e in events].count("Idem Cup") == 1
    r3 = await api.client.post("/v1/events", json={**body, "name": "Other"}, headers=headers)
    assert "different request body" in assert_problem(r3, 409)["detail"]


async def test_idempotent_entry_concurrent_retries(api: Api) -> None:
    event, token = await make_event(api)
    url = f"/v1/events/{event['id']}/entries"
    headers = {**bearer(token), "Idempotency-Key": "reg-ada"}
    rs = await asyncio.gather(
        *[api.client.post(url, json={"name": "Ada"}, headers=headers) for _ in range(4)]
    )
    ok = [r for r in rs if r.status_code == 201]
    assert ok, [r.text for r in rs]
    assert len({r.json()["id"] for r in ok}) == 1
    assert all(r.status_code == 201 for r in rs)  # every copy gets the one answer
    assert len((await api.client.get(url)).json()["items"]) == 1


async def test_integrity_check_job_in_process(api: Api) -> None:
    eid, token, _ = await setup_event(api, ["Ada", "Grace", "Alan"])
    r = await api.client.post(f"/v1/events/{eid}/integrity-check", headers=bearer(token))
    assert r.status_code == 202 and r.headers["location"] == f"/v1/jobs/{r.json()['job_id']}"
    await api.drain_jobs()
    job = (await api.client.get(r.headers["location"])).json()
    assert job["status"] == "done" and job["progress"] == 1.0
    assert job["result"]["ok"] is True and job["result"]["checked"]["entries"] == 3
    assert_problem(await api.client.post(f"/v1/events/{eid}/integrity-check"), 401)
    assert_problem(await api.client.get("/v1/jobs/unknown"), 404)


async def test_integrity_check_finds_a_broken_commitment(api: Api) -> None:
    event, token = await make_event(api)
    async with api.app.state.sessionmaker() as s:
        row = await s.get(Event, event["id"])
        row.seed = "tampered-seed"
        await s.commit()
    r = await api.client.post(f"/v1/events/{event['id']}/integrity-check", headers=bearer(token))
    await api.drain_jobs()
    job = (await api.client.get(f"/v1/jobs/{r.json()['job_id']}")).json()
    assert job["result"]["ok"] is False
    assert "seed_commitment" in job["result"]["problems"][0]["msg"]


async def test_errors_are_problem_json(api: Api) -> None:
    assert_problem(await api.client.get("/v1/events/none"), 404)
    assert_problem(await api.client.get("/v1/nothing-here"), 404)
    r = await api.client.post(
        "/v1/events", content=b"{not json", headers={**api.admin(), "Content-Type": "application/json"}
    )
    assert_problem(r, 422)
    r = await api.client.post("/v1/players", json={"name": "A"}, headers={"Authorization": "Basic abc"})
    assert_problem(r, 401)


async def test_default_table_size_follows_the_game(api: Api) -> None:
    event, _ = await make_event(api, game="puerto-rico")
    assert event["settings"]["stages"][0]["table_size"] == 3
    event, _ = await make_event(api, settings={"stages": [{"format": "round_robin", "table_size": 4}]})
    assert event["settings"]["stages"][0]["table_size"] == 4


async def test_rating_settings_are_validated(api: Api) -> None:
    event, _ = await make_event(api, settings={"rated": True, "rating": {"pools": "character", "k": 24}})
    assert event["settings"]["rating"] == {"pools": "character", "k": 24}
    r = await api.client.post(
        "/v1/events",
        json={"name": "x", "game": "generic", "settings": {"rating": {"pools": "every", "colour": 1}}},
        headers=api.admin(),
    )
    locs = {tuple(e["loc"]) for e in assert_problem(r, 422)["errors"]}
    assert locs == {("settings", "rating", "pools"), ("settings", "rating", "colour")}


async def test_out_of_range_numbers_are_4xx_not_500(api: Api) -> None:
    event, _ = await make_event(api)
    r = await api.client.get(f"/v1/events/{event['id']}/rounds/114029077337690537984")
    assert_problem(r, 422)
    body = b'{"name": "x", "external_id": "y", "extra": NaN}'
    r = await api.client.post(
        "/v1/players", content=body, headers={**api.admin(), "Content-Type": "application/json"}
    )
    assert_problem(r, 422)
    r = await api.client.post(
        "/v1/matches/nope/result",
        content=b'{"seats": [{"entry_id": "a", "score": Infinity}]}',
        headers={**api.admin(), "Content-Type": "application/json"},
    )
    assert assert_problem(r, 422)["errors"][0]["loc"][-1] == "score"
