"""The formats' own actions where a player or the new event form takes them, in Chromium, each a
short walk over one event made through the API: a Board Game Arena 3-player table's BGA table
recorded from a player's page (a refusal in words, what was typed kept), a 2-player event's final
registered for and withdrawn from on the finalists' own pages, a Rite of Command player's deal on
their page (its ★ and first player checked against the deal the revealed seed gives), the new event
form's BGA deadlines and groups (as the API then reads them), and a Strategic Titan verdict said in
words before it is recorded. Each is checked against the API."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from app.core.games.strategic_titan.replay import adjudicate_match
from app.web import verdicts
from app.web.i18n import translator
from tests.support.rite_of_command import RINGS
from tests.web.conftest import ADMIN, UUID, api, bearer, items, submit
from tests.web.test_accessibility import _axe

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def _event(client: Any, preset: str | None, game: str, names: list[str], **settings: Any) -> dict[str, Any]:
    """An event made and filled through the API, started: its id, tokens and first matches."""
    body: dict[str, Any] = {"name": f"{game} night", "game": game, "settings": settings}
    if preset:
        body["preset"] = preset
    made = client.post("/v1/events", json=body, headers=bearer(ADMIN))
    assert made.status_code == 201, made.text
    event = made.json()
    org = bearer(event["organizer_token"])
    rows = [{"name": n} for n in names]
    entries = items(client.post(f"/v1/events/{event['id']}/entries", json=rows, headers=org).json())
    started = client.post(f"/v1/events/{event['id']}/start", headers=org)
    assert started.status_code == 200, started.text
    return {
        "id": event["id"],
        "org": org,
        "organizer": event["organizer_token"],
        "tokens": {e["name"]: e["entry_token"] for e in entries},
        "ids": {e["name"]: e["id"] for e in entries},
    }


def _matches(client: Any, event_id: str) -> list[dict[str, Any]]:
    """Every match of the event, waiting (a few seconds at most) for a schedule's job to design them."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        rounds = items(client.get(f"/v1/events/{event_id}/rounds", params={"limit": 500}).json())
        found = [m for r in rounds for m in r["matches"]]
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError("no tables were scheduled")


def _phone(browser: Any, server: str, ev: dict[str, Any], name: str, context: Any = None) -> Any:
    """The player's own page on a phone (a new one, or a new tab of ``context``), signed in by their
    link; their part shown."""
    if context is None:
        context = browser.new_context(**PHONE, locale="en-US")
        context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto(f"{server}/e/{ev['id']}/me#token={ev['tokens'][name]}")
    page.wait_for_selector("#h-next")
    return page


def _accessible(browser: Any, url: str) -> None:
    """axe-core finds nothing on the player's page at ``url`` (its part shown, its boxes open), in
    a context of its own that lets axe's script in (the pages' CSP would not)."""
    checking = browser.new_context(**PHONE, locale="en-US", bypass_csp=True)
    page = checking.new_page()
    page.goto(url)
    page.wait_for_selector("#h-next")
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    found, _ = _axe(page)
    checking.close()
    assert found == [], found


def _console(browser: Any, server: str, ev: dict[str, Any]) -> Any:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto(f"{server}/console")
    page.fill("#org-token", ev["organizer"])
    submit(page, page.get_by_role("button", name="Sign in"))
    return page


def _said(page: Any, *words: str) -> str:
    """The player's page's status line, once it says all of ``words`` (never an id)."""
    page.wait_for_function(
        "words => { const p = document.getElementById('me-status'); return p && !p.hidden && words.every(w => p.textContent.includes(w)); }",
        arg=list(words),
    )
    text = str(page.inner_text("#me-status"))
    assert not UUID.search(text), text
    return text


