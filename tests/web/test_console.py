"""An 8-player Swiss run entirely from the organizer's console in Chromium: created from a preset
(its game chosen: the generic preset names none) in a season, names pasted, started, two rounds of results (by
keys, then by clicks), one table disputed by its two players from their own pages and ruled on by the
organizer, advanced, a reload after every console action; then the public page and the projector
agree with the API's standings. The organizer's clicks and keys are counted a round, as they are
for a round of four tables of four (docs/web.md "Accessibility and layout")."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from tests.web.conftest import ADMIN, api, bearer, four_a_table, items, reloaded, shot, submit

NAMES = ["Ada", "Grace", "Alan", "Barbara", "Claude", "Edsger", "Frances", "Ken"]
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


class Counted:
    """The organizer's hands: every click and key press the test makes on the console goes through
    here and is counted (``take`` answers the count since the last ``take``)."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.actions = 0

    def click(self, locator: Any, **how: Any) -> None:
        self.actions += 1
        locator.click(**how)

    def submit(self, locator: Any) -> None:
        with self.page.expect_navigation():
            self.click(locator)

    def press(self, key: str) -> None:
        self.actions += 1
        self.page.keyboard.press(key)

    def press_to_submit(self, key: str) -> None:
        with self.page.expect_navigation():
            self.press(key)

    def take(self) -> int:
        n, self.actions = self.actions, 0
        return n


def _focused(page: Any, match_id: str) -> None:
    """The console came back with the focus on this table's row, by itself."""
    page.wait_for_function(
        "id => document.activeElement && document.activeElement.id === 'm-' + id", arg=match_id
    )


def _standings_rows(page: Any) -> list[tuple[str, str, str]]:
    rows = page.locator("table.standings tbody tr")
    out = []
    for i in range(rows.count()):
        cells = rows.nth(i).locator("td")
        out.append((cells.nth(0).inner_text(), cells.nth(1).inner_text(), cells.nth(2).inner_text()))
    return out


def _api_rows(standings: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(str(r["rank"]), r["name"], f"{r['points']:g}") for r in standings["rows"]]


def _open_tables(client: Any, event_id: str, number: int) -> list[dict[str, Any]]:
    rnd = client.get(f"/v1/events/{event_id}/rounds/{number}").json()
    return [m for m in rnd["matches"] if m["status"] != "bye"]


def _claim_on_their_page(browser: Any, server: str, link: str, match_id: str) -> str:
    """A player opens their personal link on their phone and presses "I won": what the page says."""
    context = browser.new_context(**PHONE, locale="en-US")
    phone = context.new_page()
    phone.goto(link)
    phone.locator(f"#m-{match_id}").get_by_role("button", name="I won").click()
    phone.wait_for_selector("text=Your report was sent.")
    said = str(phone.inner_text("#me-status"))
    context.close()
    return said


