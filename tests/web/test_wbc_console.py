"""A WBC Titan: The Arena event (``wbc-hmwp``) run from the organizer's console alone, in Chromium:
created from its preset, names pasted, started, three heats opened at once by choosing their
players, their scores entered (one heat by the keyboard alone, its keys counted), the seeding read,
the semifinal seated and played, the finalists' Colossal Arena answers recorded, the final played
and the places shown. Every action is followed by a reload that must send nothing again; one
refused action is shown in words and names with what was chosen kept, and the console's live
refresh goes on after it. The public page is then checked row by row against the API."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from app.web.i18n import EN
from tests.web.conftest import ADMIN, UUID, api, items, reloaded, shot, submit

NAMES = ["Anne", "Pippin", "Louis", "Hatshepsut", "Kaori", "Hana", "Ben", "Cleo", "Dmitri"]


def _open_tables(client: Any, event_id: str, stage: int) -> list[dict[str, Any]]:
    rounds = items(client.get(f"/v1/events/{event_id}/rounds", params={"limit": 500}).json())
    return [m for r in rounds if r["stage"] == stage for m in r["matches"] if m["status"] != "confirmed"]


def _scores(m: dict[str, Any], order: list[str]) -> list[str]:
    """Each seat's score, in seat order: the first of ``order`` scores most."""
    by_seat = sorted(m["seats"], key=lambda s: s["seat"])
    return [str(20 - order.index(s["name"])) for s in by_seat]


def _record(page: Any, m: dict[str, Any], order: list[str]) -> None:
    row = page.locator(f"#m-{m['id']}")
    by_seat = sorted(m["seats"], key=lambda s: s["seat"])
    for s, score in zip(by_seat, _scores(m, order), strict=True):
        row.get_by_label(f"{s['name']}: Score", exact=True).fill(score)
    submit(page, row.get_by_role("button", name="Record the places"))


def _placed(page: Any, m: dict[str, Any], order: list[str]) -> None:
    """A semifinal or final table by its places (no score decides a rank there): the row focused,
    one digit a seat in seat order, Enter."""
    by_seat = sorted(m["seats"], key=lambda s: s["seat"])
    if page.evaluate("document.activeElement.id") != f"m-{m['id']}":  # a first table: one focus
        page.locator(f"#m-{m['id']}").click(position={"x": 5, "y": 5})
    page.keyboard.type("".join(str(order.index(s["name"]) + 1) for s in by_seat))
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert client_status(page, m["id"]) == "confirmed"


def client_status(page: Any, match_id: str) -> str:
    base = "/".join(page.url.split("/")[:3])
    return str(api(base).get(f"/v1/matches/{match_id}").json()["status"])


def _places_rows(page: Any) -> list[tuple[str, str, str]]:
    rows = page.locator("#places table.places tbody tr")
    return [
        tuple(rows.nth(i).locator("td").nth(k).inner_text().strip() for k in range(3))  # type: ignore[misc]
        for i in range(rows.count())
    ]


