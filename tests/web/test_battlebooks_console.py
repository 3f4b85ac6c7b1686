"""The five BATTLEBOOKS presets, each a complete event run from the organizer's console and the
players' own pages alone, in Chromium: created from the preset's form, players registered (a CSV
of books, or pasted names), started, every game recorded — wins with body points, draws by a
key, places with ties at an eight-seat table, the players' own reports — through to the last
stage; a reload after the actions sends nothing again, one refused action is shown in words and
names with what was chosen kept, and a live update reaches the page after it. The public page's
standings are then checked row by row against the API's."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlsplit

from app.web.i18n import EN
from tests.web.conftest import ADMIN, UUID, api, items, rated, reloaded, shot, submit


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
    ("Eve", "Iron Man", "Daredevil"),
    ("Finn", "Silver Surfer", "Punisher"),
    ("Gus", "Gambit", "Rogue"),
    ("Hana", "Magneto", "Jean Grey"),
]


def _round_of_keys(
    page: Any, client: Any, event_id: str, books: dict[str, list[str]], which: int | None, key: str = "d"
) -> list[dict[str, Any]]:
    """The next round paired by a click, each table's heroes chosen (book ``which``; None: as the
    hero rule leaves them, filled in) and its result by one key; a reload after it. Its tables."""
    submit(page, page.get_by_role("button", name="Pair the next round"))
    tables = _tables(client, event_id)
    for m in tables:
        if which is not None:
            _heroes(page.locator(f"#m-{m['id']}"), m, books, which)
        _key(page, m["id"], key)
        assert page.locator(".error").count() == 0, page.inner_text(".error")
    reloaded(page, client, event_id)
    return tables


def _played(client: Any, tables: list[dict[str, Any]]) -> dict[str, str]:
    """Each entry's hero in these (recorded) tables, as the API has it."""
    return {
        s["entry_id"]: s["character"]
        for m in tables
        for s in client.get(f"/v1/matches/{m['id']}").json()["seats"]
    }


