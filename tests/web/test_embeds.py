"""The embeds as a club's site uses them (docs/web.md "Embeds"): the snippet copied from the event's
page, pasted into a page served from another origin, shows the standings, the round and the bracket
inside their frames — themed, limited, and live when a result comes in; and a season's page and its
embed, whole without JavaScript, draw the table by themselves when an attached event finishes."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.web.conftest import ADMIN, OtherOrigin, api, bearer, items, shot

NAMES = ["Ada", "Grace", "Alan", "Barbara"]


@pytest.fixture(scope="module")
def club() -> Iterator[OtherOrigin]:
    site = OtherOrigin()
    yield site
    site.httpd.shutdown()


def _event(client: httpx.Client, stages: list[dict[str, Any]]) -> tuple[str, dict[str, str], list[Any]]:
    made = client.post(
        "/v1/events",
        json={"name": "Club night", "game": "generic", "settings": {"stages": stages}},
        headers=bearer(ADMIN),
    ).json()
    org = bearer(made["organizer_token"])
    client.post(f"/v1/events/{made['id']}/entries", json=[{"name": n} for n in NAMES], headers=org)
    started = client.post(f"/v1/events/{made['id']}/start", headers=org)
    assert started.status_code == 200, started.text
    return made["id"], org, started.json()["round"]["matches"]


def _win(client: httpx.Client, org: dict[str, str], match: dict[str, Any], winner: int = 0) -> None:
    seats = [s["entry_id"] for s in match["seats"]]
    body = {"seats": [{"entry_id": e, "place": 1 if i == winner else 2} for i, e in enumerate(seats)]}
    assert client.post(f"/v1/matches/{match['id']}/result", json=body, headers=org).status_code == 200


def test_a_club_frames_the_snippets_and_they_follow_the_event(
    server: str, browser: Any, club: OtherOrigin
) -> None:
    client = api(server)
    event_id, org, matches = _event(client, [{"format": "swiss", "rounds": 2}])
    _win(client, org, matches[0])

    # the organizer copies the snippets from the event's page
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = context.new_page()
    page.goto(f"{server}/e/{event_id}")
    page.get_by_text("Put it on your site").click()
    codes = {part: page.locator(f"#embed-{part}").input_value() for part in ("standings", "round", "bracket")}
    for part, code in codes.items():
        assert f"{server}/embed/e/{event_id}/{part}?theme=light" in code and code.startswith("<iframe ")
    # pasted into the club's page, one of them dark and limited to three rows
    club.html = (
        "<!doctype html><html lang='en'><title>Club</title><h1>Our club</h1>"
        + codes["standings"].replace("theme=light", "theme=dark&amp;limit=3")
        + codes["round"]
    )
    page.goto(club.url)
    standings = page.frame_locator(f"iframe[src*='/embed/e/{event_id}/standings']")
    rounds = page.frame_locator(f"iframe[src*='/embed/e/{event_id}/round']")
    rows = standings.locator("table.standings tbody tr")
    rows.first.wait_for()
    api_rows = client.get(f"/v1/events/{event_id}/standings").json()["rows"]
    assert rows.count() == 3
    for i in range(3):
        cells = rows.nth(i).locator("td")
        assert cells.nth(1).inner_text().strip() == api_rows[i]["name"]
        assert float(cells.nth(2).inner_text()) == api_rows[i]["points"]
    assert "theme-dark" in (standings.locator("body").get_attribute("class") or "")
    assert rounds.locator("table.pairings tbody tr").count() == len(matches)

    # a result reported meanwhile reaches both frames by itself
    _win(client, org, matches[1], winner=1)
    expect(rounds.locator("table.pairings tbody tr.m-confirmed")).to_have_count(2)
    top = [r["name"] for r in client.get(f"/v1/events/{event_id}/standings").json()["rows"][:3]]
    expect(standings.locator("table.standings tbody td.name")).to_have_text(top)
    context.close()


def test_the_bracket_embed_draws_every_round(server: str, browser: Any, club: OtherOrigin) -> None:
    client = api(server)
    event_id, org, matches = _event(client, [{"format": "single_elimination"}])
    for m in matches:
        _win(client, org, m)
    final = client.post(f"/v1/events/{event_id}/rounds", headers=org)
    assert final.status_code in (200, 201), final.text
    club.html = f"<!doctype html><title>Club</title><iframe src='{server}/embed/e/{event_id}/bracket?lang=ja' title='bracket'></iframe>"
    page = browser.new_page(locale="en-US")
    page.goto(club.url)
    frame = page.frame_locator("iframe")
    svg = frame.locator("svg.bracket-svg")
    svg.wait_for()
    # a box per match, in two columns; a path from each semifinal to the final; the winners marked
    boxes = svg.locator("g.br-match")
    assert boxes.count() == len(matches) + 1
    assert svg.locator("path.br-line").count() == 2
    winners = sorted(m["seats"][0]["entry_id"] for m in matches)
    names = {e["id"]: e["name"] for e in items(client.get(f"/v1/events/{event_id}/entries").json())}
    final_box = boxes.nth(len(matches))
    assert sorted(final_box.locator("text").all_text_contents()) == sorted(names[w] for w in winners)
    assert svg.locator("text.won").count() == len(matches)  # the final is still to play
    first_x = float(boxes.nth(0).locator("rect").get_attribute("x") or 0)
    final_x = float(final_box.locator("rect").get_attribute("x") or 0)
    assert final_x > first_x  # the final's column right of the semifinals'
    assert frame.locator("html").get_attribute("lang") == "ja"
    assert re.search("トーナメント表", frame.locator("h1").inner_text())
    # the same bracket as a list, for a reader that does not see the drawing
    frame.get_by_text("トーナメント表をリストで表示").click()
    assert frame.locator(".bracket-round").count() == 2
    page.close()


def test_who_may_frame_an_embed_and_what_else_stays_unframed(server: str) -> None:
    client = api(server)
    event_id, _, _ = _event(client, [{"format": "swiss", "rounds": 1}])
    embed = client.get(f"/embed/e/{event_id}/standings")
    assert embed.status_code == 200
    assert embed.headers["content-security-policy"].endswith("frame-ancestors *")  # the default: any site
    assert "x-frame-options" not in embed.headers
    console = client.get("/console")
    assert "frame-ancestors 'none'" in console.headers["content-security-policy"]
    missing = client.get(f"/embed/e/{event_id}/scores", headers={"Accept": "text/html"})
    assert missing.status_code == 404 and "standings, round, bracket" in missing.text
    theme = client.get(f"/embed/e/{event_id}/round?theme=pink")
    assert theme.status_code == 422 and "theme" in theme.text
    assert items(client.get(f"/v1/events/{event_id}/entries").json())  # the event itself is untouched


def test_a_double_elimination_bracket_draws_both_paths_on_the_event_page(server: str, browser: Any) -> None:
    """Played to its end through the API (the first seat wins every table), a double elimination's
    page draws each path as its own band under its heading, the winners' (with the grand final)
    above the losers', every table in the band of its bracket key with its players and its winner."""
    client = api(server)
    event_id, org, _ = _event(client, [{"format": "double_elimination"}])
    played: list[tuple[str, dict[str, Any]]] = []  # (the bracket's key, the match)
    for number in range(1, 20):
        rnd = client.get(f"/v1/events/{event_id}/rounds/{number}").json()
        keys = rnd["pairing"]["matches"]
        tables = sorted(rnd["matches"], key=lambda m: m["table"])
        assert len(keys) == len(tables)
        for key, m in zip(keys, tables, strict=True):
            _win(client, org, m)
            played.append((key, m))
        nxt = client.post(f"/v1/events/{event_id}/rounds", headers=org)
        if nxt.status_code == 409:
            break
        assert nxt.status_code == 201, nxt.text
    names = {e["id"]: e["name"] for e in items(client.get(f"/v1/events/{event_id}/entries").json())}
    assert {k[0] for k, _ in played} == {"W", "L", "G"}  # both paths and the grand final were played

    page = browser.new_page(viewport={"width": 1280, "height": 900}, locale="en-US")
    page.goto(f"{server}/e/{event_id}")
    svg = page.locator("svg.bracket-svg")
    svg.wait_for()
    shot(page, "bracket-double-elimination")
    heads = {b: svg.locator(f"text.br-band[data-band={b}]") for b in ("winners", "losers")}
    assert heads["winners"].text_content() == "Winners' bracket"
    assert heads["losers"].text_content() == "Losers' bracket"
    split = float(heads["losers"].get_attribute("y") or 0)
    drawn = []
    for box in svg.locator("g.br-match").all():
        band = box.get_attribute("data-band")
        y = float(box.locator("rect").get_attribute("y") or 0)
        assert (y > split) == (band == "losers"), (band, y, split)
        seats = box.locator("text.br-seat")
        # a seat's text is its name, and the winner's a ✓ whose title says so
        text = [t.split(" ✓")[0] for t in seats.all_text_contents()]
        won = [text[i] for i in range(seats.count()) if "won" in (seats.nth(i).get_attribute("class") or "")]
        assert box.locator("text.won .br-mark").text_content() == "✓"
        drawn.append((band, sorted(text), won))
    wanted = [
        (
            "losers" if key.startswith("L") else "winners",
            sorted(names[s["entry_id"]] for s in m["seats"]),
            [names[m["seats"][0]["entry_id"]]],
        )
        for key, m in played
    ]
    assert sorted(drawn) == sorted(wanted)
    assert svg.locator("path.br-line").count() >= len(played) - 2  # a path into every later table
    page.goto(f"{server}/e/{event_id}?lang=ja")
    assert page.locator("svg.bracket-svg text.br-band[data-band=losers]").text_content() == "敗者側"
    page.close()


