"""The player's page on a phone, the printed sheets, the pages and /docs with no network beyond
the server, and the pages' two languages — in Chromium, on one server."""

from __future__ import annotations

import re
import uuid
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.web.conftest import ADMIN, api, bearer, items, rated, shot

PHONE = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}


@pytest.fixture(scope="module")
def running(server: str) -> dict[str, Any]:
    """A running 4-player Swiss made through the API, rated into a pool of its own: its id, organizer
    token and entry tokens."""
    client = api(server)
    pool = f"phone-{uuid.uuid4().hex[:8]}"
    made = client.post(
        "/v1/events",
        json={
            "name": "Phone Open",
            "game": "generic",
            "settings": {
                "rated": True,
                "rating": {"pool": pool},
                "stages": [{"format": "swiss", "rounds": 2}],
            },
        },
        headers=bearer(ADMIN),
    )
    assert made.status_code == 201, made.text
    event = made.json()
    org = bearer(event["organizer_token"])
    rows = [{"name": n} for n in ("Hana", "Ichiro", "Jun", "Kaori")]
    entries = items(client.post(f"/v1/events/{event['id']}/entries", json=rows, headers=org).json())
    started = client.post(f"/v1/events/{event['id']}/start", headers=org)
    assert started.status_code == 200, started.text
    return {
        "id": event["id"],
        "organizer": event["organizer_token"],
        "tokens": {e["id"]: e["entry_token"] for e in entries},
        "names": {e["id"]: e["name"] for e in entries},
        "players": {e["id"]: e["player_id"] for e in entries},
        "round": started.json()["round"],
        "pool": pool,
    }


def test_a_player_reports_from_the_phone_page(server: str, browser: Any, running: dict[str, Any]) -> None:
    client = api(server)
    match = running["round"]["matches"][0]
    a, b = (s["entry_id"] for s in match["seats"])
    seen: list[str] = []
    context = browser.new_context(**PHONE, locale="en-US")
    page = context.new_page()
    page.on("request", lambda r: seen.append(r.url))
    page.goto(f"{server}/e/{running['id']}/me#token={running['tokens'][a]}")
    page.wait_for_selector(f"#m-{match['id']}")
    assert running["names"][b] in page.inner_text(f"#m-{match['id']}")  # the opponent
    shot(page, "player")
    page.get_by_role("button", name="I won", exact=True).click()
    page.wait_for_selector("text=Your report was sent.")
    assert client.get(f"/v1/matches/{match['id']}").json()["status"] == "reported"

    # the opponent agrees from the table's slip page (token pasted once, kept in the browser)
    other_context = browser.new_context(**PHONE, locale="en-US")
    other = other_context.new_page()
    other.on("request", lambda r: seen.append(r.url))
    other.goto(f"{server}/e/{running['id']}/m/{match['id']}")
    other.fill("#token", running["tokens"][b])
    other.get_by_role("button", name="Open", exact=True).click()
    other.get_by_role("button", name=f"{running['names'][a]} won", exact=True).click()
    other.wait_for_selector("text=Your report was sent.")
    confirmed = client.get(f"/v1/matches/{match['id']}").json()
    assert confirmed["status"] == "confirmed"
    assert [s["place"] for s in confirmed["result"]["seats"] if s["entry_id"] == a] == [1]
    # the history shows it, live, on the first phone
    page.wait_for_selector("section[aria-labelledby='h-hist'] .status-confirmed")
    for token in running["tokens"].values():
        assert not any(token in u.split("#")[0] for u in seen), "a token reached the server in a URL"
    # a wrong token asks again, and changes nothing
    bad = client.get(f"/e/{running['id']}/me/view", headers=bearer("nope"))
    assert bad.status_code == 401
    other_context.close()
    context.close()


