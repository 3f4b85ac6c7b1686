"""Exports: standings, pairings and the cross-table as CSV (the cross-table as JSON too), a FIDE
TRF-16 file read back by a parser of the format's fixed columns, and the BATTLEBOOKS score cards of a
whole event in one file."""

from __future__ import annotations

import asyncio
import csv
import io
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.api import (
    Api,
    assert_problem,
    pair,
    play_round,
    report,
    setup_event,
    standings,
    start,
)

NAMES = ["Ada", "Bob", "Cy", "Di", "Eve"]


async def _played_swiss(api: Api, rounds: int = 3, **event: Any) -> tuple[str, str, dict[str, Any]]:
    entries = {n: {"rating": 2000 - 100 * i} for i, n in enumerate(NAMES)}
    event_id, token, made = await setup_event(
        api, entries, settings={"stages": [{"format": "swiss", "rounds": rounds}]}, **event
    )
    rnd = (await start(api, event_id, token))["round"]
    for n in range(rounds):
        for m in rnd["matches"]:
            if m["status"] == "bye":
                continue
            names = [s["name"] for s in m["seats"]]
            if "Cy" in names and "Di" in names:
                await report(api, token, m, [1, 1], outcome="draw")
            else:
                await report(api, token, m, [1 if x == min(names) else 2 for x in names])
        if n < rounds - 1:
            rnd = await pair(api, event_id, token)
    return event_id, token, made


def _csv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


