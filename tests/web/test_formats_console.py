"""The formats with actions of their own, each an event run from the organizer's console alone, in
Chromium: Board Game Arena's two round robins (``bga-round-robin``: capacity, drops, both groups'
games, the best-of-3 final and its registration; ``bga-round-robin-3p``: the BGA tables recorded
and judged, places and violations, a drop, the join deadline), Rite of Command (each table's deal
and the rings its cards went into, the verdict said in words before it is recorded — no JSON, no
id, the adjudicator by its game's name — and read against the verdict the API then holds) and Strategic Titan (a
record pasted or uploaded, the verdict before it is recorded). Every action is followed by a
reload that must send nothing again; each event has a refused action shown in words and names,
what was typed kept, and a live update after it; the public page is checked row by row against
the API's standings."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from app.web.i18n import knob_label
from tests.web.conftest import ADMIN, UUID, api, items, reloaded, shot, submit
from tests.web.test_accessibility import _axe


def _matches(client: Any, event_id: str, stage: int | None = None) -> list[dict[str, Any]]:
    rounds = items(client.get(f"/v1/events/{event_id}/rounds", params={"limit": 500}).json())
    return [m for r in rounds if stage is None or r["stage"] == stage for m in r["matches"]]


def _open(client: Any, event_id: str, stage: int | None = None) -> list[dict[str, Any]]:
    return [m for m in _matches(client, event_id, stage) if m["status"] == "pending"]


def _refused(page: Any, *words: str) -> str:
    error = page.inner_text(".error")
    assert all(w in error for w in words) and not UUID.search(error), error
    return str(error)


def _create(page: Any, server: str, preset: str, game: str, name: str, knobs: dict[str, str]) -> str:
    """An event made on the console's form. Each preset here (``generic``, the BGA round robins)
    suits any game: the form chooses none, and the organizer chooses ``game``."""
    page.goto(f"{server}/console")
    page.select_option("#preset", preset)
    page.wait_for_url(f"**/console?preset={preset}*")
    assert page.input_value("#game") == ""
    assert page.locator("#game option:checked").inner_text() == "— choose the game —"
    page.select_option("#game", game)
    for field, value in knobs.items():
        page.fill(f"[name='{field}']", value)
    page.fill("#admin-token", ADMIN)
    page.fill("#ev-name", name)
    submit(page, page.get_by_role("button", name="Create the event"))
    submit(page, page.get_by_role("link", name="Open the console"))
    event_id = urlsplit(page.url).path.rsplit("/", 1)[1]
    assert api(server).get(f"/v1/events/{event_id}").json()["game"] == game
    return event_id


def _register(page: Any, client: Any, event_id: str, names: list[str]) -> None:
    page.fill("#names", "\n".join(names))
    submit(page, page.get_by_role("button", name="Register"))
    reloaded(page, client, event_id, live=False)


def _public_standings(context: Any, server: str, client: Any, event_id: str) -> None:
    """The public page's standings, row by row, are the API's."""
    standings = client.get(f"/v1/events/{event_id}/standings").json()
    public = context.new_page()
    public.goto(f"{server}/e/{event_id}")
    rows = public.locator("table.standings tbody tr")
    assert rows.count() == len(standings["rows"]) > 0
    for i, r in enumerate(standings["rows"]):
        cells = rows.nth(i).locator("td")
        shown = (
            cells.nth(0).inner_text(),
            cells.nth(1).inner_text().split(" (")[0],
            cells.nth(2).inner_text(),
        )
        assert shown == (str(r["rank"]), r["name"], f"{r['points']:g}"), (i, shown, r)
    public.close()


def _until(check: Any, within: float = 10) -> Any:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError("not reached in time")


def _context(browser: Any) -> Any:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    context.set_default_timeout(10_000)
    return context


def _accessible(browser: Any, context: Any, url: str) -> None:
    """axe-core finds nothing on the page at ``url`` (its forms' details open), signed in as in
    ``context``: in a context of its own that lets axe's script in (the pages' CSP would not)."""
    checking = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US", bypass_csp=True)
    checking.add_cookies(context.cookies())
    page = checking.new_page()
    page.goto(url)
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    found, _ = _axe(page)
    checking.close()
    assert found == [], found


def _by_seat(m: dict[str, Any]) -> list[dict[str, Any]]:
    return sorted(m["seats"], key=lambda s: s["seat"])


# --------------------------------------------------------------------------- 3 players
PR = ["Aiko", "Bruno", "Chiara", "Daichi", "Emeka", "Freya", "Goro"]


def _typed(page: Any, m: dict[str, Any], places: list[int]) -> int:
    """A table's places by the keyboard: its row focused (a click, unless the focus is there
    already), one digit a seat in seat order, Enter. The keys pressed."""
    if page.evaluate("document.activeElement.id") != f"m-{m['id']}":
        page.locator(f"#m-{m['id']}").click(position={"x": 5, "y": 5})
    page.keyboard.type("".join(str(p) for p in places))
    with page.expect_navigation():
        page.keyboard.press("Enter")
    return len(places) + 1


def test_a_bga_3p_round_robin_runs_from_the_console(server: str, browser: Any) -> None:
    client = api(server)
    context = _context(browser)
    page = context.new_page()
    event_id = _create(page, server, "bga-round-robin-3p", "puerto-rico", "Puerto Rico online", {})
    event = client.get(f"/v1/events/{event_id}").json()
    assert (event["preset"], event["game"]) == ("bga-round-robin-3p", "puerto-rico")
    _register(page, client, event_id, PR)
    submit(page, page.get_by_role("button", name="Start the event"))
    _until(lambda: _matches(client, event_id))  # the schedule's job has designed it
    reloaded(page, client, event_id, live=False)
    tables = _matches(client, event_id)
    assert len(tables) == 7 and all(len(m["seats"]) == 3 for m in tables)
    assert page.locator("#bga-settings [data-setting='speed']").inner_text() == "turn-based, 2 moves a day"
    assert page.get_by_role("button", name="Pair the next round").count() == 0
    assert all(page.locator(f"#m-{m['id']}").count() == 1 for m in tables)  # every table at once

    # table 1's BGA table opened with the wrong speed: recorded, and judged not to count
    first = tables[0]
    seat_ids = [s["entry_id"] for s in _by_seat(first)]
    row = page.locator(f"#m-{first['id']}")
    row.locator("summary", has_text="Record a BGA table").click()
    row.get_by_label("BGA table number").fill("500101")
    row.get_by_label("Speed").fill("real-time")
    submit(page, row.get_by_role("button", name=f"Record the BGA table of table {first['table']}"))
    reloaded(page, client, event_id, live=False)
    judged = page.inner_text(f"#m-{first['id']} .bga-tables")
    assert "does not count" in judged and "real-time" in judged, judged
    _accessible(browser, context, page.url)  # the BGA tables, the join deadline's boxes, violations

    # its places are then refused, in words and names, the places typed kept; a second tab
    # records another table meanwhile, and this one sees it by itself
    _typed(page, first, [1, 2, 3])
    _refused(page, "no recorded table of this match counts", "500101")
    for i, place in enumerate([1, 2, 3]):
        assert page.locator(f"#pl-{first['id']}-{i}-{place}").is_checked()
    assert client.get(f"/v1/matches/{first['id']}").json()["status"] == "pending"
    other = context.new_page()
    other.goto(f"{server}/console/e/{event_id}")
    second = tables[1]
    clicks = 0
    for i, place in enumerate([2, 1, 3]):  # by clicks: a place a seat, then the button
        other.locator(f"#pl-{second['id']}-{i}-{place}").click()
        clicks += 1
    submit(other, other.locator(f"#m-{second['id']}").get_by_role("button", name="Record the places"))
    clicks += 1
    assert clicks == 4
    page.wait_for_function(
        "id => document.querySelector('#m-' + id).textContent.includes('Confirmed')", arg=second["id"]
    )
    other.close()

    # the same BGA table twice: refused, the form open again with what was typed
    page.reload()
    row = page.locator(f"#m-{first['id']}")
    row.locator("summary", has_text="Record a BGA table").click()
    row.get_by_label("BGA table number").fill("500101")
    row.get_by_label("Speed").fill("Turn-based, 2 moves a day")
    submit(page, row.get_by_role("button", name=f"Record the BGA table of table {first['table']}"))
    _refused(page, "table 500101 is already recorded")
    row = page.locator(f"#m-{first['id']}")
    assert row.get_by_label("BGA table number").input_value() == "500101"
    assert row.get_by_label("Speed").input_value() == "Turn-based, 2 moves a day"

    # the right table recorded (the site's capitals are its own): it counts, and the places go through
    row.get_by_label("BGA table number").fill("500102")
    row.get_by_label("Created at").fill(datetime.now(UTC).isoformat(timespec="seconds"))
    submit(page, row.get_by_role("button", name=f"Record the BGA table of table {first['table']}"))
    reloaded(page, client, event_id, live=False)
    assert "BGA table 500102: counts" in page.inner_text(f"#m-{first['id']} .bga-tables")
    keys = _typed(page, first, [1, 2, 3])
    assert keys == 4
    got = client.get(f"/v1/matches/{first['id']}").json()
    assert got["status"] == "confirmed", got
    placed = {s["entry_id"]: s["place"] for s in got["result"]["seats"]}
    assert placed == dict(zip(seat_ids, [1, 2, 3], strict=True))
    reloaded(page, client, event_id, live=False)

    # a violation at the third table (its seat 2 resigned): places and a tick
    third = tables[2]
    row = page.locator(f"#m-{third['id']}")
    for i, place in enumerate([1, 1, 3]):
        page.locator(f"#pl-{third['id']}-{i}-{place}").click()
    page.locator(f"#vi-{third['id']}-2").click()
    submit(page, row.get_by_role("button", name="Record the places"))
    reloaded(page, client, event_id, live=False)
    got = client.get(f"/v1/matches/{third['id']}").json()
    violated = {s["entry_id"]: s["violation"] for s in got["result"]["seats"]}
    assert [violated[s["entry_id"]] for s in _by_seat(third)] == [False, False, True], got

    # a player drops: each table of theirs still open is ruled their violation
    still = _open(client, event_id)
    dropped = _by_seat(still[0])[0]
    theirs = [m["id"] for m in still if any(s["entry_id"] == dropped["entry_id"] for s in m["seats"])]
    submit(page, page.get_by_role("button", name=f"Drop {dropped['name']}"))
    reloaded(page, client, event_id, live=False)
    for match_id in theirs:
        got = client.get(f"/v1/matches/{match_id}").json()
        assert (got["status"], got["result"]["outcome"]) == ("confirmed", "forfeit"), got
        violators = [s["entry_id"] for s in got["result"]["seats"] if s["violation"]]
        assert violators == [dropped["entry_id"]], got

    # every table but one by the keyboard (the focus moves on by itself), then the join deadline
    # rules the last one: a player ticked absent violates
    still = _open(client, event_id)
    assert len(still) >= 2
    *played, last = still
    typed = 0
    for m in played:
        typed += _typed(page, m, [3, 1, 2])
        assert client.get(f"/v1/matches/{m['id']}").json()["status"] == "confirmed"
    assert typed == 4 * len(played)  # three digits and Enter a table
    reloaded(page, client, event_id, live=False)
    absent = _by_seat(last)[1]
    page.locator(f"#ab-{last['id']}-1").click()
    submit(page, page.get_by_role("button", name="Close the join deadline"))
    reloaded(page, client, event_id, live=False)
    got = client.get(f"/v1/matches/{last['id']}").json()
    assert [s["entry_id"] for s in got["result"]["seats"] if s["violation"]] == [absent["entry_id"]], got
    shot(page, "bga-3p-console")

    submit(page, page.get_by_role("button", name="Close the stage and advance"))
    reloaded(page, client, event_id, live=False)
    assert client.get(f"/v1/events/{event_id}").json()["status"] == "finished"
    winners = client.get(f"/v1/events/{event_id}/bga").json()["winners"]
    assert winners and all(
        client.get(f"/v1/events/{event_id}/bga").json()["names"][w] in page.inner_text("#bga-winners")
        for w in winners
    )
    _public_standings(context, server, client, event_id)
    context.close()


# --------------------------------------------------------------------------- 2 players
SEASONS = ["Ada", "Bo", "Cyd", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivo", "Jun", "Kai"]


def _groups(matches: list[dict[str, Any]]) -> list[set[str]]:
    """The round robin's groups, as who meets whom (a group's players meet only each other)."""
    groups: list[set[str]] = []
    for m in matches:
        pair = {s["name"] for s in m["seats"]}
        touching = [g for g in groups if g & pair]
        merged = pair.union(*touching)
        groups = [g for g in groups if g not in touching] + [merged]
    return groups


def _key(page: Any, m: dict[str, Any], winner: str | None) -> None:
    """One game by one key on its focused row: the winner's seat (1, 2) or d for a draw."""
    if page.evaluate("document.activeElement.id") != f"m-{m['id']}":
        page.locator(f"#m-{m['id']}").click(position={"x": 5, "y": 5})
    seats = [s["name"] for s in _by_seat(m)]
    with page.expect_navigation():
        page.keyboard.press("d" if winner is None else str(seats.index(winner) + 1))


