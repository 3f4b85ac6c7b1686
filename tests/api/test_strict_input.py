"""Strict input on the event side (formats.md "Presets", the ruling "places are never renumbered";
api.md: never a silent fix): booleans are booleans, a points-per-place list has one value per seat,
and reported places are in competition form. Each is a 422 naming the field, and changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.api import Api, assert_problem, bearer, make_event, setup_event, start


@pytest.mark.parametrize("value", ["yes", 1, "true", 0])
async def test_an_entrys_organizer_flag_must_be_a_boolean(api: Api, value: Any) -> None:
    created, token = await make_event(api)
    url = f"/v1/events/{created['id']}/entries"
    r = await api.client.post(url, json={"name": "Ann", "organizer": value}, headers=bearer(token))
    body = assert_problem(r, 422)
    assert any(e["loc"][-1] == "organizer" for e in body["errors"]), body
    listed = (await api.client.get(url)).json()["items"]
    assert listed == []
    ok = await api.client.post(url, json={"name": "Ann", "organizer": True}, headers=bearer(token))
    assert ok.status_code == 201 and ok.json()["organizer"] is True


async def test_a_csv_organizer_cell_says_true_or_false(api: Api) -> None:
    # api.md "Registration": a CSV's organizer cell is true or false; "yes" or 1 is refused by line
    created, token = await make_event(api)
    url = f"/v1/events/{created['id']}/entries"
    headers = {**bearer(token), "Content-Type": "text/csv"}
    bad = "name,organizer\nAnn,yes\nBob,1\nCy,TRUE\nDee,false\n"
    body = assert_problem(await api.client.post(url, content=bad, headers=headers), 422)
    assert [e["loc"][:3] for e in body["errors"]] == [["csv", 2, "organizer"], ["csv", 3, "organizer"]]
    assert (await api.client.get(url)).json()["items"] == []
    good = "name,organizer\nCy,TRUE\nDee,false\n"
    r = await api.client.post(url, content=good, headers=headers)
    assert r.status_code == 201, r.text
    assert [e["organizer"] for e in r.json()] == [True, False]


async def test_placement_points_give_one_value_per_seat_of_the_table(api: Api) -> None:
    stage = {"format": "round_robin", "table_size": 3}
    for where, settings in (
        (
            ["settings", "scoring", "points"],
            {"stages": [stage], "scoring": {"scheme": "placement", "points": [1, 0]}},
        ),
        (
            ["settings", "stages", 0, "scoring", "points"],
            {"stages": [{**stage, "scoring": {"scheme": "placement", "points": [1, 0.5, 0, 0]}}]},
        ),
    ):
        r = await api.client.post(
            "/v1/events", json={"name": "Cup", "game": "generic", "settings": settings}, headers=api.admin()
        )
        body = assert_problem(r, 422)
        assert [e["loc"] for e in body["errors"]] == [where], body
        assert "one value per seat" in body["errors"][0]["msg"]
    good = {"stages": [stage], "scoring": {"scheme": "placement", "points": [1, 0.5, 0]}}
    r = await api.client.post(
        "/v1/events", json={"name": "Cup", "game": "generic", "settings": good}, headers=api.admin()
    )
    assert r.status_code == 201, r.text


async def _table(api: Api, size: int) -> tuple[str, dict[str, Any]]:
    names = ["Ann", "Bob", "Cy", "Dee"][:size]
    eid, token, _ = await setup_event(
        api, names, settings={"stages": [{"format": "swiss", "table_size": size, "rounds": 1}]}
    )
    rnd = (await start(api, eid, token))["round"]
    return token, rnd["matches"][0]


@pytest.mark.parametrize(
    ("places", "named"),
    [([2, 3, 3], [0, 1, 2]), ([1, 3, 3], [1, 2]), ([1, 1, 2], [2])],
)
async def test_places_are_never_renumbered(api: Api, places: list[int], named: list[int]) -> None:
    token, m = await _table(api, 3)
    seats = [{"entry_id": s["entry_id"], "place": p} for s, p in zip(m["seats"], places, strict=True)]
    url = f"/v1/matches/{m['id']}/result"
    body = assert_problem(await api.client.post(url, json={"seats": seats}, headers=bearer(token)), 422)
    assert [e["loc"] for e in body["errors"]] == [["seats", i, "place"] for i in named]
    assert (await api.client.get(f"/v1/matches/{m['id']}")).json()["status"] == "pending"


async def test_a_played_two_two_is_not_a_draw(api: Api) -> None:
    token, m = await _table(api, 2)
    url = f"/v1/matches/{m['id']}/result"
    seats = [{"entry_id": s["entry_id"], "place": 2} for s in m["seats"]]
    body = assert_problem(await api.client.post(url, json={"seats": seats}, headers=bearer(token)), 422)
    assert [e["loc"] for e in body["errors"]] == [["seats", 0, "place"], ["seats", 1, "place"]]
    assert (await api.client.get(f"/v1/matches/{m['id']}")).json()["status"] == "pending"
    # a draw is said as one: [1, 1] (or the outcome "draw")
    drawn = [{"entry_id": s["entry_id"], "place": 1} for s in m["seats"]]
    r = await api.client.post(url, json={"seats": drawn}, headers=bearer(token))
    assert r.status_code == 200, r.text
    assert [s["place"] for s in r.json()["result"]["seats"]] == [1, 1]


@pytest.mark.parametrize("since", ["0.5", "1700000000", "-3", "yesterday", "2026-05-01T10:00:00"])
async def test_a_time_is_iso_text_with_its_offset_never_a_number(api: Api, since: str) -> None:
    # the parser would read seconds since 1970 from a number: the contract's time is ISO 8601 text
    player = await api.client.post("/v1/players", json={"name": "Ann"}, headers=api.admin())
    assert player.status_code == 201, player.text
    url = f"/v1/players/{player.json()['id']}/ratings"
    body = assert_problem(await api.client.get(url, params={"since": since}), 422)
    assert any(e["loc"][-1] == "since" for e in body["errors"]), body
    ok = await api.client.get(url, params={"since": "2026-05-01T10:00:00+09:00"})
    assert ok.status_code == 200, ok.text


@pytest.mark.parametrize("rounds", [0, 1, "yes", "true"])
async def test_a_schedule_searchs_rounds_flag_is_a_boolean(api: Api, rounds: Any) -> None:
    body = {"players": 4, "table_size": 2, "rounds": rounds}
    refused = assert_problem(await api.client.post("/v1/schedules/round-robin", json=body), 422)
    assert any(e["loc"][-1] == "rounds" for e in refused["errors"]), refused
    r = await api.client.post("/v1/schedules/round-robin", json={**body, "rounds": True})
    assert r.status_code == 202, r.text