def test_a_sanctioned_clash_runs_from_the_console_through_two_game_rounds_and_is_rated(
    server: str, browser: Any
) -> None:
    """Eight players, sanctioned and rated as the preset has it, the rounds following the field:
    two game rounds of three games, the Final Battle, and the playoff that decides between the two
    leaders tied on points and differential. The hero rule by clicks in both game rounds: game 2
    takes the other book (filled in), game 1 of game round 2 may take game 3's book again, and the
    same book named for game 2 of game round 2 is refused in words, the book chosen kept. The
    overall pool's ratings then follow Elo over the event's games, no hero pool moves, and the
    public leaderboard shows the API's board row by row."""
    client = api(server)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = context.new_page()
    event_id = _create(page, server, client, "battlebooks-clash", "Clash night")
    settings = client.get(f"/v1/events/{event_id}").json()["settings"]
    assert settings["sanctioned"] is True and settings["rated"] is True
    links = _register_csv(page, CLASH)
    assert sorted(links) == sorted(r[0] for r in CLASH)
    reloaded(page, client, event_id)
    entries = items(client.get(f"/v1/events/{event_id}/entries").json())
    books = {e["id"]: e["characters"] for e in entries}
    before = _board(client, OVERALL)  # the players' ratings before their first game here
    before_games = _pool_games(client, OVERALL)
    submit(page, page.get_by_role("button", name="Start the event"))
    reloaded(page, client, event_id)
    assert client.get(f"/v1/events/{event_id}").json()["settings"]["stages"][0]["rounds"] == 7

    # game 1, table 1: each seat's hero declared before the game (a reload sends nothing again)
    one, two, three, four = game1 = _tables(client, event_id)
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
    # the hero chosen stays chosen; a second tab records table 1 meanwhile, seen here by itself;
    # every table won by 8 body points, its first seat's
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
    for m in (two, three, four):
        _body_points(
            page, page.locator(f"#m-{m['id']}"), m, (21, 29), lambda r, m=m: _heroes(r, m, books, 0, "pl")
        )
    reloaded(page, client, event_id)
    for m in game1:
        got = client.get(f"/v1/matches/{m['id']}").json()
        assert [s["differential"] for s in sorted(got["result"]["seats"], key=lambda s: s["place"])] == [
            8,
            -8,
        ]
    leaders = {_seats(m)[0]["entry_id"] for m in game1}
    heroes1 = _played(client, game1)

    # game 2: one table reported by its two players from their own pages (a draw), waiting for
    # the organizer, seen live and confirmed; the others drawn by one key each, the hero rule
    # leaving each seat its other book, filled in
    submit(page, page.get_by_role("button", name="Pair the next round"))
    one, *rest = game2 = _tables(client, event_id)
    players = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    for s in _seats(one):
        me = _player(players, links[s["name"]])
        card = me.locator(f"#m-{one['id']}")
        card.get_by_role("button", name="Draw").click()
        me.wait_for_selector("#me-status:not([hidden])")
        me.close()
    players.close()
    page.wait_for_function(
        "id => document.querySelector('#m-' + id).textContent.includes('Reported')", arg=one["id"]
    )
    submit(page, page.locator(f"#m-{one['id']}").get_by_role("button", name="Confirm"))
    for m in rest:
        _key(page, m["id"], "d")  # one keystroke for the result
    reloaded(page, client, event_id)
    for m in game2:
        got = client.get(f"/v1/matches/{m['id']}").json()
        assert got["status"] == "confirmed" and got["result"]["outcome"] == "draw", got
    assert _played(client, game2) == {e: next(b for b in books[e] if b != h) for e, h in heroes1.items()}

    # game 3 with either book played; then game round 2: its game 1 may take game 3's book again
    game3 = _round_of_keys(page, client, event_id, books, 0)
    game4 = _round_of_keys(page, client, event_id, books, 0)
    assert _played(client, game4) == _played(client, game3) == {e: b[0] for e, b in books.items()}

    # game 2 of game round 2: game 1's book named again is refused by the hero rule, in words and
    # names, the book chosen kept; then each seat's other book, as the rule leaves it
    submit(page, page.get_by_role("button", name="Pair the next round"))
    game5 = _tables(client, event_id)
    first = _seats(game5[0])[0]
    again = books[first["entry_id"]][0]
    row = page.locator(f"#m-{game5[0]['id']}")
    row.locator(f"#ph-w-{game5[0]['id']}-0").select_option(again)
    submit(page, row.get_by_role("button", name="Draw"))
    error = page.inner_text(".error")
    assert first["name"] in error and again in error and "game 2" in error, error
    assert not UUID.search(error), error
    assert page.locator(f"#ph-w-{game5[0]['id']}-0").input_value() == again
    assert client.get(f"/v1/matches/{game5[0]['id']}").json()["status"] == "pending"
    page.locator(f"#ph-w-{game5[0]['id']}-0").select_option("")
    for m in game5:
        _key(page, m["id"], "d")
        assert page.locator(".error").count() == 0, page.inner_text(".error")
    reloaded(page, client, event_id)
    assert _played(client, game5) == {e: b[1] for e, b in books.items()}

    # game 3 of game round 2; the Final Battle pairs the four game 1 winners among themselves
    # (15/+8 each): those two tables won by 8 body points, the others by one key
    _round_of_keys(page, client, event_id, books, 1)
    submit(page, page.get_by_role("button", name="Pair the next round"))
    final_battle = _tables(client, event_id)
    assert all(s["entry_id"] in leaders for m in final_battle[:2] for s in m["seats"])
    for m in final_battle[:2]:
        _body_points(
            page, page.locator(f"#m-{m['id']}"), m, (30, 22), lambda r, m=m: _heroes(r, m, books, 0, "pl")
        )
    for m in final_battle[2:]:
        _heroes(page.locator(f"#m-{m['id']}"), m, books, 0)
        _key(page, m["id"], "1")
    reloaded(page, client, event_id)
    standings = client.get(f"/v1/events/{event_id}/standings").json()["rows"]
    assert [(r["points"], r["differential"]) for r in standings[:3]] == [(20, 16), (20, 16), (15, 0)]

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
    assert len(card["games"]) == 7 and len(card["playoff"]) == 1
    assert [(r["game_round"], r["points"]) for r in card["rounds"]] == [(1, 9), (2, 6)]
    assert [(g["game_round"], g["game"]) for g in card["games"]][3:] == [(2, 1), (2, 2), (2, 3), (None, None)]
    assert card["final_score"] == "20/+16"
    shot(page, "console-battlebooks")
    _standings_checked(context, server, client, event_id, differential=True)

    # the ratings: every game of the event, the playoff's too, into the overall pool only
    player_of = {e["id"]: e["player_id"] for e in entries}
    games = _games(client, event_id, lambda s: player_of[s["entry_id"]])
    assert len(games) == 7 * 4 + 1
    _ratings_checked(context, server, client, OVERALL, before_games + len(games), _elo(games, before))
    pools = {p["pool"] for p in client.get("/v1/ratings", params={"limit": 500}).json()["items"]}
    assert not {f"{OVERALL}:{b}" for r in CLASH for b in r[1:]} & pools
    context.close()