def test_a_player_records_their_bga_table_from_their_page(server: str, browser: Any) -> None:
    client = api(server)
    ev = _event(client, "bga-round-robin-3p", "puerto-rico", ["Aiko", "Bruno", "Chiara"])
    (m,) = _matches(client, ev["id"])
    seats = sorted(m["seats"], key=lambda s: s["seat"])
    body = {"seats": [{"entry_id": s["entry_id"], "place": k + 1} for k, s in enumerate(seats)]}
    page = _phone(browser, server, ev, "Bruno")
    card = page.locator(f"#m-{m['id']}")

    # a table opened with the wrong speed: recorded, and judged not to count
    card.locator("summary", has_text="Record our BGA table").click()
    card.get_by_label("BGA table number").fill("600001")
    card.get_by_label("Speed").fill("real-time")
    card.get_by_role("button", name=f"Record the BGA table of table {m['table']}").click()
    _said(page, "The BGA table is recorded")
    page.wait_for_selector("[data-bga-table='600001']")
    assert "does not count" in card.locator("[data-bga-table='600001']").inner_text()
    # the organizer's places are then refused by the table rule: the page's table is the match's
    refused = client.post(f"/v1/matches/{m['id']}/result", json=body, headers=ev["org"])
    assert refused.status_code == 422 and "600001" in refused.json()["detail"], refused.text

    # a creation time that is no time: refused in words, what was typed kept
    card.locator("summary", has_text="Record our BGA table").click()
    card.get_by_label("BGA table number").fill("600002")
    card.get_by_label("Created at").fill("yesterday evening")
    card.get_by_role("button", name=f"Record the BGA table of table {m['table']}").click()
    _said(page, "refused", "give a date and time")
    assert card.get_by_label("BGA table number").input_value() == "600002"

    # the table as the rules ask: it counts, and the places go through
    card.get_by_label("Created at").fill(datetime.now(UTC).isoformat(timespec="seconds"))
    card.get_by_role("button", name=f"Record the BGA table of table {m['table']}").click()
    page.wait_for_selector("[data-bga-table='600002']")
    assert "counts" in card.locator("[data-bga-table='600002']").inner_text()
    assert "Bruno" in page.inner_text(f"#m-{m['id']}")  # the card stays the player's own table
    _accessible(browser, page.url)  # the BGA tables recorded, the form to record another
    done = client.post(f"/v1/matches/{m['id']}/result", json=body, headers=ev["org"])
    assert done.status_code == 200 and done.json()["status"] == "confirmed", done.text
    page.context.close()


def test_finalists_register_for_and_withdraw_from_the_bga_final_on_their_pages(
    server: str, browser: Any
) -> None:
    client = api(server)
    ev = _event(client, "bga-round-robin", "seasons", ["Ada", "Bo", "Cyd"])
    for m in _matches(client, ev["id"]):  # every game drawn: all three share first place
        if m["status"] == "pending":
            draw = {"outcome": "draw", "seats": [{"entry_id": s["entry_id"]} for s in m["seats"]]}
            r = client.post(f"/v1/matches/{m['id']}/result", json=draw, headers=ev["org"])
            assert r.status_code == 200, r.text
    assert client.post(f"/v1/events/{ev['id']}/advance", headers=ev["org"]).status_code == 200
    bga = client.get(f"/v1/events/{ev['id']}/bga").json()
    first, second = (bga["names"][e] for e in bga["final"]["finalists"])
    (third,) = {"Ada", "Bo", "Cyd"} - {first, second}

    # the first registers (one tap); the API has it
    page = _phone(browser, server, ev, first)
    assert page.inner_text("#my-bga-final-status") == "You are a finalist: not registered."
    page.get_by_role("button", name="Register for the final").click()
    _said(page, "Recorded")
    page.wait_for_function(
        "() => document.getElementById('my-bga-final-status').textContent.includes(': registered')"
    )
    assert client.get(f"/v1/events/{ev['id']}/bga").json()["final"]["registered"] == [ev["ids"][first]]
    assert page.get_by_role("button", name="Register for the final").count() == 0
    page.close()

    # the second withdraws (two taps: it cannot be undone); the third takes the seat
    page = _phone(browser, server, ev, second, context=page.context)
    page.locator("summary", has_text="Withdraw from the final").click()
    page.get_by_role("button", name="Withdraw for good").click()
    _said(page, "Recorded")
    page.wait_for_selector("text=You have withdrawn from the final.")
    final = client.get(f"/v1/events/{ev['id']}/bga").json()["final"]
    assert final["withdrawn"] == [ev["ids"][second]]
    assert sorted(final["finalists"]) == sorted([ev["ids"][first], ev["ids"][third]])
    page.close()

    # the one who takes the seat is now a finalist, still to register
    page = _phone(browser, server, ev, third, context=page.context)
    assert page.inner_text("#my-bga-final-status") == "You are a finalist: not registered."
    assert page.get_by_role("button", name="Register for the final").count() == 1
    page.context.close()