def test_a_bga_2p_round_robin_and_its_final_run_from_the_console(server: str, browser: Any) -> None:
    client = api(server)
    context = _context(browser)
    page = context.new_page()
    event_id = _create(page, server, "bga-round-robin", "seasons", "Seasons online", {"knob:capacity": "11"})
    event = client.get(f"/v1/events/{event_id}").json()
    assert (event["preset"], event["game"], event["settings"]["capacity"]) == (
        "bga-round-robin",
        "seasons",
        11,
    )

    # one name too many for the capacity: refused in words, the pasted names kept
    page.fill("#names", "\n".join([*SEASONS, "Lee"]))
    submit(page, page.get_by_role("button", name="Register"))
    _refused(page, "11")
    assert page.input_value("#names").splitlines() == [*SEASONS, "Lee"]
    assert client.get(f"/v1/events/{event_id}").json()["entries"] == 0
    page.reload()
    assert page.locator(".error").count() == 0
    _register(page, client, event_id, SEASONS)
    submit(page, page.get_by_role("button", name="Start the event"))
    reloaded(page, client, event_id, live=False)

    # two groups, every game of both released at once
    games = [m for m in _matches(client, event_id, 0) if m["status"] != "bye"]
    groups = _groups(games)
    assert sorted(len(g) for g in groups) == [5, 6] and len(games) == 10 + 15
    assert all(page.locator(f"#m-{m['id']}").count() == 1 for m in games)
    # and on the hall's sheets: the printed pairings and the projector list every released game
    released = _matches(client, event_id, 0)
    for sheet, rows in (
        ("print/pairings", "table.sheet tbody tr"),
        ("projector", "#h-pair ~ table tbody tr"),
    ):
        page.goto(f"{server}/e/{event_id}/{sheet}")
        assert page.locator(rows).count() == len(released), sheet
        assert page.locator(rows).first.inner_text().startswith("Round "), sheet
    page.goto(f"{server}/console/e/{event_id}")

    # a player of the larger group drops: each of their games is resigned, won by the opponent
    big = max(groups, key=len)
    quitter = max(big, key=SEASONS.index)
    submit(page, page.get_by_role("button", name=f"Drop {quitter}"))
    reloaded(page, client, event_id, live=False)
    for m in games:
        if quitter in {s["name"] for s in m["seats"]}:
            got = client.get(f"/v1/matches/{m['id']}").json()
            assert (got["status"], got["result"]["outcome"]) == ("confirmed", "forfeit"), got
            won = next(s["entry_id"] for s in got["result"]["seats"] if s["place"] == 1)
            assert won != next(s["entry_id"] for s in m["seats"] if s["name"] == quitter)

    # every other game by one key (the earlier name wins; one draw between two others of a group)
    left = _open(client, event_id, 0)
    small = min(groups, key=len)
    last_two = sorted(small, key=SEASONS.index)[-2:]
    keys = 0
    for m in left:
        pair = [s["name"] for s in m["seats"]]
        _key(page, m, None if sorted(pair) == sorted(last_two) else min(pair, key=SEASONS.index))
        keys += 1
    assert keys == len(left) and not _open(client, event_id, 0)
    drawn = next(m for m in left if sorted(s["name"] for s in m["seats"]) == sorted(last_two))
    assert client.get(f"/v1/matches/{drawn['id']}").json()["result"]["outcome"] == "draw"
    reloaded(page, client, event_id, live=False)

    # one who would not play the final says so ahead (the next in line would take their place)
    ahead = max(small, key=SEASONS.index)
    page.select_option("#bga-withdraw", label=ahead)
    submit(page, page.get_by_role("button", name="Withdraw from the final"))
    reloaded(page, client, event_id, live=False)
    assert client.get(f"/v1/events/{event_id}/bga").json()["final"]["withdrawn"] == [
        next(e for e, n in client.get(f"/v1/events/{event_id}/bga").json()["names"].items() if n == ahead)
    ]
    assert f"Withdrawn: {ahead}" in page.inner_text("#bga-final")

    # the final: the group winners; one withdraws and the next of that group takes the seat
    submit(page, page.get_by_role("button", name="Close the stage and advance"))
    reloaded(page, client, event_id, live=False)
    winners = sorted(min(g - {quitter}, key=SEASONS.index) for g in groups)
    final = client.get(f"/v1/events/{event_id}/bga").json()["final"]
    assert (final["format"], final["best_of"], final["rated"]) == ("series", 3, False)
    names = client.get(f"/v1/events/{event_id}/bga").json()["names"]
    assert sorted(names[e] for e in final["finalists"]) == winners
    out = winners[1]
    submit(page, page.get_by_role("button", name=f"{out} withdraws from the final"))
    reloaded(page, client, event_id, live=False)
    group_of_out = next(g for g in groups if out in g)
    finalists = [names[e] for e in client.get(f"/v1/events/{event_id}/bga").json()["final"]["finalists"]]
    (replacement,) = [f for f in finalists if f != winners[0]]
    assert replacement in group_of_out and replacement not in (out, quitter)
    for f in finalists:
        submit(page, page.get_by_role("button", name=f"Register {f} for the final"))
        reloaded(page, client, event_id, live=False)
    assert "registered" in page.inner_text("#bga-final")
    submit(page, page.get_by_role("button", name="Close the final's registration"))
    reloaded(page, client, event_id, live=False)
    final = client.get(f"/v1/events/{event_id}/bga").json()["final"]
    assert final["deadline_closed"] and final["forfeits"] == []  # both registered: nobody forfeits
    assert "Registration for the final: closed" in page.inner_text("#bga-final")

    # the best-of-3: two wins decide it; a result for the third game is refused by name
    series = _open(client, event_id, 1)
    assert len(series) == 3
    champion = winners[0]
    for m in series[:2]:
        _key(page, m, champion)
        reloaded(page, client, event_id, live=False)
    other = context.new_page()
    other.goto(f"{server}/console/e/{event_id}")
    _key(page, series[2], replacement)
    _refused(page, "the best-of-3 final is decided", champion)
    assert client.get(f"/v1/matches/{series[2]['id']}").json()["status"] == "pending"

    # closed from a second tab: the first sees the winner by itself
    submit(other, other.get_by_role("button", name="Close the stage and advance"))
    page.wait_for_selector("#bga-winners")
    assert champion in page.inner_text("#bga-winners")
    other.close()
    reloaded(page, client, event_id, live=False)
    assert client.get(f"/v1/events/{event_id}").json()["status"] == "finished"
    voided = client.get(f"/v1/matches/{series[2]['id']}").json()
    assert voided["result"]["outcome"] == "void", voided
    shot(page, "bga-2p-console")
    _public_standings(context, server, client, event_id)
    context.close()