def test_a_season_s_page_and_embed_follow_its_events(server: str, browser: Any) -> None:
    client = api(server)
    made = client.post(
        "/v1/seasons", json={"name": "Club league", "points": [4, 3, 2, 1]}, headers=bearer(ADMIN)
    )
    assert made.status_code == 201, made.text
    season_id = made.json()["id"]
    event_id, org, matches = _event(client, [{"format": "swiss", "rounds": 1}])
    r = client.post(
        f"/v1/seasons/{season_id}/events",
        json={"event_id": event_id},
        headers=bearer(made.json()["organizer_token"]),
    )
    assert r.status_code == 200, r.text

    # without JavaScript the page is whole as served: its events, and a word that a reload shows changes
    plain = client.get(f"/seasons/{season_id}", headers={"Accept-Language": "en"}).text
    assert "reload to see changes" in plain and f'data-event="{event_id}"' in plain
    assert 'class="season"' not in plain  # nothing finished yet: no table

    # the page and its embed, open while the event is played and finished through the API
    context = browser.new_context(locale="en-US")
    page, embed = context.new_page(), context.new_page()
    page.goto(f"{server}/seasons/{season_id}")
    embed.goto(f"{server}/embed/seasons/{season_id}?limit=3")
    for p in (page, embed):
        expect(p.locator("[data-live-label]")).to_contain_text("updates itself")  # its stream is open
        assert p.locator("table.season").count() == 0
    for m in matches:
        _win(client, org, m)
    done = client.post(f"/v1/events/{event_id}/advance", headers=org)
    assert done.status_code == 200 and done.json()["event"]["status"] == "finished", done.text

    table = client.get(f"/v1/seasons/{season_id}/standings").json()["items"]
    names = [row["name"] for row in table]
    expect(page.locator("table.season tbody td.name")).to_have_text(names)  # no reload
    expect(embed.locator("table.season tbody td.name")).to_have_text(names[:3])
    expect(page.locator(f"#live li[data-event='{event_id}'] small")).to_have_text("counted")
    context.close()
