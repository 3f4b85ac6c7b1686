"""A league site's reads of the ratings (api.md "Ratings"), on Postgres and on the SQLite default:
the list of pools with their players, games and last change, and the pools and a leaderboard as
CSV — by `?format=csv` or `Accept: text/csv` — with their own ETag and 304; the CSV read back
equals the JSON."""

from __future__ import annotations

import csv
import io

from tests.api.test_ratings import world
from tests.support.api import Api, assert_problem


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


async def test_the_pools_and_their_leaderboards_as_json_and_csv(api: Api) -> None:
    empty = (await api.client.get("/v1/ratings")).json()
    assert empty == {"items": [], "next_cursor": None}

    w = await world(api, ["Ada", "Bob", "Cy", "Di"])
    await w.match([("Ada", 1), ("Bob", 2)])
    await w.match([("Cy", 1), ("Bob", 2)])
    await w.match([("Ada", 1), ("Cy", 1)], outcome="draw")
    await api.drain_jobs()
    r = await api.client.put("/v1/ratings/other-league/settings", json={"k": 24}, headers=api.admin())
    assert r.status_code == 200, r.text
    r = await api.client.put(
        f"/v1/players/{w.players['Di']}/ratings/other-league", json={"rating": 1600}, headers=api.admin()
    )
    assert r.status_code == 200, r.text

    pools = (await api.client.get("/v1/ratings")).json()
    assert [(p["pool"], p["players"], p["games"]) for p in pools["items"]] == [
        ("generic", 3, 3),
        ("other-league", 1, 0),
    ]
    generic = pools["items"][0]
    assert generic["game"] == "generic" and generic["updated_at"] is not None

    # paged by key
    first = (await api.client.get("/v1/ratings", params={"limit": 1})).json()
    assert [p["pool"] for p in first["items"]] == ["generic"] and first["next_cursor"]
    second = (await api.client.get("/v1/ratings", params={"limit": 1, "cursor": first["next_cursor"]})).json()
    assert [p["pool"] for p in second["items"]] == ["other-league"] and second["next_cursor"] is None
    assert_problem(await api.client.get("/v1/ratings", params={"cursor": "!!"}), 422)

    # the pools as CSV, the same rows
    r = await api.client.get("/v1/ratings", params={"format": "csv"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    assert [(x["pool"], int(x["players"]), int(x["games"])) for x in _rows(r.text)] == [
        ("generic", 3, 3),
        ("other-league", 1, 0),
    ]

    # a leaderboard as CSV: asked either way, equal to the JSON, with its own tag
    board = (await api.client.get("/v1/ratings/generic")).json()["items"]
    by_query = await api.client.get("/v1/ratings/generic", params={"format": "csv"})
    by_accept = await api.client.get("/v1/ratings/generic", headers={"Accept": "text/csv"})
    assert by_query.text == by_accept.text
    assert by_query.headers["content-disposition"] == 'attachment; filename="leaderboard-generic.csv"'
    # a pool's key may hold any character; its file's name is sent as RFC 6266 says, never a 500
    r = await api.client.put('/v1/ratings/ліга "A"/settings', json={}, headers=api.admin())
    assert r.status_code == 200, r.text
    r = await api.client.get('/v1/ratings/ліга "A"', params={"format": "csv"})
    assert r.status_code == 200, r.text
    assert r.headers["content-disposition"] == (
        'attachment; filename="leaderboard-____ _A_.csv"; '
        "filename*=UTF-8''leaderboard-%D0%BB%D1%96%D0%B3%D0%B0%20%22A%22.csv"
    )
    rows = _rows(by_query.text)
    assert [(int(x["rank"]), x["name"], float(x["rating"]), int(x["games"])) for x in rows] == [
        (b["rank"], b["name"], b["rating"], b["games"]) for b in board
    ]
    assert [x["title"] or None for x in rows] == [b["title"] for b in board]
    tag = by_query.headers["etag"]
    json_tag = (await api.client.get("/v1/ratings/generic")).headers["etag"]
    assert tag != json_tag
    again = await api.client.get(
        "/v1/ratings/generic", params={"format": "csv"}, headers={"If-None-Match": tag}
    )
    assert again.status_code == 304 and again.content == b""
    # JSON stays the default, also for a client that accepts both
    mixed = await api.client.get("/v1/ratings/generic", headers={"Accept": "application/json, text/csv"})
    assert mixed.headers["content-type"].startswith("application/json")

    # a change moves the tag
    await w.match([("Di", 1), ("Ada", 2)])
    await api.drain_jobs()
    moved = await api.client.get(
        "/v1/ratings/generic", params={"format": "csv"}, headers={"If-None-Match": tag}
    )
    assert moved.status_code == 200 and len(_rows(moved.text)) == 4
    assert_problem(await api.client.get("/v1/ratings/no-such-pool", params={"format": "csv"}), 404)
    assert_problem(await api.client.get("/v1/ratings/generic", params={"format": "xml"}), 422)


async def test_a_whole_leaderboard_as_csv_past_one_page(api: Api) -> None:
    names = [f"P{i:03}" for i in range(12)]
    w = await world(api, names)
    for a, b in zip(names[::2], names[1::2], strict=True):
        await w.match([(a, 1), (b, 2)])
    await api.drain_jobs()
    rows = _rows((await api.client.get("/v1/ratings/generic", params={"format": "csv", "limit": 1})).text)
    assert len(rows) == 12 and [int(x["rank"]) for x in rows] == [1] * 6 + [7] * 6

    # searched by name: the names that contain it (any case), each with its rank in the whole pool,
    # paged by the same cursor; the CSV keeps the search
    whole = (await api.client.get("/v1/ratings/generic")).json()["items"]
    first = (await api.client.get("/v1/ratings/generic", params={"q": "p00", "limit": 4})).json()
    rest = (
        await api.client.get("/v1/ratings/generic", params={"q": "p00", "cursor": first["next_cursor"]})
    ).json()
    assert len(first["items"]) == 4 and rest["next_cursor"] is None
    assert first["items"] + rest["items"] == [r for r in whole if r["name"].startswith("P00")]
    assert [r["rank"] for r in first["items"] + rest["items"]] == [1] * 5 + [7] * 5  # the pool's ranks
    found = _rows((await api.client.get("/v1/ratings/generic", params={"q": "P01", "format": "csv"})).text)
    assert [(x["name"], int(x["rank"])) for x in found] == [
        (r["name"], r["rank"]) for r in whole if r["name"] in ("P010", "P011")
    ]
    assert (await api.client.get("/v1/ratings/generic", params={"q": "zz"})).json()["items"] == []


async def test_a_players_rating_history_since_a_time(api: Api) -> None:
    from datetime import timedelta

    from tests.api.test_ratings import T0

    w = await world(api, ["Ada", "Bob"])
    first = await w.match([("Ada", 1), ("Bob", 2)], at=T0)
    second = await w.match([("Bob", 1), ("Ada", 2)], at=T0 + timedelta(days=7))
    await api.drain_jobs()
    url = f"/v1/players/{w.players['Ada']}/ratings"
    (whole,) = (await api.client.get(url)).json()["items"]
    assert [(h["match_id"], h["at"][:10]) for h in whole["history"]] == [
        (first, "2026-11-01"),
        (second, "2026-11-08"),
    ]
    (recent,) = (await api.client.get(url, params={"since": "2026-11-05T00:00:00+00:00"})).json()["items"]
    assert [h["match_id"] for h in recent["history"]] == [second] and recent["rating"] == whole["rating"]
    (none,) = (await api.client.get(url, params={"since": "2026-12-01T00:00:00Z"})).json()["items"]
    assert none["history"] == []
    for bad in ("yesterday", "2026-11-05T00:00:00"):  # a time without its offset is ambiguous
        assert "since" in str(assert_problem(await api.client.get(url, params={"since": bad}), 422)["errors"])
