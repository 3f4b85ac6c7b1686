"""Strategic Titan over HTTP: the stateless adjudicator and a match's record (Postgres and SQLite)."""

from __future__ import annotations

from typing import Any

from app.db.models import Match, Round, Seat, Stage
from tests.support.api import Api, assert_problem, bearer, setup_event
from tests.support.strategic_titan import mv

START = {"type": "start", "towers": [100, 400]}


async def seated_match(
    api: Api, game: str = "strategic-titan", names: tuple[str, ...] = ("Ann", "Bob", "Cy")
) -> dict[str, Any]:
    """An event of ``game`` with entries ``names``; a match seating the first two (rows made by the ORM)."""
    eid, token, registered = await setup_event(api, names, name=f"{game} cup", game=game)
    entries = list(registered.values())
    async with api.app.state.sessionmaker() as s:
        stage = Stage(event_id=eid, index=0, format="swiss")
        s.add(stage)
        await s.flush()
        rnd = Round(event_id=eid, stage_id=stage.id, number=1)
        s.add(rnd)
        await s.flush()
        match = Match(event_id=eid, round_id=rnd.id, table=1)
        s.add(match)
        await s.flush()
        s.add_all([Seat(match_id=match.id, entry_id=e["id"], seat=n) for n, e in enumerate(entries[:2])])
        await s.commit()
        match_id = match.id
    return {"event_id": eid, "token": token, "entries": entries, "match_id": match_id}


async def test_adjudicate_valid_violation_and_malformed(api: Api) -> None:
    url = "/v1/adjudicate/strategic-titan"
    events = [START, mv("Ann", 3), mv("Bob", 1), mv("Ann", 4)]
    r = await api.client.post(url, json={"players": ["Ann", "Bob"], "events": events})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["valid"] and body["violation"] is None
    assert body["state"]["players"][0]["movement_numbers"] == [3, 4]
    r = await api.client.post(url, json={"players": ["Ann", "Bob"], "events": [*events[:3], mv("Ann", 3)]})
    assert r.status_code == 200
    body = r.json()
    assert not body["valid"] and body["violation"]["rule"] == "4.2" and body["violation"]["index"] == 3
    assert body["state"]["events"] == 3 and body["state"]["players"][0]["movement_numbers"] == [3]
    r = await api.client.post(url, json={"players": ["Ann", "Bob"], "events": [START, mv("Ann", 9)]})
    problem = assert_problem(r, 422)
    assert problem["errors"][0]["loc"] == ["events", 1, "number"]
    r = await api.client.post(
        url, json={"players": ["Ann", "Bob"], "options": {"titans": "four"}, "events": []}
    )
    assert_problem(r, 422)


async def test_match_log_appends_and_a_rejected_event_changes_nothing(api: Api) -> None:
    m = await seated_match(api)
    url = f"/v1/matches/{m['match_id']}/log"
    org, ann, bob = (
        bearer(m["token"]),
        bearer(m["entries"][0]["entry_token"]),
        bearer(m["entries"][1]["entry_token"]),
    )
    r = await api.client.post(url, json={**START, "options": {"legion_markers": 6}}, headers=org)
    assert r.status_code == 201, r.text
    assert r.json()["index"] == 0 and r.json()["state"]["options"] == {"legion_markers": 6}
    assert (await api.client.post(url, json=mv("Ann", 3), headers=ann)).json()["index"] == 1
    r = await api.client.post(url, json=mv("Bob", 1), headers=bob)
    assert r.status_code == 201 and r.json()["state"]["players"][1]["movement_numbers"] == [1]
    before = await api.client.get(url)
    assert before.status_code == 200
    version = before.json()["version"]
    r = await api.client.post(url, json=mv("Ann", 3), headers=ann)
    problem = assert_problem(r, 422)
    assert problem["rule"] == "4.2" and "last two turns" in problem["detail"]
    r = await api.client.post(url, json=mv("Ann", 8), headers=ann)  # malformed
    assert assert_problem(r, 422)["errors"][0]["loc"] == ["events", 3, "number"]
    after = await api.client.get(url)
    assert after.json() == before.json() and after.json()["version"] == version
    record = after.json()["record"]
    assert record["players"] == ["Ann", "Bob"] and len(record["events"]) == 3 and record["options"] == {}
    r = await api.client.post(url, json=mv("Ann", 4), headers={**ann, "If-Match": f'"{version - 1}"'})
    assert_problem(r, 412)
    r = await api.client.post(url, json=mv("Ann", 4), headers={**ann, "If-Match": f'"{version}"'})
    assert r.status_code == 201 and r.json()["version"] == version + 1
    async with api.app.state.sessionmaker() as s:
        row = await s.get(Match, m["match_id"])
        assert row is not None and len(row.game_log["events"]) == 4 and row.version == version + 1


