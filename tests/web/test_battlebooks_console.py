"""The five BATTLEBOOKS presets, each a complete event run from the organizer's console and the
players' own pages alone, in Chromium: created from the preset's form, players registered (a CSV
of books, or pasted names), started, every game recorded — wins with body points, draws by a
key, places with ties at an eight-seat table, the players' own reports — through to the last
stage; a reload after the actions sends nothing again, one refused action is shown in words and
names with what was chosen kept, and a live update reaches the page after it. The public page's
standings are then checked row by row against the API's."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from tests.web.conftest import ADMIN, UUID, api, items, reloaded, shot, submit


# --------------------------------------------------------------------------- the walk's steps
def _tables(client: Any, event_id: str) -> list[dict[str, Any]]:
    """The tables still to record, each as ``GET /v1/matches/{id}``."""
    rounds = items(client.get(f"/v1/events/{event_id}/rounds", params={"limit": 500}).json())
    ids = [m["id"] for r in rounds for m in r["matches"] if m["status"] not in ("confirmed", "void")]
    return [client.get(f"/v1/matches/{i}").json() for i in ids]


def _seats(m: dict[str, Any]) -> list[dict[str, Any]]:
    return sorted(m["seats"], key=lambda s: s["seat"])


def _create(
    page: Any, server: str, client: Any, preset: str, name: str, off: tuple[str, ...] = (), rounds: str = ""
) -> str:
    """The event made from the console's form (the preset's game follows), ``off`` its switches
    turned off, ``rounds`` the Swiss stage's rounds (blank: by the field); the console opened.
    Its id."""
    page.goto(f"{server}/console")
    with page.expect_navigation():
        page.select_option("#preset", preset)
    assert page.input_value("#game") == "battlebooks"
    for knob in off:
        page.locator(f"[name='knob:{knob}']").uncheck()
    if rounds:
        page.fill("[name='knob:stages.0.rounds']", rounds)
    page.fill("#admin-token", ADMIN)
    page.fill("#ev-name", name)
    submit(page, page.get_by_role("button", name="Create the event"))
    submit(page, page.get_by_role("link", name="Open the console"))
    event_id = str(urlsplit(page.url).path.rsplit("/", 1)[1])
    assert client.get(f"/v1/events/{event_id}").json()["preset"] == preset
    return event_id


def _register_csv(page: Any, rows: list[tuple[str, ...]]) -> dict[str, str]:
    """Players and their books from a CSV file (``name,characters``, books split by ``|``); their
    personal links, shown once, by name."""
    text = "name,characters\n" + "".join(f"{r[0]},{'|'.join(r[1:])}\n" for r in rows)
    page.set_input_files(
        "#csv", files=[{"name": "players.csv", "mimeType": "text/csv", "buffer": text.encode()}]
    )
    return _links_after(page)


def _register_names(page: Any, names: list[str]) -> dict[str, str]:
    page.fill("#names", "\n".join(names))
    return _links_after(page)


def _links_after(page: Any) -> dict[str, str]:
    submit(page, page.get_by_role("button", name="Register"))
    assert page.locator(".error").count() == 0, page.inner_text(".error")
    rows = page.locator("#links tbody tr")
    return {
        rows.nth(i).locator("td").nth(0).inner_text(): str(
            rows.nth(i).locator("a.personal").get_attribute("href")
        )
        for i in range(rows.count())
    }


def _heroes(
    row: Any, m: dict[str, Any], books: dict[str, list[str]], which: int = 0, form: str = "w"
) -> None:
    """Each seat's hero chosen with the result: book ``which`` of the entry's."""
    for i, s in enumerate(_seats(m)):
        row.locator(f"#ph-{form}-{m['id']}-{i}").select_option(books[s["entry_id"]][which])


def _body_points(page: Any, row: Any, m: dict[str, Any], points: tuple[int, int], heroes: Any = None) -> None:
    """The places-and-scores form of a two-seat table: seat 0 first, each hero's body points."""
    row.get_by_text("Places and scores").click()
    for i, (s, bp) in enumerate(zip(_seats(m), points, strict=True)):
        row.locator(f"#pl-{m['id']}-{i}-{1 + i}").check()
        row.get_by_label(f"{s['name']}: Body points", exact=True).fill(str(bp))
    if heroes is not None:
        heroes(row)
    submit(page, row.get_by_role("button", name="Record the places"))


