"""A league's pages in Chromium (docs/web.md "Rating pages"): a rated Swiss played through the API,
then the pools, the leaderboard row by row against ``GET /v1/ratings/{pool}`` (its search and its
pages, every cell to the title), a player's rating chart against their history (a point per game, in
order, higher ratings drawn higher) with no CSP violation and each game's result against its match,
a season's table against ``GET /v1/seasons/{id}/standings`` with its embed framed by a site on
another origin, and the leaderboard's embed framed so, redrawn with the board's page when a game is
rated while they are open."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from app.web import i18n
from tests.web.conftest import ADMIN, OtherOrigin, api, bearer, items, rated, rated_league
from tests.web.test_csp import WATCH

NAMES = ["Ada", "Adele", "Bruno", "Chiara", "Dario", "Elena"]
ROUNDS = 3


@pytest.fixture(scope="module")
def league(server: str) -> dict[str, Any]:
    """A rated 6-player Swiss of three rounds into a pool of its own, finished, counted in a season."""
    client = api(server)
    season = {"name": "Autumn League", "points": [10, 6, 4, 3, 2, 1]}
    return {**rated_league(client, "League Night", NAMES, ROUNDS, season), "client": client}


def _cells(page: Any, rows: str) -> list[list[str]]:
    """The cells' text of each row (of a page, or of a frame in it)."""
    return [
        [c.strip() for c in r]
        for r in page.locator(rows).evaluate_all("rs => rs.map(r => [...r.cells].map(c => c.textContent))")
    ]


def _board(api_rows: list[dict[str, Any]], titles: bool = True) -> list[list[str]]:
    """The rows as the leaderboard's page shows them (the embed: without the titles)."""
    return [
        [str(r["rank"]), r["name"], f"{r['rating']:.1f}", str(r["games"])]
        + ([i18n.EN[f"title_{r['title']}"] if r["title"] else "—"] if titles else [])
        for r in api_rows
    ]


def test_the_pools_and_a_leaderboard_with_its_search_and_pages(
    server: str, browser: Any, league: dict[str, Any]
) -> None:
    pool, client = league["pool"], league["client"]
    context = browser.new_context(locale="en-US")
    page = context.new_page()
    try:
        page.goto(f"{server}/")
        page.locator("header nav a[href='/ratings']").click()
        row = page.locator(f"tr[data-pool='{pool}']")
        listed = [p for p in client.get("/v1/ratings").json()["items"] if p["pool"] == pool][0]
        assert _cells(page, f"tr[data-pool='{pool}']")[0][:4] == [
            pool,
            "generic",
            str(listed["players"]),
            str(listed["games"]),
        ]
        row.get_by_role("link", name=pool).click()
        page.wait_for_url(f"**/ratings/{pool}")
        whole = client.get(f"/v1/ratings/{pool}").json()["items"]
        assert len(whole) == len(NAMES)
        assert _cells(page, "table.leaderboard tbody tr") == _board(whole)
        hrefs = page.locator("table.leaderboard tbody a").evaluate_all(
            "as => as.map(a => a.getAttribute('href'))"
        )
        assert hrefs == [f"/players/{r['player_id']}" for r in whole]

        # the search, by a GET form: the names that contain it, with their rank in the whole pool
        page.fill("#q", "ad")
        with page.expect_navigation():
            page.locator("form.search button[type=submit]").click()
        assert "q=ad" in page.url
        found = client.get(f"/v1/ratings/{pool}", params={"q": "ad"}).json()["items"]
        assert {r["name"] for r in found} == {"Ada", "Adele"}
        assert _cells(page, "table.leaderboard tbody tr") == _board(found)
        assert _board(found) == [b for b in _board(whole) if b[1] in ("Ada", "Adele")]

        # pages of four rows: the API's cursor, the next page the rest
        page.goto(f"{server}/ratings/{pool}?limit=4")
        assert _cells(page, "table.leaderboard tbody tr") == _board(whole[:4])
        page.locator("a[rel=next]").click()
        page.wait_for_url("**cursor=**")
        assert _cells(page, "table.leaderboard tbody tr") == _board(whole[4:])
        assert page.locator("a[rel=next]").count() == 0

        # an unknown pool: the project's error page, 404
        answer = page.goto(f"{server}/ratings/no-such-pool")
        assert answer is not None and answer.status == 404
        assert page.locator("h1").inner_text() == i18n.EN["error_404"]
    finally:
        context.close()


