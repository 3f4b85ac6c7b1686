"""Results as a club night enters them, in Chromium: draws from the console's button, its ``d`` key
and the players' pages; a refused result in words and names, shown after the redirect; the live
refresh and a second console tab after it; a reload that never resubmits."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.web.conftest import ADMIN, api, bearer, items, shot

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
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
    # the d key on a focused row: one key
    page.locator(f"#m-{second['id']}").focus()
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
    m = club["matches"][0]
    a, b = (s["name"] for s in m["seats"])
    with other.expect_navigation():
        other.locator(f"#m-{m['id']}").get_by_role("button", name=f"{a} won").click()
    assert _places(server, m["id"]) == ("confirmed", [1, 2])
    # the first tab still shows the old buttons only if its live refresh is slow: press the
    # result the stale way, as a form post, and read the refusal
    page.evaluate(
        """([id, csrf]) => { const f = document.createElement('form'); f.method = 'post';
        f.action = location.pathname + '/matches/' + id + '/result';
        for (const [k, v] of [['csrf', csrf], ['choice', 'seat:1']]) {
          const i = document.createElement('input'); i.name = k; i.value = v; i.type = 'hidden'; f.append(i); }
        document.body.append(f); f.submit(); }""",
        [m["id"], page.locator("input[name=csrf]").first.get_attribute("value")],
    )
    page.wait_for_selector(".error")
    error = page.inner_text(".error")
    assert f"Table {m['table']}'s result was already recorded" in error, error
    assert not UUID.search(error) and "PUT" not in error, error
    assert _places(server, m["id"]) == ("confirmed", [1, 2])  # nothing changed
    shot(page, "console-refused")
