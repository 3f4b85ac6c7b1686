"""Every page, in English and Japanese, checked by axe-core (the npm package tests/services.sh
installs, injected from disk: the page fetches nothing) with no serious or critical violation; the
console run with the keyboard alone, the focus visible at every stop; the projector's statuses in
words and marks, not colour alone."""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.support.rite_of_command import RINGS
from tests.web.conftest import ADMIN, api, bearer, items, rated_league, shot

AXE = Path(
    os.environ.get("ARBITER_TEST_AXE")
    or Path(__file__).parents[2] / ".cache/axe/node_modules/axe-core/axe.min.js"
)
IMPACTS = ("minor", "moderate", "serious", "critical")
SIZES = {"laptop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}
NAMES = ["Ada", "Grace", "Alan", "Barbara", "Claude", "Edsger", "Frances", "Ken"]


def _axe(page: Any) -> tuple[list[dict[str, Any]], list[str]]:
    """axe-core's violations on the page as it stands (all its rules: WCAG 2.x A and AA, and best
    practice), and the rules it could not decide (``incomplete``: for a person to review)."""
    assert AXE.is_file(), f"no axe-core at {AXE}: run tests/services.sh (it installs it with npm)"
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=AXE.read_text())
    found: dict[str, Any] = page.evaluate(
        """async () => {
          const r = await axe.run(document, {resultTypes: ["violations", "incomplete"]});
          return {violations: r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.map(n => n.target.join(" ") + ": " + n.failureSummary.split("\\n").slice(1).join(" "))})),
            incomplete: r.incomplete.map(v => v.id + " x" + v.nodes.length + " [" + v.nodes.map(n => n.target.join(" ") + " " + ((n.any[0] || {}).message || "")).join("; ") + "]")};
        }"""
    )
    return list(found["violations"]), list(found["incomplete"])


def _counts(found: list[dict[str, Any]]) -> dict[str, int]:
    nodes = Counter()
    for v in found:
        nodes[v["impact"]] += len(v["nodes"])
    return {k: nodes[k] for k in IMPACTS}


# Every page in each language once, on each backend and at each size: English on the embedded
# default at the hall's laptop, Japanese on Postgres on a phone (a page's markup is the same on both
# backends, and what it shows is read from either; each rule axe checks meets every page at both
# sizes and in both languages, not in all four pairings)
BACKEND_OF = {"en": "sqlite", "ja": "postgres"}
SIZE_OF = {"en": "laptop", "ja": "phone"}


@pytest.fixture(scope="module")
def halls() -> dict[str, tuple[str, dict[str, Any]]]:
    """The hall of each backend, built the first time a test asks for it."""
    return {}


@pytest.fixture
def site(
    backend: str, halls: dict[str, tuple[str, dict[str, Any]]], request: pytest.FixtureRequest
) -> tuple[str, dict[str, Any]]:
    """The shared server of ``backend`` and the hall built on it, once per backend in this module
    (a module-scoped fixture under a parameter of a test is set up again for every test)."""
    if backend not in halls:
        base = str(request.getfixturevalue("server" if backend == "sqlite" else "pg_server"))
        halls[backend] = (base, _hall(base))
    return halls[backend]


