"""Safe against hostile peers (Postgres and SQLite): a malformed console form token is a 403, names
that a spreadsheet would run as formulas are exported as text, and a cursor nobody handed out is a
422 at ``query.cursor``."""

from __future__ import annotations

import asyncio
import csv
import io
import time

from tests.support.api import Api, assert_problem, make_event, report, setup_event, start

FORMULA = "=cmd|' /C calc'!A0"


# --------------------------------------------------------------------------- the console's forms


async def test_a_non_ascii_form_token_is_refused_not_an_error(api: Api) -> None:
    event, token = await make_event(api)
    api.client.cookies.set("arbiter_console", token)
    try:
        url = f"/console/e/{event['id']}/start"
        for forged in ("é" * 40, "☃", "x"):
            r = await api.client.post(url, data={"csrf": forged}, headers={"Accept": "text/html"})
            assert r.status_code == 403, (forged, r.status_code, r.text[:200])
        for raw in (b"csrf=%FF%FE", "csrf=é".encode("latin-1"), b"csrf=%ED%B3%BF"):  # not UTF-8
            r = await api.client.post(
                url, content=raw, headers={"Content-Type": "application/x-www-form-urlencoded"}
            )
            assert r.status_code == 403, (raw, r.status_code, r.text[:200])
    finally:
        api.client.cookies.clear()
    assert (await api.client.get(f"/v1/events/{event['id']}")).json()["status"] == "registration"


async def test_a_forged_non_ascii_flash_cookie_is_ignored_not_an_error(api: Api) -> None:
    event, token = await make_event(api)
    cookie = f"arbiter_console={token}; arbiter_console_flash=eyJhIjoxfQ.\u00e9\u00e9".encode("latin-1")
    r = await api.client.get(f"/console/e/{event['id']}", headers={"Cookie": cookie})
    assert r.status_code == 200, r.text[:300]


# --------------------------------------------------------------------------- CSV exports


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


async def test_formula_names_are_exported_as_text_and_numbers_stay_numbers(api: Api) -> None:
    names = {FORMULA: {}, "+SUM(A1)": {}, "@cell": {}, "-2+3": {}, "Ada": {}, "Bo": {}}
    settings = {
        "stages": [{"format": "swiss", "rounds": 1}],
        "scoring": {"scheme": "wdl", "win": 3, "draw": 1, "loss": -1.5, "bye": 3},
    }
    event_id, token, _ = await setup_event(api, names, settings=settings)
    rnd = (await start(api, event_id, token))["round"]
    for m in rnd["matches"]:
        if m["status"] != "bye":
            await report(api, token, m, [1, 2])
    r = await api.client.get(f"/v1/events/{event_id}/standings", params={"format": "csv"})
    assert r.status_code == 200
    lines = _rows(r.text)
    shown = {x["name"] for x in lines}
    assert shown == {"'" + FORMULA, "'+SUM(A1)", "'@cell", "'-2+3", "Ada", "Bo"}
    assert not any(
        cell.startswith(("=", "+", "-", "@", "\t", "\r"))
        for x in lines
        for cell in x.values()
        if cell and not _number(cell)
    )
    points = [float(x["points"]) for x in lines]
    assert -1.5 in points  # a loss's points are a number in the file, not text
    assert any(x["points"] == "-1.5" for x in lines)

    r = await api.client.get(f"/v1/events/{event_id}/rounds", params={"format": "csv"})
    assert r.status_code == 200
    seats = _rows(r.text)
    assert "'" + FORMULA in {s["name"] for s in seats}
    assert FORMULA not in r.text.replace("'" + FORMULA, "")

    # the cross-table's own notation (+5w, -3b) is the server's, not anybody's text: kept as it is
    r = await api.client.get(f"/v1/events/{event_id}/crosstable", params={"format": "csv"})
    table = list(csv.reader(io.StringIO(r.text)))
    cells = [c for line in table[1:] for c in line[3:] if c]
    assert cells and all(c[0] in "+=-" for c in cells)
    assert "'" + FORMULA in {line[1] for line in table[1:]}


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


# --------------------------------------------------------------------------- paging


async def test_a_bogus_cursor_is_a_422_on_events_and_players(api: Api) -> None:
    await make_event(api)
    await api.client.post("/v1/players", json={"name": "Paged Player"}, headers=api.admin())
    for url in ("/v1/events", "/v1/players"):
        for bogus in ("nope", "x" * 300, "\x00", "eyJhIjoxfQ"):
            problem = assert_problem(await api.client.get(url, params={"cursor": bogus}), 422)
            assert any(e["loc"] == ["query", "cursor"] for e in problem["errors"]), problem
        first = await api.client.get(url, params={"limit": 1})
        assert first.status_code == 200
        nxt = first.json()["next_cursor"]
        if nxt is not None:  # a cursor the list handed out still pages
            assert (await api.client.get(url, params={"limit": 1, "cursor": nxt})).status_code == 200


# --------------------------------------------------------------------------- heavy searches


async def test_a_queue_of_heavy_searches_ends_within_their_budget(api: Api) -> None:
    """Eight large searches at once (a process runs two at a time): each stops at its budget,
    counted from when it started waiting, so the last ends well within 3× the budget."""
    budget = 3
    body = {"players": 256, "table_size": 4, "mode": "games", "games_per_player": 60, "rounds": True}
    started = time.monotonic()
    posted = await asyncio.gather(
        *[
            api.client.post(
                "/v1/schedules/round-robin", json={**body, "seed": f"q{i}", "time_budget": budget}
            )
            for i in range(8)
        ]
    )
    assert all(r.status_code == 202 for r in posted), [r.text for r in posted]
    await api.drain_jobs()
    elapsed = time.monotonic() - started
    for r in posted:
        job = (await api.client.get(r.headers["location"])).json()
        assert job["status"] == "done", job
        assert any("stopped at its time budget" in w for w in job["result"]["report"]["warnings"])
        assert len(job["result"]["tables"]) == 256 * 60 // 4  # a whole design all the same
    print(f"[{api.backend}] 8 searches of {budget} s each, 2 at a time: all done in {elapsed:.2f} s")
    assert elapsed < budget * 3
