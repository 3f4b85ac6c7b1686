"""A league's pages without a browser, on Postgres and on the SQLite default (docs/web.md "Rating
pages"): each page shows what its API read answers — the pools, a leaderboard and its search, a
player's chart and history with each game's opponent, the seasons, a season's table — and an
unknown pool, player or season is the 404 page."""

from __future__ import annotations

import re

from app.web import i18n
from tests.support.api import Api, advance, bearer, play_stage, setup_event, start

HTML = {"Accept": "text/html"}


async def test_the_league_pages_show_what_the_api_reads(api: Api) -> None:
    settings = {"rated": True, "stages": [{"format": "swiss", "rounds": 2}]}
    event_id, token, entries = await setup_event(api, ["Ada", "Bob", "Cy", "Di"], settings=settings)
    first = (await start(api, event_id, token))["round"]
    await play_stage(api, event_id, token, first)
    assert (await advance(api, event_id, token))["event"]["status"] == "finished"
    await api.drain_jobs()
    (ada_table,) = [
        m for m in first["matches"] if entries["Ada"]["id"] in {s["entry_id"] for s in m["seats"]}
    ]
    (opponent,) = [s["name"] for s in ada_table["seats"] if s["entry_id"] != entries["Ada"]["id"]]
    r = await api.client.post(
        "/v1/seasons", json={"name": "Ladder", "points": [5, 3, 2, 1]}, headers=api.admin()
    )
    season = r.json()
    r = await api.client.post(
        f"/v1/seasons/{season['id']}/events",
        json={"event_id": event_id},
        headers=bearer(season["organizer_token"]),
    )
    assert r.status_code == 200, r.text

    pools = await api.client.get("/ratings", headers=HTML)
    assert pools.status_code == 200 and 'href="/ratings/generic"' in pools.text
    assert re.search(r'<tr data-pool="generic">.*?<td class="num">4</td><td class="num">4</td>', pools.text)

    board = (await api.client.get("/v1/ratings/generic")).json()["items"]
    page = (await api.client.get("/ratings/generic", headers=HTML)).text
    shown = re.findall(
        r'<tr data-player="([^"]+)"><td class="num">(\d+)</td>.*?>([^<]+)</a></td><td class="num">([\d.]+)</td>',
        page,
    )
    assert shown == [(r["player_id"], str(r["rank"]), r["name"], f"{r['rating']:.1f}") for r in board]
    searched = (await api.client.get("/ratings/generic", params={"q": "c"}, headers=HTML)).text
    ada, cy = entries["Ada"]["player_id"], entries["Cy"]["player_id"]
    assert re.findall(r'<tr data-player="([^"]+)"', searched) == [cy]

    (rating,) = (await api.client.get(f"/v1/players/{ada}/ratings")).json()["items"]
    mine = (await api.client.get(f"/players/{ada}", headers=HTML)).text
    ratings = [float(x) for x in re.findall(r'<circle class="point" [^>]*data-rating="([\d.]+)"', mine)]
    assert ratings == [h["after"] for h in rating["history"]]
    assert 'role="img" aria-label="' in mine and "<title>Game 1, " in mine
    assert re.search(rf"<title>Game 1, [\d-]+: against {opponent}, \+16\.0 → 1516\.0</title>", mine)
    # Ada won both (the better name wins): first of four, in the event and in the season
    assert f'<tr data-event="{event_id}">' in mine and '<td class="place">1 of 4</td>' in mine
    table = (await api.client.get(f"/v1/seasons/{season['id']}/standings")).json()["items"]
    shown = (await api.client.get(f"/seasons/{season['id']}", headers=HTML)).text
    found = re.findall(
        r'<tr data-player="([^"]+)"><td class="num">(\d+)</td>.*?<td class="num pts">([\d.]+)</td>', shown
    )
    assert found == [(r["player_id"], str(r["rank"]), f"{r['points']:g}") for r in table]
    ja = (await api.client.get(f"/players/{ada}", params={"lang": "ja"}, headers=HTML)).text
    assert i18n.JA["rating_in"].format(pool="generic") in ja

    # the seasons' page lists what GET /v1/seasons lists, newest first, linked from every page's header
    r = await api.client.post("/v1/seasons", json={"name": "Cup & co", "points": [1]}, headers=api.admin())
    listed = (await api.client.get("/v1/seasons")).json()["items"]
    assert [s["id"] for s in listed] == [r.json()["id"], season["id"]]
    seasons = await api.client.get("/seasons", params={"lang": "en"}, headers=HTML)
    found = re.findall(
        r'<tr data-season="([^"]+)"><td><a href="/seasons/[^"]+">([^<]+)</a></td><td class="num">(\d+)</td>',
        seasons.text,
    )
    assert found == [(s["id"], s["name"].replace("&", "&amp;"), str(s["events"])) for s in listed]
    assert found[1][2] == "1" and '<a href="/seasons">Seasons</a>' in seasons.text
    assert f'<a href="/seasons">{i18n.JA["seasons"]}</a>' in ja
    ja_seasons = (await api.client.get("/seasons", params={"lang": "ja"}, headers=HTML)).text
    assert f"<h1>{i18n.JA['seasons']}</h1>" in ja_seasons and i18n.JA["season_events_attached"] in ja_seasons

    for missing in ("/ratings/no-such-pool", "/players/no-such-player", "/seasons/no-such-season"):
        r = await api.client.get(missing, params={"lang": "en"}, headers=HTML)
        assert r.status_code == 404 and r.headers["content-type"].startswith("text/html"), missing
        assert f"<h1>{i18n.EN['error_404']}</h1>" in r.text
    assert (
        (await api.client.get("/ratings/no-such-pool"))
        .headers["content-type"]
        .startswith("application/problem+json")
    )
    for bad in (
        "/ratings?cursor=!!",
        "/ratings/generic?cursor=!!",
        "/seasons?cursor=!!",
    ):  # not a cursor a page handed out
        r = await api.client.get(bad, headers=HTML)
        assert r.status_code == 422 and "cursor" in r.text, bad
    # a rated event's page links to its pool's leaderboard
    assert 'href="/ratings/generic"' in (await api.client.get(f"/e/{event_id}", headers=HTML)).text
