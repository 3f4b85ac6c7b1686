"""The round clock and the announcements as the hall sees them (docs/web.md "The round clock and
announcements"): the organizer acts through the API (or a judge), and the projector at 1920×1080,
the public page and a player's phone show the time left large and in words, pause, run out, and
show the announcement — all from the live stream, and right at once after a reload."""

from __future__ import annotations

import time
from typing import Any

from tests.web.conftest import ADMIN, api, bearer, items, shot


def _seconds(text: str) -> int:
    parts = [int(p) for p in text.strip().split(":")]
    total = 0
    for p in parts:
        total = total * 60 + p
    return total


def _wait(page: Any, predicate: str, within: float = 8.0) -> None:
    # a function, not a bare expression: Playwright polls an expression with eval(), which the pages' CSP
    # refuses ('unsafe-eval' is not allowed)
    page.wait_for_function(f"() => {predicate}", timeout=within * 1000)


def test_the_clock_and_announcements_reach_every_screen(hall_server: str, browser: Any) -> None:
    server = hall_server
    client = api(server)
    made = client.post(
        "/v1/events",
        json={
            "name": "Hall Open",
            "game": "generic",
            "settings": {"stages": [{"format": "swiss", "rounds": 3}]},
        },
        headers=bearer(ADMIN),
    ).json()
    org = bearer(made["organizer_token"])
    entries = items(
        client.post(
            f"/v1/events/{made['id']}/entries", json=[{"name": n} for n in "ABCD"], headers=org
        ).json()
    )
    client.post(f"/v1/events/{made['id']}/start", headers=org)
    projector = browser.new_page(viewport={"width": 1920, "height": 1080}, locale="en-US")
    projector.goto(f"{server}/e/{made['id']}/projector")
    phone = browser.new_page(viewport={"width": 390, "height": 844}, locale="ja-JP", is_mobile=True)
    phone.goto(f"{server}/e/{made['id']}/me#{entries[0]['entry_token']}")
    public = browser.new_page(locale="en-US")
    public.goto(f"{server}/e/{made['id']}")
    assert projector.locator("[data-clock]").is_hidden()  # idle: nothing to show

    r = client.post(f"/v1/events/{made['id']}/clock", json={"action": "start", "seconds": 90}, headers=org)
    assert r.status_code == 200, r.text
    for page in (projector, public):
        _wait(page, "document.querySelector('[data-clock-state]').textContent === 'Time left'")
    _wait(phone, "document.querySelector('[data-clock-state]').textContent === '残り時間'")
    left = _seconds(projector.inner_text("[data-clock-time]"))
    assert 80 <= left <= 90, left
    size = projector.evaluate("parseFloat(getComputedStyle(document.querySelector('[data-clock]')).fontSize)")
    assert size >= 48, size  # readable from the back of the hall
    time.sleep(2.2)
    assert _seconds(projector.inner_text("[data-clock-time]")) < left  # it counts down
    shot(projector, "hall-projector-running")

    # a reload shows the right time at once, from the server's answer
    public.reload()
    _wait(public, "document.querySelector('[data-clock-state]').textContent === 'Time left'", within=3)
    assert (
        abs(
            _seconds(public.inner_text("[data-clock-time]"))
            - _seconds(projector.inner_text("[data-clock-time]"))
        )
        <= 1
    )

    # paused: said in words, and the time stands still
    client.post(f"/v1/events/{made['id']}/clock", json={"action": "pause"}, headers=org)
    _wait(projector, "document.querySelector('[data-clock-state]').textContent === 'Paused'")
    held = projector.inner_text("[data-clock-time]")
    time.sleep(1.5)
    assert projector.inner_text("[data-clock-time]") == held

    # an announcement reaches every screen
    text = "Lunch break: round 2 starts at 14:00"
    r = client.post(f"/v1/events/{made['id']}/announcements", json={"text": text}, headers=org)
    assert r.status_code == 201, r.text
    for page in (projector, public, phone):
        _wait(page, f"document.querySelector('[data-announcement]').textContent === {text!r}")
    shot(phone, "hall-phone-announcement")

    # time's up: the server says so, and the screens show it in words
    client.post(f"/v1/events/{made['id']}/clock", json={"action": "stop"}, headers=org)
    client.post(f"/v1/events/{made['id']}/clock", json={"action": "start", "seconds": 2}, headers=org)
    _wait(projector, "document.querySelector('[data-clock-state]').textContent === 'Time is up'", within=10)
    assert projector.inner_text("[data-clock-time]") == "0:00"
    # the page reckons the server's time from its answers, to within a request's latency: the server
    # says the same a moment later at most
    states = []
    for _ in range(30):
        states.append(client.get(f"/v1/events/{made['id']}/clock").json()["state"])
        if states[-1] != "running":
            break
        time.sleep(0.1)
    assert states[-1] == "ended", states
    shot(projector, "hall-projector-time-up")
    # a page opened afterwards shows the latest announcement and the ended clock at once
    late = browser.new_page(locale="en-US")
    late.goto(f"{server}/e/{made['id']}/projector")
    _wait(late, "document.querySelector('[data-clock-state]').textContent === 'Time is up'", within=3)
    assert late.inner_text("[data-announcement]") == text
    for page in (projector, phone, public, late):
        page.close()