def _hall(server: str) -> dict[str, Any]:
    """An 8-player Swiss in its second round (round 1 confirmed; in round 2 a reported, a disputed,
    a confirmed and a pending table; its round clock running; a scorekeeper), an event still in registration, one that checks players in, a Rite of Command table for a
    verdict, a WBC semifinal, WBC heats and a WBC final, a BATTLEBOOKS round and a BGA plan."""
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
        client.post(f"/v1/events/{made['id']}/entries", json=[{"name": n} for n in NAMES], headers=org).json()
    )
    token = {e["id"]: e["entry_token"] for e in entries}
    first = client.post(f"/v1/events/{made['id']}/start", headers=org).json()["round"]["matches"]
    for m in first:
        a, b = (s["entry_id"] for s in m["seats"])
        body = {"seats": [{"entry_id": a, "place": 1}, {"entry_id": b, "place": 2}]}
        assert client.post(f"/v1/matches/{m['id']}/result", json=body, headers=org).status_code == 200
    second = client.post(f"/v1/events/{made['id']}/rounds", headers=org)
    assert second.status_code in (200, 201), second.text
    matches = second.json()["matches"]
    reported, disputed, decided = matches[0], matches[1], matches[2]
    a, b = (s["entry_id"] for s in decided["seats"])
    body = {"seats": [{"entry_id": a, "place": 2}, {"entry_id": b, "place": 1}]}
    assert client.post(f"/v1/matches/{decided['id']}/result", json=body, headers=org).status_code == 200
    a, b = (s["entry_id"] for s in reported["seats"])
    claim = {"seats": [{"entry_id": a, "place": 1}, {"entry_id": b, "place": 2}]}
    assert (
        client.post(f"/v1/matches/{reported['id']}/result", json=claim, headers=bearer(token[a])).status_code
        == 200
    )
    a, b = (s["entry_id"] for s in disputed["seats"])
    for who, winner, loser in ((a, a, b), (b, b, a)):
        claim = {"seats": [{"entry_id": winner, "place": 1}, {"entry_id": loser, "place": 2}]}
        assert (
            client.post(
                f"/v1/matches/{disputed['id']}/result", json=claim, headers=bearer(token[who])
            ).status_code
            == 200
        )

    # the round clock running: the event's pages show it
    clock = client.post(
        f"/v1/events/{made['id']}/clock", json={"action": "start", "seconds": 3000}, headers=org
    )
    assert clock.status_code == 200, clock.text
    waiting = client.post(
        "/v1/events", json={"name": "Next Week", "game": "generic"}, headers=bearer(ADMIN)
    ).json()
    rings = client.post(
        "/v1/events",
        json={
            "name": "Rings",
            "game": "rite-of-command",
            "settings": {"stages": [{"format": "swiss", "rounds": 1}]},
        },
        headers=bearer(ADMIN),
    ).json()
    rorg = bearer(rings["organizer_token"])
    rows = [{"name": n} for n in ("Ada", "Barbara", "Claude", "Dana")]
    assert client.post(f"/v1/events/{rings['id']}/entries", json=rows, headers=rorg).status_code == 201
    table = client.post(f"/v1/events/{rings['id']}/start", headers=rorg).json()["round"]["matches"][0]
    # a WBC Titan: The Arena event after its heats (its semifinal drawn: tables of three, scores)
    arena = _arena_at(client, "WBC Arena", "semifinal")
    # another in its heats (one open, the tables to open chosen from the entries), and one whose
    # final is drawn, its finalists' answers on the Colossal Arena rules being taken
    heats = _arena_at(client, "WBC Heats", "heats")
    final = _arena_at(client, "WBC Final", "final")
    # a BATTLEBOOKS Clash in its first round: each seat's hero to declare
    clash = client.post(
        "/v1/events",
        json={"name": "Clash", "game": "battlebooks", "preset": "battlebooks-clash", "seed": "clash-a11y"},
        headers=bearer(ADMIN),
    ).json()
    corg = bearer(clash["organizer_token"])
    books = ["Wolverine", "Captain America", "Spider-Man", "Hulk", "Thor", "Storm", "Venom"]
    rows = [{"name": f"Hero {i}", "characters": [books[i % 7], books[(i + 1) % 7]]} for i in range(8)]
    assert client.post(f"/v1/events/{clash['id']}/entries", json=rows, headers=corg).status_code == 201
    assert client.post(f"/v1/events/{clash['id']}/start", headers=corg).status_code == 200
    # a Board Game Arena round robin: its plan released
    bga = client.post(
        "/v1/events",
        json={"name": "BGA League", "game": "seasons", "preset": "bga-round-robin", "seed": "bga-a11y"},
        headers=bearer(ADMIN),
    ).json()
    borg = bearer(bga["organizer_token"])
    rows = [{"name": n} for n in ("Ann", "Bob", "Cy", "Dee")]
    assert client.post(f"/v1/events/{bga['id']}/entries", json=rows, headers=borg).status_code == 201
    assert client.post(f"/v1/events/{bga['id']}/start", headers=borg).status_code == 200
    # an event that checks players in at the door, still in registration; a scorekeeper of the Swiss
    door = client.post(
        "/v1/events",
        json={"name": "Door Open", "game": "generic", "settings": {"check_in": True}},
        headers=bearer(ADMIN),
    ).json()
    dorg = bearer(door["organizer_token"])
    rows = [{"name": n} for n in ("Aiko", "Ben")]
    at_door = items(client.post(f"/v1/events/{door['id']}/entries", json=rows, headers=dorg).json())
    # a rated event, finished and counted in a season: the league's pages have a pool, a player's
    # chart and a season's table to show
    season = {"name": "Hall Season", "points": [10, 6, 4, 2], "best_of": 1}
    league = rated_league(client, "Hall League", NAMES[:4], 2, season)
    pool = league["pool"]
    player_id = client.get(f"/v1/ratings/{pool}").json()["items"][0]["player_id"]
    keeper = client.post(
        f"/v1/events/{made['id']}/staff", json={"name": "Sam Keeper", "role": "scorekeeper"}, headers=org
    )
    assert keeper.status_code == 201, keeper.text
    return {
        "door": {"id": door["id"], "organizer": door["organizer_token"], "entry": at_door[0]["entry_token"]},
        "scorekeeper": keeper.json()["token"],
        "arena": arena,
        "arena-heats": heats,
        "arena-final": final,
        "clash": {"id": clash["id"], "organizer": clash["organizer_token"]},
        "bga": {"id": bga["id"], "organizer": bga["organizer_token"]},
        "id": made["id"],
        "organizer": made["organizer_token"],
        "player": token[matches[-1]["seats"][0]["entry_id"]],
        "match": matches[-1]["id"],
        "disputed": disputed["id"],
        "waiting": waiting,
        "rings": {"id": rings["id"], "organizer": rings["organizer_token"], "match": table["id"]},
        "league": {"pool": pool, "player": player_id, "season": league["season"]},
    }