def _key(page: Any, match_id: str, key: str) -> None:
    """A result by one key on the table's row (focused by a click when it has not the focus)."""
    if page.evaluate("document.activeElement.id") != f"m-{match_id}":
        page.locator(f"#m-{match_id}").click(position={"x": 5, "y": 5})
    with page.expect_navigation():
        page.keyboard.press(key)


def _standings_checked(context: Any, server: str, client: Any, event_id: str, differential: bool) -> None:
    """The public page's standings, row by row, as the API's; the differential column where it
    decides ranks."""
    public = context.new_page()
    public.goto(f"{server}/e/{event_id}")
    standings = client.get(f"/v1/events/{event_id}/standings").json()
    heads = public.locator("table.standings thead th")
    assert ("Differential" in [heads.nth(i).inner_text() for i in range(heads.count())]) is differential
    rows = public.locator("table.standings tbody tr")
    assert rows.count() == len(standings["rows"]) > 0
    for i, r in enumerate(standings["rows"]):
        cells = rows.nth(i).locator("td")
        shown = [cells.nth(k).inner_text() for k in range(4 if differential else 3)]
        expected = [str(r["rank"]), r["name"], f"{r['points']:g}"]
        if differential:
            expected.append(f"{r['differential']:+g}" if r["differential"] else "0")
        assert shown == expected, (i, shown, expected)
    public.close()


def _player(context: Any, link: str) -> Any:
    """A player's own page, opened from the personal link."""
    me = context.new_page()
    me.goto(link)
    me.wait_for_selector("#me h2")
    return me


# --------------------------------------------------------------------------- Clash of the Champions
CLASH = [
    ("Ada", "Wolverine", "Storm"),
    ("Ben", "Hulk", "Thor"),
    ("Cleo", "Spider-Man", "Venom"),
    ("Dev", "Captain America", "Cyclops"),
]