# --------------------------------------------------------------------------- adjudicated games
def _verdict_places(page: Any) -> dict[str, int]:
    """The verdict page's places, by name (nothing recorded yet)."""
    rows = page.locator("table.verdict tbody tr")
    return {
        rows.nth(i).locator("td").nth(1).inner_text(): int(rows.nth(i).locator("td").nth(0).inner_text())
        for i in range(rows.count())
    }


def _placed(client: Any, match_id: str) -> dict[str, int]:
    got = client.get(f"/v1/matches/{match_id}").json()
    assert got["status"] == "confirmed", got
    names = {s["entry_id"]: s["name"] for s in got["seats"]}
    return {names[s["entry_id"]]: s["place"] for s in got["result"]["seats"]}


def _commit_verdict(page: Any, client: Any, event_id: str, match_id: str) -> None:
    """The verdict shown, recorded with one click, and the same places in the API."""
    assert "Nothing is recorded yet" in page.inner_text("#h-verdict + p")
    shown = _verdict_places(page)
    assert client.get(f"/v1/matches/{match_id}").json()["status"] == "pending"
    submit(page, page.get_by_role("button", name="Record this result"))
    assert _placed(client, match_id) == shown
    reloaded(page, client, event_id, live=False)


ROC = ["Ramses", "Nefert", "Khufu", "Tiye"]