def _arena_at(client: Any, name: str, stage: str) -> dict[str, Any]:
    """A 9-player WBC event in its heats (one heat of three open), at its semifinal (drawn: tables
    of three, the first one's id as ``match``) or at its final (drawn, one finalist's answer given),
    made through the API."""
    made = client.post(
        "/v1/events",
        json={"name": name, "game": "titan-the-arena", "preset": "wbc-hmwp", "seed": f"{name}-a11y"},
        headers=bearer(ADMIN),
    ).json()
    org = bearer(made["organizer_token"])
    rows = [{"name": f"{name} {i}"} for i in range(9)]
    ids = [
        e["id"] for e in items(client.post(f"/v1/events/{made['id']}/entries", json=rows, headers=org).json())
    ]
    assert client.post(f"/v1/events/{made['id']}/start", headers=org).status_code == 200

    def play(matches: list[dict[str, Any]]) -> None:
        for m in matches:
            seats = [{"entry_id": s["entry_id"], "score": 20 - i} for i, s in enumerate(m["seats"])]
            r = client.post(f"/v1/matches/{m['id']}/result", json={"seats": seats}, headers=org)
            assert r.status_code == 200, r.text

    tables = [ids[3 * k : 3 * k + 3] for k in range(3)]
    heat = client.post(f"/v1/events/{made['id']}/rounds", json={"tables": tables}, headers=org).json()
    if stage == "heats":
        play(heat["matches"][:2])
        return {"id": made["id"], "organizer": made["organizer_token"]}
    play(heat["matches"])
    semi = client.post(f"/v1/events/{made['id']}/advance", headers=org).json()["round"]["matches"]
    if stage == "semifinal":
        return {"id": made["id"], "organizer": made["organizer_token"], "match": semi[0]["id"]}
    play(semi)  # "final"
    final = client.post(f"/v1/events/{made['id']}/advance", headers=org).json()["round"]["matches"][0]
    answer = {"entry_id": final["seats"][0]["entry_id"], "colossal": True}
    r = client.post(f"/v1/events/{made['id']}/titan-arena/final-rules", json=answer, headers=org)
    assert r.status_code == 200, r.text
    return {"id": made["id"], "organizer": made["organizer_token"]}