def test_a_clash_runs_from_the_console_to_its_playoff(server: str, browser: Any) -> None:
    """Four players (the organizer switches sanctioning off for a club night and plays one game
    round: rounds 4): three games and the Final Battle, the two leaders tied on points and
    differential, and the playoff that decides between them."""
    client = api(server)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = context.new_page()
    event_id = _create(page, server, client, "battlebooks-clash", "Clash night", ("sanctioned", "rated"), "4")
    links = _register_csv(page, CLASH)
    assert sorted(links) == sorted(r[0] for r in CLASH)
    reloaded(page, client, event_id)
    books = {e["id"]: e["characters"] for e in items(client.get(f"/v1/events/{event_id}/entries").json())}
    submit(page, page.get_by_role("button", name="Start the event"))
    reloaded(page, client, event_id)
    assert client.get(f"/v1/events/{event_id}/rounds/1").json()["matches"]

    # game 1, table 1: each seat's hero declared before the game (a reload sends nothing again)
    one, two = _tables(client, event_id)
    row = page.locator(f"#m-{one['id']}")
    for s in _seats(one):
        row.get_by_label(f"{s['name']}'s hero", exact=True).select_option(books[s["entry_id"]][1])
        submit(page, row.get_by_role("button", name=f"Declare {s['name']}'s hero"))
    reloaded(page, client, event_id)
    declared = client.get(f"/v1/matches/{one['id']}").json()
    assert {s["entry_id"]: s["character"] for s in declared["seats"]} == {
        s["entry_id"]: books[s["entry_id"]][1] for s in one["seats"]
    }
    assert [h["action"] for h in declared["history"]].count("hero") == 2  # the reload sent none again

    # game 1, table 2: a draw with one hero chosen is refused, naming the other seat's player, and
    # the hero chosen stays chosen; a second tab records table 1 meanwhile, seen here by itself
    a, b = _seats(two)
    row = page.locator(f"#m-{two['id']}")
    row.locator(f"#ph-w-{two['id']}-0").select_option(books[a["entry_id"]][0])
    submit(page, row.get_by_role("button", name="Draw"))
    error = page.inner_text(".error")
    assert b["name"] in error and not UUID.search(error), error
    assert page.locator(f"#ph-w-{two['id']}-0").input_value() == books[a["entry_id"]][0]
    assert client.get(f"/v1/matches/{two['id']}").json()["status"] == "pending"
    other = context.new_page()
    other.goto(f"{server}/console/e/{event_id}")
    _body_points(other, other.locator(f"#m-{one['id']}"), one, (22, 30))  # declared: no hero to choose
    other.close()
    page.wait_for_function(
        "id => document.querySelector('#m-' + id).textContent.includes('Confirmed')", arg=one["id"]
    )
    row = page.locator(f"#m-{two['id']}")
    _body_points(page, row, two, (21, 29), lambda r: _heroes(r, two, books, 0, "pl"))
    reloaded(page, client, event_id)
    for m in (one, two):
        got = client.get(f"/v1/matches/{m['id']}").json()
        assert [s["differential"] for s in sorted(got["result"]["seats"], key=lambda s: s["place"])] == [
            8,
            -8,
        ]

    # game 2: one table reported by its two players from their own pages (a draw), waiting for
    # the organizer, seen live and confirmed; the other drawn by one key (the hero rule leaves
    # each seat its other book, filled in)
    submit(page, page.get_by_role("button", name="Pair the next round"))
    one, two = _tables(client, event_id)
    players = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    for s in _seats(one):
        me = _player(players, links[s["name"]])
        card = me.locator(f"#m-{one['id']}")
        card.get_by_role("button", name="Draw").click()
        me.wait_for_selector("#me-status:not([hidden])")
        me.close()
    page.wait_for_function(
        "id => document.querySelector('#m-' + id).textContent.includes('Reported')", arg=one["id"]
    )
    submit(page, page.locator(f"#m-{one['id']}").get_by_role("button", name="Confirm"))
    _key(page, two["id"], "d")  # one keystroke for the result
    reloaded(page, client, event_id)
    for m in (one, two):
        got = client.get(f"/v1/matches/{m['id']}").json()
        assert got["status"] == "confirmed" and got["result"]["outcome"] == "draw", got

    # game 3 and the Final Battle drawn, each seat's hero chosen (either of the two books)
    for _game in (3, 4):
        submit(page, page.get_by_role("button", name="Pair the next round"))
        for m in _tables(client, event_id):
            row = page.locator(f"#m-{m['id']}")
            _heroes(row, m, books)
            submit(page, row.get_by_role("button", name="Draw"))
            assert page.locator(".error").count() == 0, page.inner_text(".error")
        reloaded(page, client, event_id)
    standings = client.get(f"/v1/events/{event_id}/standings").json()["rows"]
    assert [(r["points"], r["differential"]) for r in standings[:2]] == [(11, 8), (11, 8)]

    # the two leaders' playoff: one game, either book; then the event is over
    submit(page, page.get_by_role("button", name="Close the stage and advance"))
    reloaded(page, client, event_id)
    (final,) = _tables(client, event_id)
    assert sorted(s["entry_id"] for s in final["seats"]) == sorted(r["entry_id"] for r in standings[:2])
    row = page.locator(f"#m-{final['id']}")
    _heroes(row, final, books, 1)
    winner = _seats(final)[1]
    submit(page, row.get_by_role("button", name=f"{winner['name']} won"))
    reloaded(page, client, event_id)
    submit(page, page.get_by_role("button", name="Close the stage and advance"))
    reloaded(page, client, event_id)
    assert client.get(f"/v1/events/{event_id}").json()["status"] == "finished"
    card = client.get(f"/v1/events/{event_id}/entries/{winner['entry_id']}/scorecard").json()
    assert len(card["games"]) == 4 and len(card["playoff"]) == 1
    shot(page, "console-battlebooks")
    _standings_checked(context, server, client, event_id, differential=True)
    players.close()
    context.close()