def _duel_said(page: Any) -> dict[str, Any]:
    """The Rite of Command verdict page in words, read before anything is recorded: no JSON and no
    id on it, the adjudicator by its game's name."""
    shown = page.inner_text("main")
    assert page.locator("pre.verdict-json").count() == 0 and "{" not in shown, shown
    assert not UUID.search(shown), shown
    assert page.inner_text("#h-verdict ~ p.meta") == "Adjudicator: Rite of Command"
    rows = page.locator("table.roc-facts tbody tr")
    return {
        "outcome": page.inner_text("#roc-outcome"),
        "rings": page.locator("#roc-rings li").all_inner_texts(),
        "rows": [rows.nth(i).locator("td, th").all_inner_texts() for i in range(rows.count())],
        "wagers": page.locator("#roc-wagers").all_inner_texts(),
    }


def _duel_checked(
    said: dict[str, Any], client: Any, m: dict[str, Any], stakes: tuple[str, str] = ("", "")
) -> None:
    """The words shown were the verdict the API then recorded: who won by two rings (or the
    draw), each ring's winner and every fight's powers, each player's place, rings and wager."""
    got = client.get(f"/v1/matches/{m['id']}").json()
    assert got["verdict"]["adjudicator"] == "rite-of-command", got
    verdict = got["verdict"]["rite_of_command"]
    seats = [s["name"] for s in _by_seat(got)]
    won = [verdict["rings_won"][p] for p in ("1", "2")]
    if verdict["winner"]:
        w = verdict["winner"] - 1
        assert said["outcome"] == (
            f"{seats[w]} wins: two rings of the three win the game, and {seats[w]} took {won[w]}, "
            f"{seats[1 - w]} {won[1 - w]}."
        )
    else:
        assert said["outcome"].startswith("A draw: two rings of the three win the game, and nobody took two")
    assert len(said["rings"]) == 3
    for ring, text in zip(verdict["rings"], said["rings"], strict=True):
        who = seats[ring["winner"] - 1] if ring["winner"] else "nobody"
        assert text.startswith(f"Ring {ring['ring']} to {who}:"), text
        powers = [(f["p1_power"], f["p2_power"])[:: 1 if f["winner"] == 1 else -1] for f in ring["fights"]]
        assert [p for p in powers if f"{p[0]} to {p[1]}" in text or f"both at {p[0]}" in text] == powers, text
    placed = _placed(client, m["id"])
    wagered = any(stakes)
    assert [r[:3] for r in said["rows"]] == sorted(
        ([str(placed[n]), n, str(won[k])] for k, n in enumerate(seats)), key=lambda r: r[0]
    )
    if wagered:
        assert {r[1]: r[3] for r in said["rows"]} == dict(zip(seats, (s or "—" for s in stakes), strict=True))
        taker = seats[verdict["winner"] - 1] if verdict["winner"] else None
        assert said["wagers"] == [
            f"{taker} takes both wagers." if taker else "A draw: each wager goes back to its owner."
        ]
    else:
        assert said["wagers"] == [] and all(len(r) == 3 for r in said["rows"])