def _sign_in(page: Any, server: str, token: str) -> None:
    page.goto(f"{server}/console")
    page.fill("#org-token", token)
    with page.expect_navigation():
        page.locator("form[action='/console/sign-in'] button[type=submit]").click()


def _open(page: Any, server: str, hall: dict[str, Any], name: str, lang: str) -> None:
    """Brings the page called ``name`` up in ``page``, as a visitor gets it."""
    e = hall["id"]
    simple = {
        "events": "/",
        "event": f"/e/{e}",
        "projector": f"/e/{e}/projector",
        "print-pairings": f"/e/{e}/print/pairings",
        "print-slips": f"/e/{e}/print/slips",
        "print-scorecards": f"/e/{e}/print/scorecards",
        "slip-report": f"/e/{e}/m/{hall['match']}",
        "player-sign-in": f"/e/{e}/me",
        "event-titan": f"/e/{hall['arena']['id']}",
        "event-bga": f"/e/{hall['bga']['id']}",
        "projector-titan": f"/e/{hall['arena']['id']}/projector",
        "console-home": "/console",
        "not-found": "/e/no-such-event",
        "ratings": "/ratings",
        "leaderboard": f"/ratings/{hall['league']['pool']}",
        "leaderboard-search": f"/ratings/{hall['league']['pool']}?q=a&limit=1",
        "player-profile": f"/players/{hall['league']['player']}",
        "season": f"/seasons/{hall['league']['season']}",
        "seasons": "/seasons",
        "leaderboard-missing": "/ratings/no-such-pool",
        "embed-standings": f"/embed/e/{e}/standings",
        "embed-round-dark": f"/embed/e/{e}/round?theme=dark",
    }
    if name in simple:
        path = simple[name]
        page.goto(f"{server}{path}{'&' if '?' in path else '?'}lang={lang}")
        if name in ("event", "projector", "slip-report"):
            page.wait_for_selector("[data-clock]:not([hidden])")
    elif name == "player":
        page.goto(f"{server}/e/{e}/me?lang={lang}#token={hall['player']}")
        page.wait_for_selector(f"#m-{hall['match']}")
        page.wait_for_selector("[data-clock]:not([hidden])")
    elif name == "player-offline":  # a result entered without a connection, waiting to be sent
        page.goto(f"{server}/e/{e}/me?lang={lang}#token={hall['player']}")
        page.wait_for_selector("html[data-offline-ready]", state="attached")
        page.context.set_offline(True)
        page.locator(f"#m-{hall['match']} button.report").last.click()
        page.wait_for_selector("#outbox-list li.outbox-waiting")
    elif name == "console-refused":
        page.goto(f"{server}/console?lang={lang}")
        _sign_in(page, server, "not-a-token")
        page.wait_for_selector("[role=alert]")
    elif name == "console-created":
        page.goto(f"{server}/console?lang={lang}")
        page.fill("#admin-token", ADMIN)
        page.fill("#ev-name", "Made here")
        page.select_option("#game", "generic")  # the generic preset names no game
        with page.expect_navigation():
            page.locator("#create button[type=submit]").click()
        page.wait_for_selector("#organizer-token")
    elif name == "console":
        page.goto(f"{server}/console?lang={lang}")
        _sign_in(page, server, hall["organizer"])
        page.wait_for_selector(f"#m-{hall['disputed']}")
    elif name in ("console-titan", "console-bga"):  # tables of three and scores; a plan
        page.goto(f"{server}/console?lang={lang}")
        _sign_in(page, server, hall["arena" if name == "console-titan" else "bga"]["organizer"])
        page.wait_for_selector("#round")
    elif name == "console-heats":  # heats: one open, a refused table shown, the choices kept
        page.goto(f"{server}/console?lang={lang}")
        _sign_in(page, server, hall["arena-heats"]["organizer"])
        for select in page.locator("#open-tables select").all()[:2]:
            select.select_option("1")
        with page.expect_navigation():
            page.locator("form[action$='/heats'] button[type=submit]").click()
        page.wait_for_selector("[role=alert]")
    elif name == "console-heroes":  # a BATTLEBOOKS round: each seat's hero to declare
        page.goto(f"{server}/console?lang={lang}")
        _sign_in(page, server, hall["clash"]["organizer"])
        page.wait_for_selector("form[action$='/heroes']")
    elif name == "console-final":  # the final drawn: the finalists' answers on its rules
        page.goto(f"{server}/console?lang={lang}")
        _sign_in(page, server, hall["arena-final"]["organizer"])
        page.wait_for_selector("#final-rules")
    elif name == "check-in":  # a player's check-in code opened on a phone
        page.goto(f"{server}/e/{hall['door']['id']}/check-in?lang={lang}#token={hall['door']['entry']}")
        page.wait_for_selector("[data-check-in]")
    elif name == "console-scorekeeper":  # a scorekeeper signed in by the staff link
        page.goto(f"{server}/console?lang={lang}#token={hall['scorekeeper']}")
        page.wait_for_url(f"{server}/console/e/{e}")
        page.wait_for_selector(f"#m-{hall['disputed']}")
    elif name == "console-door":  # check-in's missing list, and a staff link just issued
        page.goto(f"{server}/console?lang={lang}")
        _sign_in(page, server, hall["door"]["organizer"])
        page.wait_for_selector("#check-in")
        page.fill("#staff-name", f"Jo Judge ({lang})")
        page.select_option("#staff-role", "judge")
        with page.expect_navigation():
            page.locator("form[action$='/staff'] button[type=submit]").click()
        page.wait_for_selector("#staff-link")
    elif name == "console-links":  # an event in registration, just after names were pasted, with
        # the form of new links for every player open
        page.goto(f"{server}/console?lang={lang}")
        _sign_in(page, server, hall["waiting"]["organizer_token"])
        page.fill("#names", "\n".join(f"{n} ({lang})" for n in ("Hana", "Ichiro", "Jun")))
        with page.expect_navigation():
            page.locator("form[action$='/entries'] button[type=submit]").click()
        page.wait_for_selector("#links")
        page.locator("#all-links summary").click()
        page.wait_for_selector("#links-sure")
    elif name == "verdict":
        rings = hall["rings"]
        page.goto(f"{server}/console?lang={lang}")
        _sign_in(page, server, rings["organizer"])
        row = page.locator(f"#m-{rings['match']}")
        row.locator("details.game-log summary").click()
        row.locator("textarea").fill(json.dumps(RINGS))
        with page.expect_navigation():
            row.locator("form[action$='/log'] button[type=submit]").click()
        page.wait_for_selector("table.verdict")
        page.wait_for_selector("#roc-verdict")  # the duel said in words
    else:
        raise AssertionError(name)
    assert page.locator("html").get_attribute("lang") == lang


