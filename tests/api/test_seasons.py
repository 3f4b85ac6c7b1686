"""A league's season (api.md "Seasons"), on Postgres and on the SQLite default: a points table
across events, checked against a table computed by hand — shared places sharing their points, a
player who dropped, an event still running (listed, not counted), an event taken out of the
season, best-of, a tie on points settled by countback — and the season's reads as a league site
makes them (ETag, 304, CSV); an event created in a season (attached and announced in the same
transaction, an unknown season refused with nothing written); the seasons' list."""

from __future__ import annotations

import csv
import io
from typing import Any

from app.services import outbox
from tests.support.api import Api, advance, assert_problem, bearer, make_event, report, setup_event, start

PLAYERS = ["Ada", "Bea", "Cy", "Di"]
POINTS = [25, 18, 15, 12]


async def _event(api: Api, places: dict[str, int] | None, drop: str | None = None, **created: Any) -> str:
    """A one-table event of the four players, placed as ``places`` and finished (None: left running);
    ``created``: more of its creation's body (a ``season_id``)."""
    event_id, org, entries = await setup_event(
        api,
        PLAYERS,
        settings={"stages": [{"format": "free_for_all"}], "scoring": {"scheme": "placement"}},
        **created,
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

    # ETag and 304 as a league site polls; CSV with a column per event, and an ETag of its own
    tag = r.headers["etag"]
    again = await api.client.get(f"/v1/seasons/{season_id}/standings", headers={"If-None-Match": tag})
    assert again.status_code == 304
    as_csv = await api.client.get(f"/v1/seasons/{season_id}/standings", params={"format": "csv"})
    csv_tag = as_csv.headers["etag"]
    assert as_csv.headers["content-type"] == "text/csv; charset=utf-8" and csv_tag not in (tag, "")
    csv_again = await api.client.get(
        f"/v1/seasons/{season_id}/standings", params={"format": "csv"}, headers={"If-None-Match": csv_tag}
    )
    assert csv_again.status_code == 304 and csv_again.content == b"" and csv_again.headers["etag"] == csv_tag
    by_accept = await api.client.get(
        f"/v1/seasons/{season_id}/standings", headers={"Accept": "text/csv", "If-None-Match": csv_tag}
    )
    assert by_accept.status_code == 304
    rows = list(csv.DictReader(io.StringIO(as_csv.text)))
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
    csv_moved = await api.client.get(
        f"/v1/seasons/{season_id}/standings", params={"format": "csv"}, headers={"If-None-Match": csv_tag}
    )
    assert csv_moved.status_code == 200 and csv_moved.headers["etag"] != csv_tag
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


async def test_a_tie_on_points_is_decided_by_countback(api: Api) -> None:
    season_id, _ = await _season(api, points=[10, 6, 4, 0])
    a = await _event(api, {"Bea": 1, "Ada": 2, "Cy": 3, "Di": 4}, season_id=season_id)
    b = await _event(api, {"Bea": 4, "Ada": 3, "Cy": 1, "Di": 2}, season_id=season_id)
    r = await api.client.get(f"/v1/seasons/{season_id}/standings")
    body = r.json()
    assert body["events"] == [a, b]
    # Cy 4 + 10; Bea 10 + 0 and Ada 6 + 4: equal on points, Bea's 1st beats Ada's best, a 2nd
    # (by name Ada would come first); Di 0 + 6
    assert _table(body) == [
        (1, "Cy", 14.0, "points"),
        (2, "Bea", 10.0, "countback"),
        (3, "Ada", 10.0, "countback"),
        (4, "Di", 6.0, "points"),
    ]
    assert [(x["place"], x["points"]) for x in body["items"][1]["results"]] == [(1, 10.0), (4, 0.0)]
    lines = list(
        csv.DictReader(
            io.StringIO((await api.client.get(f"/v1/seasons/{season_id}/standings?format=csv")).text)
        )
    )
    assert [(x["rank"], x["name"], x["decided_by"]) for x in lines] == [
        ("1", "Cy", "points"),
        ("2", "Bea", "countback"),
        ("3", "Ada", "countback"),
        ("4", "Di", "points"),
    ]


async def _season_changes(api: Api, season_id: str) -> list[dict[str, Any]]:
    async with api.app.state.sessionmaker() as s:
        rows = await outbox.since(s, season_id, 0)
        await s.commit()
    return [outbox.envelope(r)["data"] for r in rows]


async def test_an_event_created_in_a_season_is_attached_and_announced(api: Api) -> None:
    season_id, token = await _season(api)
    created, _ = await make_event(api, name="March open", season_id=season_id)
    assert created["season_id"] == season_id
    season = (await api.client.get(f"/v1/seasons/{season_id}")).json()
    assert [(e["event_id"], e["counted"]) for e in season["events"]] == [(created["id"], False)]
    assert await _season_changes(api, season_id) == [
        {"season_id": season_id, "reason": "attached", "event_id": created["id"]}
    ]
    plain, _ = await make_event(api, name="Friendly")
    assert plain["season_id"] is None
    # an event's read does not carry its seasons (the season lists its events)
    assert "season_id" not in (await api.client.get(f"/v1/events/{created['id']}")).json()

    before = [e["id"] for e in (await api.client.get("/v1/events")).json()["items"]]
    for season in ("no-such-season", ""):
        r = await api.client.post(
            "/v1/events",
            json={"name": "Lost", "game": "generic", "season_id": season},
            headers=api.admin(),
        )
        problem = assert_problem(r, 422)
        assert [e["loc"] for e in problem["errors"]] == [["body", "season_id"]], problem
    assert [e["id"] for e in (await api.client.get("/v1/events")).json()["items"]] == before
    # only the admin creates events, in a season or not: the season's own token may not
    r = await api.client.post(
        "/v1/events", json={"name": "X", "game": "generic", "season_id": season_id}, headers=bearer(token)
    )
    assert_problem(r, 403)
    assert len((await api.client.get(f"/v1/seasons/{season_id}")).json()["events"]) == 1


async def test_the_seasons_list_pages_newest_first(api: Api) -> None:
    first, _ = await _season(api, name="Spring")
    second, token = await _season(api, name="Summer")
    for _ in range(2):
        await make_event(api, season_id=second)
    r = await api.client.get("/v1/seasons")
    assert r.status_code == 200 and r.headers["etag"]
    listed = r.json()
    assert [(s["id"], s["name"], s["events"]) for s in listed["items"]] == [
        (second, "Summer", 2),
        (first, "Spring", 0),
    ]
    assert listed["next_cursor"] is None and listed["items"][0]["created_at"]
    page = (await api.client.get("/v1/seasons", params={"limit": 1})).json()
    assert [s["id"] for s in page["items"]] == [second] and page["next_cursor"]
    rest = (await api.client.get("/v1/seasons", params={"cursor": page["next_cursor"]})).json()
    assert [s["id"] for s in rest["items"]] == [first] and rest["next_cursor"] is None
    problem = assert_problem(await api.client.get("/v1/seasons", params={"cursor": "nope"}), 422)
    assert "cursor" in str(problem["errors"])