def test_a_rite_of_command_player_sees_their_deal_and_its_first_player_is_the_star(
    server: str, browser: Any
) -> None:
    client = api(server)
    duelists = ["Ramses", "Nefert", "Khufu", "Tiye", "Hatshep", "Djoser", "Sneferu", "Menkaure"]
    ev = _event(client, None, "rite-of-command", duelists, stages=[{"format": "swiss", "rounds": 1}])
    tables = _matches(client, ev["id"])
    m = next(t for t in tables if "Nefert" in {s["name"] for s in t["seats"]})

    # the player's page: their game's deal, six cards a player, and who plays first
    page = _phone(browser, server, ev, "Nefert")
    starts = page.inner_text(f"#my-first-{m['id']}")
    rows = page.locator(f"#m-{m['id']} table.deal tbody tr")
    decks = [[rows.nth(k).locator("td").nth(p).inner_text() for k in range(rows.count())] for p in (1, 2)]
    assert len(decks[0]) == 6 and sorted(decks[0]) == sorted(decks[1]) and decks[0] != decks[1]
    # fewer cards asked: the part is dealt again
    page.get_by_label("Cards a player").fill("3")
    page.get_by_role("button", name="Deal").click()
    page.wait_for_function(
        "id => document.querySelectorAll('#m-' + id + ' table.deal tbody tr').length === 3", arg=m["id"]
    )
    page.context.close()

    # the console's ★ of every table, and the deal page of the player's, name who plays first
    console = _console(browser, server, ev)
    stars = {
        t["id"]: console.locator(f"#m-{t['id']} span.seat:has(span.first)").inner_text().lstrip("★").strip()
        for t in tables
    }
    assert starts == f"{stars[m['id']]} plays first.", (starts, stars)
    submit(console, console.get_by_role("button", name=f"Deal table {m['table']}"))
    assert console.inner_text("#roc-first") == starts
    console.context.close()

    # once the event is over its seed is revealed: the stateless deal of each match's seed is the
    # one the player saw, and its first player is the seat with the ★ and the first token
    for t in tables:
        r = client.post(f"/v1/matches/{t['id']}/result", json={"game_log": RINGS}, headers=ev["org"])
        assert r.status_code == 200, r.text
    assert client.post(f"/v1/events/{ev['id']}/advance", headers=ev["org"]).status_code == 200
    seed = client.get(f"/v1/events/{ev['id']}").json()["seed"]
    for t in tables:
        deal = {"deck_size": 6, "seed": f"{seed}:{t['id']}"}
        dealt = client.post("/v1/rite-of-command/deal", json=deal).json()
        names = [s["name"] for s in sorted(t["seats"], key=lambda s: s["seat"])]
        assert stars[t["id"]] == names[dealt["first_player"] - 1], (t, dealt)
        seats = client.get(f"/v1/matches/{t['id']}").json()["seats"]
        assert [s["seat"] for s in seats if s["first_token"]] == [dealt["first_player"] - 1]
        if t["id"] == m["id"]:
            assert [dealt["orders"]["1"], dealt["orders"]["2"]] == decks


def _create(page: Any, server: str, preset: str, game: str, name: str, knobs: dict[str, str]) -> None:
    page.goto(f"{server}/console?preset={preset}")
    page.select_option("#game", game)
    for label, value in knobs.items():
        page.get_by_label(label, exact=True).fill(value)
    page.fill("#admin-token", ADMIN)
    page.fill("#ev-name", name)
    submit(page, page.get_by_role("button", name="Create the event"))