PAGES = [
    "events",
    "event",
    "event-titan",
    "event-bga",
    "player",
    "player-sign-in",
    "player-offline",
    "slip-report",
    "projector",
    "projector-titan",
    "print-pairings",
    "print-slips",
    "print-scorecards",
    "console-home",
    "console-refused",
    "console-created",
    "console",
    "console-titan",
    "console-heats",
    "console-final",
    "console-heroes",
    "console-bga",
    "console-links",
    "console-door",
    "console-scorekeeper",
    "check-in",
    "verdict",
    "not-found",
    "ratings",
    "leaderboard",
    "leaderboard-search",
    "player-profile",
    "season",
    "seasons",
    "leaderboard-missing",
    "embed-standings",
    "embed-round-dark",
]


@pytest.mark.parametrize(("lang", "backend"), list(BACKEND_OF.items()))
@pytest.mark.parametrize("name", PAGES)
def test_every_page_passes_axe(
    browser: Any, site: tuple[str, dict[str, Any]], name: str, lang: str, backend: str
) -> None:
    server, hall = site
    size = SIZE_OF[lang]
    # axe-core goes in as an inline script of the test's own: the pages' CSP would refuse it
    context = browser.new_context(viewport=SIZES[size], locale="en-US", bypass_csp=True)
    page = context.new_page()
    try:
        _open(page, server, hall, name, lang)
        found, review = _axe(page)
        shot(page, f"a11y-{name}-{lang}-{size}")
    finally:
        context.close()
    counts = _counts(found)
    print(f"\naxe {name} [{lang}, {size}]: " + ", ".join(f"{k} {v}" for k, v in counts.items()), end="")
    print(f"; to review: {', '.join(review) or 'none'}")
    for v in found:
        print(f"  {v['impact']} {v['id']} ({v['help']}): " + " | ".join(v["nodes"][:4]))
    bad = [v for v in found if v["impact"] in ("serious", "critical")]
    assert not bad, json.dumps(bad, indent=1, ensure_ascii=False)


