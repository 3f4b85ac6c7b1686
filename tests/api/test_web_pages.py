"""The pages over HTTP on Postgres and on the SQLite default: every page of an event renders what
the API says; the console's forms act through the services (CSRF-checked, a refusal changes nothing);
GET /v1/presets lists every preset; every string is translated."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from sqlalchemy import event as sa_event
from sqlalchemy.engine import Engine

from app.core import presets
from app.web import i18n
from app.web.console import COOKIE, csrf_of
from tests.support.api import ADMIN_TOKEN, Api, advance, bearer, setup_event, start
from tests.support.rite_of_command import RINGS

TEMPLATES = Path(__file__).resolve().parents[2] / "app" / "web" / "templates"


async def _refused(c: Any, answer: Any, *words: str) -> str:
    """A refused console action: a redirect (post/redirect/get) to the console, which shows the
    refusal once (a reload shows the plain console)."""
    assert answer.status_code == 303, answer.text
    shown = await c.get(answer.headers["location"].split("#")[0])
    assert shown.status_code == 200 and 'class="error"' in shown.text
    for w in words:
        assert w in shown.text, (w, shown.text)
    again = await c.get(answer.headers["location"].split("#")[0])
    assert 'class="error"' not in again.text
    return str(shown.text)


def _csrf(html: str) -> str:
    found = re.search(r'name="csrf" value="([0-9a-f]+)"', html)
    assert found, "the console's forms carry a token"
    return found.group(1)


async def test_presets_are_listed_with_their_settings(api: Api) -> None:
    r = await api.client.get("/v1/presets")
    assert r.status_code == 200
    listed = {p["name"]: p["settings"] for p in r.json()["items"]}
    assert set(listed) == set(presets.PRESETS)
    assert listed["bga-round-robin"]["stages"][0]["format"] == "round_robin"
    assert r.json()["items"][0]["name"] == "generic"
    # the console's new-event form offers the games a preset belongs to, every game for one that
    # suits any (battlebooks.md "World rankings")
    games = [g["key"] for g in (await api.client.get("/v1/games")).json()["items"]]

    async def offered(preset: str) -> list[str]:
        page = (await api.client.get("/console", params={"preset": preset})).text
        form = page[page.index('<select id="game"') :]
        return re.findall(r'<option value="([^"]+)"', form[: form.index("</select>")])

    assert await offered("battlebooks-clash") == ["battlebooks"]
    assert await offered("wbc-hmwp") == ["colossal-arena", "titan-the-arena"]
    assert await offered("bga-round-robin") == games


async def test_the_new_event_form_answers_refusals_by_redirect_and_leaves_rounds_to_the_field(
    api: Api,
) -> None:
    c = api.client
    # a preset of another game is refused, by the API and by the console's form (whose answer is a
    # redirect to the form, which says why once and keeps what was typed)
    body = {"name": "Arena night", "game": "generic", "preset": "wbc-hmwp"}
    refused = await c.post("/v1/events", json=body, headers=api.admin())
    assert refused.status_code == 422 and refused.json()["errors"][0]["loc"] == ["game"], refused.text
    form = {"admin_token": ADMIN_TOKEN, "name": "Arena night", "game": "generic", "preset": "wbc-hmwp"}
    r = await c.post("/console/events", data=form)
    assert r.status_code == 303 and r.headers["location"] == "/console?preset=wbc-hmwp#create"
    shown = (await c.get("/console", params={"preset": "wbc-hmwp"})).text
    assert refused.json()["detail"] in html.unescape(shown)
    assert 'value="Arena night"' in shown and ADMIN_TOKEN not in shown
    assert 'role="alert"' not in (await c.get("/console", params={"preset": "wbc-hmwp"})).text
    # a preset that suits any game names none: the form opens on "choose the game", and one sent
    # without a choice (no script, or a forged form) is refused naming the game, nothing made
    for preset in ("generic", "bga-round-robin"):
        home = (await c.get("/console", params={"preset": preset})).text
        select = home[home.index('<select id="game"') :]
        assert re.match(r'<select id="game" name="game" required[^>]*><option value="" selected>', select)
    form = {"admin_token": ADMIN_TOKEN, "name": "Which game", "game": "", "preset": "bga-round-robin"}
    r = await c.post("/console/events", data=form)
    assert r.status_code == 303 and r.headers["location"] == "/console?preset=bga-round-robin#create"
    shown = (await c.get("/console", params={"preset": "bga-round-robin"})).text
    assert "choose the game the event plays" in shown and 'value="Which game"' in shown
    listed = (await c.get("/v1/events", params={"limit": 100})).json()["items"]
    assert "Which game" not in [e["name"] for e in listed]
    # a Swiss's rounds follow the field unless given: ceil(log2 n) for the n entries at the start
    home = (await c.get("/console")).text
    assert re.search(r'name="knob:stages.0.rounds" value=""', home)
    assert 'name="season"' not in home  # no season to choose: no choice offered
    form = {"admin_token": ADMIN_TOKEN, "name": "Open Swiss", "game": "generic", "preset": "generic"}
    made = await c.post("/console/events", data={**form, "knob:stages.0.rounds": ""})
    assert made.status_code == 200, made.text
    event_id = re.search(r'href="/console/e/([^"]+)"', made.text).group(1)  # type: ignore[union-attr]
    token = re.search(r'id="organizer-token">([^<]+)<', made.text).group(1)  # type: ignore[union-attr]
    assert (await c.get(f"/v1/events/{event_id}")).json()["settings"]["stages"][0].get("rounds") is None
    rows = [{"name": f"P{i}"} for i in range(9)]
    assert (
        await c.post(f"/v1/events/{event_id}/entries", json=rows, headers=bearer(token))
    ).status_code == 201
    assert (await c.post(f"/v1/events/{event_id}/start", headers=bearer(token))).status_code == 200
    for _ in range(4):  # 9 entries: 4 rounds, and no fifth
        rnd = (await _rounds(api, event_id))[-1]
        for m in rnd["matches"]:
            if m["status"] == "bye":
                continue
            seats = [{"entry_id": s["entry_id"], "place": i + 1} for i, s in enumerate(m["seats"])]
            r = await c.post(f"/v1/matches/{m['id']}/result", json={"seats": seats}, headers=bearer(token))
            assert r.status_code == 200, r.text
        r = await c.post(f"/v1/events/{event_id}/rounds", headers=bearer(token))
    assert r.status_code == 409 and len(await _rounds(api, event_id)) == 4, r.text
    c.cookies.clear()


async def test_the_console_runs_a_round_on_either_database(api: Api) -> None:
    c = api.client
    home = await c.get("/console", params={"preset": "bga-round-robin"})
    assert home.status_code == 200 and 'name="knob:stages.0.format"' in home.text
    created = await c.post(
        "/console/events",
        data={
            "admin_token": ADMIN_TOKEN,
            "name": "Club night",
            "game": "generic",
            "preset": "generic",
            "knob:stages.0.rounds": "2",
            "knob:stages.0.pairing": "matching",
            "knob:stages.0.avoid_rematches": "on",
        },
    )
    assert created.status_code == 200, created.text
    token = re.search(r'id="organizer-token">([^<]+)<', created.text).group(1)  # type: ignore[union-attr]
    event_id = re.search(r'href="/console/e/([^"]+)"', created.text).group(1)  # type: ignore[union-attr]
    event = (await c.get(f"/v1/events/{event_id}")).json()
    assert event["settings"]["stages"][0]["rounds"] == 2

    c.cookies.set(COOKIE, token)
    page = await c.get(f"/console/e/{event_id}")
    assert page.status_code == 200
    csrf = _csrf(page.text)
    assert csrf == csrf_of(token)
    # a bad row refuses the whole paste, with the reason, and registers nothing
    bad = await c.post(f"/console/e/{event_id}/entries", data={"csrf": csrf, "names": "Ada\n" + "x" * 300})
    shown = await _refused(c, bad, "nothing was registered")
    assert ">Ada\n" + "x" * 300 + "</textarea>" in shown  # what was typed is kept
    assert (await c.get(f"/v1/events/{event_id}")).json()["entries"] == 0
    reg = await c.post(
        f"/console/e/{event_id}/entries", data={"csrf": csrf, "names": "Ada\nGrace\nAlan\nBarbara"}
    )
    assert reg.status_code == 200 and reg.text.count('class="personal"') == 4
    assert "?token" not in reg.text and "#token=" in reg.text
    started = await c.post(f"/console/e/{event_id}/start", data={"csrf": csrf})
    assert started.status_code == 303
    rnd = (await c.get(f"/v1/events/{event_id}/rounds/1")).json()
    for m in rnd["matches"]:
        done = await c.post(
            f"/console/e/{event_id}/matches/{m['id']}/result", data={"csrf": csrf, "choice": "seat:1"}
        )
        assert done.status_code == 303
    again = (await c.get(f"/v1/events/{event_id}/rounds/1")).json()
    assert all(m["status"] == "confirmed" and m["result"]["seats"][1]["place"] == 1 for m in again["matches"])
    # a correction with a stale version is refused (412) and changes nothing
    m = again["matches"][0]
    stale = await c.post(
        f"/console/e/{event_id}/matches/{m['id']}/correct",
        data={"csrf": csrf, "choice": "seat:0", "version": str(m["version"] - 1)},
    )
    await _refused(c, stale)
    assert (await c.get(f"/v1/matches/{m['id']}")).json()["version"] == m["version"]
    fixed = await c.post(
        f"/console/e/{event_id}/matches/{m['id']}/correct",
        data={"csrf": csrf, "choice": "seat:0", "version": str(m["version"])},
    )
    assert fixed.status_code == 303
    assert (await c.get(f"/v1/matches/{m['id']}")).json()["result"]["seats"][0]["place"] == 1
    # pair round 2, undo it (nothing reported), drop a late no-show
    assert (await c.post(f"/console/e/{event_id}/pair", data={"csrf": csrf})).status_code == 303
    assert (await c.post(f"/console/e/{event_id}/rounds/2/undo", data={"csrf": csrf})).status_code == 303
    assert (await c.get(f"/v1/events/{event_id}/rounds/2")).status_code == 404
    entry = next(
        e for e in _items((await c.get(f"/v1/events/{event_id}/entries")).json()) if e["name"] == "Alan"
    )
    assert (
        await c.post(f"/console/e/{event_id}/entries/{entry['id']}/drop", data={"csrf": csrf})
    ).status_code == 303
    assert (await c.get(f"/v1/events/{event_id}/entries/{entry['id']}")).json()["status"] == "dropped"
    # without the form's token nothing happens
    forged = await c.post(f"/console/e/{event_id}/pair", data={"csrf": "0" * 40})
    assert forged.status_code == 403
    assert (await c.get(f"/v1/events/{event_id}/rounds/2")).status_code == 404
    # another event's console is not this organizer's
    other = (
        await c.post("/v1/events", json={"name": "Other", "game": "generic"}, headers=api.admin())
    ).json()
    assert (await c.get(f"/console/e/{other['id']}")).status_code == 403


def _items(body: Any) -> list[Any]:
    return list(body["items"]) if isinstance(body, dict) else list(body)


async def test_every_page_renders_what_the_api_says(api: Api) -> None:
    c = api.client
    event = (
        await c.post("/v1/events", json={"name": "Pages", "game": "generic"}, headers=api.admin())
    ).json()
    org = event["organizer_token"]
    entries = _items(
        (
            await c.post(
                f"/v1/events/{event['id']}/entries",
                json=[{"name": n} for n in ("Ana", "Ben", "Cy")],
                headers=bearer(org),
            )
        ).json()
    )
    first = (await start(api, event["id"], org))["round"]
    eid = event["id"]
    for path in (
        "/",
        f"/e/{eid}",
        f"/e/{eid}/projector",
        f"/e/{eid}/print/pairings",
        f"/e/{eid}/print/slips",
        f"/e/{eid}/print/scorecards",
        f"/e/{eid}/me",
        f"/e/{eid}/m/{first['matches'][0]['id']}",
    ):
        r = await c.get(path)
        assert r.status_code == 200, path
        assert r.headers["content-type"].startswith("text/html")
        assert "Pages" in r.text
    page = (await c.get(f"/e/{eid}")).text
    for m in first["matches"]:
        assert all(s["name"] in page for s in m["seats"])
    assert "Bye" in page  # three entries: one has the bye
    slips = (await c.get(f"/e/{eid}/print/slips")).text
    assert slips.count("<svg") == len([m for m in first["matches"] if m["status"] != "bye"])
    # the player's part answers the entry's own token only
    me = await c.get(f"/e/{eid}/me/view", headers=bearer(entries[0]["entry_token"]))
    assert me.status_code == 200 and entries[0]["name"] in me.text
    assert (await c.get(f"/e/{eid}/me/view")).status_code == 401
    assert (await c.get(f"/e/{eid}/me/view", headers=bearer(org))).status_code == 401
    assert (await c.get("/e/no-such-event")).status_code == 404
    # a browser gets a page; another client keeps the problem+json
    shown = await c.get("/e/no-such-event", headers={"Accept": "text/html,*/*;q=0.8"})
    assert shown.status_code == 404 and shown.headers["content-type"].startswith("text/html")
    assert "<h1>Not found</h1>" in shown.text and "event no-such-event not found" in shown.text
    plain = await c.get("/e/no-such-event", headers={"Accept": "application/json"})
    assert plain.headers["content-type"].startswith("application/problem+json")
    # pages stay out of the API's document
    spec = (await c.get("/openapi.json")).json()
    assert not [p for p in spec["paths"] if not p.startswith(("/v1/", "/healthz", "/readyz", "/metrics"))]


async def test_japanese_by_accept_language(api: Api) -> None:
    r = await api.client.get("/", headers={"Accept-Language": "ja-JP,ja;q=0.9,en;q=0.8"})
    assert '<html lang="ja">' in r.text and "大会一覧" in r.text
    r = await api.client.get("/", headers={"Accept-Language": "fr, en;q=0.5"})
    assert '<html lang="en">' in r.text
    switched = await api.client.get("/?lang=ja", headers={"Accept-Language": "en"})
    assert '<html lang="ja">' in switched.text and switched.cookies.get("arbiter_lang") == "ja"


def test_every_string_is_translated() -> None:
    assert set(i18n.EN) == set(i18n.JA)
    assert all(i18n.JA[k] for k in i18n.JA)
    used: set[str] = set()
    prefixes: set[str] = set()
    for path in TEMPLATES.glob("*.html"):
        text = path.read_text()
        used |= set(re.findall(r"""\bt\(["']([a-z_]+)["'](?!\s*~)""", text))
        prefixes |= set(re.findall(r"""\bt\(["']([a-z_]+_)["']\s*~""", text))
    for path in TEMPLATES.parent.glob("*.py"):  # the words code puts together (a chart's point)
        used |= set(re.findall(r"""\bt\(\s*["']([a-z_]+)["']\s*[,)]""", path.read_text()))
    assert {"chart_point", "chart_label"} <= used
    assert used - set(i18n.EN) == set()
    for prefix in prefixes:
        assert any(k.startswith(prefix) for k in i18n.EN), prefix
    # statuses and stage formats the pages name by prefix: every member has its words
    from app.core.vocabulary import EntryStatus, EventStatus, MatchStatus, StageFormatName

    for prefix, enum in (
        ("status_", MatchStatus),
        ("event_", EventStatus),
        ("entry_", EntryStatus),
        ("stage_", StageFormatName),
    ):
        assert {f"{prefix}{m.value}" for m in enum} <= set(i18n.EN), prefix
    from app.core.tiebreaks import CRITERIA

    assert {f"by_{n}" for n in CRITERIA} <= set(i18n.EN)


async def test_the_console_checks_in_and_swaps(api: Api) -> None:
    c = api.client
    made = (
        await c.post(
            "/v1/events",
            json={"name": "Check", "game": "generic", "settings": {"check_in": True}},
            headers=api.admin(),
        )
    ).json()
    eid, org = made["id"], made["organizer_token"]
    entries = _items(
        (
            await c.post(
                f"/v1/events/{eid}/entries", json=[{"name": n} for n in "ABCDE"], headers=bearer(org)
            )
        ).json()
    )
    c.cookies.set(COOKIE, org)
    csrf = csrf_of(org)
    for e in entries[:4]:
        r = await c.post(
            f"/console/e/{eid}/entries/{e['id']}/check-in", data={"csrf": csrf, "present": "yes"}
        )
        assert r.status_code == 303
    assert "checked in" in (await c.get(f"/console/e/{eid}")).text
    await c.post(f"/console/e/{eid}/entries/{entries[3]['id']}/check-in", data={"csrf": csrf})
    got = (await c.get(f"/v1/events/{eid}/entries/{entries[3]['id']}")).json()
    assert got["checked_in"] is False
    assert (await c.post(f"/console/e/{eid}/start", data={"csrf": csrf})).status_code == 303
    rnd = (await c.get(f"/v1/events/{eid}/rounds/1")).json()
    assert len(rnd["matches"]) == 2  # three checked in: one table and a bye
    played = next(m for m in rnd["matches"] if m["status"] == "pending")
    a, b = (s["entry_id"] for s in played["seats"])
    r = await c.post(f"/console/e/{eid}/rounds/1/swap", data={"csrf": csrf, "a": a, "b": b})
    assert r.status_code == 303
    swapped = (await c.get(f"/v1/events/{eid}/rounds/1")).json()
    m = next(x for x in swapped["matches"] if x["id"] == played["id"])
    assert [s["entry_id"] for s in m["seats"]] == [b, a]


async def test_the_console_renames_with_the_version_and_cancels_when_sure(api: Api) -> None:
    c = api.client
    made = (await c.post("/v1/events", json={"name": "Old", "game": "generic"}, headers=api.admin())).json()
    eid, org = made["id"], made["organizer_token"]
    c.cookies.set(COOKIE, org)
    csrf = csrf_of(org)
    stale = await c.post(f"/console/e/{eid}/rename", data={"csrf": csrf, "name": "New", "version": "0"})
    await _refused(c, stale)
    empty = await c.post(f"/console/e/{eid}/rename", data={"csrf": csrf, "name": "", "version": "1"})
    await _refused(c, empty, "the name is not valid")
    done = await c.post(
        f"/console/e/{eid}/rename", data={"csrf": csrf, "name": "New", "version": str(made["version"])}
    )
    assert done.status_code == 303
    assert (await c.get(f"/v1/events/{eid}")).json()["name"] == "New"
    unsure = await c.post(f"/console/e/{eid}/cancel", data={"csrf": csrf})
    await _refused(c, unsure, "tick the box to cancel")
    assert (await c.get(f"/v1/events/{eid}")).json()["status"] == "registration"
    assert (await c.post(f"/console/e/{eid}/cancel", data={"csrf": csrf, "sure": "yes"})).status_code == 303
    assert (await c.get(f"/v1/events/{eid}")).json()["status"] == "cancelled"


async def test_a_round_robin_shows_its_cross_table_and_a_bracket_its_rounds(api: Api) -> None:
    c = api.client
    for stages, shown in (
        ([{"format": "round_robin"}], 'class="cross"'),
        ([{"format": "single_elimination", "method": "seeded"}], 'class="bracket"'),
    ):
        made = (
            await c.post(
                "/v1/events",
                json={"name": "Shapes", "game": "generic", "settings": {"stages": stages}},
                headers=api.admin(),
            )
        ).json()
        org = bearer(made["organizer_token"])
        await c.post(f"/v1/events/{made['id']}/entries", json=[{"name": n} for n in "PQRS"], headers=org)
        rnd = (await start(api, made["id"], made["organizer_token"]))["round"]
        for m in rnd["matches"]:
            body = {"seats": [{"entry_id": s["entry_id"], "place": i + 1} for i, s in enumerate(m["seats"])]}
            assert (await c.post(f"/v1/matches/{m['id']}/result", json=body, headers=org)).status_code == 200
        page = await c.get(f"/e/{made['id']}")
        assert page.status_code == 200 and shown in page.text
        if shown == 'class="cross"':
            cross = (await c.get(f"/v1/events/{made['id']}/crosstable")).json()
            first = cross["rows"][0]
            assert all(f"{v:g}" in page.text for v in first["versus"].values())


def _section(html: str, section_id: str) -> str:
    found = re.search(rf'<section id="{section_id}".*?</section>', html, re.S)
    assert found, f"the page has a section {section_id}"
    return found.group(0)


def _seated(html: str, match_id: str) -> str:
    found = re.search(rf'<table class="seated[^"]*" data-match="{match_id}">.*?</table>', html, re.S)
    assert found, f"the page shows match {match_id}"
    return found.group(0)


def _rows(html: str) -> list[tuple[str, str]]:
    """Every row's entry and its text (tags dropped), in order."""
    return [
        (e, re.sub(r"<[^>]+>", " ", body))
        for e, body in re.findall(r'<tr data-entry="([^"]+)"[^>]*>(.*?)</tr>', html, re.S)
    ]


async def _rounds(api: Api, eid: str) -> list[dict[str, Any]]:
    return _items((await api.client.get(f"/v1/events/{eid}/rounds", params={"limit": 500})).json())


async def test_a_wbc_event_shows_its_heats_seeding_semifinal_and_final(api: Api) -> None:
    c = api.client
    words = i18n.EN
    names = [f"T{i}" for i in range(9)]
    eid, org, entries = await setup_event(
        api, names, game="titan-the-arena", preset="wbc-hmwp", seed="wbc-web-2026"
    )
    ids = {n: e["id"] for n, e in entries.items()}
    assert (await c.get(f"/e/{eid}")).status_code == 200  # in registration: the general page
    await start(api, eid, org)
    assert words["no_heats"] in _section((await c.get(f"/e/{eid}")).text, "heats")

    async def score(m: dict[str, Any], table: list[str]) -> None:
        seats = [{"entry_id": s["entry_id"], "score": 20 - table.index(_name(s))} for s in m["seats"]]
        r = await c.post(f"/v1/matches/{m['id']}/result", json={"seats": seats}, headers=bearer(org))
        assert r.status_code == 200, r.text

    def _name(s: dict[str, Any]) -> str:
        return next(n for n, i in ids.items() if i == s["entry_id"])

    for k in range(3):  # three heats of three: 3 winners and 3 alternates, two semifinal tables
        table = names[3 * k : 3 * k + 3]
        rnd = (
            await c.post(
                f"/v1/events/{eid}/rounds", json={"tables": [[ids[n] for n in table]]}, headers=bearer(org)
            )
        ).json()
        await score(rnd["matches"][0], table)
    make_up = (await c.get(f"/v1/events/{eid}/titan-arena/semifinal")).json()
    page = (await c.get(f"/e/{eid}")).text
    assert 'class="bracket"' not in page  # the heats have their own view, not the generic one
    heats = _section(page, "heats")
    for rnd in await _rounds(api, eid):
        for m in rnd["matches"]:
            shown = _rows(_seated(heats, m["id"]))
            assert [e for e, _ in shown] == [s["entry_id"] for s in m["seats"]]
            for (e, text), s in zip(shown, m["result"]["seats"], strict=True):
                assert f"{s['score']:g}" in text.split() and str(s["place"]) in text.split()
                role = next(r["role"] for r in make_up["seeding"] if r["entry_id"] == e)
                unseated = all(words[k] not in text for k in ("role_winner", "role_alternate"))
                assert (words[f"role_{role}"] in text) if role else unseated
    seeding = _section(page, "seeding")
    assert [e for e, _ in _rows(seeding)] == [r["entry_id"] for r in make_up["seeding"]]
    assert words["seeding_live"] in seeding and f'data-semifinal-size="{make_up["size"]}"' in seeding
    # the heats close: the semifinal's tables as drawn, each seat with its seed and role
    semi_round = (await advance(api, eid, org))["round"]
    kept = (await c.get(f"/v1/events/{eid}/titan-arena/semifinal")).json()
    assert kept["recorded"] and kept["tables"] == len(semi_round["matches"]) == 2
    page = (await c.get(f"/e/{eid}")).text
    assert words["seeding_recorded"] in _section(page, "seeding")
    semifinal = _section(page, "semifinal")
    seeds = {r["entry_id"]: r for r in kept["seeding"]}
    for m in semi_round["matches"]:
        table = _seated(semifinal, m["id"])
        assert words["table_n"].format(n=m["table"]) in table
        shown = _rows(table)
        assert [e for e, _ in shown] == [s["entry_id"] for s in m["seats"]]
        for e, text in shown:
            assert seeds[e]["name"] in text and str(seeds[e]["seed"]) in text.split()
            assert words[f"role_{seeds[e]['role']}"] in text
    assert words["final_not_drawn"] in _section(page, "final")
    # the semifinal is played: the final table and every place, as the places read gives them
    for m in semi_round["matches"]:
        order = sorted(m["seats"], key=lambda s: _name(s))
        await score(m, [_name(s) for s in order])
    final_round = (await advance(api, eid, org))["round"]
    (final,) = final_round["matches"]
    await score(final, sorted(_name(s) for s in final["seats"]))
    await advance(api, eid, org)
    places = (await c.get(f"/v1/events/{eid}/places")).json()
    page = (await c.get(f"/e/{eid}")).text
    assert [e for e, _ in _rows(_seated(_section(page, "final"), final["id"]))] == [
        s["entry_id"] for s in final["seats"]
    ]
    shown = _rows(_section(page, "places"))
    assert [e for e, _ in shown] == [r["entry_id"] for r in places["rows"]]
    for (_, text), r in zip(shown, places["rows"], strict=True):
        assert text.split()[0] == str(r["place"]) and words[f"placed_by_{r['decided_by']}"] in text
    ja = (await c.get(f"/e/{eid}", headers={"Accept-Language": "ja"})).text
    assert i18n.JA["semifinal"] in ja and i18n.JA["placed_by_final"] in ja


async def test_a_bga_event_shows_its_plan_settings_and_final(api: Api) -> None:
    c = api.client
    # the 3-player event in two groups: every table released at once, grouped, with its settings
    stage = {"format": "round_robin", "table_size": 3, "groups": 2, "mode": "complete", "release": "all"}
    eid, org, _ = await setup_event(
        api,
        [f"P{i}" for i in range(7)],
        game="puerto-rico",
        preset="bga-round-robin-3p",
        seed="bga-web-2026",
        settings={"stages": [stage], "rated": False},
    )
    waiting = (await c.get(f"/e/{eid}")).text
    assert i18n.EN["bga_no_plan"] in _section(waiting, "plan")
    if (await start(api, eid, org)).get("job_id"):
        await api.drain_jobs()
    summary = (await c.get(f"/v1/events/{eid}/bga")).json()
    groups = {e["id"]: e["group"] for e in _items((await c.get(f"/v1/events/{eid}/entries")).json())}
    page = (await c.get(f"/e/{eid}")).text
    plan = _section(page, "plan")
    for key, value in summary["table_settings"].items():
        shown = value if isinstance(value, str) else " / ".join(value)
        assert f'<dd data-setting="{key}">{shown}</dd>' in plan
    assert summary["warnings"] and all(w in html.unescape(plan) for w in summary["warnings"])
    _check_plan(plan, await _rounds(api, eid), groups)
    # the 2-player event: its rounds all released, played, the winner named as the summary says
    eid, org, _ = await setup_event(
        api, ["Ann", "Bob", "Cy", "Dee"], game="seasons", preset="bga-round-robin", seed="bga-web-2026"
    )
    await start(api, eid, org)
    rounds = await _rounds(api, eid)
    assert len(rounds) == 3
    plan = _section((await c.get(f"/e/{eid}")).text, "plan")
    _check_plan(plan, rounds, {})
    assert words_of(plan).count(i18n.EN["status_pending"]) == sum(len(r["matches"]) for r in rounds)
    for rnd in rounds:
        for m in rnd["matches"]:
            ordered = sorted(m["seats"], key=lambda s: s["name"])
            seats = [{"entry_id": s["entry_id"], "place": i + 1} for i, s in enumerate(ordered)]
            assert (
                await c.post(f"/v1/matches/{m['id']}/result", json={"seats": seats}, headers=bearer(org))
            ).status_code == 200
    await advance(api, eid, org)
    summary = (await c.get(f"/v1/events/{eid}/bga")).json()
    page = (await c.get(f"/e/{eid}")).text
    assert summary["winners"]
    winners = re.search(r'<p class="big" id="bga-winners">(.*?)</p>', page, re.S)
    assert winners and all(summary["names"][w] in winners.group(1) for w in summary["winners"])
    assert i18n.EN["bga_one_game"] in _section(page, "bga-final")


def words_of(html: str) -> str:
    return re.sub(r"<[^>]+>", " ", html)


def _check_plan(plan: str, rounds: list[dict[str, Any]], groups: dict[str, str | None]) -> None:
    """Every released match is in the plan: under its group's table, in its round, with its seats."""
    tables = re.findall(
        r'<table class="plan" data-stage="(\d+)"(?: data-group="([^"]+)")?>(.*?)</table>', plan, re.S
    )
    assert tables
    where: dict[str, tuple[str, str | None, str, str]] = {}
    for stage, group, body in tables:
        for number, tbody in re.findall(r'<tbody data-round="(\d+)">(.*?)</tbody>', body, re.S):
            for match_id, row in re.findall(
                r'<tr class="[^"]*" data-match="([^"]+)">(.*?)</tr>', tbody, re.S
            ):
                where[match_id] = (stage, group or None, number, words_of(row))
    listed = [m for r in rounds for m in r["matches"]]
    assert set(where) == {m["id"] for m in listed}
    for rnd in rounds:
        for m in rnd["matches"]:
            stage, group, number, text = where[m["id"]]
            assert (int(stage), int(number)) == (m["stage"], m["round"])
            assert group == groups.get(m["seats"][0]["entry_id"])
            assert len({groups.get(s["entry_id"]) for s in m["seats"]}) == 1
            assert all(s["name"] in text for s in m["seats"]) and str(m["table"]) in text.split()


async def test_a_page_reads_its_event_once(api: Api) -> None:
    """Rendering the event page or the console reads the event's row once, not once a service."""
    c = api.client
    made = (
        await c.post(
            "/v1/events",
            json={
                "name": "Counted",
                "game": "generic",
                "settings": {"stages": [{"format": "swiss", "rounds": 2}]},
            },
            headers=api.admin(),
        )
    ).json()
    eid, org = made["id"], made["organizer_token"]
    rows = [{"name": n} for n in ("Ada", "Grace", "Alan", "Barbara")]
    assert (await c.post(f"/v1/events/{eid}/entries", json=rows, headers=bearer(org))).status_code == 201
    assert (await c.post(f"/v1/events/{eid}/start", headers=bearer(org))).status_code == 200
    reads: list[str] = []

    def seen(conn: Any, cursor: Any, statement: str, *rest: Any) -> None:
        flat = " ".join(statement.split()).lower()
        # the event's row (the standings cache's one-column look at its mark is not a read of it)
        if flat.startswith("select events.id, events.name") and "where events.id =" in flat:
            reads.append(flat)

    c.cookies.set(COOKIE, org)
    sa_event.listen(Engine, "before_cursor_execute", seen)
    try:
        for path in (f"/e/{eid}", f"/console/e/{eid}", f"/e/{eid}/projector"):
            reads.clear()
            assert (await c.get(path)).status_code == 200
            assert len(reads) == 1, (path, len(reads))
    finally:
        sa_event.remove(Engine, "before_cursor_execute", seen)


async def test_the_console_records_places_with_ties_and_scores(api: Api) -> None:
    """A 4-seat table: each seat's place (a tie kept), with scores where a tie-break reads them; a
    seat left without a place is refused naming the player, and what was chosen is kept."""
    c = api.client
    made = (
        await c.post(
            "/v1/events",
            json={
                "name": "Four seats",
                "game": "generic",
                "settings": {
                    "stages": [{"format": "free_for_all", "table_size": 4}],
                    "scoring": {"scheme": "placement", "points": [3, 2, 1, 0]},
                    "tiebreaks": ["points_behind_all"],
                },
            },
            headers=api.admin(),
        )
    ).json()
    eid, org = made["id"], made["organizer_token"]
    rows = [{"name": n} for n in ("Ada", "Grace", "Alan", "Barbara")]
    assert (await c.post(f"/v1/events/{eid}/entries", json=rows, headers=bearer(org))).status_code == 201
    m = (await c.post(f"/v1/events/{eid}/start", headers=bearer(org))).json()["round"]["matches"][0]
    c.cookies.set(COOKIE, org)
    page = await c.get(f"/console/e/{eid}")
    assert 'name="place:3" value="4"' in page.text and 'name="score:0"' in page.text
    assert 'name="body_points:0"' not in page.text  # no differential in this event's ranks
    assert "Ada won" not in page.text  # no one-click winner at a table of four
    url = f"/console/e/{eid}/matches/{m['id']}/result"
    names = [s["name"] for s in sorted(m["seats"], key=lambda s: s["seat"])]
    partial = {
        "csrf": csrf_of(org),
        "choice": "places",
        "form_match": m["id"],
        "place:0": "1",
        "place:1": "1",
        "place:2": "3",
    }
    shown = await _refused(c, await c.post(url, data=partial), f"no place for {names[3]}")
    assert f'name="place:2" value="3" id="pl-{m["id"]}-2-3" checked' in shown  # kept
    assert (await c.get(f"/v1/matches/{m['id']}")).json()["status"] == "pending"
    full = {**partial, "place:3": "4", "score:0": "40", "score:1": "40", "score:2": "25.5", "score:3": "10"}
    assert (await c.post(url, data=full)).status_code == 303
    got = (await c.get(f"/v1/matches/{m['id']}")).json()
    seats = sorted(
        got["result"]["seats"],
        key=lambda s: names.index(next(x["name"] for x in m["seats"] if x["entry_id"] == s["entry_id"])),
    )
    assert got["status"] == "confirmed"
    assert [s["place"] for s in seats] == [1, 1, 3, 4] and [s["score"] for s in seats] == [40, 40, 25.5, 10]


async def test_a_player_reports_places_with_the_entry_token_only(api: Api) -> None:
    c = api.client
    made = (
        await c.post(
            "/v1/events",
            json={
                "name": "Four phones",
                "game": "generic",
                "settings": {"stages": [{"format": "swiss", "table_size": 4, "rounds": 1}]},
            },
            headers=api.admin(),
        )
    ).json()
    eid, org = made["id"], made["organizer_token"]
    rows = [{"name": n} for n in ("Ada", "Grace", "Alan", "Barbara")]
    entries = _items((await c.post(f"/v1/events/{eid}/entries", json=rows, headers=bearer(org))).json())
    m = (await c.post(f"/v1/events/{eid}/start", headers=bearer(org))).json()["round"]["matches"][0]
    seat0 = min(m["seats"], key=lambda s: s["seat"])["entry_id"]
    token = next(e["entry_token"] for e in entries if e["id"] == seat0)
    form = {"place:0": "1", "place:1": "2", "place:2": "3", "place:3": "4"}
    url = f"/e/{eid}/m/{m['id']}/result"
    assert (await c.post(url, data=form)).status_code == 401  # no token: nothing is reported
    refused = await c.post(url, data={"place:0": "1"}, headers=bearer(token))
    assert refused.status_code == 422 and "no place for" in refused.json()["detail"]
    done = await c.post(url, data=form, headers=bearer(token))
    assert done.status_code == 200 and done.json()["status"] == "reported"
    assert (await c.get(f"/v1/matches/{m['id']}")).json()["status"] == "reported"


async def test_a_game_log_shows_its_verdict_before_it_is_recorded(api: Api) -> None:
    c = api.client
    eid, org, _ = await setup_event(
        api,
        ["Ada", "Barbara"],
        game="rite-of-command",
        settings={"stages": [{"format": "swiss", "rounds": 1}]},
    )
    m = (await start(api, eid, org))["round"]["matches"][0]
    c.cookies.set(COOKIE, org)
    csrf = csrf_of(org)
    page = await c.get(f"/console/e/{eid}")
    assert f'action="/console/e/{eid}/matches/{m["id"]}/log"' in page.text
    url = f"/console/e/{eid}/matches/{m['id']}/log"
    # not JSON: refused, the text kept
    await _refused(
        c,
        await c.post(url, data={"csrf": csrf, "step": "preview", "form_match": m["id"], "log": "{rings"}),
        "not JSON",
        "{rings</textarea>",
    )
    # an uploaded file: the verdict, with names and places, and nothing recorded
    shown = await c.post(
        url,
        data={"csrf": csrf, "step": "preview", "form_match": m["id"], "log": ""},
        files={"logfile": ("ring.json", json.dumps(RINGS).encode(), "application/json")},
    )
    assert shown.status_code == 200 and "Adjudicator: Rite of Command" in shown.text
    winner = m["seats"][1]["name"]
    assert re.search(rf'<td class="num">1</td><td>{winner}</td><td class="num">2</td>', shown.text), (
        shown.text
    )
    assert (await c.get(f"/v1/matches/{m['id']}")).json()["status"] == "pending"
    log = html.unescape(re.search(r'name="log" value="([^"]*)"', shown.text).group(1))  # type: ignore[union-attr]
    done = await c.post(url, data={"csrf": csrf, "step": "commit", "log": log})
    assert done.status_code == 303
    got = (await c.get(f"/v1/matches/{m['id']}")).json()
    assert got["status"] == "confirmed" and [s["place"] for s in got["result"]["seats"]] == [2, 1]
    assert got["verdict"]["adjudicator"] == "rite-of-command"


async def test_the_console_offers_only_the_links_that_apply(api: Api) -> None:
    """Score cards for BATTLEBOOKS only, TRF-16 for a 2-seat Swiss or round robin, "Pair the next
    round" only where the stage pairs round by round (not a BGA round robin, released at once)."""
    c = api.client

    async def console(**event: Any) -> str:
        players = event.pop("players", ["Ann", "Bob", "Cy", "Dee"])
        eid, org, _ = await setup_event(api, players, **event)
        await start(api, eid, org)
        c.cookies.set(COOKIE, org)
        return str((await c.get(f"/console/e/{eid}")).text)

    swiss = await console(game="generic", settings={"stages": [{"format": "swiss", "rounds": 3}]})
    assert "Pair the next round" in swiss and "TRF-16" in swiss and "/print/scorecards" not in swiss
    bga = await console(game="seasons", preset="bga-round-robin", seed="bga-links")
    assert "Pair the next round" not in bga and "/print/scorecards" not in bga
    four = await console(
        game="generic", settings={"stages": [{"format": "swiss", "table_size": 4, "rounds": 2}]}
    )
    assert "TRF-16" not in four and "Pair the next round" in four
    made = (
        await c.post(
            "/v1/events",
            json={"name": "Cards", "game": "battlebooks", "preset": "battlebooks-clash"},
            headers=api.admin(),
        )
    ).json()
    c.cookies.set(COOKIE, made["organizer_token"])
    assert "/print/scorecards" in (await c.get(f"/console/e/{made['id']}")).text


async def test_every_preset_setting_has_a_label_in_both_languages(api: Api) -> None:
    c = api.client
    for name in presets.PRESETS:
        labels = {}
        for lang in ("en", "ja"):
            page = await c.get("/console", params={"preset": name, "lang": lang})
            found = re.findall(r'<label for="knob:([^"]+)">([^<]*)</label>', page.text)
            assert found, name
            for path, label in found:
                assert label and label != path and not re.search(r"\w\.\d|\.\w", label), (
                    name,
                    lang,
                    path,
                    label,
                )
            labels[lang] = dict(found)
        assert labels["en"].keys() == labels["ja"].keys()
        assert all(labels["en"][k] != labels["ja"][k] for k in labels["en"]), name
    c.cookies.clear()


async def test_the_admin_token_recovers_an_event_at_the_console_sign_in(api: Api) -> None:
    c = api.client
    made = (
        await c.post("/v1/events", json={"name": "Lost key", "game": "generic"}, headers=api.admin())
    ).json()
    eid = made["id"]

    async def refused(data: dict[str, str]) -> str:
        """A refused sign-in: post/redirect/get to the home page, which says why once; what was
        typed in the event's field is kept, the token never."""
        r = await c.post("/console/sign-in", data=data)
        assert r.status_code == 303 and r.headers["location"] == "/console?preset=generic#h-signin"
        assert COOKIE not in r.cookies
        shown = await c.get("/console")
        assert shown.status_code == 200 and 'role="alert"' in shown.text
        assert f'value="{data["token"]}"' not in shown.text and ADMIN_TOKEN not in shown.text
        again = await c.get("/console")  # shown once
        assert 'role="alert"' not in again.text
        return shown.text

    assert "give the event" in await refused({"token": ADMIN_TOKEN})
    assert 'value="no-such-event"' in await refused({"token": ADMIN_TOKEN, "event": "no-such-event"})
    assert f'value="{eid}"' in await refused({"token": "nope", "event": eid})
    signed = await c.post(
        "/console/sign-in", data={"token": ADMIN_TOKEN, "event": f"http://hall.example/e/{eid}/projector"}
    )
    assert signed.status_code == 303 and signed.headers["location"] == f"/console/e/{eid}"
    c.cookies.set(COOKIE, ADMIN_TOKEN)
    console = await c.get(f"/console/e/{eid}")
    assert console.status_code == 200 and "Lost key" in console.text
    renamed = await c.post(
        f"/console/e/{eid}/rename",
        data={"csrf": _csrf(console.text), "name": "Found key", "version": str(made["version"])},
    )
    assert renamed.status_code == 303
    assert (await c.get(f"/v1/events/{eid}")).json()["name"] == "Found key"
    c.cookies.clear()


async def test_a_player_gets_a_new_link_and_the_old_one_stops_working(api: Api) -> None:
    c = api.client
    eid, org, entries = await setup_event(api, ["Ada", "Grace"])
    ada = entries["Ada"]
    old = ada["entry_token"]
    assert (await c.get(f"/e/{eid}/me/view", headers=bearer(old))).status_code == 200
    # the API: organizer only
    assert (
        await c.post(f"/v1/events/{eid}/entries/{ada['id']}/token", headers=bearer(old))
    ).status_code == 403
    fresh = await c.post(f"/v1/events/{eid}/entries/{ada['id']}/token", headers=bearer(org))
    assert fresh.status_code == 200 and fresh.json()["id"] == ada["id"]
    new = fresh.json()["entry_token"]
    assert (await c.get(f"/e/{eid}/me/view", headers=bearer(old))).status_code == 401
    assert (await c.get(f"/e/{eid}/me/view", headers=bearer(new))).status_code == 200
    # the console: one button, the new link shown once
    c.cookies.set(COOKIE, org)
    shown = await c.post(f"/console/e/{eid}/entries/{ada['id']}/token", data={"csrf": csrf_of(org)})
    assert shown.status_code == 200 and shown.text.count('class="personal"') == 1
    link = re.search(r'class="personal" href="([^"]+)"', shown.text).group(1)  # type: ignore[union-attr]
    latest = link.split("#token=")[1]
    assert (await c.get(f"/e/{eid}/me/view", headers=bearer(new))).status_code == 401
    assert (await c.get(f"/e/{eid}/me/view", headers=bearer(latest))).status_code == 200
    history = (await c.get(f"/v1/events/{eid}/history", headers=bearer(org))).json()["items"]
    assert [(h["action"], h["payload"]["name"]) for h in history] == [("entry_token", "Ada")] * 2


def _cards(page: str) -> list[str]:
    return re.findall(r'class="personal" href="[^"]+#token=([^"]+)"', page)


async def test_new_links_for_every_player_and_the_cards_a_page_carries(api: Api) -> None:
    c = api.client
    eid, org, entries = await setup_event(api, ["Ada", "Grace", "Hedy"])
    old = {n: e["entry_token"] for n, e in entries.items()}
    assert (
        await c.delete(f"/v1/events/{eid}/entries/{entries['Hedy']['id']}", headers=bearer(org))
    ).status_code == 200
    c.cookies.set(COOKIE, org)
    csrf = csrf_of(org)
    # the cards a page showed go along with its next form: a refused one too (after the redirect),
    # those whose token still works, of this event only
    _, other, others = await setup_event(api, ["Zoe"])
    carried = f"{old['Ada']} not/a/token {others['Zoe']['entry_token']}"
    refused = await c.post(f"/console/e/{eid}/entries", data={"csrf": csrf, "names": " ", "shown": carried})
    assert _cards(await _refused(c, refused, "nothing to register")) == [old["Ada"]]
    added = await c.post(f"/console/e/{eid}/entries", data={"csrf": csrf, "names": "Ida", "shown": carried})
    assert added.status_code == 200 and len(_cards(added.text)) == 2 and _cards(added.text)[0] == old["Ada"]
    # every player's link: only on the organizer's word
    unticked = await c.post(f"/console/e/{eid}/entries/tokens", data={"csrf": csrf})
    await _refused(c, unticked, "tick the box to confirm")
    assert (await c.get(f"/e/{eid}/me/view", headers=bearer(old["Ada"]))).status_code == 200
    # a scorekeeper may not
    staff = await c.post(
        f"/v1/events/{eid}/staff", json={"name": "Sam", "role": "scorekeeper"}, headers=bearer(org)
    )
    c.cookies.set(COOKIE, staff.json()["token"])
    forged = await c.post(
        f"/console/e/{eid}/entries/tokens", data={"csrf": csrf_of(staff.json()["token"]), "sure": "yes"}
    )
    assert forged.status_code == 403
    c.cookies.set(COOKIE, org)
    sheet = await c.post(
        f"/console/e/{eid}/entries/tokens", data={"csrf": csrf, "sure": "yes", "shown": carried}
    )
    assert sheet.status_code == 200 and "Every player&#39;s link (3)" in sheet.text
    names = re.findall(r'<article class="slip link-card" aria-label="([^"]+)"', sheet.text)
    assert names == ["Ada", "Grace", "Ida"]  # by name; the dropped player is not on the sheet
    new = _cards(sheet.text)
    for token in new:
        assert (await c.get(f"/e/{eid}/me/view", headers=bearer(token))).status_code == 200
    for token in (old["Ada"], old["Grace"]):
        assert (await c.get(f"/e/{eid}/me/view", headers=bearer(token))).status_code == 401
    assert (await c.get(f"/e/{eid}/me/view", headers=bearer(old["Hedy"]))).status_code == 200
    history = (await c.get(f"/v1/events/{eid}/history", headers=bearer(org))).json()["items"]
    assert history[-1]["action"] == "entry_tokens" and len(history[-1]["payload"]["entry_ids"]) == 3
    # an event with nobody in it yet: refused in words
    empty, nobody, _ = await setup_event(api, [])
    c.cookies.set(COOKIE, nobody)
    none = await c.post(f"/console/e/{empty}/entries/tokens", data={"csrf": csrf_of(nobody), "sure": "yes"})
    await _refused(c, none, "no player in it")
    c.cookies.clear()
