"""A league's season (api.md "Seasons"), on Postgres and on the SQLite default: a points table
across events, checked against a table computed by hand — shared places sharing their points, a
player who dropped, an event still running (listed, not counted), an event taken out of the
season, best-of — and the season's reads as a league site makes them (ETag, 304, CSV)."""

from __future__ import annotations

import csv
import io
from typing import Any

from tests.support.api import Api, advance, assert_problem, bearer, report, setup_event, start

PLAYERS = ["Ada", "Bea", "Cy", "Di"]
POINTS = [25, 18, 15, 12]


async def _event(api: Api, places: dict[str, int] | None, drop: str | None = None) -> str:
    """A one-table event of the four players, placed as ``places`` and finished (None: left running)."""
    event_id, org, entries = await setup_event(
        api, PLAYERS, settings={"stages": [{"format": "free_for_all"}], "scoring": {"scheme": "placement"}}
    )
    table = (await start(api, event_id, org))["round"]["matches"][0]
    if places is None:
        return event_id
    by_id = {entries[n]["id"]: p for n, p in places.items()}
    await report(api, org, table, by_id)
    if drop is not None:
        r = await api.client.delete(
            f"/v1/events/{event_id}/entries/{entries[drop]['id']}", headers=bearer(org)
        )
        assert r.status_code == 200, r.text
    await advance(api, event_id, org)
    return event_id


async def _season(api: Api, **body: Any) -> tuple[str, str]:
    r = await api.client.post(
        "/v1/seasons", json={"name": "Winter league", "points": POINTS, **body}, headers=api.admin()
    )
    assert r.status_code == 201, r.text
    return r.json()["id"], r.json()["organizer_token"]


def _table(body: dict[str, Any]) -> list[tuple[int, str, float, str | None]]:
    return [(r["rank"], r["name"], r["points"], r["decided_by"]) for r in body["items"]]


async def test_a_season_table_by_hand(api: Api) -> None:
    a = await _event(api, {"Ada": 1, "Bea": 2, "Cy": 2, "Di": 4})  # Bea and Cy share 2nd: (18 + 15) / 2
    b = await _event(api, {"Bea": 1, "Ada": 2, "Di": 3, "Cy": 4}, drop="Di")  # Di dropped after playing
    c = await _event(api, None)  # still running
    d = await _event(api, {"Cy": 1, "Di": 2, "Ada": 3, "Bea": 4})
    season_id, token = await _season(api)
    for event_id in (a, b, c, d, a):  # attaching twice changes nothing
        r = await api.client.post(
            f"/v1/seasons/{season_id}/events", json={"event_id": event_id}, headers=bearer(token)
        )
        assert r.status_code == 200, r.text
    season = r.json()
    assert [(e["event_id"], e["counted"]) for e in season["events"]] == [
        (a, True),
        (b, True),
        (c, False),
        (d, True),
    ]

    r = await api.client.get(f"/v1/seasons/{season_id}/standings")
    body = r.json()
    assert body["events"] == [a, b, d]
    # Ada 25 + 18 + 15; Bea 16.5 + 25 + 12; Cy 16.5 + 12 + 25; Di 12 + 15 + 18
    assert _table(body) == [
        (1, "Ada", 58.0, "points"),
        (2, "Bea", 53.5, None),  # equal points, equal countback (one 1st, one 2nd, one 4th each)
        (2, "Cy", 53.5, None),
        (4, "Di", 45.0, "points"),
    ]
    bea = body["items"][1]
    assert [(x["event_id"], x["place"], x["points"]) for x in bea["results"]] == [
        (a, 2, 16.5),
        (b, 1, 25.0),
        (d, 4, 12.0),
    ]

    # ETag and 304 as a league site polls; CSV with a column per event
    tag = r.headers["etag"]
    again = await api.client.get(f"/v1/seasons/{season_id}/standings", headers={"If-None-Match": tag})
    assert again.status_code == 304
    rows = list(
        csv.DictReader(
            io.StringIO(
                (await api.client.get(f"/v1/seasons/{season_id}/standings", params={"format": "csv"})).text
            )
        )
    )
    assert [(x["name"], float(x["points"]), float(x[a]), float(x[b]), float(x[d])) for x in rows] == [
        ("Ada", 58.0, 25, 18, 15),
        ("Bea", 53.5, 16.5, 25, 12),
        ("Cy", 53.5, 16.5, 12, 25),
        ("Di", 45.0, 12, 15, 18),
    ]

    # the last event taken out of the season: its places no longer count, and the tag moves
    r = await api.client.delete(f"/v1/seasons/{season_id}/events/{d}", headers=bearer(token))
    assert r.status_code == 200 and d not in [e["event_id"] for e in r.json()["events"]]
    moved = await api.client.get(f"/v1/seasons/{season_id}/standings", headers={"If-None-Match": tag})
    assert moved.status_code == 200
    assert _table(moved.json()) == [
        (1, "Ada", 43.0, "points"),
        (2, "Bea", 41.5, "points"),
        (3, "Cy", 28.5, "points"),
        (4, "Di", 27.0, "points"),
    ]