def _dealt(page: Any, m: dict[str, Any], rings: str, wagers: tuple[str, str] = ("", "")) -> None:
    """A table's deal opened from the console (six cards a player), the rings typed, the verdict asked."""
    submit(page, page.get_by_role("button", name=f"Deal table {m['table']}"))
    page.fill("#rings", rings)
    page.fill("#wager-1", wagers[0])
    page.fill("#wager-2", wagers[1])
    submit(page, page.get_by_role("button", name="Show the verdict"))


def test_a_rite_of_command_event_runs_from_the_console(server: str, browser: Any) -> None:
    client = api(server)
    context = _context(browser)
    page = context.new_page()
    event_id = _create(
        page, server, "generic", "rite-of-command", "Arena duels", {"knob:stages.0.rounds": "2"}
    )
    _register(page, client, event_id, ROC)
    submit(page, page.get_by_role("button", name="Start the event"))
    reloaded(page, client, event_id, live=False)
    first, second = _open(client, event_id)

    # table 1's deal, for its players: the same six cards each, in two orders, and who starts
    desk = context.new_page()
    desk.goto(f"{server}/console/e/{event_id}")
    submit(desk, desk.get_by_role("button", name=f"Deal table {first['table']}"))
    seats = [s["name"] for s in _by_seat(first)]
    starts = desk.inner_text("#roc-first")
    assert any(starts == f"{n} plays first." for n in seats), starts
    decks = [
        [desk.locator("table.deal tbody tr").nth(k).locator("td").nth(p).inner_text() for k in range(6)]
        for p in (1, 2)
    ]
    assert sorted(decks[0]) == sorted(decks[1]) and decks[0] != decks[1]
    _accessible(browser, context, desk.url)
    desk.reload()  # the same deal again: the match's seed deals it
    assert desk.inner_text("table.deal") and desk.inner_text("#roc-first") == starts

    # a turn left out: refused in words, the rings typed kept; then the record judged and recorded
    desk.fill("#rings", "12312312312")
    desk.fill("#wager-1", "10")
    submit(desk, desk.get_by_role("button", name="Show the verdict"))
    _refused(desk, "12 turns, not 11")
    assert desk.input_value("#rings") == "12312312312" and desk.input_value("#wager-1") == "10"
    desk.fill("#rings", "123123123123")
    desk.fill("#wager-2", "20 linen")
    submit(desk, desk.get_by_role("button", name="Show the verdict"))
    said = _duel_said(desk)
    _commit_verdict(desk, client, event_id, first["id"])
    _duel_checked(said, client, first, ("10", "20 linen"))
    # the console open all along sees it by itself
    page.wait_for_function(
        "id => document.querySelector('#m-' + id).textContent.includes('Confirmed')", arg=first["id"]
    )
    desk.close()

    _dealt(page, second, "111222333111")
    said = _duel_said(page)
    _commit_verdict(page, client, event_id, second["id"])
    _duel_checked(said, client, second)
    submit(page, page.get_by_role("button", name="Pair the next round"))
    reloaded(page, client, event_id, live=False)
    for m, rings in zip(_open(client, event_id), ("332211332211", "213213213213"), strict=True):
        _dealt(page, m, rings)
        said = _duel_said(page)
        _commit_verdict(page, client, event_id, m["id"])
        _duel_checked(said, client, m)
    submit(page, page.get_by_role("button", name="Close the stage and advance"))
    reloaded(page, client, event_id, live=False)
    assert client.get(f"/v1/events/{event_id}").json()["status"] == "finished"
    shot(page, "roc-console")
    _public_standings(context, server, client, event_id)
    context.close()


