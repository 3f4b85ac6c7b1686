"""Matches of adjudicated games reported as their game record: the service fills the places."""

from __future__ import annotations

from tests.support.api import (
    Api,
    advance,
    assert_problem,
    bearer,
    pair,
    post_result,
    report,
    setup_event,
    standings,
    start,
)
from tests.support.rite_of_command import RINGS
from tests.support.strategic_titan import four_player_game


async def _one_match(api: Api, game: str) -> tuple[str, str, dict]:
    """A one-round Swiss of ``game`` for two, started: its one match."""
    eid, token, _ = await setup_event(
        api, ["Ada", "Barbara"], game=game, settings={"stages": [{"format": "swiss", "rounds": 1}]}
    )
    return eid, token, (await start(api, eid, token))["round"]["matches"][0]


async def test_rite_of_command_match_reported_as_its_record(api: Api) -> None:
    eid, token, m = await _one_match(api, "rite-of-command")
    result = (await post_result(api, token, m, {"game_log": RINGS}))["result"]
    # owner 2 (the second seat) wins two rings
    assert [s["place"] for s in result["seats"]] == [2, 1] and [s["score"] for s in result["seats"]] == [1, 2]
    rows = await standings(api, eid)
    assert rows[0]["entry_id"] == m["seats"][1]["entry_id"]


async def test_a_bad_record_is_422_and_changes_nothing(api: Api) -> None:
    _, token, m = await _one_match(api, "rite-of-command")
    bad = {"rings": [[{"card": "Dragon", "owner": 1}], [], []]}
    r = await api.client.post(f"/v1/matches/{m['id']}/result", json={"game_log": bad}, headers=bearer(token))
    assert "Dragon" in str(assert_problem(r, 422))
    assert (await api.client.get(f"/v1/matches/{m['id']}")).json()["status"] == "pending"


async def test_a_game_without_adjudicator_refuses_a_record(api: Api) -> None:
    _, token, m = await _one_match(api, "generic")
    r = await api.client.post(
        f"/v1/matches/{m['id']}/result", json={"game_log": RINGS}, headers=bearer(token)
    )
    assert assert_problem(r, 422)["errors"][0]["loc"] == ["game_log"]


async def test_strategic_titan_match_reported_from_its_kept_record(api: Api) -> None:
    eid, token, entries = await setup_event(
        api, ["Ann", "Bob", "Cy", "Dee"], game="strategic-titan", settings={"stages": [{"format": "heats"}]}
    )
    await start(api, eid, token)
    table = [entries[n]["id"] for n in ["Ann", "Bob", "Cy", "Dee"]]
    m = (await pair(api, eid, token, [table]))["matches"][0]
    for ev in four_player_game():
        r = await api.client.post(f"/v1/matches/{m['id']}/log", json=ev, headers=bearer(token))
        assert r.status_code == 201, r.text
    reported = await post_result(api, token, m, {})
    places = {s["entry_id"]: s["place"] for s in reported["result"]["seats"]}
    assert [places[entries[n]["id"]] for n in ["Ann", "Bob", "Cy", "Dee"]] == [2, 1, 4, 3]


async def test_the_verdict_of_a_rite_of_command_match_shows_its_arming_fights_and_wagers(api: Api) -> None:
    _, token, m = await _one_match(api, "rite-of-command")
    done = await post_result(api, token, m, {"game_log": RINGS})
    verdict = done["verdict"]
    assert verdict["adjudicator"] == "rite-of-command"
    # the same verdict as the stateless tool gives for the same rings
    tool = (await api.client.post("/v1/adjudicate/rite-of-command", json=RINGS)).json()
    assert verdict["rite_of_command"] == tool
    ring = verdict["rite_of_command"]["rings"][0]
    assert [a["soldier"] for a in ring["armed"]] == ["Shield bearer", "Mace bearer"]
    assert ring["fights"] and ring["winner"] == ring["fights"][-1]["winner"]
    assert verdict["rite_of_command"]["wagers"]["goes_to"] == {"1": 2, "2": 2}
    assert (await api.client.get(f"/v1/matches/{m['id']}")).json()["verdict"] == verdict


async def test_the_verdict_of_a_strategic_titan_match_is_its_replayed_record(api: Api) -> None:
    eid, token, entries = await setup_event(
        api, ["Ann", "Bob", "Cy", "Dee"], game="strategic-titan", settings={"stages": [{"format": "heats"}]}
    )
    await start(api, eid, token)
    m = (await pair(api, eid, token, [[entries[n]["id"] for n in ["Ann", "Bob", "Cy", "Dee"]]]))["matches"][0]
    for ev in four_player_game():
        r = await api.client.post(f"/v1/matches/{m['id']}/log", json=ev, headers=bearer(token))
        assert r.status_code == 201, r.text
    verdict = (await post_result(api, token, m, {}))["verdict"]
    assert verdict["adjudicator"] == "strategic-titan"
    assert verdict["strategic_titan"]["valid"] is True and verdict["strategic_titan"]["state"]["finished"]


async def test_places_that_contradict_a_rite_of_command_game_log_are_refused(api: Api) -> None:
    """The log decides the places: places (or scores) sent with it that say otherwise are a 422
    naming the seat, never replaced silently; places that agree are accepted."""
    _, token, m = await _one_match(api, "rite-of-command")
    first, second = (s["entry_id"] for s in m["seats"])
    wrong = {"game_log": RINGS, "seats": [{"entry_id": first, "place": 1}, {"entry_id": second, "place": 2}]}
    r = await api.client.post(f"/v1/matches/{m['id']}/result", json=wrong, headers=bearer(token))
    body = assert_problem(r, 422)
    assert [e["loc"] for e in body["errors"]] == [["seats", 0, "place"], ["seats", 1, "place"]]
    scores = {"game_log": RINGS, "seats": [{"entry_id": first, "score": 3}, {"entry_id": second}]}
    r = await api.client.post(f"/v1/matches/{m['id']}/result", json=scores, headers=bearer(token))
    assert assert_problem(r, 422)["errors"][0]["loc"] == ["seats", 0, "score"]
    assert (await api.client.get(f"/v1/matches/{m['id']}")).json()["status"] == "pending"
    right = {"game_log": RINGS, "seats": [{"entry_id": second, "place": 1}, {"entry_id": first, "place": 2}]}
    result = (await post_result(api, token, m, right))["result"]
    assert [s["place"] for s in result["seats"]] == [2, 1]


async def test_a_rite_of_command_tables_first_token_is_its_deals_first_player(api: Api) -> None:
    """rite-of-command.md "In a match": the seat the round marks as holding the first token (the
    pages' ★) is the deal's first player — checked, once the event is over and its seed revealed,
    against the stateless deal of each match's seed."""
    names = [f"Duelist {n:02}" for n in range(12)]
    eid, token, _ = await setup_event(
        api, names, game="rite-of-command", settings={"stages": [{"format": "swiss", "rounds": 1}]}
    )
    matches = (await start(api, eid, token))["round"]["matches"]
    for m in matches:
        await report(api, token, m, [1, 2])
    await advance(api, eid, token)
    seed = (await api.client.get(f"/v1/events/{eid}")).json()["seed"]
    assert seed
    for m in matches:
        dealt = await api.client.post(
            "/v1/rite-of-command/deal", json={"deck_size": 1, "seed": f"{seed}:{m['id']}"}
        )
        holder = [s["seat"] for s in m["seats"] if s["first_token"]]
        assert holder == [dealt.json()["first_player"] - 1], (m, dealt.json())