def test_the_new_event_form_sets_the_bga_deadlines_and_groups(server: str, browser: Any) -> None:
    client = api(server)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    context.set_default_timeout(10_000)
    page = context.new_page()
    # 3 players: the join deadline (with its offset) and two groups; a deadline that is no time is
    # refused in words first, what was typed kept
    knobs = {"Join deadline": "next friday", "Stage 1 · Groups": "2"}
    _create(page, server, "bga-round-robin-3p", "puerto-rico", "Puerto Rico league", knobs)
    error = page.inner_text(".error")
    assert "settings.join_deadline" in error and "give a date and time" in error, error
    assert page.get_by_label("Join deadline", exact=True).input_value() == "next friday"
    assert page.get_by_label("Stage 1 · Groups", exact=True).input_value() == "2"
    page.get_by_label("Join deadline", exact=True).fill("2026-12-20T23:59+09:00")
    page.fill("#admin-token", ADMIN)
    submit(page, page.get_by_role("button", name="Create the event"))
    submit(page, page.get_by_role("link", name="Open the console"))
    event = client.get(f"/v1/events/{urlsplit(page.url).path.rsplit('/', 1)[1]}").json()
    assert event["settings"]["join_deadline"] == "2026-12-20T23:59:00+09:00", event["settings"]
    assert event["settings"]["stages"][0]["groups"] == 2
    assert "final_deadline" not in event["settings"]
    assert page.inner_text("[data-deadline='join_deadline']") == "Join deadline: 2026-12-20 23:59 +09:00"

    # 2 players: the final's registration deadline, typed without an offset (UTC)
    _create(
        page,
        server,
        "bga-round-robin",
        "seasons",
        "Seasons league",
        {"Final's registration deadline": "2026-12-24T12:00"},
    )
    submit(page, page.get_by_role("link", name="Open the console"))
    event = client.get(f"/v1/events/{urlsplit(page.url).path.rsplit('/', 1)[1]}").json()
    assert event["settings"]["final_deadline"] == "2026-12-24T12:00:00+00:00", event["settings"]
    assert "join_deadline" not in event["settings"]
    assert (
        page.inner_text("[data-deadline='final_deadline']")
        == "Final's registration deadline: 2026-12-24 12:00 UTC"
    )
    context.close()


def _st_record(a: str, b: str) -> dict[str, Any]:
    """A short Strategic Titan game, ended after two turns each, the first player ahead on points."""
    return {
        "players": [a, b],
        "events": [
            {"type": "start", "towers": [100, 400]},
            {"type": "movement", "player": a, "number": 3},
            {"type": "points", "player": a, "points": 30},
            {"type": "movement", "player": b, "number": 5},
            {"type": "movement", "player": a, "number": 4},
            {"type": "movement", "player": b, "number": "pass"},
            {"type": "end"},
        ],
    }


def test_a_strategic_titan_verdict_is_said_in_words_not_json(server: str, browser: Any) -> None:
    client = api(server)
    ev = _event(client, None, "strategic-titan", ["Ann", "Bob"], stages=[{"format": "swiss", "rounds": 1}])
    (m,) = _matches(client, ev["id"])
    a, b = (s["name"] for s in sorted(m["seats"], key=lambda s: s["seat"]))
    page = _console(browser, server, ev)
    row = page.locator(f"#m-{m['id']}")
    row.locator("summary", has_text="Game log").click()
    row.get_by_label("Paste the game log (JSON)").fill(json.dumps(_st_record(a, b)))
    submit(page, row.get_by_role("button", name="Show the verdict"))
    assert (
        page.inner_text("#st-outcome")
        == f"{a} wins: the game was ended with {a} ahead on points, 30 to {b}'s 0."
    )
    facts = page.locator("table.st-facts tbody tr")
    assert [facts.nth(i).locator("th").inner_text() for i in range(2)] == [a, b]
    assert facts.nth(1).inner_text().split("\t")[-1] == "5, pass"
    shown = page.inner_text("main")
    assert page.locator("pre.verdict-json").count() == 0 and "{" not in shown and '"state"' not in shown
    submit(page, page.get_by_role("button", name="Record this result"))
    got = client.get(f"/v1/matches/{m['id']}").json()
    assert got["status"] == "confirmed" and got["result"]["seats"][0]["place"] == 1, got
    page.context.close()


def test_a_strategic_titan_verdict_in_both_languages() -> None:
    """The verdict's words are the replayed record's facts, in English and Japanese."""
    judged = adjudicate_match(_st_record("Ann", "Bob"), 2, "seed")
    shown = verdicts.strategic_titan(judged.details)
    assert shown is not None and [p.name for p in shown.players] == ["Ann", "Bob"]
    en, ja = translator("en"), translator("ja")
    assert shown.outcome(en) == "Ann wins: the game was ended with Ann ahead on points, 30 to Bob's 0."
    assert shown.outcome(ja) == "Ann の勝ち：対局を終えた時点で Ann が得点で上回りました（30 対 Bob の 0）。"
    assert [shown.status(p, ja) for p in shown.players] == ["残存", "残存"]
    assert verdicts.strategic_titan({"rings": []}) is None  # not Strategic Titan's: shown as it is