# --------------------------------------------------------------------------- Secret Wars
def _play_out(page: Any, client: Any, event_id: str, books: dict[str, list[str]]) -> None:
    """Every stage after the Swiss closed in turn, each table won by its first seat with book 0,
    until the event is over (a playoff only when first place is shared)."""
    while client.get(f"/v1/events/{event_id}").json()["status"] == "running":
        tables = _tables(client, event_id)
        if not tables:
            submit(page, page.get_by_role("button", name="Close the stage and advance"))
            reloaded(page, client, event_id)
            continue
        for m in tables:
            row = page.locator(f"#m-{m['id']}")
            _heroes(row, m, books)
            submit(page, row.get_by_role("button", name=f"{_seats(m)[0]['name']} won"))
            assert page.locator(".error").count() == 0, page.inner_text(".error")
        if client.get(f"/v1/events/{event_id}").json()["status"] == "running" and not _tables(
            client, event_id
        ):
            submit(page, page.get_by_role("button", name="Close the stage and advance"))


def test_secret_wars_packs_are_sealed_then_played_from_the_console_and_the_players_pages(
    server: str, browser: Any
) -> None:
    """Four players, packs drawn from the preset's catalog at registration, sealed on the players'
    pages until the start; one game round of three and the Final Battle (rounds: 4)."""
    client = api(server)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = context.new_page()
    event_id = _create(
        page, server, client, "battlebooks-secret-wars", "Secret Wars", ("sanctioned", "rated"), "4"
    )
    links = _register_names(page, ["Ada", "Ben", "Cleo", "Dev"])
    reloaded(page, client, event_id)
    packs = {e["id"]: e for e in items(client.get(f"/v1/events/{event_id}/entries").json())}
    assert all(e["sealed"] and e["characters"] == [] for e in packs.values())  # not the organizer
    org_view = page.inner_text("#entries")
    players = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    me = _player(players, links["Ada"])
    assert "Your pack is sealed" in me.inner_text("#my-books")
    submit(page, page.get_by_role("button", name="Start the event"))
    reloaded(page, client, event_id)
    entries = items(client.get(f"/v1/events/{event_id}/entries").json())
    books = {e["id"]: e["characters"] for e in entries}
    assert all(len(set(b)) == 2 for b in books.values()) and len({frozenset(b) for b in books.values()}) == 4
    for e in entries:  # the console showed each pack to the organizer before the start
        assert f"{e['name']} ({', '.join(e['characters'])})" in org_view
    me.reload()
    ada = next(e for e in entries if e["name"] == "Ada")
    me.wait_for_selector("#my-books:has-text('Your books')")
    assert me.inner_text("#my-books") == f"Your books: {', '.join(ada['characters'])}"
    me.close()

    # game 1: one table's players declare their heroes on their own pages; the other table's
    # heroes chosen with its result, a win by body points
    one, two = _tables(client, event_id)
    for s in _seats(one):
        mine = _player(players, links[s["name"]])
        card = mine.locator(f"#m-{one['id']}")
        card.get_by_label("My hero for this game").select_option(books[s["entry_id"]][0])
        card.get_by_role("button", name="Declare my hero").click()
        mine.wait_for_selector("#me-status:has-text('Your hero is declared')")
        mine.close()
    page.wait_for_function(
        "([id, hero]) => document.querySelector('#m-' + id).textContent.includes('(' + hero + ')')",
        arg=[one["id"], books[_seats(one)[1]["entry_id"]][0]],
    )
    submit(page, page.locator(f"#m-{one['id']}").get_by_role("button", name=f"{_seats(one)[0]['name']} won"))
    _body_points(
        page, page.locator(f"#m-{two['id']}"), two, (25, 20), lambda r: _heroes(r, two, books, 0, "pl")
    )
    reloaded(page, client, event_id)
    got = [client.get(f"/v1/matches/{m['id']}").json() for m in (one, two)]
    assert all(g["status"] == "confirmed" for g in got)
    assert {s["character"] for s in got[0]["seats"]} == {books[s["entry_id"]][0] for s in one["seats"]}

    # game 2: the organizer names game 1's book again — refused by the hero rule, in words and
    # names, the book chosen kept; the other table's players then report from their pages, and
    # the console shows it by itself
    submit(page, page.get_by_role("button", name="Pair the next round"))
    one, two = _tables(client, event_id)
    first = _seats(one)[0]
    again = next(
        s["character"]
        for g in _history_of(client, event_id, first["entry_id"])
        for s in g["seats"]
        if s["entry_id"] == first["entry_id"]
    )
    row = page.locator(f"#m-{one['id']}")
    row.locator(f"#ph-w-{one['id']}-0").select_option(again)
    submit(page, row.get_by_role("button", name=f"{first['name']} won"))
    error = page.inner_text(".error")
    assert first["name"] in error and again in error and not UUID.search(error), error
    assert page.locator(f"#ph-w-{one['id']}-0").input_value() == again
    for s in _seats(two):
        mine = _player(players, links[s["name"]])
        mine.locator(f"#m-{two['id']}").get_by_role("button", name="Draw").click()
        mine.wait_for_selector("#me-status:not([hidden])")
        mine.close()
    page.wait_for_function(
        "id => document.querySelector('#m-' + id).textContent.includes('Reported')", arg=two["id"]
    )
    submit(page, page.locator(f"#m-{two['id']}").get_by_role("button", name="Confirm"))
    row = page.locator(f"#m-{one['id']}")
    row.locator(f"#ph-w-{one['id']}-0").select_option("")  # the other book, as the rule leaves it
    submit(page, row.get_by_role("button", name=f"{first['name']} won"))
    reloaded(page, client, event_id)

    # game 3 and the Final Battle, then whatever playoff first place needs
    submit(page, page.get_by_role("button", name="Pair the next round"))
    for m in _tables(client, event_id):
        _heroes(page.locator(f"#m-{m['id']}"), m, books, 1)
        _key(page, m["id"], "d")
    reloaded(page, client, event_id)
    submit(page, page.get_by_role("button", name="Pair the next round"))
    _play_out(page, client, event_id, books)
    reloaded(page, client, event_id)
    assert client.get(f"/v1/events/{event_id}").json()["status"] == "finished"
    _standings_checked(context, server, client, event_id, differential=True)
    players.close()
    context.close()


