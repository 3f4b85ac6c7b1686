"""Results as a club night enters them, in Chromium: draws from the console's button, its ``d`` key
and the players' pages; a refused result in words and names, shown after the redirect; the live
refresh and a second console tab after it; a reload that never resubmits."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.rite_of_command import RINGS
from tests.web.conftest import ADMIN, UUID, api, bearer, four_a_table, items, shot

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


@pytest.fixture()
def club(server: str) -> dict[str, Any]:
    """A running 8-player Swiss made through the API."""
    client = api(server)
    made = client.post(
        "/v1/events",
        json={
            "name": "Club night",
            "game": "generic",
            "settings": {"stages": [{"format": "swiss", "rounds": 3}]},
        },
        headers=bearer(ADMIN),
    )
    assert made.status_code == 201, made.text
    event = made.json()
    org = bearer(event["organizer_token"])
    names = ["Ada", "Grace", "Alan", "Barbara", "Claude", "Edsger", "Frances", "Ken"]
    rows = [{"name": n} for n in names]
    entries = items(client.post(f"/v1/events/{event['id']}/entries", json=rows, headers=org).json())
    started = client.post(f"/v1/events/{event['id']}/start", headers=org)
    assert started.status_code == 200, started.text
    return {
        "id": event["id"],
        "organizer": event["organizer_token"],
        "tokens": {e["id"]: e["entry_token"] for e in entries},
        "names": {e["id"]: e["name"] for e in entries},
        "matches": started.json()["round"]["matches"],
    }


def _console(browser: Any, server: str, club: dict[str, Any]) -> Any:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = context.new_page()
    page.goto(f"{server}/console")
    page.fill("#org-token", club["organizer"])
    with page.expect_navigation():
        page.get_by_role("button", name="Sign in").click()
    assert page.url.endswith(f"/console/e/{club['id']}")
    return page


def _places(server: str, match_id: str) -> tuple[str, list[int]]:
    m = api(server).get(f"/v1/matches/{match_id}").json()
    return m["status"], [s["place"] for s in (m.get("result") or {}).get("seats", [])]


def test_draws_from_the_button_the_key_and_the_players_pages(
    server: str, browser: Any, club: dict[str, Any]
) -> None:
    page = _console(browser, server, club)
    first, second, third = club["matches"][:3]
    # the Draw button: one click
    with page.expect_navigation():
        page.locator(f"#m-{first['id']}").get_by_role("button", name="Draw").click()
    assert _places(server, first["id"]) == ("confirmed", [1, 1])
    assert page.locator(".error").count() == 0
    assert "Confirmed" in page.inner_text(f"#m-{first['id']}")
    # back on the console, the focus is on the next open table: the d key there, one key
    assert page.evaluate("document.activeElement.id") == f"m-{second['id']}"
    with page.expect_navigation():
        page.keyboard.press("d")
    assert _places(server, second["id"]) == ("confirmed", [1, 1])
    shot(page, "console-draws")

    # both players press Draw on their own phones: their claims agree and the draw is confirmed
    a, b = (s["entry_id"] for s in third["seats"])
    phones = []
    for entry_id in (a, b):
        context = browser.new_context(**PHONE, locale="en-US")
        phone = context.new_page()
        phone.goto(f"{server}/e/{club['id']}/me#token={club['tokens'][entry_id]}")
        phone.locator(f"#m-{third['id']}").get_by_role("button", name="Draw").click()
        phone.wait_for_selector("text=Your report was sent.")
        phones.append(context)
    assert _places(server, third["id"]) == ("confirmed", [1, 1])
    # the console saw it by itself
    page.wait_for_function(
        "id => document.querySelector('#m-' + id).textContent.includes('Confirmed')", arg=third["id"]
    )
    for context in phones:
        context.close()
    page.context.close()


def test_a_refused_result_speaks_in_names_and_the_console_keeps_updating(
    server: str, browser: Any, club: dict[str, Any]
) -> None:
    page = _console(browser, server, club)
    other = _console(browser, server, club)  # a second tab of the same organizer
    m, n = club["matches"][:2]
    a = m["seats"][0]["name"]
    # a text field of the live region has the focus: the page holds its refresh, as it does while
    # the organizer types, so its buttons are older than the table's result
    page.evaluate("document.getElementById('swap-a').closest('details').open = true")
    page.focus("#swap-a")
    with other.expect_navigation():
        other.locator(f"#m-{m['id']}").get_by_role("button", name=f"{a} won").click()
    assert _places(server, m["id"]) == ("confirmed", [1, 2])
    history = len(api(server).get(f"/v1/matches/{m['id']}").json()["history"])
    with page.expect_navigation():
        page.locator(f"#m-{m['id']}").get_by_role("button", name="Draw").click()
    # post/redirect/get: the console's own address, the refusal shown there in words and names
    assert page.url.split("#")[0] == f"{server}/console/e/{club['id']}"
    error = page.inner_text(".error")
    assert f"Table {m['table']}'s result was already recorded" in error, error
    assert not UUID.search(error) and "PUT" not in error, error
    assert _places(server, m["id"]) == ("confirmed", [1, 2])  # nothing changed
    assert "Confirmed" in page.inner_text(f"#m-{m['id']}")
    shot(page, "console-refused")
    # the live refresh goes on after the refusal: the other tab's result appears by itself
    with other.expect_navigation():
        other.locator(f"#m-{n['id']}").get_by_role("button", name="Draw").click()
    page.wait_for_function(
        "id => document.querySelector('#m-' + id).textContent.includes('Confirmed')", arg=n["id"]
    )
    # and the first tab's draw shows in the other tab, live
    third = club["matches"][2]
    with page.expect_navigation():
        page.locator(f"#m-{third['id']}").get_by_role("button", name="Draw").click()
    other.wait_for_function(
        "id => document.querySelector('#m-' + id).textContent.includes('Confirmed')", arg=third["id"]
    )
    # a reload sends nothing again and no longer shows the refusal
    page.reload()
    assert page.locator(".error").count() == 0
    assert len(api(server).get(f"/v1/matches/{m['id']}").json()["history"]) == history
    page.context.close()
    other.context.close()


def test_registering_then_reloading_registers_nobody_twice(server: str, browser: Any) -> None:
    client = api(server)
    made = client.post(
        "/v1/events", json={"name": "Walk-ins", "game": "generic"}, headers=bearer(ADMIN)
    ).json()
    page = _console(browser, server, {"id": made["id"], "organizer": made["organizer_token"]})
    page.fill("#names", "Hana\nIchiro")
    with page.expect_navigation():
        page.get_by_role("button", name="Register").click()
    assert page.locator("a.personal").count() == 2
    assert page.url == f"{server}/console/e/{made['id']}#entries"  # the console's own address
    page.reload()
    page.wait_for_selector("#entries")
    assert client.get(f"/v1/events/{made['id']}").json()["entries"] == 2
    # a refused paste keeps what was typed
    page.fill("#names", "Jun\n" + "x" * 300)
    with page.expect_navigation():
        page.get_by_role("button", name="Register").click()
    assert "nothing was registered" in page.inner_text(".error")
    assert page.input_value("#names") == "Jun\n" + "x" * 300
    assert client.get(f"/v1/events/{made['id']}").json()["entries"] == 2
    page.context.close()


def test_a_four_seat_table_by_clicks_and_by_keys(server: str, browser: Any) -> None:
    client = api(server)
    made, org = four_a_table(
        client, ("Ada", "Grace", "Alan", "Barbara", "Claude", "Edsger", "Frances", "Ken")
    )
    first, second = client.post(f"/v1/events/{made['id']}/start", headers=org).json()["round"]["matches"]
    page = _console(browser, server, {"id": made["id"], "organizer": made["organizer_token"]})
    row = page.locator(f"#m-{first['id']}")
    assert row.get_by_role("button", name="Ada won").count() == 0  # places, not one winner
    # clicks: one a seat (a tie for first), one to record
    by_seat = sorted(first["seats"], key=lambda s: s["seat"])
    for s, place in zip(by_seat, (1, 1, 3, 4), strict=True):
        row.get_by_label(f"{s['name']}: {place}.", exact=True).check()
    with page.expect_navigation():
        row.get_by_role("button", name="Record the places").click()
    got = client.get(f"/v1/matches/{first['id']}").json()
    place_of = {s["entry_id"]: s["place"] for s in got["result"]["seats"]}
    assert got["status"] == "confirmed" and [place_of[s["entry_id"]] for s in by_seat] == [1, 1, 3, 4]
    # keys: back on the console the next open table has the focus; each seat's place, Enter
    assert page.evaluate("document.activeElement.id") == f"m-{second['id']}"
    for key in "2143":
        page.keyboard.press(key)
    with page.expect_navigation():
        page.keyboard.press("Enter")
    got = client.get(f"/v1/matches/{second['id']}").json()
    place_of = {s["entry_id"]: s["place"] for s in got["result"]["seats"]}
    by_seat = sorted(second["seats"], key=lambda s: s["seat"])
    assert got["status"] == "confirmed" and [place_of[s["entry_id"]] for s in by_seat] == [2, 1, 4, 3]
    shot(page, "console-four-seats")
    # the public page agrees with the API's standings, row by row
    standings = client.get(f"/v1/events/{made['id']}/standings").json()
    public = page.context.new_page()
    public.goto(f"{server}/e/{made['id']}")
    cells = public.locator("table.standings tbody tr")
    assert cells.count() == len(standings["rows"])
    for i, r in enumerate(standings["rows"]):
        text = cells.nth(i).inner_text()
        assert r["name"] in text and f"{r['points']:g}" in text
    page.context.close()


def test_players_report_their_places_from_their_phones(server: str, browser: Any) -> None:
    client = api(server)
    made = client.post(
        "/v1/events",
        json={
            "name": "Phones at four",
            "game": "generic",
            "settings": {"stages": [{"format": "swiss", "table_size": 4, "rounds": 1}]},
        },
        headers=bearer(ADMIN),
    ).json()
    org = bearer(made["organizer_token"])
    rows = [{"name": n} for n in ("Hana", "Ichiro", "Jun", "Kaori")]
    entries = items(client.post(f"/v1/events/{made['id']}/entries", json=rows, headers=org).json())
    m = client.post(f"/v1/events/{made['id']}/start", headers=org).json()["round"]["matches"][0]
    token = {e["id"]: e["entry_token"] for e in entries}
    by_seat = sorted(m["seats"], key=lambda s: s["seat"])
    places = (2, 1, 3, 3)  # a tie for third
    contexts = []
    for k, seat in enumerate(by_seat):
        context = browser.new_context(**PHONE, locale="en-US")
        phone = context.new_page()
        phone.goto(f"{server}/e/{made['id']}/me#token={token[seat['entry_id']]}")
        card = phone.locator(f"#m-{m['id']}")
        assert card.get_by_role("button", name="I won").count() == 0
        if k == 0:  # one seat left out: refused, naming the player; the choices stay
            for s, place in list(zip(by_seat, places, strict=True))[:3]:
                card.get_by_label(f"{s['name']}: {place}.", exact=True).check()
            card.get_by_role("button", name="Report these places").click()
            phone.wait_for_selector("text=The report was refused:")
            said = phone.inner_text("#me-status")
            assert f"no place for {by_seat[3]['name']}" in said and not UUID.search(said), said
            assert card.get_by_label(f"{by_seat[0]['name']}: 2.", exact=True).is_checked()
        for s, place in zip(by_seat, places, strict=True):
            card.get_by_label(f"{s['name']}: {place}.", exact=True).check()
        card.get_by_role("button", name="Report these places").click()
        phone.wait_for_selector("text=Your report was sent.")
        contexts.append(context)
    got = client.get(f"/v1/matches/{m['id']}").json()
    place_of = {s["entry_id"]: s["place"] for s in got["result"]["seats"]}
    assert got["status"] == "confirmed" and [place_of[s["entry_id"]] for s in by_seat] == [2, 1, 3, 3]
    for context in contexts:
        context.close()


def test_a_game_log_pasted_and_uploaded_shows_its_verdict_first(
    server: str, browser: Any, tmp_path: Any
) -> None:
    client = api(server)
    made = client.post(
        "/v1/events",
        json={
            "name": "Rings",
            "game": "rite-of-command",
            "settings": {"stages": [{"format": "swiss", "rounds": 1}]},
        },
        headers=bearer(ADMIN),
    ).json()
    org = bearer(made["organizer_token"])
    rows = [{"name": n} for n in ("Ada", "Barbara", "Claude", "Dana")]
    assert client.post(f"/v1/events/{made['id']}/entries", json=rows, headers=org).status_code == 201
    first, second = client.post(f"/v1/events/{made['id']}/start", headers=org).json()["round"]["matches"]
    page = _console(browser, server, {"id": made["id"], "organizer": made["organizer_token"]})
    for m, how in ((first, "paste"), (second, "upload")):
        row = page.locator(f"#m-{m['id']}")
        row.get_by_text("Game log", exact=True).click()
        if how == "paste":
            row.get_by_label("Paste the game log (JSON)").fill(json.dumps(RINGS))
        else:
            path = tmp_path / "rings.json"
            path.write_text(json.dumps(RINGS))
            row.get_by_label("or choose its file").set_input_files(str(path))
        with page.expect_navigation():
            row.get_by_role("button", name="Show the verdict").click()
        # the verdict, by name, before anything is recorded
        rows_shown = page.locator("table.verdict tbody tr")
        assert rows_shown.nth(0).inner_text().split("\t")[:2] == ["1", m["seats"][1]["name"]]
        assert client.get(f"/v1/matches/{m['id']}").json()["status"] == "pending"
        shot(page, f"console-verdict-{how}")
        with page.expect_navigation():
            page.get_by_role("button", name="Record this result").click()
        got = client.get(f"/v1/matches/{m['id']}").json()
        assert got["status"] == "confirmed" and [s["place"] for s in got["result"]["seats"]] == [2, 1]
        assert page.url.split("#")[0] == f"{server}/console/e/{made['id']}"
    page.context.close()


def test_the_admin_token_opens_an_event_whose_organizer_token_is_lost(server: str, browser: Any) -> None:
    client = api(server)
    made = client.post(
        "/v1/events", json={"name": "Recovered", "game": "generic"}, headers=bearer(ADMIN)
    ).json()
    page = browser.new_page(locale="en-US")
    page.goto(f"{server}/console")
    page.fill("#org-token", ADMIN)
    page.get_by_text("Lost the organizer token?").click()
    page.get_by_label("Event (id or address)").fill(f"{server}/e/{made['id']}")
    with page.expect_navigation():
        page.get_by_role("button", name="Sign in").click()
    assert page.url == f"{server}/console/e/{made['id']}"
    assert page.inner_text("h1").startswith("Recovered")
    page.fill("#names", "Hana\nIchiro")
    with page.expect_navigation():
        page.get_by_role("button", name="Register").click()
    assert client.get(f"/v1/events/{made['id']}").json()["entries"] == 2
    page.close()
