"""An 8-player Swiss run entirely from the organizer's console in Chromium: created from a preset
in a season, names pasted, started, three rounds of results by clicks and a key (one a dispute the
organizer rules on), advanced; then the public page and the projector agree with the API's
standings."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from tests.web.conftest import ADMIN, api, bearer, items, shot, submit

NAMES = ["Ada", "Grace", "Alan", "Barbara", "Claude", "Edsger", "Frances", "Ken"]


def _standings_rows(page: Any) -> list[tuple[str, str, str]]:
    rows = page.locator("table.standings tbody tr")
    out = []
    for i in range(rows.count()):
        cells = rows.nth(i).locator("td")
        out.append((cells.nth(0).inner_text(), cells.nth(1).inner_text(), cells.nth(2).inner_text()))
    return out


def _api_rows(standings: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(str(r["rank"]), r["name"], f"{r['points']:g}") for r in standings["rows"]]


def _claim(client: Any, token: str, match_id: str, winner: str, loser: str) -> None:
    body = {"seats": [{"entry_id": winner, "place": 1}, {"entry_id": loser, "place": 2}]}
    r = client.post(f"/v1/matches/{match_id}/result", json=body, headers=bearer(token))
    assert r.status_code == 200, r.text


def test_a_swiss_runs_from_the_console(server: str, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900}, locale="en-US")
    client = api(server)

    # create from a preset, in a season: the form shows the preset's knobs and the seasons
    season = client.post(
        "/v1/seasons", json={"name": "Thursday league", "points": [3, 2, 1]}, headers=bearer(ADMIN)
    ).json()
    page.goto(f"{server}/console")
    page.select_option("#preset", "generic")
    page.wait_for_selector("[name='knob:stages.0.rounds']")
    assert page.input_value("#season") == ""  # none chosen unless the organizer picks one
    page.fill("#admin-token", ADMIN)
    page.fill("#ev-name", "Thursday Swiss")
    page.fill("[name='knob:stages.0.rounds']", "3")
    page.get_by_label("Season").select_option(label="Thursday league")
    submit(page, page.get_by_role("button", name="Create the event"))
    organizer = page.inner_text("#organizer-token").strip()
    submit(page, page.get_by_role("link", name="Open the console"))
    event_id = urlsplit(page.url).path.rsplit("/", 1)[1]
    event = client.get(f"/v1/events/{event_id}").json()
    assert event["preset"] == "generic" and event["settings"]["stages"][0]["rounds"] == 3
    in_season = client.get(f"/v1/seasons/{season['id']}").json()["events"]
    assert [e["event_id"] for e in in_season] == [event_id]

    # paste the names: each player's personal link (its token in the fragment) is shown once
    page.fill("#names", "\n".join(NAMES))
    submit(page, page.get_by_role("button", name="Register"))
    links = page.locator("a.personal")
    assert links.count() == 8
    token_by_name = {}
    for i in range(8):
        href = links.nth(i).get_attribute("href") or ""
        assert urlsplit(href).path == f"/e/{event_id}/me" and "?" not in href
        name = page.locator("#h-links ~ table tbody tr").nth(i).locator("td").first.inner_text()
        token_by_name[name] = urlsplit(href).fragment.removeprefix("token=")
    entries = items(client.get(f"/v1/events/{event_id}/entries").json())
    assert sorted(e["name"] for e in entries) == sorted(NAMES) == sorted(token_by_name)
    token_of = {e["id"]: token_by_name[e["name"]] for e in entries}

    submit(page, page.get_by_role("button", name="Start the event"))
    ruled = None
    for number in (1, 2, 3):
        rnd = client.get(f"/v1/events/{event_id}/rounds/{number}").json()
        matches = [m for m in rnd["matches"] if m["status"] != "bye"]
        assert len(matches) == 4
        if number == 2:  # the players disagree at the first table: a dispute
            m = matches[0]
            a, b = (s["entry_id"] for s in m["seats"])
            _claim(client, token_of[a], m["id"], a, b)
            _claim(client, token_of[b], m["id"], b, a)
            page.reload()
            row = page.locator(f"#m-{m['id']}")
            assert "m-disputed" in (row.get_attribute("class") or "")
            assert "Disputed" in row.inner_text()
            assert "1 disputed" in page.inner_text("#h-round")
            shot(page, "console-dispute")
            submit(page, row.get_by_role("button", name=f"{m['seats'][1]['name']} won"))
            ruled = m["id"]
        for i, m in enumerate(matches):
            if m["id"] == ruled:
                continue
            row = page.locator(f"#m-{m['id']}")
            if number == 1 and i == 0:  # one key on the focused row: the second seat won
                row.focus()
                with page.expect_navigation():
                    page.keyboard.press("2")
            else:
                submit(page, row.get_by_role("button", name=f"{m['seats'][0]['name']} won"))
        statuses = [
            m["status"] for m in client.get(f"/v1/events/{event_id}/rounds/{number}").json()["matches"]
        ]
        assert all(s in ("confirmed", "bye") for s in statuses), statuses
        if number < 3:
            submit(page, page.get_by_role("button", name="Pair the next round"))
    # every planned round is paired: only closing the stage is offered, not a round the API refuses
    assert page.get_by_role("button", name="Pair the next round").count() == 0

    ruling = client.get(f"/v1/matches/{ruled}").json()
    assert [h["action"] for h in ruling["history"]][-1] == "ruling"
    assert ruling["result"]["seats"][0]["place"] == 2  # the organizer gave it to the second seat
    first = client.get(f"/v1/events/{event_id}/rounds/1").json()["matches"][0]
    assert first["result"]["seats"][1]["place"] == 1  # the key "2"
    shot(page, "console")

    submit(page, page.get_by_role("button", name="Close the stage and advance"))
    event = client.get(f"/v1/events/{event_id}", headers=bearer(organizer)).json()
    assert event["status"] == "finished"
    standings = client.get(f"/v1/events/{event_id}/standings").json()
    assert standings["final"]

    public = browser.new_page(viewport={"width": 390, "height": 844}, locale="en-US")
    public.goto(f"{server}/e/{event_id}")
    assert _standings_rows(public) == _api_rows(standings)
    assert f"Winner: {event['winner']['name']}" in public.inner_text("main")
    assert public.locator("#past details").count() == 2
    shot(public, "event")
    public.goto(f"{server}/e/{event_id}/projector")
    assert _standings_rows(public) == _api_rows(standings)
    shot(public, "projector")
    public.close()
    page.close()


def test_the_console_refuses_a_form_without_its_token(server: str, browser: Any) -> None:
    """CSRF: a form posted without the console's token (or from another site) changes nothing."""
    client = api(server)
    made = client.post(
        "/v1/events", json={"name": "Guarded", "game": "generic"}, headers=bearer(ADMIN)
    ).json()
    client.cookies.set("arbiter_console", made["organizer_token"])
    forged = client.post(f"/console/e/{made['id']}/start", data={"csrf": "x"})
    assert forged.status_code == 403
    other = client.post(
        f"/console/e/{made['id']}/cancel",
        data={"csrf": "x"},
        headers={"Origin": "https://evil.example"},
    )
    assert other.status_code == 403
    assert client.get(f"/v1/events/{made['id']}").json()["status"] == "registration"