def test_the_printed_sheets(server: str, browser: Any, running: dict[str, Any]) -> None:
    client = api(server)
    rnd = client.get(f"/v1/events/{running['id']}/rounds/1").json()
    page = browser.new_page(locale="en-US")
    page.goto(f"{server}/e/{running['id']}/print/pairings?paper=letter")
    page.emulate_media(media="print")
    assert not page.locator("header.top").is_visible()  # the screen's header is not printed
    body = page.locator("table.sheet tbody tr")
    assert body.count() == len(rnd["matches"])
    for i, m in enumerate(rnd["matches"]):
        row = body.nth(i).inner_text()
        assert str(m["table"]) in row and all(s["name"] in row for s in m["seats"])
    sizes = page.evaluate(  # the paper's own stylesheet: no inline style passes the pages' CSP
        "[...document.styleSheets].flatMap(s => [...s.cssRules]).map(r => r.cssText).join(' ')"
    )
    assert "size: letter" in sizes
    pdf = page.pdf(prefer_css_page_size=True)
    assert pdf.startswith(b"%PDF") and len(pdf) > 1000
    shot(page, "print-pairings")

    page.goto(f"{server}/e/{running['id']}/print/slips?paper=a4")
    open_matches = [m for m in rnd["matches"] if m["status"] not in ("confirmed", "bye")]
    slips = page.locator("article.slip")
    assert slips.count() == len(open_matches)
    for i, m in enumerate(open_matches):
        slip = slips.nth(i)
        assert slip.locator("svg").count() == 1  # the QR code, drawn by the server
        url = slip.locator(".url").inner_text()
        assert urlsplit(url).path == f"/e/{running['id']}/m/{m['id']}"
    shot(page, "print-slips")
    page.goto(slips.nth(0).locator(".url").inner_text())  # the QR code's page: that table
    assert f"Table {open_matches[0]['table']}" in page.inner_text("main")
    page.goto(f"{server}/e/{running['id']}/print/scorecards")
    assert page.locator("article.scorecard").count() == len(
        [m for m in rnd["matches"] if m["status"] != "bye"]
    )
    page.close()


def test_pages_and_docs_work_offline(server: str, browser: Any, running: dict[str, Any]) -> None:
    """Nothing a page loads leaves the server: every other host is blocked, and none was asked — the
    league's pages too (a rated game's leaderboard, a player's chart, a season)."""
    client = api(server)
    org = bearer(running["organizer"])
    table = running["round"]["matches"][1]  # the phone's test reports the first
    seats = [{"entry_id": s["entry_id"], "place": p} for s, p in zip(table["seats"], (1, 2), strict=True)]
    assert (
        client.post(f"/v1/matches/{table['id']}/result", json={"seats": seats}, headers=org).status_code
        == 200
    )
    played = client.get(f"/v1/events/{running['id']}/rounds/1").json()["matches"]
    rated(client, running["pool"], len([m for m in played if m["status"] == "confirmed"]))
    season = client.post(
        "/v1/seasons", json={"name": "Phone League", "points": [3, 2, 1]}, headers=bearer(ADMIN)
    )
    assert season.status_code == 201, season.text
    context = browser.new_context(locale="en-US")
    outside: list[str] = []

    def guard(route: Any) -> None:
        host = urlsplit(route.request.url).hostname
        if host == "127.0.0.1":
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    context.route("**/*", guard)
    page = context.new_page()
    failed: list[tuple[str, str | None]] = []
    page.on("requestfailed", lambda r: failed.append((r.url, r.failure)))
    for path in (
        "/",
        f"/e/{running['id']}",
        f"/e/{running['id']}/projector",
        "/console",
        f"/e/{running['id']}/print/slips",
        f"/e/{running['id']}/me",
        "/ratings",
        f"/ratings/{running['pool']}",
        f"/players/{running['players'][table['seats'][0]['entry_id']]}",
        f"/seasons/{season.json()['id']}",
    ):
        r = page.goto(server + path)
        assert r is not None and r.status == 200, path
    page.goto(f"{server}/docs")
    page.wait_for_selector(".swagger-ui .info .title")
    page.wait_for_selector(".opblock")  # the operations, read from /openapi.json
    spec = api(server).get("/openapi.json").json()
    if spec.get("components", {}).get("securitySchemes"):  # bearer auth in the document: Authorize
        assert page.get_by_role("button", name=re.compile("Authorize")).count() >= 1
    shot(page, "docs")
    assert outside == [], outside
    # a stream, and a page's own reads of the API cut short by the next page: not a failure to load
    assert [
        u
        for u, why in failed
        if "/stream" not in u and not (why == "net::ERR_ABORTED" and "/v1/events/" in u)
    ] == []
    context.close()


def test_the_pages_speak_japanese(server: str, browser: Any, running: dict[str, Any]) -> None:
    context = browser.new_context(locale="ja-JP", extra_http_headers={"Accept-Language": "ja,en;q=0.5"})
    page = context.new_page()
    page.goto(f"{server}/e/{running['id']}")
    assert page.locator("html").get_attribute("lang") == "ja"
    assert "順位表" in page.inner_text("main")
    page.get_by_role("link", name="English").click()
    page.wait_for_selector("html[lang=en]")
    assert "Standings" in page.inner_text("main")
    page.goto(f"{server}/e/{running['id']}")  # the choice is kept
    assert page.locator("html").get_attribute("lang") == "en"
    context.close()