def test_a_wbc_event_runs_from_the_console(server: str, browser: Any) -> None:
    client = api(server)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = context.new_page()

    # created from the preset, whose game the form follows
    page.goto(f"{server}/console")
    page.select_option("#preset", "wbc-hmwp")
    page.wait_for_selector("[name='knob:stages.0.name']")
    games = page.locator("#game option")
    assert sorted(games.nth(i).get_attribute("value") for i in range(games.count())) == [
        "colossal-arena",
        "titan-the-arena",
    ]
    assert page.input_value("#game") == "titan-the-arena"  # the preset's first game: the original
    # a refused creation (a wrong admin token): redirected to the form, which says why and keeps
    # what was typed but the token; a reload sends nothing again
    page.fill("#admin-token", "not-the-admin")
    page.fill("#ev-name", "WBC Titan: The Arena")
    page.select_option("#game", "titan-the-arena")
    submit(page, page.get_by_role("button", name="Create the event"))
    assert page.url == f"{server}/console?preset=wbc-hmwp#create"
    assert page.locator("[role=alert]").count() == 1
    assert page.input_value("#ev-name") == "WBC Titan: The Arena" and page.input_value("#admin-token") == ""
    assert page.input_value("#game") == "titan-the-arena"
    page.reload()
    assert page.locator("[role=alert]").count() == 0
    page.fill("#admin-token", ADMIN)
    page.fill("#ev-name", "WBC Titan: The Arena")
    submit(page, page.get_by_role("button", name="Create the event"))
    submit(page, page.get_by_role("link", name="Open the console"))
    event_id = urlsplit(page.url).path.rsplit("/", 1)[1]
    event = client.get(f"/v1/events/{event_id}").json()
    assert (event["preset"], event["game"]) == ("wbc-hmwp", "titan-the-arena")

    page.fill("#names", "\n".join(NAMES))
    submit(page, page.get_by_role("button", name="Register"))
    shown = page.locator("#links tbody tr")
    links = {
        shown.nth(i).locator("td").nth(0).inner_text(): shown.nth(i)
        .locator("a.personal")
        .get_attribute("href")
        for i in range(shown.count())
    }
    reloaded(page, client, event_id)
    assert client.get(f"/v1/events/{event_id}").json()["entries"] == 9
    submit(page, page.get_by_role("button", name="Start the event"))
    reloaded(page, client, event_id)
    assert page.get_by_role("button", name="Pair the next round").count() == 0
    tables = page.locator("#open-tables")

    # a refused table (two players): in words, and what was chosen stays chosen
    for name in NAMES[:2]:
        tables.get_by_label(f"New table for {name}", exact=True).select_option("1")
    submit(page, tables.get_by_role("button", name="Open these tables"))
    error = page.inner_text(".error")
    assert "a table of 2 is outside the 3–5 seats" in error and not UUID.search(error), error
    assert tables.get_by_label("New table for Pippin", exact=True).input_value() == "1"
    assert _open_tables(client, event_id, 0) == []
    page.reload()
    assert page.locator(".error").count() == 0

    # three heats at once: one choice a player, one click
    heats = [NAMES[0:3], NAMES[3:6], NAMES[6:9]]
    for k, heat in enumerate(heats):
        for name in heat:
            tables.get_by_label(f"New table for {name}", exact=True).select_option(str(k + 1))
    submit(page, tables.get_by_role("button", name="Open these tables"))
    reloaded(page, client, event_id)
    opened = _open_tables(client, event_id, 0)
    assert sorted(sorted(s["name"] for s in m["seats"]) for m in opened) == sorted(sorted(h) for h in heats)
    heat_of = {m["id"]: next(h for h in heats if m["seats"][0]["name"] in h) for m in opened}
    for m in opened:  # who is playing, and where, is shown beside each name
        assert (
            "Round 1 · table"
            in page.locator("#open-tables tbody tr", has_text=m["seats"][0]["name"]).inner_text()
        )

    # a heat recorded with a score left out: refused naming the player, the scores typed kept;
    # a second tab records another heat meanwhile, and the first sees it by itself
    first, second, third = opened
    seats = sorted(first["seats"], key=lambda s: s["seat"])
    row = page.locator(f"#m-{first['id']}")
    row.get_by_label(f"{seats[0]['name']}: Score", exact=True).fill("20")
    submit(page, row.get_by_role("button", name="Record the places"))
    error = page.inner_text(".error")
    assert seats[1]["name"] in error and not UUID.search(error), error
    assert (
        page.locator(f"#m-{first['id']}").get_by_label(f"{seats[0]['name']}: Score", exact=True).input_value()
        == "20"
    )
    other = context.new_page()
    other.goto(f"{server}/console/e/{event_id}")
    _record(other, second, heat_of[second["id"]])
    page.wait_for_function(
        "id => document.querySelector('#m-' + id).textContent.includes('Confirmed')", arg=second["id"]
    )
    other.close()

    # a heat by the keyboard alone: a click in the first score, then scores, Tab, Tab, …, Enter
    page.reload()
    by_seat = sorted(first["seats"], key=lambda s: s["seat"])
    page.locator(f"#m-{first['id']}").get_by_label(f"{by_seat[0]['name']}: Score", exact=True).click()
    keys = 0
    typed = _scores(first, heat_of[first["id"]])
    for i, score in enumerate(typed):
        if i:
            page.keyboard.press("Tab")
            page.keyboard.press("Tab")
            keys += 2
        page.keyboard.type(score)
        keys += len(score)
    with page.expect_navigation():
        page.keyboard.press("Enter")
    keys += 1
    assert keys == 11  # three two-digit scores (6), two Tabs between seats (4), Enter
    got = client.get(f"/v1/matches/{first['id']}").json()
    assert got["status"] == "confirmed", got
    scored = {s["entry_id"]: f"{s['score']:g}" for s in got["result"]["seats"]}
    assert [scored[s["entry_id"]] for s in by_seat] == typed
    reloaded(page, client, event_id)
    _record(page, third, heat_of[third["id"]])
    reloaded(page, client, event_id)

    # the seeding, as the API's semifinal read gives it
    make_up = client.get(f"/v1/events/{event_id}/titan-arena/semifinal").json()
    shown = page.locator("#seeding table.seeding tbody tr")
    assert [shown.nth(i).get_attribute("data-entry") for i in range(shown.count())] == [
        r["entry_id"] for r in make_up["seeding"]
    ]
    assert make_up["winners"] and len(make_up["seats"]) == 6
    shot(page, "wbc-console-heats")

    # the semifinal seated (two tables of three) and played
    submit(page, page.get_by_role("button", name="Close the stage and advance"))
    reloaded(page, client, event_id)
    semis = _open_tables(client, event_id, 1)
    assert len(semis) == 2 and page.locator("#open-tables").count() == 0
    for m in semis:
        assert page.locator(f"#semifinal [data-match='{m['id']}']").count() == 1
    _placed(page, semis[0], sorted(s["name"] for s in semis[0]["seats"]))
    reloaded(page, client, event_id)  # the address names the table recorded: the focus moves on
    page.wait_for_function("id => document.activeElement.id === 'm-' + id", arg=semis[1]["id"])
    _placed(page, semis[1], sorted(s["name"] for s in semis[1]["seats"]))
    reloaded(page, client, event_id)

    # the final drawn; every finalist says yes to Colossal Arena (the organizer for them)
    submit(page, page.get_by_role("button", name="Close the stage and advance"))
    reloaded(page, client, event_id)
    (final,) = _open_tables(client, event_id, 2)
    rules = client.get(f"/v1/events/{event_id}/titan-arena/final-rules").json()
    assert rules["version"] == "titan-the-arena" and len(rules["finalists"]) == 3
    names = {s["entry_id"]: s["name"] for s in final["seats"]}
    # the first finalist answers on their own page (a no, then a yes); the organizer for the others
    first, *others = rules["finalists"]
    phone = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    me = phone.new_page()
    me.goto(str(links[names[first]]))
    part = me.locator("#my-final-rules")
    for answer, said in (
        ("No, the original rules", "You said: No."),
        ("Yes, Colossal Arena", "You said: Yes."),
    ):
        part.get_by_role("button", name=answer).click()
        me.wait_for_function(
            "said => document.querySelector('#my-final-rules').textContent.includes(said)", arg=said
        )
    assert client.get(f"/v1/events/{event_id}/titan-arena/final-rules").json()["choices"] == {first: True}
    reloaded(page, client, event_id)  # the console shows the finalist's own answer
    assert "Yes" in page.inner_text(f"#final-rules [data-entry='{first}']")
    for f in others:
        submit(page, page.get_by_role("button", name=f"{names[f]}: yes, Colossal Arena"))
        reloaded(page, client, event_id)
    me.reload()
    me.wait_for_selector("#my-final-rules")
    assert "Colossal Arena" in me.inner_text("#my-final-rules")
    phone.close()
    rules = client.get(f"/v1/events/{event_id}/titan-arena/final-rules").json()
    assert rules["version"] == "colossal-arena" and all(rules["choices"].values())
    assert "Colossal Arena" in page.inner_text("#h-final-rules")
    assert ", ".join(rules["creatures"]) in page.inner_text("#final-rules")
    _placed(page, final, sorted(names.values()))
    reloaded(page, client, event_id)
    submit(page, page.get_by_role("button", name="Close the stage and advance"))
    reloaded(page, client, event_id)
    assert client.get(f"/v1/events/{event_id}").json()["status"] == "finished"
    shot(page, "wbc-console-final")

    # the public page, row by row, against the API's places and standings
    places = client.get(f"/v1/events/{event_id}/places").json()
    assert places["complete"] and len(places["rows"]) == 9
    public = context.new_page()
    public.goto(f"{server}/e/{event_id}")
    assert _places_rows(public) == [
        (str(r["place"]), r["name"], EN[f"placed_by_{r['decided_by']}"]) for r in places["rows"]
    ]
    standings = client.get(f"/v1/events/{event_id}/standings").json()
    rows = public.locator("table.standings tbody tr")
    assert rows.count() == len(standings["rows"])
    for i, r in enumerate(standings["rows"]):
        cells = rows.nth(i).locator("td")
        assert (cells.nth(0).inner_text(), cells.nth(1).inner_text(), cells.nth(2).inner_text()) == (
            str(r["rank"]),
            r["name"],
            f"{r['points']:g}",
        )
    context.close()