async def test_best_of_counts_each_players_best_results(api: Api) -> None:
    a = await _event(api, {"Ada": 1, "Bea": 2, "Cy": 3, "Di": 4})
    b = await _event(api, {"Ada": 4, "Bea": 1, "Cy": 2, "Di": 3})
    d = await _event(api, {"Ada": 1, "Bea": 4, "Cy": 3, "Di": 2})
    season_id, token = await _season(api, best_of=2)
    for event_id in (a, b, d):
        await api.client.post(
            f"/v1/seasons/{season_id}/events", json={"event_id": event_id}, headers=bearer(token)
        )
    body = (await api.client.get(f"/v1/seasons/{season_id}/standings")).json()
    # best two: Ada 25 + 25; Bea 25 + 18; Cy 18 + 15; Di 18 + 15 — Cy and Di: a 2nd and a 3rd each
    assert _table(body) == [
        (1, "Ada", 50.0, "points"),
        (2, "Bea", 43.0, "points"),
        (3, "Cy", 33.0, None),
        (3, "Di", 33.0, None),
    ]
    ada = body["items"][0]
    assert [(x["place"], x["counted"]) for x in ada["results"]] == [(1, True), (4, False), (1, True)]


async def test_who_may_create_and_attach_and_bad_input(api: Api) -> None:
    event_id, org, entries = await setup_event(api, PLAYERS)
    # any event's organizer may start a league; an entry may not; nor the season's token elsewhere
    r = await api.client.post(
        "/v1/seasons", json={"name": "Club ladder", "points": [3, 2, 1]}, headers=bearer(org)
    )
    assert r.status_code == 201, r.text
    season_id, token = r.json()["id"], r.json()["organizer_token"]
    assert_problem(
        await api.client.post(
            "/v1/seasons", json={"name": "X", "points": [1]}, headers=bearer(entries["Ada"]["entry_token"])
        ),
        403,
    )
    assert_problem(await api.client.post("/v1/seasons", json={"name": "X", "points": [1]}), 401)
    assert_problem(
        await api.client.post(
            f"/v1/seasons/{season_id}/events", json={"event_id": event_id}, headers=bearer(org)
        ),
        403,
    )
    assert_problem(await api.client.post(f"/v1/events/{event_id}/rounds", headers=bearer(token)), 403)
    other_id, _ = await _season(api)
    assert_problem(
        await api.client.post(
            f"/v1/seasons/{other_id}/events", json={"event_id": event_id}, headers=bearer(token)
        ),
        403,
    )
    # bad input names the field and changes nothing
    for body, field in (
        ({"name": "X", "points": []}, "points"),
        ({"name": "X", "points": [1, 2]}, "points"),  # a place never earns more than the one before
        ({"name": "X", "points": ["25"]}, "points"),
        ({"name": "X", "points": [3], "best_of": 0}, "best_of"),
        ({"name": "", "points": [3]}, "name"),
    ):
        problem = assert_problem(await api.client.post("/v1/seasons", json=body, headers=api.admin()), 422)
        assert field in str(problem["errors"]), (body, problem)
    assert_problem(
        await api.client.post(
            f"/v1/seasons/{season_id}/events", json={"event_id": "nope"}, headers=bearer(token)
        ),
        404,
    )
    assert (await api.client.get(f"/v1/seasons/{season_id}")).json()["events"] == []
    assert_problem(await api.client.get("/v1/seasons/nope/standings"), 404)
    assert_problem(
        await api.client.delete(f"/v1/seasons/{season_id}/events/{event_id}", headers=bearer(token)), 404
    )