def _visible_focus(page: Any) -> dict[str, Any]:
    """The focused element and whether it shows it (an outline or a box shadow, as computed)."""
    return dict(
        page.evaluate(
            """() => {
              const el = document.activeElement;
              const s = getComputedStyle(el);
              const outline = s.outlineStyle !== "none" && parseFloat(s.outlineWidth) >= 2;
              return {tag: el.tagName.toLowerCase(), text: (el.innerText || el.value || el.id || "").trim().slice(0, 60),
                      id: el.id, row: !!el.closest("[data-match-row]"), shown: outline || s.boxShadow !== "none"};
            }"""
        )
    )


def _tab_to(page: Any, wanted: Any, limit: int = 200, back: bool = False) -> dict[str, Any]:
    """Tab (or Shift+Tab) until ``wanted(focused)``; every stop on the way must show its focus."""
    for _ in range(limit):
        page.keyboard.press("Shift+Tab" if back else "Tab")
        at = _visible_focus(page)
        assert at["tag"] == "body" or at["shown"], f"focus not visible on {at}"
        if wanted(at):
            return at
    raise AssertionError("never reached by the keyboard")


def test_the_console_runs_from_the_keyboard(server: str, browser: Any) -> None:
    client = api(server)
    made = client.post(
        "/v1/events",
        json={
            "name": "Keys Only",
            "game": "generic",
            "settings": {"stages": [{"format": "swiss", "rounds": 2}]},
        },
        headers=bearer(ADMIN),
    ).json()
    org = bearer(made["organizer_token"])
    rows = [{"name": n} for n in ("Ada", "Grace", "Alan", "Barbara")]
    assert client.post(f"/v1/events/{made['id']}/entries", json=rows, headers=org).status_code == 201
    assert client.post(f"/v1/events/{made['id']}/start", headers=org).status_code == 200
    page = browser.new_page(viewport={"width": 1280, "height": 900}, locale="en-US")

    # sign in: the skip link first, then the token field, typed, Enter
    page.goto(f"{server}/console")
    at = _tab_to(page, lambda f: True)
    assert at["tag"] == "a" and at["text"] == "Skip to the content"
    _tab_to(page, lambda f: f["id"] == "org-token")
    page.keyboard.type(made["organizer_token"])
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url.endswith(f"/console/e/{made['id']}")

    # the first table: its first player's button, Enter
    matches = client.get(f"/v1/events/{made['id']}/rounds/1").json()["matches"]
    one, two = matches[0], matches[1]
    won = f"{one['seats'][0]['name']} won"
    _tab_to(page, lambda f: f["tag"] == "button" and f["text"] == won)
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert client.get(f"/v1/matches/{one['id']}").json()["status"] == "confirmed"
    # back on the console, the focus is on the next open table; its second player's button, Space
    page.wait_for_function(f"document.activeElement && document.activeElement.id === 'm-{two['id']}'")
    assert _visible_focus(page)["shown"]
    shot(page, "a11y-console-focused-row")
    won = f"{two['seats'][1]['name']} won"
    _tab_to(page, lambda f: f["tag"] == "button" and f["text"] == won)
    with page.expect_navigation():
        page.keyboard.press("Space")
    got = client.get(f"/v1/matches/{two['id']}").json()
    assert got["status"] == "confirmed" and got["result"]["seats"][1]["place"] == 1

    # the next round: back up the page (Shift+Tab) to the action, Enter
    _tab_to(page, lambda f: f["tag"] == "button" and f["text"] == "Pair the next round", back=True)
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert client.get(f"/v1/events/{made['id']}/rounds/2").status_code == 200

    # a details box opens with Enter, and what it holds is reachable: rename the event
    _tab_to(page, lambda f: f["tag"] == "summary" and f["text"] == "Rename or cancel", back=True)
    page.keyboard.press("Enter")
    _tab_to(page, lambda f: f["id"] == "rename")
    page.keyboard.press("Control+A")
    page.keyboard.type("Keys Only, renamed")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert client.get(f"/v1/events/{made['id']}").json()["name"] == "Keys Only, renamed"
    page.close()