# --------------------------------------------------------------------------- the ratings
OVERALL = "battlebooks"  # the overall pool: Clash and Secret Wars (Roll Call: "battlebooks:<hero>")


def _board(client: Any, pool: str) -> dict[Any, tuple[float, int]]:
    """The pool's leaderboard as the API has it: each player's rating and rated games (none for a
    pool not made yet)."""
    got = client.get(f"/v1/ratings/{quote(pool, safe='')}", params={"limit": 500})
    if got.status_code == 404:
        return {}
    return {r["player_id"]: (r["rating"], r["games"]) for r in got.json()["items"]}


def _games(client: Any, event_id: str, key: Any) -> list[tuple[str, tuple[Any, float], tuple[Any, float]]]:
    """The event's played games in the order they were played: the match and each seat's rating
    key (``key(seat)``) with its score (1 a win, ½ a draw, 0 a loss)."""
    rounds = items(client.get(f"/v1/events/{event_id}/rounds", params={"limit": 500}).json())
    out = []
    for r in rounds:
        for listed in r["matches"]:
            m = client.get(f"/v1/matches/{listed['id']}").json()
            if m["status"] != "confirmed" or len(m["seats"]) != 2:
                continue
            place = {s["entry_id"]: s["place"] for s in m["result"]["seats"]}
            a, b = _seats(m)
            pa, pb = place[a["entry_id"]], place[b["entry_id"]]
            draw = m["result"]["outcome"] in ("draw", "timeout") or pa == pb
            score = 0.5 if draw else float(pa < pb)
            out.append((m["id"], (key(a), score), (key(b), 1 - score)))
    return out


def _pool_games(client: Any, pool: str) -> int:
    """The pool's rated games (0 for a pool not made yet)."""
    listed = client.get("/v1/ratings", params={"limit": 500}).json()["items"]
    return next((p["games"] for p in listed if p["pool"] == pool), 0)


def _elo(
    games: list[tuple[str, tuple[Any, float], tuple[Any, float]]], start: dict[Any, tuple[float, int]]
) -> dict[Any, tuple[float, int]]:
    """What the rankings' rule gives (battlebooks.md "World rankings"): Elo on a 400 scale with K 32,
    each game against the ratings just before it, from 1500 or the rating and games the key had
    (``start``); each key's rating and rated games, for the keys that played."""
    rating = {k: v[0] for k, v in start.items()}
    count = {k: v[1] for k, v in start.items()}
    for _match, (a, sa), (b, sb) in games:
        ra, rb = rating.get(a, 1500.0), rating.get(b, 1500.0)
        ea = 1 / (1 + 10 ** ((rb - ra) / 400))
        rating[a], rating[b] = ra + 32 * (sa - ea), rb + 32 * (sb - (1 - ea))
        for k in (a, b):
            count[k] = count.get(k, 0) + 1
    played = {k for _match, (a, _), (b, _) in games for k in (a, b)}
    return {k: (rating[k], count[k]) for k in played}