def test_a_wbc_semifinal_on_a_phone_updates_itself(server: str, browser: Any) -> None:
    """A WBC Titan: The Arena event after its heats: the semifinal's seating as the API drew it, and a
    semifinal table reported through the API shows up on the open page by itself."""
    client = api(server)
    made = client.post(
        "/v1/events",
        json={"name": "WBC Arena", "game": "titan-the-arena", "preset": "wbc-hmwp", "seed": "wbc-phone-1"},
        headers=bearer(ADMIN),
    ).json()
    eid, org = made["id"], bearer(made["organizer_token"])
    rows = [{"name": f"Arena {i}"} for i in range(9)]
    ids = [e["id"] for e in items(client.post(f"/v1/events/{eid}/entries", json=rows, headers=org).json())]
    assert client.post(f"/v1/events/{eid}/start", headers=org).status_code == 200
    for k in range(3):
        rnd = client.post(f"/v1/events/{eid}/rounds", json={"tables": [ids[3 * k : 3 * k + 3]]}, headers=org)
        m = rnd.json()["matches"][0]
        seats = [{"entry_id": s["entry_id"], "score": 20 - ids.index(s["entry_id"]) % 3} for s in m["seats"]]
        assert (
            client.post(f"/v1/matches/{m['id']}/result", json={"seats": seats}, headers=org).status_code
            == 200
        )
    semi = client.post(f"/v1/events/{eid}/advance", headers=org).json()["round"]["matches"]
    context = browser.new_context(**PHONE, locale="en-US")
    page = context.new_page()
    page.goto(f"{server}/e/{eid}")
    page.wait_for_selector("[data-live-label]:has-text('updates itself')")
    for m in semi:
        table = page.locator(f"#semifinal table[data-match='{m['id']}'] tbody tr")
        assert [table.nth(i).get_attribute("data-entry") for i in range(table.count())] == [
            s["entry_id"] for s in m["seats"]
        ]
    shot(page, "wbc-semifinal")
    m = semi[0]
    seats = [{"entry_id": s["entry_id"], "score": 10 + i} for i, s in enumerate(m["seats"])]
    assert client.post(f"/v1/matches/{m['id']}/result", json={"seats": seats}, headers=org).status_code == 200
    page.wait_for_selector(f"#semifinal table[data-match='{m['id']}'] .status-confirmed")
    context.close()


def test_a_missing_event_is_a_page_in_a_browser(server: str, browser: Any) -> None:
    page = browser.new_page(locale="ja-JP")
    answer = page.goto(f"{server}/e/nope")
    assert answer is not None and answer.status == 404
    assert page.inner_text("h1") == "見つかりません"
    assert page.get_by_role("link", name="イベント一覧へ戻る").count() == 1
    page.close()


def test_standings_headers_break_between_words_and_show_the_differential(server: str, browser: Any) -> None:
    """Japanese headers on a phone keep each word on one line; an event ranked by differential
    (BATTLEBOOKS) shows it as a column, signed, as the API computes it."""
    client = api(server)
    made = client.post(
        "/v1/events",
        json={
            "name": "Body points",
            "game": "generic",
            "settings": {"stages": [{"format": "swiss", "rounds": 2}], "tiebreaks": ["differential"]},
        },
        headers=bearer(ADMIN),
    ).json()
    org = bearer(made["organizer_token"])
    rows = [{"name": n} for n in ("Hana", "Ichiro")]
    client.post(f"/v1/events/{made['id']}/entries", json=rows, headers=org)
    m = client.post(f"/v1/events/{made['id']}/start", headers=org).json()["round"]["matches"][0]
    a, b = (s["entry_id"] for s in m["seats"])
    body = {
        "seats": [
            {"entry_id": a, "place": 1, "body_points": 9},
            {"entry_id": b, "place": 2, "body_points": 4},
        ]
    }
    assert client.post(f"/v1/matches/{m['id']}/result", json=body, headers=org).status_code == 200
    standings = client.get(f"/v1/events/{made['id']}/standings").json()["rows"]
    context = browser.new_context(**PHONE, locale="ja-JP", extra_http_headers={"Accept-Language": "ja"})
    page = context.new_page()
    page.goto(f"{server}/e/{made['id']}")
    heads = page.locator("table.standings thead th")
    assert "得失点差" in heads.all_inner_texts()
    lines = page.evaluate(
        """() => Array.from(document.querySelectorAll('table.standings thead th')).map(th => {
             const r = document.createRange(); r.selectNodeContents(th);
             return new Set(Array.from(r.getClientRects()).map(x => Math.round(x.top))).size; })"""
    )
    assert all(n == 1 for n in lines), lines  # every header on one line, none broken by character
    diffs = page.locator("table.standings tbody td.diff").all_inner_texts()
    assert (
        diffs == [f"{r['differential']:+g}" if r["differential"] else "0" for r in standings] == ["+5", "-5"]
    )
    shot(page, "standings-ja-differential")
    context.close()