def _history_of(client: Any, event_id: str, entry_id: str) -> list[dict[str, Any]]:
    """The entry's confirmed games, oldest first."""
    rounds = items(client.get(f"/v1/events/{event_id}/rounds", params={"limit": 500}).json())
    return [
        m
        for r in rounds
        for m in r["matches"]
        if m["status"] == "confirmed" and any(s["entry_id"] == entry_id for s in m["seats"])
    ]


# --------------------------------------------------------------------------- Hero's Roll Call
ROLL_CALL = [("Ada", "Wolverine"), ("Ben", "Hulk"), ("Cleo", "Storm"), ("Dev", "Thor")]


def test_a_roll_call_runs_from_the_console_by_clicks_and_keys(server: str, browser: Any) -> None:
    """Four players, one hero each all event: three games and the Final Battle (rounds: 4), wins
    by body points and draws by one key; a body-point count that is no number is refused by
    name, what was typed kept, and a second tab's result then reaches the page by itself."""
    client = api(server)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = context.new_page()
    event_id = _create(
        page, server, client, "battlebooks-roll-call", "Roll Call", ("sanctioned", "rated"), "4"
    )
    _register_csv(page, ROLL_CALL)
    submit(page, page.get_by_role("button", name="Start the event"))
    reloaded(page, client, event_id)

    # game 1: a body-point count that is no number, refused by the player's name with the counts
    # typed kept; a second tab records the other table meanwhile, and this page shows it
    one, two = _tables(client, event_id)
    row = page.locator(f"#m-{one['id']}")
    a, b = _seats(one)
    row.get_by_text("Places and scores").click()
    row.locator(f"#pl-{one['id']}-0-1").check()
    row.locator(f"#pl-{one['id']}-1-2").check()
    row.get_by_label(f"{a['name']}: Body points", exact=True).fill("27")
    row.get_by_label(f"{b['name']}: Body points", exact=True).fill("twelve")
    submit(page, row.get_by_role("button", name="Record the places"))
    error = page.inner_text(".error")
    assert f"{b['name']}'s body points must be a number" in error and not UUID.search(error), error
    row = page.locator(f"#m-{one['id']}")
    assert row.get_by_label(f"{b['name']}: Body points", exact=True).input_value() == "twelve"
    assert row.get_by_label(f"{a['name']}: Body points", exact=True).input_value() == "27"
    other = context.new_page()
    other.goto(f"{server}/console/e/{event_id}")
    _key(other, two["id"], "d")
    other.close()
    page.wait_for_function(
        "id => document.querySelector('#m-' + id).textContent.includes('Confirmed')", arg=two["id"]
    )
    row.get_by_label(f"{b['name']}: Body points", exact=True).fill("12")
    submit(page, row.get_by_role("button", name="Record the places"))
    reloaded(page, client, event_id)
    got = client.get(f"/v1/matches/{one['id']}").json()
    assert {s["entry_id"]: s["differential"] for s in got["result"]["seats"]} == {
        a["entry_id"]: 15,
        b["entry_id"]: -15,
    }
    assert {s["character"] for s in got["seats"]} == {
        dict((r[0], r[1]) for r in ROLL_CALL)[n] for n in (a["name"], b["name"])
    }

    # games 2, 3 and the Final Battle: a round is a click on "Pair the next round" and one key a
    # table (the focus moves on to the next table by itself): 1 + 2 per round of two tables
    for _game in range(2, 5):
        submit(page, page.get_by_role("button", name="Pair the next round"))
        keys = 0
        for m in _tables(client, event_id):
            _key(page, m["id"], "1")
            keys += 1
        assert keys == 2
        reloaded(page, client, event_id)
    submit(page, page.get_by_role("button", name="Close the stage and advance"))
    reloaded(page, client, event_id)
    assert client.get(f"/v1/events/{event_id}").json()["status"] == "finished"
    _standings_checked(context, server, client, event_id, differential=True)
    context.close()