async def test_standings_and_pairings_as_csv(api: Api) -> None:
    event_id, _, _ = await _played_swiss(api)
    rows = await standings(api, event_id)
    r = await api.client.get(f"/v1/events/{event_id}/standings", params={"format": "csv"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    lines = _csv(r.text)
    assert [(int(x["rank"]), x["name"], float(x["points"])) for x in lines] == [
        (x["rank"], x["name"], x["points"]) for x in rows
    ]
    assert {"buchholz", "sonneborn_berger", "wins"} <= set(lines[0])  # the default chain's columns
    rounds = (await api.client.get(f"/v1/events/{event_id}/rounds")).json()["items"]
    r = await api.client.get(f"/v1/events/{event_id}/rounds", params={"format": "csv"})
    seats = _csv(r.text)
    assert len(seats) == sum(len(m["seats"]) for rnd in rounds for m in rnd["matches"])
    assert {(int(s["round"]), s["entry_id"]) for s in seats} == {
        (rnd["number"], s["entry_id"]) for rnd in rounds for m in rnd["matches"] for s in m["seats"]
    }
    assert_problem(await api.client.get(f"/v1/events/{event_id}/rounds", params={"format": "xml"}), 422)


async def test_crosstable_json_and_csv(api: Api) -> None:
    event_id, _, _ = await _played_swiss(api)
    table = (await api.client.get(f"/v1/events/{event_id}/crosstable")).json()
    rows = await standings(api, event_id)
    assert [r["entry_id"] for r in table["rows"]] == [r["entry_id"] for r in rows]
    assert table["rounds"] == [1, 2, 3]
    by_id = {r["entry_id"]: r for r in table["rows"]}
    for row in table["rows"]:
        assert sum(c["points"] for c in row["cells"]) == row["points"]
        for c in row["cells"]:
            if c["seat"] is None:
                assert c["result"] == "bye"
                continue
            (opp,) = c["opponents"]
            theirs = next(x for x in by_id[opp]["cells"] if x["round"] == c["round"])
            assert theirs["opponents"] == [row["entry_id"]] and theirs["seat"] == 1 - c["seat"]
    r = await api.client.get(f"/v1/events/{event_id}/crosstable", params={"format": "csv"})
    lines = list(csv.reader(io.StringIO(r.text)))
    assert lines[0] == ["rank", "name", "points", "round 1", "round 2", "round 3"]
    ranks = {r["entry_id"]: r["rank"] for r in table["rows"]}
    first = table["rows"][0]
    for c, text in zip(first["cells"], lines[1][3:], strict=False):
        if c["seat"] is None:
            assert text == "+bye"
        else:
            sign = {"win": "+", "draw": "=", "loss": "-"}[c["result"]]
            assert text == f"{sign}{ranks[c['opponents'][0]]}{'wb'[c['seat']]}"


def parse_trf(text: str) -> dict[str, Any]:
    """A TRF-16 reader of its own, by the format's columns (not by the writer's code)."""
    out: dict[str, Any] = {"players": {}}
    for line in text.splitlines():
        code = line[:3]
        if code == "001":
            start = int(line[4:8])
            games = []
            pos = 91
            while pos + 8 <= len(line):
                opp, colour, result = line[pos : pos + 4], line[pos + 5], line[pos + 7]
                games.append((int(opp) if opp.strip() and opp != "0000" else None, colour, result))
                pos += 10
            out["players"][start] = {
                "name": line[14:47].strip(),
                "rating": int(line[48:52]) if line[48:52].strip() else None,
                "fide_id": line[57:68].strip(),
                "points": float(line[80:84]),
                "rank": int(line[85:89]),
                "games": games,
            }
        elif code in ("012", "062", "XXR", "BBW", "BBD", "BBL", "BBU"):
            out[code] = line[4:].strip()
    return out


async def test_trf_export_reads_back(api: Api) -> None:
    event_id, _, made = await _played_swiss(api, name="Club Championship")
    r = await api.client.get(f"/v1/events/{event_id}/trf")
    assert r.status_code == 200, r.text
    trf = parse_trf(r.text)
    assert trf["012"] == "Club Championship" and trf["062"] == "5" and trf["XXR"] == "3"
    value = {"1": float(trf["BBW"]), "=": float(trf["BBD"]), "0": float(trf["BBL"]), "U": float(trf["BBU"])}
    rows = {r["name"]: r for r in await standings(api, event_id)}
    players = trf["players"]
    assert sorted(p["name"] for p in players.values()) == sorted(NAMES)
    for number, p in players.items():
        assert p["points"] == rows[p["name"]]["points"] and p["rank"] == rows[p["name"]]["rank"]
        assert p["rating"] == made[p["name"]]["rating"]
        assert sum(value[g[2]] for g in p["games"]) == p["points"]  # the results add up to the points
        for rnd, (opp, colour, result) in enumerate(p["games"]):
            if opp is None:
                assert (colour, result) == ("-", "U")
                continue
            o_opp, o_colour, o_result = players[opp]["games"][rnd]
            assert o_opp == number and {colour, o_colour} == {"w", "b"}
            assert {result, o_result} in ({"1", "0"}, {"="})
    # an elimination stage has no TRF file
    event_id, token, _ = await setup_event(
        api, NAMES[:4], settings={"stages": [{"format": "single_elimination"}]}
    )
    await start(api, event_id, token)
    assert (
        "2-seat Swiss or round robin"
        in assert_problem(await api.client.get(f"/v1/events/{event_id}/trf"), 409)["detail"]
    )


async def test_battlebooks_score_cards_of_a_whole_event(api: Api) -> None:
    event_id, token, made = await setup_event(
        api,
        ["Ada", "Bob", "Cy", "Di"],
        game="battlebooks",
        settings={"stages": [{"format": "swiss", "rounds": 2}]},
    )
    rnd = (await start(api, event_id, token))["round"]
    await play_round(api, token, rnd)
    r = await api.client.get(f"/v1/events/{event_id}/scorecards")
    assert r.status_code == 200, r.text
    cards = r.json()["cards"]
    assert [c["name"] for c in cards] == ["Ada", "Bob", "Cy", "Di"]
    for card in cards:
        own = (await api.client.get(f"/v1/events/{event_id}/entries/{card['entry_id']}/scorecard")).json()
        assert own == card
    r = await api.client.get(f"/v1/events/{event_id}/scorecards", params={"format": "csv"})
    lines = _csv(r.text)
    assert r.headers["content-disposition"].startswith("attachment")
    assert len(lines) == sum(len(c["games"]) for c in cards) and {x["name"] for x in lines} == set(made)


BBPPAIRINGS = Path(os.environ.get("ARBITER_BBPPAIRINGS", "/work/tools/bbpPairings/bbpPairings.exe"))
EIGHT = ["Ada", "Bob", "Cy", "Di", "Eve", "Fay", "Gus", "Hal"]


async def _running_swiss(api: Api, names: list[str], planned: int, played: int) -> str:
    """A Swiss of ``planned`` rounds with ``played`` rounds reported and the next not yet paired."""
    entries = {n: {"rating": 2000 - 100 * i} for i, n in enumerate(names)}
    event_id, token, _ = await setup_event(
        api, entries, settings={"stages": [{"format": "swiss", "rounds": planned}]}
    )
    rnd = (await start(api, event_id, token))["round"]
    for n in range(played):
        await play_round(api, token, rnd)
        if n < played - 1:
            rnd = await pair(api, event_id, token)
    return event_id


async def test_the_trf_of_a_running_event_gives_its_planned_rounds(api: Api) -> None:
    # XXR is the planned number of rounds (5), not the rounds played (2): a pairing program refuses
    # to pair round 3 from a file that says the event has 2
    event_id = await _running_swiss(api, NAMES, planned=5, played=2)
    trf = parse_trf((await api.client.get(f"/v1/events/{event_id}/trf")).text)
    assert trf["XXR"] == "5"
    assert {len(p["games"]) for p in trf["players"].values()} == {2}
    # a round robin plans all of its rounds: 5 entries, a bye a round, 5 rounds
    event_id, token, _ = await setup_event(api, NAMES, settings={"stages": [{"format": "round_robin"}]})
    await start(api, event_id, token)
    trf = parse_trf((await api.client.get(f"/v1/events/{event_id}/trf")).text)
    assert trf["XXR"] == "5"


def _bbp_pair_next(text: str, folder: Path) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """bbpPairings' Dutch pairing of the next round of the TRF ``text``: its run and its output."""
    source, paired = folder / "event.trf", folder / "next.txt"
    source.write_text(text)
    run = subprocess.run(
        [str(BBPPAIRINGS), "--dutch", str(source), "-p", str(paired)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return run, (paired.read_text().split() if paired.exists() else [])


def _bbppairings_missing() -> str | None:
    if BBPPAIRINGS.exists():
        return None
    return f"bbpPairings is not installed at {BBPPAIRINGS} (set ARBITER_BBPPAIRINGS to its path)"


async def test_bbppairings_pairs_the_next_round_from_the_trf_of_a_running_event(
    api: Api, tmp_path: Path
) -> None:
    if (missing := _bbppairings_missing()) is not None:
        pytest.skip(missing)
    event_id = await _running_swiss(api, EIGHT, planned=5, played=2)
    text = (await api.client.get(f"/v1/events/{event_id}/trf")).text
    trf = parse_trf(text)
    run, lines = await asyncio.to_thread(_bbp_pair_next, text, tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    count, numbers = int(lines[0]), [int(x) for x in lines[1:]]
    pairs = list(zip(numbers[::2], numbers[1::2], strict=True))
    assert count == len(pairs) == 4
    seated = sorted(x for p in pairs for x in p if x)
    assert seated == list(range(1, 9))  # every player once
    met = {frozenset((n, g[0])) for n, p in trf["players"].items() for g in p["games"] if g[0] is not None}
    assert not {frozenset(p) for p in pairs} & met  # no rematch: the file told it who met whom
