"""A BATTLEBOOKS Clash table from the organizer's console, in Chromium: each seat's hero declared
before the game from the entry's books (a reload sends nothing again), the players' agreeing
reports waiting for the organizer, seen live, and confirmed with one click."""

from __future__ import annotations

from typing import Any

from tests.web.conftest import ADMIN, api, bearer, items, shot

BOOKS = ["Wolverine", "Captain America", "Spider-Man", "Hulk", "Thor", "Storm", "Venom"]


def test_heroes_are_declared_and_agreeing_reports_confirmed_from_the_console(
    server: str, browser: Any
) -> None:
    client = api(server)
    made = client.post(
        "/v1/events",
        json={
            "name": "Clash night",
            "game": "battlebooks",
            "preset": "battlebooks-clash",
            "seed": "battlebooks-web",
        },
        headers=bearer(ADMIN),
    ).json()
    org = bearer(made["organizer_token"])
    rows = [{"name": f"P{i}", "characters": [BOOKS[i % 7], BOOKS[(i + 1) % 7]]} for i in range(8)]
    entries = items(client.post(f"/v1/events/{made['id']}/entries", json=rows, headers=org).json())
    token = {e["id"]: e["entry_token"] for e in entries}
    books = {e["id"]: e["characters"] for e in entries}
    m = client.post(f"/v1/events/{made['id']}/start", headers=org).json()["round"]["matches"][0]
    seats = sorted(m["seats"], key=lambda s: s["seat"])

    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = context.new_page()
    page.goto(f"{server}/console")
    page.fill("#org-token", made["organizer_token"])
    with page.expect_navigation():
        page.get_by_role("button", name="Sign in").click()
    row = page.locator(f"#m-{m['id']}")
    # each seat's hero: one of its own books, chosen and declared (two clicks a seat)
    chosen = {}
    for s in seats:
        hero = books[s["entry_id"]][1]
        row.get_by_label(f"{s['name']}'s hero", exact=True).select_option(hero)
        with page.expect_navigation():
            row.get_by_role("button", name=f"Declare {s['name']}'s hero").click()
        assert page.locator(".error").count() == 0
        chosen[s["entry_id"]] = hero
        page.reload()
    declared = client.get(f"/v1/matches/{m['id']}").json()
    assert {s["entry_id"]: s["character"] for s in declared["seats"]} == chosen
    history = [h["action"] for h in declared["history"]]
    assert history.count("hero") == 2  # the reloads sent nothing again
    assert all(f"({h})" in page.inner_text(f"#m-{m['id']}") for h in chosen.values())

    # both players report the same result from their phones: it waits for the organizer
    body = {"outcome": "timeout", "seats": [{"entry_id": s["entry_id"]} for s in seats]}
    for s in seats:
        r = client.post(f"/v1/matches/{m['id']}/result", json=body, headers=bearer(token[s["entry_id"]]))
        assert r.status_code == 200, r.text
    assert client.get(f"/v1/matches/{m['id']}").json()["status"] == "reported"
    page.wait_for_function(
        "id => document.querySelector('#m-' + id).textContent.includes('Reported')", arg=m["id"]
    )
    shot(page, "console-battlebooks")
    with page.expect_navigation():
        page.locator(f"#m-{m['id']}").get_by_role("button", name="Confirm").click()
    done = client.get(f"/v1/matches/{m['id']}").json()
    assert done["status"] == "confirmed"
    assert {s["entry_id"]: s["character"] for s in done["seats"]} == chosen
    page.reload()
    assert "Confirmed" in page.inner_text(f"#m-{m['id']}")
    context.close()