def test_a_players_chart_follows_their_history(server: str, browser: Any, league: dict[str, Any]) -> None:
    pool, client = league["pool"], league["client"]
    top = client.get(f"/v1/ratings/{pool}").json()["items"][0]
    history = [
        p for p in client.get(f"/v1/players/{top['player_id']}/ratings").json()["items"] if p["pool"] == pool
    ][0]["history"]
    assert len(history) == ROUNDS
    context = browser.new_context(locale="en-US", viewport={"width": 390, "height": 844})
    context.add_init_script(WATCH)  # the page's policy: any violation is recorded
    page = context.new_page()
    try:
        page.goto(f"{server}/ratings/{pool}")
        page.locator("table.leaderboard tbody tr").first.get_by_role("link").click()
        page.wait_for_url(f"**/players/{top['player_id']}")
        assert page.locator("h1").inner_text() == top["name"]
        section = page.locator(f"section.pool-history[data-pool='{pool}']")
        chart = section.locator("svg.rating-chart")
        assert chart.get_attribute("role") == "img" and pool in (chart.get_attribute("aria-label") or "")
        points = chart.locator("circle.point").evaluate_all(
            "cs => cs.map(c => ({x: +c.getAttribute('cx'), y: +c.getAttribute('cy'),"
            " r: +c.dataset.rating, title: c.querySelector('title').textContent}))"
        )
        assert [p["r"] for p in points] == [h["after"] for h in history]  # one a game, in order
        assert all(a["x"] < b["x"] for a, b in zip(points, points[1:], strict=False))
        for a in points:  # a higher rating is drawn higher (a smaller y)
            for b in points:
                if a["r"] > b["r"]:
                    assert a["y"] < b["y"], (a, b)
        change = f"{history[0]['after'] - history[0]['before']:+.1f}"
        assert change in points[0]["title"] and history[0]["at"][:10] in points[0]["title"]
        # the chart fits the phone's width (no sideways scrolling), and the table says the same
        box = chart.bounding_box()
        assert box is not None and box["width"] <= 390
        rows = _cells(page, f"section.pool-history[data-pool='{pool}'] table.history tbody tr")
        assert [r[6] for r in rows] == [f"{h['after']:.1f}" for h in history]
        assert all(r[2] and r[2] != "—" for r in rows)  # every game names its opponent
        assert [r[3] for r in rows] == _results(client, top["name"], history)  # and its result
        # the event the player played, with their place, and its link to the pool's board
        season = client.get(f"/v1/seasons/{league['season']}/standings").json()["items"]
        (mine,) = [r["results"][0] for r in season if r["player_id"] == top["player_id"]]
        place = page.locator(f"tr[data-event='{league['event']}'] td.place").inner_text()
        assert place.split(" of ")[0].lstrip("=") == str(mine["place"]) and place.endswith(
            f" of {len(NAMES)}"
        )
        # drawn under the pages' CSP: no violation, and the stylesheet's colours reach the SVG
        assert page.evaluate("window.__violations") == []
        line = chart.locator("polyline.line")
        assert line.evaluate("l => getComputedStyle(l).fill") == "none"
        page.locator(f"tr[data-event='{league['event']}'] a").click()
        page.get_by_role("link", name="Rating leaderboard").click()
        page.wait_for_url(f"**/ratings/{pool}")
        # the last on the board lost games: their results say so
        last = client.get(f"/v1/ratings/{pool}").json()["items"][-1]
        page.locator(f"tr[data-player='{last['player_id']}'] a").click()
        page.wait_for_url(f"**/players/{last['player_id']}")
        theirs = client.get(f"/v1/players/{last['player_id']}/ratings").json()["items"]
        (mine,) = [p["history"] for p in theirs if p["pool"] == pool]
        shown = [
            r[3] for r in _cells(page, f"section.pool-history[data-pool='{pool}'] table.history tbody tr")
        ]
        assert shown == _results(client, last["name"], mine) and "Loss" in shown
    finally:
        context.close()


def _results(client: Any, name: str, history: list[dict[str, Any]]) -> list[str]:
    """Each game's result for the player of ``name``, as the API's match reads: two seats, so a win,
    a loss or a draw."""
    out = []
    for h in history:
        match = client.get(f"/v1/matches/{h['match_id']}").json()
        names = {s["entry_id"]: s["name"] for s in match["seats"]}
        places = {names[s["entry_id"]]: s["place"] for s in match["result"]["seats"]}
        mine = places.pop(name)
        (theirs,) = places.values()
        out.append("Win" if mine < theirs else "Loss" if mine > theirs else "Draw")
    return out