def test_a_swiss_runs_from_the_console(server: str, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900}, locale="en-US")
    client = api(server)

    # create from a preset, in a season: the form shows the preset's knobs and the seasons; the
    # generic preset suits any game, so no game is chosen for the organizer and the form is not sent
    # until one is
    season = client.post(
        "/v1/seasons", json={"name": "Thursday league", "points": [3, 2, 1]}, headers=bearer(ADMIN)
    ).json()
    page.goto(f"{server}/console")
    page.select_option("#preset", "generic")
    page.wait_for_url(f"{server}/console?preset=generic")
    assert page.input_value("#game") == ""
    assert page.locator("#game option:checked").inner_text() == "— choose the game —"
    assert page.input_value("#season") == ""  # none chosen unless the organizer picks one
    page.fill("#admin-token", ADMIN)
    page.fill("#ev-name", "Thursday Swiss")
    page.fill("[name='knob:stages.0.rounds']", "2")
    page.get_by_label("Season").select_option(label="Thursday league")
    page.get_by_role("button", name="Create the event").click()
    assert page.url == f"{server}/console?preset=generic"  # the browser kept the form
    assert page.eval_on_selector("#game", "e => e.validationMessage")  # and said why
    page.select_option("#game", "generic")
    submit(page, page.get_by_role("button", name="Create the event"))
    organizer = page.inner_text("#organizer-token").strip()
    event_id = urlsplit(page.get_by_role("link", name="Open the console").get_attribute("href")).path
    event_id = event_id.rsplit("/", 1)[1]
    event = client.get(f"/v1/events/{event_id}").json()
    assert (event["preset"], event["game"]) == ("generic", "generic")
    assert event["settings"]["stages"][0]["rounds"] == 2
    # a reload of the token's page shows the new event's console: no second event is made
    reloaded(page, client, event_id)
    assert page.url == f"{server}/console/e/{event_id}"
    made = items(client.get("/v1/events", params={"limit": 100}).json())
    assert [e["id"] for e in made if e["name"] == "Thursday Swiss"] == [event_id]
    in_season = client.get(f"/v1/seasons/{season['id']}").json()["events"]
    assert [e["event_id"] for e in in_season] == [event_id]

    # paste the names: each player's personal link (its token in the fragment) is shown once
    page.fill("#names", "\n".join(NAMES))
    submit(page, page.get_by_role("button", name="Register"))
    links = page.locator("a.personal")
    assert links.count() == 8
    link_of = {}
    for i in range(8):
        href = links.nth(i).get_attribute("href") or ""
        assert urlsplit(href).path == f"/e/{event_id}/me" and "?" not in href
        assert urlsplit(href).fragment.startswith("token=")
        link_of[page.locator("#h-links ~ table tbody tr").nth(i).locator("td").first.inner_text()] = href
    reloaded(page, client, event_id)
    entries = items(client.get(f"/v1/events/{event_id}/entries").json())
    assert sorted(e["name"] for e in entries) == sorted(NAMES) == sorted(link_of)
    link_of_entry = {e["id"]: link_of[e["name"]] for e in entries}

    submit(page, page.get_by_role("button", name="Start the event"))
    reloaded(page, client, event_id)
    hands = Counted(page)
    counted = []
    ruled = None
    for number in (1, 2):
        matches = _open_tables(client, event_id, number)
        assert len(matches) == 4
        if number == 1:
            # by keys: one click on the first row, then one key a table (the first table's second
            # seat won, "2"; then "1"), the focus moving on to the next open table by itself
            hands.click(page.locator(f"#m-{matches[0]['id']}"), position={"x": 5, "y": 5})
            for i, m in enumerate(matches):
                _focused(page, m["id"])
                hands.press_to_submit("2" if i == 0 else "1")
                reloaded(page, client, event_id)
        else:
            if number == 2:
                # the players of the first table both say they won, each on their own phone: a
                # dispute, which the console shows by itself
                m = matches[0]
                said = [
                    _claim_on_their_page(browser, server, link_of_entry[s["entry_id"]], m["id"])
                    for s in m["seats"]
                ]
                assert "It differs from another player's" in said[1], said
                page.wait_for_function(
                    "id => document.querySelector('#m-' + id).classList.contains('m-disputed')",
                    arg=m["id"],
                )
                row = page.locator(f"#m-{m['id']}")
                assert "Disputed" in row.inner_text()
                assert "1 disputed" in page.inner_text("#h-round")
                shot(page, "console-dispute")
                hands.submit(row.get_by_role("button", name=f"{m['seats'][1]['name']} won"))
                reloaded(page, client, event_id)
                ruled = m["id"]
            # by clicks: one a table, the first seat's button
            for m in matches:
                if m["id"] != ruled:
                    row = page.locator(f"#m-{m['id']}")
                    hands.submit(row.get_by_role("button", name=f"{m['seats'][0]['name']} won"))
                    reloaded(page, client, event_id)
        statuses = [m["status"] for m in _open_tables(client, event_id, number)]
        assert statuses == ["confirmed"] * 4, statuses
        if number == 1:
            hands.submit(page.get_by_role("button", name="Pair the next round"))
        else:
            # every planned round is paired: only closing the stage is offered, not a round the
            # API refuses
            assert page.get_by_role("button", name="Pair the next round").count() == 0
            shot(page, "console")
            hands.submit(page.get_by_role("button", name="Close the stage and advance"))
        reloaded(page, client, event_id)
        counted.append(hands.take())
    # a round of four tables: by keys, 1 click + 4 keys + 1 click to pair the next; by clicks
    # (one of them the ruling on the dispute), 4 clicks + 1 to close the stage
    assert counted == [6, 5], counted

    ruling = client.get(f"/v1/matches/{ruled}").json()
    # two claims, from the players' own pages, then the organizer's ruling
    assert [(h["action"], h["actor"]) for h in ruling["history"]] == [
        *(("claim", f"entry:{s['entry_id']}") for s in ruling["seats"]),
        ("ruling", "organizer"),
    ], ruling["history"]
    assert ruling["result"]["seats"][0]["place"] == 2  # the organizer gave it to the second seat
    first = client.get(f"/v1/events/{event_id}/rounds/1").json()["matches"][0]
    assert first["result"]["seats"][1]["place"] == 1  # the key "2"

    event = client.get(f"/v1/events/{event_id}", headers=bearer(organizer)).json()
    assert event["status"] == "finished"
    standings = client.get(f"/v1/events/{event_id}/standings").json()
    assert standings["final"]

    public = browser.new_page(viewport={"width": 390, "height": 844}, locale="en-US")
    public.goto(f"{server}/e/{event_id}")
    assert _standings_rows(public) == _api_rows(standings)
    # two rounds may leave first place shared (then nobody is the winner); else the page names them
    top = [r["name"] for r in standings["rows"] if r["rank"] == 1]
    if len(top) == 1:
        assert event["winner"]["name"] == top[0]
        assert f"Winner: {top[0]}" in public.inner_text("main")
    else:
        assert event["winner"] is None and "Winner:" not in public.inner_text("main")
    assert public.locator("#past details").count() == 1
    shot(public, "event")
    public.goto(f"{server}/e/{event_id}/projector")
    assert _standings_rows(public) == _api_rows(standings)
    shot(public, "projector")
    public.close()
    page.close()