# --------------------------------------------------------------------------- Last Man Standing
def test_last_man_standing_runs_from_the_console_and_the_players_pages(server: str, browser: Any) -> None:
    """Four players, two games: a draw is refused in words (an elimination game needs a winner),
    then the players of the other table report their game with body points, one from their own
    page and one from the slip's (their agreeing reports confirm it), seen by the console by
    itself; the final by one click."""
    client = api(server)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = context.new_page()
    event_id = _create(page, server, client, "battlebooks-last-man-standing", "Last Man Standing")
    links = _register_names(page, ["Ada", "Ben", "Cleo", "Dev"])
    submit(page, page.get_by_role("button", name="Start the event"))
    reloaded(page, client, event_id)
    one, two = _tables(client, event_id)

    _key(page, one["id"], "d")
    error = page.inner_text(".error")
    assert "winner" in error and not UUID.search(error), error
    assert client.get(f"/v1/matches/{one['id']}").json()["status"] == "pending"
    players = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    for k, s in enumerate(_seats(two)):  # one from the player's page, one from the slip's page
        link = links[s["name"]]
        slip = f"{server}/e/{event_id}/m/{two['id']}#{link.split('#', 1)[1]}"
        me = _player(players, slip if k else link)
        card = me.locator(f"#m-{two['id']}")
        card.get_by_text("Report with body points").click()
        for i, (t, bp) in enumerate(zip(_seats(two), (18, 9), strict=True)):
            card.locator(f"#me-{two['id']}-{i}-{1 + i}").check()
            card.get_by_label(f"{t['name']}: Body points", exact=True).fill(str(bp))
        card.get_by_role("button", name="Report this result").click()
        me.wait_for_selector("#me-status:not([hidden])")
        me.close()
    page.wait_for_function(
        "id => document.querySelector('#m-' + id).textContent.includes('Confirmed')", arg=two["id"]
    )
    got = client.get(f"/v1/matches/{two['id']}").json()
    assert sorted(s["differential"] for s in got["result"]["seats"]) == [-9, 9]
    page.reload()
    _key(page, one["id"], "2")
    reloaded(page, client, event_id)

    submit(page, page.get_by_role("button", name="Pair the next round"))
    reloaded(page, client, event_id)
    (final,) = _tables(client, event_id)
    winner = _seats(final)[0]
    submit(page, page.locator(f"#m-{final['id']}").get_by_role("button", name=f"{winner['name']} won"))
    reloaded(page, client, event_id)
    submit(page, page.get_by_role("button", name="Close the stage and advance"))
    reloaded(page, client, event_id)
    event = client.get(f"/v1/events/{event_id}").json()
    assert event["status"] == "finished"
    _standings_checked(context, server, client, event_id, differential=True)
    players.close()
    context.close()