def test_a_season_page_is_its_standings(server: str, browser: Any, league: dict[str, Any]) -> None:
    client = league["client"]
    standings = client.get(f"/v1/seasons/{league['season']}/standings").json()
    assert standings["events"] == [league["event"]] and len(standings["items"]) == len(NAMES)
    club = OtherOrigin()
    context = browser.new_context(locale="ja-JP")
    page = context.new_page()
    try:
        page.goto(f"{server}/seasons/{league['season']}")
        assert page.locator("html").get_attribute("lang") == "ja"
        assert page.locator("h1").inner_text() == "Autumn League"
        rows = _cells(page, "table.season tbody tr")
        assert [r[:4] for r in rows] == [
            [str(r["rank"]), r["name"], f"{r['points']:g}", str(r["events"])] for r in standings["items"]
        ]
        assert [r[4] for r in rows] == [
            f"{r['results'][0]['place']}位 · {r['results'][0]['points']:g}" for r in standings["items"]
        ]
        listed = page.locator("#season-events li").evaluate_all("ls => ls.map(l => l.dataset.event)")
        assert listed == [league["event"]]
        assert items(client.get(f"/v1/seasons/{league['season']}").json()["events"])[0]["counted"] is True

        # its embed, framed by a league's site on another origin: the first rows, dark, in Japanese
        page.locator("details.embeds summary").click()
        code = page.locator("#embed-season").input_value()
        assert (
            code.startswith("<iframe ") and f"{server}/embed/seasons/{league['season']}?theme=light" in code
        )
        club.html = "<!doctype html><title>League</title>" + code.replace(
            "theme=light", "theme=dark&amp;limit=3&amp;lang=ja"
        )
        page.goto(club.url)
        frame = page.frame_locator("iframe")
        frame.locator("table.season tbody tr").first.wait_for()
        assert _cells(frame, "table.season tbody tr") == [r[:4] for r in rows[:3]]
        assert "theme-dark" in (frame.locator("body").get_attribute("class") or "")
        assert frame.locator("h1").inner_text() == "シーズン順位"
    finally:
        context.close()
        club.httpd.shutdown()


def test_a_club_frames_the_leaderboard(server: str, browser: Any, league: dict[str, Any]) -> None:
    pool, client = league["pool"], league["client"]
    club = OtherOrigin()
    page = browser.new_page(locale="en-US")
    try:
        page.goto(f"{server}/ratings/{pool}")
        page.get_by_text("Put it on your site").click()
        code = page.locator("#embed-leaderboard").input_value()
        assert code.startswith("<iframe ") and f"{server}/embed/ratings/{pool}?theme=light" in code
        club.html = "<!doctype html><title>Club</title>" + code.replace(
            "theme=light", "theme=dark&amp;limit=3"
        )
        page.goto(club.url)
        frame = page.frame_locator("iframe")
        frame.locator("table.leaderboard tbody tr").first.wait_for()
        top = client.get(f"/v1/ratings/{pool}", params={"limit": 3}).json()["items"]
        cells = frame.locator("table.leaderboard tbody tr").evaluate_all(
            "rs => rs.map(r => [...r.cells].map(c => c.textContent.trim()))"
        )
        assert cells == _board(top, titles=False)
        assert "theme-dark" in (frame.locator("body").get_attribute("class") or "")
        answer = client.get(f"/embed/ratings/{pool}")
        assert answer.headers["content-security-policy"].endswith("frame-ancestors *")

        # a rated game reported while the frame and the board's page are open: both redraw their rows
        board = browser.new_page(locale="en-US")
        board.goto(f"{server}/ratings/{pool}")
        for live in (board, frame):
            expect(live.locator("[data-live-label]")).to_contain_text("updates itself")  # its stream is open
        whole = client.get(f"/v1/ratings/{pool}").json()["items"]
        plain = client.get(f"/ratings/{pool}", headers={"Accept-Language": "en"}).text  # as served
        assert "reload to see changes" in plain and plain.count("<tr data-player=") == len(whole)
        _a_rated_game(client, pool, winner=whole[-1], loser=whole[2])
        rated(client, pool, ROUNDS * len(NAMES) // 2 + 1)
        now = client.get(f"/v1/ratings/{pool}").json()["items"]
        assert now != whole
        expect(board.locator("table.leaderboard tbody td")).to_have_text(sum(_board(now), []))  # no reload
        expect(frame.locator("table.leaderboard tbody td")).to_have_text(sum(_board(now[:3], False), []))
        board.close()
    finally:
        page.close()
        club.httpd.shutdown()


def _a_rated_game(client: Any, pool: str, winner: dict[str, Any], loser: dict[str, Any]) -> None:
    """A friendly of two players of the board, rated into its pool: ``winner`` wins."""
    settings = {"rated": True, "rating": {"pool": pool}, "stages": [{"format": "swiss", "rounds": 1}]}
    made = client.post(
        "/v1/events",
        json={"name": "Friendly", "game": "generic", "settings": settings},
        headers=bearer(ADMIN),
    ).json()
    org = bearer(made["organizer_token"])
    rows = [{"player_id": winner["player_id"]}, {"player_id": loser["player_id"]}]
    entries = items(client.post(f"/v1/events/{made['id']}/entries", json=rows, headers=org).json())
    won = next(e["id"] for e in entries if e["player_id"] == winner["player_id"])
    (table,) = client.post(f"/v1/events/{made['id']}/start", headers=org).json()["round"]["matches"]
    seats = [{"entry_id": s["entry_id"], "place": 1 if s["entry_id"] == won else 2} for s in table["seats"]]
    r = client.post(f"/v1/matches/{table['id']}/result", json={"seats": seats}, headers=org)
    assert r.status_code == 200, r.text