async def test_match_log_tokens_are_scoped(api: Api) -> None:
    m = await seated_match(api)
    other = await seated_match(api, names=("Dan", "Eve"))
    url = f"/v1/matches/{m['match_id']}/log"
    assert_problem(await api.client.post(url, json=START), 401)
    assert_problem(await api.client.post(url, json=START, headers=bearer(other["token"])), 403)
    r = await api.client.post(url, json=START, headers=bearer(other["entries"][0]["entry_token"]))
    assert_problem(r, 403)
    cy = bearer(m["entries"][2]["entry_token"])  # same event, not seated at this match
    assert_problem(await api.client.post(url, json=START, headers=cy), 403)
    assert (await api.client.post(url, json=START, headers=api.admin())).status_code == 201
    assert_problem(await api.client.get("/v1/matches/nope/log"), 404)
    generic = await seated_match(api, game="generic", names=("Fay", "Gus"))
    r = await api.client.post(
        f"/v1/matches/{generic['match_id']}/log", json=START, headers=bearer(generic["token"])
    )
    assert_problem(r, 409)


async def test_match_log_idempotent_retry(api: Api) -> None:
    m = await seated_match(api)
    url = f"/v1/matches/{m['match_id']}/log"
    headers = {**bearer(m["token"]), "Idempotency-Key": "start-1"}
    first = await api.client.post(url, json=START, headers=headers)
    again = await api.client.post(url, json=START, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json() and again.headers["Idempotent-Replayed"] == "true"
    assert len((await api.client.get(url)).json()["record"]["events"]) == 1
    assert_problem(await api.client.post(url, json=mv("Ann", 3), headers=headers), 409)
    r = await api.client.post(url, json=mv("Ann", 3), headers={**headers, "Idempotency-Key": "ann-1"})
    assert r.json()["index"] == 1


async def test_types_are_strict_and_every_number_of_a_record_is_bounded(api: Api) -> None:
    """`legion_markers: true` is a 422, not one marker; a points value of 10**18 is a 422 at once
    (7.41 is arithmetic; nothing loops over marks), and the bounds are in the request schema."""
    url = "/v1/adjudicate/strategic-titan"
    players = ["Ann", "Bob"]
    r = await api.client.post(
        url, json={"players": players, "options": {"legion_markers": True}, "events": [START]}
    )
    assert assert_problem(r, 422)["errors"][0]["loc"] == ["body", "options", "legion_markers"]
    start_true = {**START, "options": {"legion_markers": True}}
    r = await api.client.post(url, json={"players": players, "events": [start_true]})
    assert assert_problem(r, 422)["errors"][0]["loc"] == ["events", 0, "options"]
    huge = {"type": "points", "player": "Ann", "points": 10**18}
    r = await api.client.post(url, json={"players": players, "events": [START, huge]})
    assert assert_problem(r, 422)["errors"][0]["loc"] == ["events", 1, "points"]
    most = {"type": "points", "player": "Ann", "points": 100_000}
    r = await api.client.post(url, json={"players": players, "events": [START, most]})
    assert r.status_code == 200 and r.json()["state"]["players"][0]["mulligans"] == 0
    r = await api.client.post(url, json={"players": players, "events": [START] * 10_001})
    assert assert_problem(r, 422)["errors"][0]["loc"][:2] == ["body", "events"]
    m = await seated_match(api)
    log = f"/v1/matches/{m['match_id']}/log"
    assert (await api.client.post(log, json=START, headers=bearer(m["token"]))).status_code == 201
    r = await api.client.post(log, json=huge, headers=bearer(m["token"]))
    assert assert_problem(r, 422)["errors"][0]["loc"] == ["events", 1, "points"]
    assert len((await api.client.get(log)).json()["record"]["events"]) == 1  # nothing stored
    # the document says the bound: each event type has its shape, the points event its maximum
    schemas = (await api.client.get("/openapi.json")).json()["components"]["schemas"]
    assert {"$ref": "#/components/schemas/StrategicTitanPointsEvent"} in schemas["StrategicTitanEvent"][
        "anyOf"
    ]
    assert schemas["StrategicTitanPointsEvent"]["properties"]["points"]["maximum"] == 100_000


async def test_a_retraction_of_more_stacks_than_legions_is_a_7_2_violation(api: Api) -> None:
    url = "/v1/adjudicate/strategic-titan"
    retract = {"type": "retract", "player": "Ann", "what": "movement", "stacks": 2}
    r = await api.client.post(url, json={"players": ["Ann", "Bob"], "events": [START, mv("Ann", 3), retract]})
    assert r.status_code == 200, r.text
    body = r.json()
    assert not body["valid"] and body["violation"]["rule"] == "7.2" and body["violation"]["index"] == 2
    assert body["state"]["players"][0]["mulligans"] == 6  # nothing charged
    one = {**retract, "stacks": 1}
    r = await api.client.post(url, json={"players": ["Ann", "Bob"], "events": [START, mv("Ann", 3), one]})
    assert r.json()["valid"] and r.json()["state"]["players"][0]["mulligans"] == 5