TITANS = ["Ann", "Bob", "Cho", "Dag"]


def _st_record(players: list[str], again: int) -> dict[str, Any]:
    """A short Strategic Titan game, called after two turns each: the first player scores 30; the
    second player's second number is ``again`` (5 repeats their first: rule 4.2)."""
    a, b = players
    return {
        "players": players,
        "events": [
            {"type": "start", "towers": [100, 400]},
            {"type": "movement", "player": a, "number": 3},
            {"type": "points", "player": a, "points": 30},
            {"type": "movement", "player": b, "number": 5},
            {"type": "movement", "player": a, "number": 4},
            {"type": "movement", "player": b, "number": again},
            {"type": "end"},
        ],
    }


def test_a_strategic_titan_event_runs_from_the_console(server: str, browser: Any) -> None:
    client = api(server)
    context = _context(browser)
    page = context.new_page()
    event_id = _create(
        page, server, "generic", "strategic-titan", "Strategic Titan night", {"knob:stages.0.rounds": "1"}
    )
    _register(page, client, event_id, TITANS)
    submit(page, page.get_by_role("button", name="Start the event"))
    reloaded(page, client, event_id, live=False)
    first, second = _open(client, event_id)

    # a record that breaks rule 4.2 (a number of the player's last two turns): refused by rule and
    # name, the pasted record kept, nothing recorded
    players = [s["name"] for s in _by_seat(first)]
    broken = json.dumps(_st_record(players, 5))
    row = page.locator(f"#m-{first['id']}")
    assert row.locator("[data-record-players]").inner_text() == (
        f"The record's players, in seat order: {', '.join(players)}."
    )
    row.locator("summary", has_text="Game log").click()
    row.get_by_label("Paste the game log (JSON)").fill(broken)
    submit(page, row.get_by_role("button", name="Show the verdict"))
    _refused(page, "4.2", players[1])
    assert page.locator(f"#log-{first['id']}").input_value() == broken
    assert client.get(f"/v1/matches/{first['id']}").json()["status"] == "pending"

    # a second tab uploads the other table's record as a file: this one sees it by itself
    other = context.new_page()
    other.goto(f"{server}/console/e/{event_id}")
    upload = json.dumps(_st_record([s["name"] for s in _by_seat(second)], 6)).encode()
    other_row = other.locator(f"#m-{second['id']}")
    other_row.locator("summary", has_text="Game log").click()
    other_row.get_by_label("or choose its file").set_input_files(
        {"name": "game.json", "mimeType": "application/json", "buffer": upload}
    )
    submit(other, other_row.get_by_role("button", name="Show the verdict"))
    assert _verdict_places(other) == {s["name"]: k + 1 for k, s in enumerate(_by_seat(second))}
    _commit_verdict(other, client, event_id, second["id"])
    page.wait_for_function(
        "id => document.querySelector('#m-' + id).textContent.includes('Confirmed')", arg=second["id"]
    )
    other.close()

    # the record put right: the verdict (the first player ahead on points), then recorded
    page.reload()
    row = page.locator(f"#m-{first['id']}")
    row.locator("summary", has_text="Game log").click()
    row.get_by_label("Paste the game log (JSON)").fill(json.dumps(_st_record(players, 6)))
    submit(page, row.get_by_role("button", name="Show the verdict"))
    assert _verdict_places(page) == {players[0]: 1, players[1]: 2}
    _commit_verdict(page, client, event_id, first["id"])

    submit(page, page.get_by_role("button", name="Close the stage and advance"))
    reloaded(page, client, event_id, live=False)
    assert client.get(f"/v1/events/{event_id}").json()["status"] == "finished"
    shot(page, "strategic-titan-console")
    _public_standings(context, server, client, event_id)
    context.close()


def test_a_scoring_bye_is_labelled_as_points_not_as_who_gets_it() -> None:
    """``scoring.bye`` (points, the BGA presets' 0) and a stage's ``bye`` (who gets it) are two
    settings of one name: each has its own words."""
    assert knob_label("en", "stages.1.scoring.bye") == "Stage 2 · Scoring · Points for a bye"
    assert knob_label("ja", "scoring.bye") == "得点 · 不戦勝の勝ち点"
    assert knob_label("en", "stages.0.bye") == "Stage 1 · Who gets the bye"