# --------------------------------------------------------------------------- Battle Royal
ROYAL = ["Ada", "Ben", "Cleo", "Dev", "Eve", "Finn", "Gus", "Hana"]


def test_a_battle_royal_table_of_eight_is_placed_with_ties_from_the_console(
    server: str, browser: Any
) -> None:
    """Eight players at one table: places not in competition form refused by name, what was chosen
    kept; a player's claim from their own page seen live; the organizer's places, two pairs
    sharing a place, typed one digit a seat and Enter (9 keys for the table)."""
    client = api(server)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = context.new_page()
    event_id = _create(page, server, client, "battlebooks-battle-royal", "Battle Royal")
    links = _register_names(page, ROYAL)
    submit(page, page.get_by_role("button", name="Start the event"))
    reloaded(page, client, event_id)
    (table,) = _tables(client, event_id)
    seats = _seats(table)
    assert len(seats) == 8

    # two seats 1st and one 2nd: refused, naming the player; the places chosen stay chosen
    row = page.locator(f"#m-{table['id']}")
    for i, place in enumerate((1, 1, 2)):
        row.locator(f"#pl-{table['id']}-{i}-{place}").check()
    submit(page, row.get_by_role("button", name="Record the places"))
    error = page.inner_text(".error")
    assert not UUID.search(error) and any(s["name"] in error for s in seats), error
    assert (
        page.locator(f"#pl-{table['id']}-1-1").is_checked()
        and page.locator(f"#pl-{table['id']}-2-2").is_checked()
    )
    assert client.get(f"/v1/matches/{table['id']}").json()["status"] == "pending"

    # a player claims places from their own page (the others have not): the console sees it
    places = [1, 2, 3, 3, 5, 6, 6, 8]  # in seat order: two pairs share a place
    players = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    me = _player(players, links[seats[0]["name"]])
    card = me.locator(f"#m-{table['id']}")
    for i, place in enumerate(places):
        card.locator(f"#me-{table['id']}-{i}-{place}").check()
    card.get_by_role("button", name="Report these places").click()
    me.wait_for_selector("#me-status:not([hidden])")
    me.close()
    players.close()
    page.wait_for_function(
        "id => document.querySelector('#m-' + id).textContent.includes('Reported')", arg=table["id"]
    )

    # the organizer's places, by the keyboard: one digit a seat in seat order, then Enter
    page.locator(f"#m-{table['id']}").click(position={"x": 5, "y": 5})
    page.keyboard.type("".join(str(p) for p in places))
    with page.expect_navigation():
        page.keyboard.press("Enter")
    got = client.get(f"/v1/matches/{table['id']}").json()
    assert got["status"] == "confirmed", got
    by_entry = {s["entry_id"]: s["place"] for s in got["result"]["seats"]}
    assert [by_entry[s["entry_id"]] for s in seats] == places
    reloaded(page, client, event_id)
    submit(page, page.get_by_role("button", name="Close the stage and advance"))
    reloaded(page, client, event_id)
    assert client.get(f"/v1/events/{event_id}").json()["status"] == "finished"
    standings = client.get(f"/v1/events/{event_id}/standings").json()["rows"]
    shared = [r["points"] for r in standings if r["rank"] == 3]
    assert len(shared) == 2 and shared[0] == shared[1]  # the two 3rds share the mean of 3rd and 4th
    _standings_checked(context, server, client, event_id, differential=False)
    context.close()