@pytest.mark.parametrize("backend", ["sqlite"])
def test_the_projector_says_in_words_what_colour_shows(
    browser: Any, site: tuple[str, dict[str, Any]]
) -> None:
    """A colour-blind viewer reads every table's state: each status is its own word, the winner of
    a decided table is marked by more than colour, and in greyscale the statuses still differ."""
    server, hall = site
    page = browser.new_page(viewport={"width": 1920, "height": 1080}, locale="en-US")
    page.goto(f"{server}/e/{hall['id']}/projector")
    rows = page.locator("table.pairings tbody tr")
    words: dict[str, str] = {}
    for i in range(rows.count()):
        row = rows.nth(i)
        status = re.search(r"\bm-(\w+)", row.get_attribute("class") or "")
        assert status
        words[status.group(1)] = row.locator(".status").inner_text().strip()
    assert {"pending", "reported", "disputed", "confirmed"} <= set(words), words
    assert len(set(words.values())) == len(words), words  # one word per state
    # the disputed table is marked by a shape, not only its colour: its status has a border or a weight
    style = page.evaluate(
        """() => { const s = getComputedStyle(document.querySelector("tr.m-disputed .status"));
                   return {weight: s.fontWeight, border: s.borderStyle}; }"""
    )
    assert int(style["weight"]) >= 700 and style["border"] != "none", style
    # the decided table's winner (the second seat): bold, and a check mark that says so in words
    won = page.locator("tr.m-confirmed .seat.won")
    assert won.count() == 1 and page.locator("tr.m-confirmed .seat").nth(1).locator(".won-mark").count() == 1
    mark = won.locator(".won-mark")
    assert mark.inner_text() == "✓" and mark.get_attribute("aria-label") == "first place"
    assert int(won.evaluate("e => getComputedStyle(e).fontWeight")) >= 700
    # the initiative's star has its words for a screen reader too, and stands out from the black
    star = page.locator("table.pairings .first").first
    assert star.get_attribute("role") == "img" and star.get_attribute("aria-label")
    page.close()