FOURS = [f"P{i:02d}" for i in range(1, 17)]


def test_a_round_of_four_tables_of_four_costs_a_digit_a_seat(server: str, browser: Any) -> None:
    """16 players at four tables of four, two rounds entered on the console: the first by the
    keyboard alone (a click on the first row, then a digit a seat and Enter, the focus moving on),
    the second by clicks (a place a seat, then "Record the places"); every action counted."""
    client = api(server)
    made, org = four_a_table(client, FOURS)
    assert client.post(f"/v1/events/{made['id']}/start", headers=org).status_code == 200
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = context.new_page()
    page.goto(f"{server}/console")
    page.fill("#org-token", made["organizer_token"])
    submit(page, page.get_by_role("button", name="Sign in"))
    hands = Counted(page)
    places = {1: [2, 1, 4, 3], 2: [1, 1, 3, 4]}  # by seat; the second round has a tie for first
    counted = []
    for number in (1, 2):
        tables = _open_tables(client, made["id"], number)
        assert len(tables) == 4 and all(len(m["seats"]) == 4 for m in tables)
        if number == 1:
            hands.click(page.locator(f"#m-{tables[0]['id']}"), position={"x": 5, "y": 5})
        for m in tables:
            if number == 1:
                _focused(page, m["id"])
                for place in places[1]:
                    hands.press(str(place))
                hands.press_to_submit("Enter")
            else:
                row = page.locator(f"#m-{m['id']}")
                by_seat = sorted(m["seats"], key=lambda s: s["seat"])
                for s, place in zip(by_seat, places[2], strict=True):
                    hands.click(row.get_by_label(f"{s['name']}: {place}.", exact=True))
                hands.submit(row.get_by_role("button", name="Record the places"))
        for m in tables:
            got = client.get(f"/v1/matches/{m['id']}").json()
            place_of = {s["entry_id"]: s["place"] for s in got["result"]["seats"]}
            by_seat = sorted(m["seats"], key=lambda s: s["seat"])
            assert got["status"] == "confirmed", got
            assert [place_of[s["entry_id"]] for s in by_seat] == places[number], got
        name = "Pair the next round" if number == 1 else "Close the stage and advance"
        hands.submit(page.get_by_role("button", name=name))
        counted.append(hands.take())
    # by keys: 1 click + 4 tables × (4 digits + Enter) + 1 click to pair; by clicks: 4 × (4 + 1) + 1
    assert counted == [22, 21], counted
    assert client.get(f"/v1/events/{made['id']}").json()["status"] == "finished"
    context.close()


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