def _ratings_checked(
    context: Any, server: str, client: Any, pool: str, games: int, expected: dict[str, tuple[float, int]]
) -> None:
    """The pool rated up to ``games`` games (the job runs after each result), each of the event's
    players at the rating and games the rule gives (``expected``, by player id); then its public
    leaderboard, row by row, as the API's."""
    rated(client, pool, games)
    board = _board(client, pool)
    for player, (rating, count) in expected.items():
        assert board[player][1] == count and abs(board[player][0] - rating) <= 0.05 + 1e-9, (
            pool,
            player,
            board[player],
            (rating, count),
        )
    public = context.new_page()
    public.goto(f"{server}/ratings/{quote(pool, safe='')}?limit=500")
    whole = client.get(f"/v1/ratings/{quote(pool, safe='')}", params={"limit": 500}).json()["items"]
    shown = public.locator("table.leaderboard tbody tr").evaluate_all(
        "rs => rs.map(r => [...r.cells].map(c => c.textContent.trim()))"
    )
    title = {None: "—"} | {t: EN[f"title_{t}"] for t in ("novice", "intermediate", "expert")}
    assert shown == [
        [str(r["rank"]), r["name"], f"{r['rating']:.1f}", str(r["games"]), title[r["title"]]] for r in whole
    ]
    public.close()


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
# two players to a hero, so that each hero's pool ranks two (no book of the Clash walk's: its
# games rate into no hero's pool)
ROLL_CALL = [
    ("Ada", "Black Widow"),
    ("Ben", "Hawkeye"),
    ("Cleo", "Doctor Strange"),
    ("Dev", "Black Panther"),
    ("Eve", "Black Widow"),
    ("Finn", "Hawkeye"),
    ("Gus", "Doctor Strange"),
    ("Hana", "Black Panther"),
]


def test_a_roll_call_runs_from_the_console_by_clicks_and_keys(server: str, browser: Any) -> None:
    """Eight players, sanctioned and rated as the preset has it, one hero each all event: three
    games and the Final Battle (rounds: 4), wins by body points and by one key, a draw by one key;
    a body-point count that is no number is refused by name, what was typed kept, and a second
    tab's result then reaches the page by itself. Each hero's pool then holds its players at the
    ratings Elo gives them — against each opponent's rating in the pool of the hero they played —
    the overall pool does not move, and each pool's public leaderboard shows the API's board row by
    row."""
    client = api(server)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = context.new_page()
    event_id = _create(page, server, client, "battlebooks-roll-call", "Roll Call", rounds="4")
    settings = client.get(f"/v1/events/{event_id}").json()["settings"]
    assert settings["sanctioned"] is True and settings["rated"] is True
    _register_csv(page, ROLL_CALL)
    entries = items(client.get(f"/v1/events/{event_id}/entries").json())
    heroes = sorted({r[1] for r in ROLL_CALL})
    pools = {h: f"{OVERALL}:{h}" for h in heroes}
    before = {(p, h): v for h in heroes for p, v in _board(client, pools[h]).items()}
    before_games = {h: _pool_games(client, pools[h]) for h in heroes}
    overall = (_board(client, OVERALL), _pool_games(client, OVERALL))
    submit(page, page.get_by_role("button", name="Start the event"))
    reloaded(page, client, event_id)

    # game 1: a body-point count that is no number, refused by the player's name with the counts
    # typed kept; a second tab records another table meanwhile, and this page shows it
    one, two, three, four = _tables(client, event_id)
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
    _key(page, three["id"], "1")
    _key(page, four["id"], "2")
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
    # table (the focus moves on to the next table by itself): 1 + 4 per round of four tables
    for _game in range(2, 5):
        submit(page, page.get_by_role("button", name="Pair the next round"))
        keys = 0
        for m in _tables(client, event_id):
            _key(page, m["id"], "1")
            keys += 1
        assert keys == 4
        reloaded(page, client, event_id)
    submit(page, page.get_by_role("button", name="Close the stage and advance"))
    reloaded(page, client, event_id)
    assert client.get(f"/v1/events/{event_id}").json()["status"] == "finished"
    _standings_checked(context, server, client, event_id, differential=True)

    # the ratings: each seat in the pool of the hero it played, never in the overall pool
    player_of = {e["id"]: e["player_id"] for e in entries}
    games = _games(client, event_id, lambda s: (player_of[s["entry_id"]], s["character"]))
    assert len(games) == 4 * 4
    expected = _elo(games, before)
    for h in heroes:
        mine = sum(1 for _m, (a, _), (b, _) in games if h in (a[1], b[1]))
        board = {p: v for (p, hero), v in expected.items() if hero == h}
        assert len(board) == 2
        _ratings_checked(context, server, client, pools[h], before_games[h] + mine, board)
    assert (_board(client, OVERALL), _pool_games(client, OVERALL)) == overall
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
