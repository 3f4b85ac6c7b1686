"""BATTLEBOOKS Swiss presets (Clash, Roll Call, Secret Wars) run through HTTP, on Postgres and SQLite:
rounds by player count, adjacent pairing with the bye to the lowest, the hero rule, packs, playoffs,
score cards and ratings."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from app.core import rng
from app.core.games import battlebooks as bb
from app.core.pairing.swiss import first_round_order
from tests.support.api import (
    Api,
    add_entry,
    advance,
    assert_problem,
    bearer,
    make_event,
    pair,
    post_result,
    setup_event,
    standings,
    start,
)

SEED = "battlebooks-seed-716f"
NAMES = [f"P{i:02d}" for i in range(1, 18)]  # P01 is the strongest
BOOKS = ["Wolverine", "Captain America", "Spider-Man", "Hulk", "Thor", "Storm", "Venom"]


@dataclass
class Sim:
    """The event as the test plays it, with its own tally of points and differentials."""

    api: Api
    preset: str
    eid: str
    token: str
    entries: dict[str, dict[str, Any]]  # id → entry read
    points: dict[str, float] = field(default_factory=dict)
    diff: dict[str, float] = field(default_factory=dict)
    byes: dict[str, int] = field(default_factory=dict)
    heroes: dict[str, dict[int, str | None]] = field(default_factory=dict)  # per entry, in the block
    played: list[dict[str, Any]] = field(default_factory=list)  # rounds as read

    def name(self, entry_id: str) -> str:
        return str(self.entries[entry_id]["name"])


async def create(api: Api, preset: str, n: int, **settings: Any) -> Sim:
    body: dict[str, Any] = {"name": f"{preset} {n}", "game": "battlebooks", "preset": preset, "seed": SEED}
    if settings:
        body["settings"] = settings
    books: dict[str, dict[str, Any]] = {}
    for i, name in enumerate(NAMES[:n]):
        if preset == "battlebooks-clash":
            chars = [BOOKS[i % len(BOOKS)], BOOKS[(i + 1 + i // len(BOOKS)) % len(BOOKS)]]
        elif preset == "battlebooks-roll-call":
            chars = [BOOKS[i % 3]]
        else:
            chars = []
        books[name] = {"characters": chars}
    eid, token, entries = await setup_event(api, books, **body)
    return Sim(api, preset, eid, token, {e["id"]: e for e in entries.values()})


def outcome_of(rnd: int, table: int, a: str, b: str) -> tuple[str, list[int] | None, list[int]]:
    """Deterministic games: the stronger name wins, now and then a time-out."""
    if (rnd + table) % 5 == 0:
        return "timeout", None, [10, 12]
    win_bp = 5 + (rnd * 7 + table * 3) % 15
    lose_bp = win_bp + 1 + (rnd + table) % 9
    places = [1, 2] if a < b else [2, 1]
    bps = [win_bp, lose_bp] if a < b else [lose_bp, win_bp]
    return "played", places, bps


def pick_hero(sim: Sim, entry_id: str, game: int | None, rnd: int) -> str | None:
    books = list(sim.entries[entry_id]["characters"])
    if sim.preset == "battlebooks-roll-call":
        return None if rnd % 2 == 0 else books[0]  # omitted → filled in with the one hero
    block = sim.heroes.setdefault(entry_id, {})
    if game == 2 and block.get(1) in books:
        other = next(b for b in books if b != block[1])
        return None if rnd % 2 == 0 else other  # omitted → filled in with the other book
    return books[(rnd + len(sim.name(entry_id))) % 2]


async def simulate_round(sim: Sim, rnd: dict[str, Any], index: int, total: int, block: int) -> None:
    """Play ``rnd`` as the ``index``-th of ``total`` rounds in blocks of ``block`` games: the
    deterministic games of :func:`outcome_of`, heroes by the preset's rule, and the test's own tally."""
    pos = bb.position(index, total, block)
    game = pos.game if not pos.final and block > 1 else None
    if game == 1:
        sim.heroes = {}
    for m in rnd["matches"]:
        ids = [s["entry_id"] for s in m["seats"]]
        if m["status"] == "bye":
            (e,) = ids
            sim.points[e] = sim.points.get(e, 0) + 5
            sim.byes[e] = sim.byes.get(e, 0) + 1
            if game is not None:
                sim.heroes.setdefault(e, {})[game] = None
            continue
        outcome, places, bps = outcome_of(rnd["number"], m["table"], sim.name(ids[0]), sim.name(ids[1]))
        seats = []
        for i, e in enumerate(ids):
            seat: dict[str, Any] = {"entry_id": e, "body_points": bps[i]}
            if places:
                seat["place"] = places[i]
            hero = pick_hero(sim, e, game, rnd["number"])
            if hero is not None:
                seat["character"] = hero
            seats.append(seat)
        reported = await post_result(sim.api, sim.token, m, {"outcome": outcome, "seats": seats})
        stored = {s["entry_id"]: s for s in reported["seats"]}
        for i, e in enumerate(ids):
            hero = stored[e]["character"]
            assert hero in sim.entries[e]["characters"]
            if game is not None:
                sim.heroes.setdefault(e, {})[game] = hero
            if game == 2 and sim.heroes[e].get(1) is not None:
                assert hero != sim.heroes[e][1]  # game 2: the other book
            if sim.preset == "battlebooks-roll-call":
                assert hero == sim.entries[e]["characters"][0]
            if outcome == "timeout":
                sim.points[e] = sim.points.get(e, 0) + 2
            else:
                d = abs(bps[0] - bps[1])
                won = places is not None and places[i] == 1
                sim.points[e] = sim.points.get(e, 0) + (5 if won else 0)
                sim.diff[e] = sim.diff.get(e, 0) + (d if won else -d)
    sim.played.append(rnd)


def lowest_scored(sim: Sim, order: list[str]) -> str:
    """The bye of the guide: the lowest on points and differential; among those tied there, fewer
    byes first; the lowest-listed of those."""
    lowest = min((sim.points.get(e, 0), sim.diff.get(e, 0)) for e in order)
    tied = [e for e in order if (sim.points.get(e, 0), sim.diff.get(e, 0)) == lowest]
    fewest = min(sim.byes.get(e, 0) for e in tied)
    return next(e for e in reversed(tied) if sim.byes.get(e, 0) == fewest)


def check_seating(sim: Sim, rnd: dict[str, Any], order: list[str]) -> None:
    """Adjacent pairing down ``order``; the bye to the lowest-scored player; every seat of a pairing
    knows the token's first holder, drawn from the seed."""
    bye = lowest_scored(sim, order) if len(order) % 2 else None
    if bye is not None:
        assert rnd["pairing"]["bye"]["entry"] == bye
        assert rnd["pairing"]["bye"]["byes_before"] == sim.byes.get(bye, 0)
    rest = [e for e in order if e != bye]
    expected = [rest[i : i + 2] for i in range(0, len(rest), 2)] + ([[bye]] if bye else [])
    assert [[s["entry_id"] for s in m["seats"]] for m in rnd["matches"]] == expected
    for m in rnd["matches"]:
        if m["status"] == "bye":
            continue
        holder = rng.stream(SEED, f"round:{rnd['number']}:table:{m['table']}:first_token").randrange(2)
        assert [s["first_token"] for s in m["seats"]] == [i == holder for i in range(2)]


async def run_swiss(sim: Sim) -> list[dict[str, Any]]:
    """Start, play every round (checking each pairing), and return the final standings of stage 0."""
    n = len(sim.entries)
    started = await start(sim.api, sim.eid, sim.token)
    total = bb.stage_rounds(sim.preset, n)
    assert started["event"]["settings"]["stages"][0]["rounds"] == total
    block = 1 if sim.preset == "battlebooks-roll-call" else 3
    listed = (await sim.api.client.get(f"/v1/events/{sim.eid}/entries")).json()["items"]
    sim.entries = {e["id"]: e for e in listed}
    order = first_round_order([e["id"] for e in listed], SEED, "stage:0:round:1")
    rnd = started["round"]
    check_seating(sim, rnd, order)
    for index in range(total):
        await simulate_round(sim, rnd, index, total, block)
        if index == total - 1:
            break
        rows = await standings(sim.api, sim.eid, stage=0)
        assert [(r["points"], r["differential"]) for r in rows] == sorted(
            ((r["points"], r["differential"]) for r in rows), reverse=True
        )  # by score, then differential
        rnd = await pair(sim.api, sim.eid, sim.token)
        check_seating(sim, rnd, [row["entry_id"] for row in rows])
    refused = await sim.api.client.post(f"/v1/events/{sim.eid}/rounds", headers=bearer(sim.token))
    assert f"all {total} rounds" in assert_problem(refused, 409)["detail"]
    rows = await standings(sim.api, sim.eid, stage=0)
    assert {r["entry_id"]: (r["points"], r["differential"]) for r in rows} == {
        e: (sim.points.get(e, 0), sim.diff.get(e, 0)) for e in sim.entries
    }
    return rows


async def check_scorecards(sim: Sim, rows: list[dict[str, Any]]) -> None:
    total = len(sim.played)
    for row in rows[:1] + rows[-1:]:
        url = f"/v1/events/{sim.eid}/entries/{row['entry_id']}/scorecard"
        card = (await sim.api.client.get(url)).json()
        assert (card["total_points"], card["total_differential"]) == (row["points"], row["differential"])
        stage0 = [g for g in card["games"] if g["stage"] == 0]
        assert len(stage0) == total and stage0[-1]["final"] and card["final_battle"]["round"] == total
        running = 0.0
        for g in stage0:
            running += g["points"]
            assert g["total_points"] == running
            assert g["minutes"] == (None if g["final"] else 15)
        if sim.preset != "battlebooks-roll-call":
            assert len(card["rounds"]) == (total - 1) // 3
            for rs in card["rounds"]:
                games = [g for g in stage0 if g["game_round"] == rs["game_round"]]
                assert len(games) == 3 and rs["points"] == sum(g["points"] for g in games)
            assert (
                card["total_points"]
                == sum(rs["points"] for rs in card["rounds"]) + (card["final_battle"]["points"])
            )
        else:
            assert card["rounds"] == [] and [g["label"] for g in stage0[:2]] == ["Game 1", "Game 2"]
        text = (await sim.api.client.get(url, headers={"Accept": "text/csv"})).text
        lines = list(csv.DictReader(io.StringIO(text)))
        assert len(lines) == len(card["games"])
        assert float(lines[-1]["total_points"]) == card["games"][-1]["total_points"]


async def finish(sim: Sim, rows: list[dict[str, Any]]) -> dict[str, Any]:
    tied = [
        r["entry_id"]
        for r in rows
        if (r["points"], r["differential"]) == (rows[0]["points"], rows[0]["differential"])
    ]
    out = await advance(sim.api, sim.eid, sim.token)
    if sim.preset == "battlebooks-roll-call" or len(tied) == 1:
        assert out["event"]["status"] == "finished"
    else:  # the one-game playoff among those still tied on points and differential (a knockout of
        # two-player games when three or more are tied)
        assert out["stage"] == 1
        seated = [s["entry_id"] for m in out["round"]["matches"] for s in m["seats"]]
        assert sorted(seated) == sorted(tied)
        assert all(len(m["seats"]) <= 2 for m in out["round"]["matches"])
    return out


@pytest.mark.parametrize("preset", ["battlebooks-clash", "battlebooks-roll-call", "battlebooks-secret-wars"])
@pytest.mark.parametrize("players", [8, 9, 17])
async def test_preset_end_to_end(api: Api, preset: str, players: int) -> None:
    sim = await create(api, preset, players, rated=False)  # ratings: see the test below (faster)
    if preset == "battlebooks-secret-wars":  # nothing to see before start, but for the organizer
        public = (await api.client.get(f"/v1/events/{sim.eid}/entries")).json()["items"]
        assert all(e["characters"] == [] and e["sealed"] for e in public)
        assert all(len(e["characters"]) == 2 for e in sim.entries.values())
    rows = await run_swiss(sim)
    if preset == "battlebooks-secret-wars":
        packs = [tuple(e["characters"]) for e in sim.entries.values()]
        assert len({frozenset(p) for p in packs}) == players  # all distinct
        assert all(len(set(p)) == 2 and set(p) <= set(bb.SAMPLE_CATALOG) for p in packs)
    if players % 2:
        assert sum(sim.byes.values()) == len(sim.played)
    await check_scorecards(sim, rows)
    await finish(sim, rows)


async def test_the_bye_goes_to_the_lowest_scored_player(api: Api) -> None:
    """Clash: "the player with the lowest score will receive the buy" — the lowest on points and
    differential, among those tied there the one with fewer byes, never anyone above the lowest
    score; a second bye to the bottom player rather than a free win for someone higher up."""
    sim = await create(api, "battlebooks-clash", 9, rated=False)
    byes_in_order: list[tuple[str, dict[str, int]]] = []
    original = sim.byes

    class Recorder(dict[str, int]):
        def __setitem__(self, key: str, value: int) -> None:
            byes_in_order.append((key, dict(self)))
            super().__setitem__(key, value)

    sim.byes = Recorder(original)
    await run_swiss(sim)  # every round's bye is checked against the lowest score (check_seating)
    second_byes = [
        who for who, before in byes_in_order if before.get(who, 0) >= 1 and len(before) < len(sim.entries)
    ]
    assert second_byes, "a player at the bottom takes a second bye while others have none"


async def test_a_tie_of_three_or_more_plays_a_knockout_of_two_player_games_seeded_by_tiebreak_value(
    api: Api,
) -> None:
    """ "A two player one game playoff": eight players still tied on points and differential play a
    knockout of two-player one-game matches, seeded by the tie-break value (1–8, 4–5, 2–7, 3–6),
    each with either book."""
    sim = await create(api, "battlebooks-clash", 8)
    rnd = (await start(api, sim.eid, sim.token))["round"]
    for k in range(7):  # every game a time-out: everyone 14/0, all tied
        for m in rnd["matches"]:
            seats = [
                {"entry_id": s["entry_id"], "character": sim.entries[s["entry_id"]]["characters"][k % 3 % 2]}
                for s in m["seats"]
            ]
            if k % 3 == 1:
                seats = [{"entry_id": s["entry_id"]} for s in m["seats"]]  # game 2: filled in
            await post_result(api, sim.token, m, {"outcome": "timeout", "seats": seats})
        if k < 6:
            rnd = await pair(api, sim.eid, sim.token)
    rows = await standings(sim.api, sim.eid, stage=0)
    assert {(r["points"], r["differential"], r["rank"]) for r in rows} == {(14, 0, 1)}
    value = {
        e["id"]: e["tiebreak_value"]
        for e in (await api.client.get(f"/v1/events/{sim.eid}/entries")).json()["items"]
    }
    seeds = sorted(sim.entries, key=lambda e: -value[e])
    out = await advance(api, sim.eid, sim.token)
    assert out["stage"] == 1 and out["note"] is None
    knockout = out["round"]
    assert [[s["entry_id"] for s in m["seats"]] for m in knockout["matches"]] == [
        [seeds[0], seeds[7]],
        [seeds[3], seeds[4]],
        [seeds[1], seeds[6]],
        [seeds[2], seeds[5]],
    ]
    alive = list(seeds)
    while True:
        for m in knockout["matches"]:
            first, second = (s["entry_id"] for s in m["seats"])
            books = sim.entries[second]["characters"]
            seats = [
                {
                    "entry_id": first,
                    "place": 2,
                    "body_points": 30,
                    "character": sim.entries[first]["characters"][1],
                },
                {"entry_id": second, "place": 1, "body_points": 20, "character": books[1]},
            ]
            await post_result(api, sim.token, m, {"seats": seats})  # either book: the second one
            alive.remove(first)
        if len(alive) == 1:
            break
        knockout = await pair(api, sim.eid, sim.token)
        assert all(len(m["seats"]) == 2 for m in knockout["matches"])
    done = await advance(api, sim.eid, sim.token)
    assert done["event"]["status"] == "finished"
    assert (await standings(sim.api, sim.eid, stage=1))[0]["entry_id"] == alive[0] == seeds[5]
    # the score card: the Final Score is the rounds plus the Final Battle; the playoff apart
    card = (await api.client.get(f"/v1/events/{sim.eid}/entries/{alive[0]}/scorecard")).json()
    assert card["final_score"] == "14/0" and card["total_points"] == 14
    assert len(card["games"]) == 7 and card["games"][-1]["label"] == "Final Battle"
    assert [(g["label"], g["score"], g["total_points"]) for g in card["playoff"]] == [
        ("Playoff", "5/+10", 5),
        ("Playoff", "5/+10", 10),
        ("Playoff", "5/+10", 15),
    ]


async def test_hero_rule_violations_are_rejected_and_nothing_written(api: Api) -> None:
    sim = await create(api, "battlebooks-clash", 8)
    rnd = (await start(api, sim.eid, sim.token))["round"]
    m = rnd["matches"][0]
    a, b = (s["entry_id"] for s in m["seats"])
    books_a, books_b = sim.entries[a]["characters"], sim.entries[b]["characters"]
    url = f"/v1/matches/{m['id']}/result"

    async def post(seats: list[dict[str, Any]], match_url: str = url) -> Any:
        return await api.client.post(match_url, json={"seats": seats}, headers=bearer(sim.token))

    not_mine = next(x for x in BOOKS if x not in books_a)
    bad = await post(
        [
            {"entry_id": a, "place": 1, "character": not_mine},
            {"entry_id": b, "place": 2, "character": books_b[0]},
        ]
    )
    assert assert_problem(bad, 422)["rule"] == bb.RULE_BOOK
    unnamed = await post([{"entry_id": a, "place": 1}, {"entry_id": b, "place": 2, "character": books_b[0]}])
    assert assert_problem(unnamed, 422)["rule"] == bb.RULE_NAMED
    got = (await api.client.get(f"/v1/matches/{m['id']}")).json()
    assert got["status"] == "pending" and got["result"] is None  # nothing written
    # the seed's example: A beats B, 21 vs 29 body points → 5/+8 and 0/-8
    ok = await post(
        [
            {"entry_id": a, "place": 1, "body_points": 21, "character": books_a[0]},
            {"entry_id": b, "place": 2, "body_points": 29, "character": books_b[0]},
        ]
    )
    assert ok.status_code == 200, ok.text
    assert [(s["differential"]) for s in ok.json()["result"]["seats"]] == [8, -8]
    for other in rnd["matches"][1:]:
        seats = [
            {
                "entry_id": s["entry_id"],
                "place": i + 1,
                "character": sim.entries[s["entry_id"]]["characters"][0],
            }
            for i, s in enumerate(other["seats"])
        ]
        assert (await post(seats, f"/v1/matches/{other['id']}/result")).status_code == 200
    card = (await api.client.get(f"/v1/events/{sim.eid}/entries/{a}/scorecard")).json()
    assert card["games"][0]["score"] == "5/+8" and card["games"][0]["hero"] == books_a[0]
    card_b = (
        await api.client.get(f"/v1/events/{sim.eid}/entries/{b}/scorecard", params={"format": "csv"})
    ).text
    assert list(csv.DictReader(io.StringIO(card_b)))[0]["score"] == "0/-8"

    # game 2 with the same book as game 1 is refused
    rnd2 = await pair(api, sim.eid, sim.token)
    m2 = next(x for x in rnd2["matches"] if a in [s["entry_id"] for s in x["seats"]])
    opp = next(s["entry_id"] for s in m2["seats"] if s["entry_id"] != a)
    seats = [{"entry_id": a, "place": 1, "character": books_a[0]}, {"entry_id": opp, "place": 2}]
    seats.sort(key=lambda s: [x["entry_id"] for x in m2["seats"]].index(s["entry_id"]))
    same = await post(seats, f"/v1/matches/{m2['id']}/result")
    body = assert_problem(same, 422)
    assert body["rule"] == bb.RULE_OTHER and books_a[1] in body["detail"]
    assert (await api.client.get(f"/v1/matches/{m2['id']}")).json()["status"] == "pending"
    # the organizer's correction of game 1 is checked too
    m1 = (await api.client.get(f"/v1/matches/{m['id']}")).json()
    fixed = await api.client.put(
        url,
        json={
            "seats": [
                {"entry_id": a, "place": 1, "character": not_mine},
                {"entry_id": b, "place": 2, "character": books_b[0]},
            ]
        },
        headers={**bearer(sim.token), "If-Match": str(m1["version"])},
    )
    assert assert_problem(fixed, 422)["rule"] == bb.RULE_BOOK


async def test_start_checks(api: Api) -> None:
    # sanctioned: fewer than 8 cannot start
    small = await create(api, "battlebooks-clash", 7)
    r = await api.client.post(f"/v1/events/{small.eid}/start", headers=bearer(small.token))
    assert "sanctioned" in assert_problem(r, 409)["detail"]
    # Clash entries bring two different books (each offender named)
    event, token = await make_event(api, name="x", game="battlebooks", preset="battlebooks-clash", seed=SEED)
    ids = [
        (await add_entry(api, event["id"], token, f"Q{i}", characters=["Hulk", "Thor"][: 1 + (i > 0)]))["id"]
        for i in range(8)
    ]
    r = await api.client.post(f"/v1/events/{event['id']}/start", headers=bearer(token))
    assert [e["loc"] for e in assert_problem(r, 422)["errors"]] == [["entries", ids[0], "characters"]]
    assert (await api.client.get(f"/v1/events/{event['id']}")).json()["status"] == "registration"
    # rated without sanctioned is refused
    unsanctioned = await create(api, "battlebooks-roll-call", 8, sanctioned=False)
    r = await api.client.post(f"/v1/events/{unsanctioned.eid}/start", headers=bearer(unsanctioned.token))
    assert assert_problem(r, 422)["errors"][0]["loc"] == ["settings", "rated"]
    # Secret Wars: a catalog too small for the entries refuses the registration that finds no pack
    sw = await create(api, "battlebooks-secret-wars", 6, catalog=["A", "B", "C", "D"])
    r = await api.client.post(
        f"/v1/events/{sw.eid}/entries", json={"name": "Seventh"}, headers=bearer(sw.token)
    )
    body = assert_problem(r, 422)
    assert body["errors"][0]["loc"] == ["settings", "catalog"] and "6 different packs" in body["detail"]
    listed = (await api.client.get(f"/v1/events/{sw.eid}/entries")).json()["items"]
    assert len(listed) == 6  # nothing written
    # a catalog changed after the packs were handed out: the start checks every pack again
    r = await api.client.patch(
        f"/v1/events/{sw.eid}",
        json={"settings": {"catalog": ["A", "B", "C", "E"], "sanctioned": False, "rated": False}},
        headers={
            **bearer(sw.token),
            "If-Match": str((await api.client.get(f"/v1/events/{sw.eid}")).json()["version"]),
        },
    )
    assert r.status_code == 200, r.text
    r = await api.client.post(f"/v1/events/{sw.eid}/start", headers=bearer(sw.token))
    assert {tuple(e["loc"][:2]) for e in assert_problem(r, 422)["errors"]} <= {
        ("entries", e["id"]) for e in listed
    }
    bad = await api.client.post(
        "/v1/events",
        json={
            "name": "y",
            "game": "battlebooks",
            "preset": "battlebooks-secret-wars",
            "settings": {"catalog": ["A"]},
        },
        headers=api.admin(),
    )
    assert assert_problem(bad, 422)["errors"][0]["loc"] == ["settings", "catalog"]


async def _ratings(api: Api, pool: str) -> dict[str, float]:
    r = await api.client.get(f"/v1/ratings/{pool}")
    if r.status_code == 404:
        return {}
    assert r.status_code == 200, r.text
    return {row["name"]: row["rating"] for row in r.json()["items"]}


async def _play_first_round(sim: Sim) -> dict[str, Any]:
    rnd = (await start(sim.api, sim.eid, sim.token))["round"]
    listed = (await sim.api.client.get(f"/v1/events/{sim.eid}/entries")).json()["items"]
    sim.entries = {e["id"]: e for e in listed}
    await simulate_round(sim, rnd, 0, 10, 1 if sim.preset == "battlebooks-roll-call" else 3)
    await sim.api.drain_jobs()
    return rnd


async def test_ratings_move_only_for_sanctioned_presets_and_into_the_right_pool(api: Api) -> None:
    pool = f"bb-{api.backend}"
    rating = {"pool": pool}
    clash = await create(api, "battlebooks-clash", 8, rating=rating)
    rnd = await _play_first_round(clash)
    overall = await _ratings(api, pool)
    assert len(overall) == 8
    for m in rnd["matches"]:
        names = sorted(clash.name(s["entry_id"]) for s in m["seats"])
        if outcome_of(rnd["number"], m["table"], *names)[0] == "timeout":
            assert overall[names[0]] == overall[names[1]] == 1500  # a draw between equals
        else:
            assert overall[names[0]] > 1500 > overall[names[1]]

    roll = await create(api, "battlebooks-roll-call", 8, rating=rating)
    await _play_first_round(roll)
    assert await _ratings(api, pool) == overall  # the overall pool does not move
    heroes = {e["characters"][0] for e in roll.entries.values()}
    per_hero = {h: await _ratings(api, f"{pool}:{h}") for h in heroes}
    assert all(per_hero.values()) and sum(len(v) for v in per_hero.values()) == 8

    unsanctioned = await create(api, "battlebooks-clash", 8, rating=rating, sanctioned=False, rated=False)
    await _play_first_round(unsanctioned)
    assert await _ratings(api, pool) == overall


async def test_a_manual_table_in_a_duel_format_has_two_seats(api: Api) -> None:
    """A BATTLEBOOKS game is a duel of two heroes: the organizer's own tables for a Swiss or a playoff
    stage (table_size 2) seat two players, or one for a bye, although the game's catalog entry seats
    up to 8 (for Battle Royal)."""
    sim = await create(api, "battlebooks-clash", 9, rated=False)
    rnd = (await start(api, sim.eid, sim.token))["round"]
    for m in rnd["matches"]:
        if m["status"] != "bye":
            seats = [
                {
                    "entry_id": s["entry_id"],
                    "place": i + 1,
                    "character": sim.entries[s["entry_id"]]["characters"][0],
                }
                for i, s in enumerate(m["seats"])
            ]
            await post_result(api, sim.token, m, {"seats": seats})
    ids = list(sim.entries)
    r = await api.client.post(
        f"/v1/events/{sim.eid}/rounds",
        json={"tables": [ids[0:3], ids[3:5], ids[5:7], ids[7:9]]},
        headers=bearer(sim.token),
    )
    body = assert_problem(r, 422)
    assert [e["loc"] for e in body["errors"]] == [["tables", 0]]
    assert "two seats" in body["errors"][0]["msg"]
    assert len((await api.client.get(f"/v1/events/{sim.eid}/rounds")).json()["items"]) == 1  # nothing written
    made = await pair(api, sim.eid, sim.token, [ids[0:2], ids[2:4], ids[4:6], ids[6:8], ids[8:9]])
    assert [len(m["seats"]) for m in made["matches"]] == [2, 2, 2, 2, 1]


async def test_an_explicit_differential_agrees_with_the_winner_and_body_points_are_bounded(api: Api) -> None:
    """A differential against the winner's sign or the other seat is a 422, never re-signed (the
    match and the standings would disagree); body points are bounded, so ±1e308 is a 422 and is not
    stored; `true` is not a number."""
    sim = await create(api, "battlebooks-clash", 8, rated=False)
    rnd = (await start(api, sim.eid, sim.token))["round"]
    m = rnd["matches"][0]
    a, b = (s["entry_id"] for s in m["seats"])
    hero = {e: sim.entries[e]["characters"][0] for e in (a, b)}
    url = f"/v1/matches/{m['id']}/result"

    async def post(seat_a: dict[str, Any], seat_b: dict[str, Any]) -> Any:
        seats = [
            {"entry_id": a, "place": 1, "character": hero[a], **seat_a},
            {"entry_id": b, "place": 2, "character": hero[b], **seat_b},
        ]
        return await api.client.post(url, json={"seats": seats}, headers=bearer(sim.token))

    wrong_sign = assert_problem(await post({"differential": -8}, {}), 422)
    assert wrong_sign["errors"][0]["loc"] == ["seats", 0, "differential"]
    other_seat = assert_problem(await post({"differential": 8}, {"differential": -3}), 422)
    assert other_seat["errors"][0]["loc"] == ["seats", 1, "differential"]
    against_body = assert_problem(
        await post({"body_points": 21, "differential": 3}, {"body_points": 29}), 422
    )
    assert against_body["errors"][0]["loc"] == ["seats", 0, "differential"]
    huge = assert_problem(await post({"body_points": 1e308}, {"body_points": -1e308}), 422)
    assert [e["loc"] for e in huge["errors"]] == [
        ["body", "seats", 0, "body_points"],
        ["body", "seats", 1, "body_points"],
    ]
    not_a_number = assert_problem(await post({"body_points": True}, {"body_points": 3}), 422)
    assert not_a_number["errors"][0]["loc"] == ["body", "seats", 0, "body_points"]
    got = (await api.client.get(f"/v1/matches/{m['id']}")).json()
    assert got["status"] == "pending" and got["result"] is None  # nothing stored
    assert (await api.client.get(f"/v1/events/{sim.eid}/standings")).status_code == 200

    ok = await post({"differential": 8}, {})
    assert ok.status_code == 200, ok.text
    assert [s["differential"] for s in ok.json()["result"]["seats"]] == [8, -8]
    rows = {r["entry_id"]: r["differential"] for r in await standings(api, sim.eid, stage=0)}
    assert (rows[a], rows[b]) == (8, -8)  # the match and the standings agree


async def test_two_agreeing_player_claims_wait_for_the_organizer_and_the_card_carries_both_sign_offs(
    api: Api,
) -> None:
    """ "The organizer will then record the results on the Score Card … Players do not mark scores on
    their own Score Cards", and cards are "checked and signed by both the player and the tournament
    organizer": both players' agreeing reports wait for the organizer's confirmation; the card shows
    who signed and when."""
    sim = await create(api, "battlebooks-clash", 8, rated=False)
    tokens = {e["id"]: e["entry_token"] for e in sim.entries.values()}
    rnd = (await start(api, sim.eid, sim.token))["round"]
    m = rnd["matches"][0]
    a, b = (s["entry_id"] for s in m["seats"])
    body = {
        "seats": [
            {"entry_id": a, "place": 1, "body_points": 21, "character": sim.entries[a]["characters"][0]},
            {"entry_id": b, "place": 2, "body_points": 29, "character": sim.entries[b]["characters"][0]},
        ]
    }
    confirm = f"/v1/matches/{m['id']}/confirm"
    nothing = await api.client.post(confirm, headers=bearer(sim.token))
    assert "nothing to confirm" in assert_problem(nothing, 409)["detail"]
    for e in (a, b):
        claimed = await post_result(api, tokens[e], m, body)
    assert claimed["status"] == "reported" and claimed["result"] is None and claimed["claims"] == 2
    rows = {r["entry_id"]: r["points"] for r in await standings(api, sim.eid, stage=0)}
    assert rows[a] == rows[b] == 0  # not a result until the organizer confirms it
    players = await api.client.post(confirm, headers=bearer(tokens[a]))
    assert_problem(players, 403)  # a player cannot confirm
    r = await api.client.post(confirm, headers=bearer(sim.token))
    assert r.status_code == 200, r.text
    done = r.json()
    assert done["status"] == "confirmed" and [s["differential"] for s in done["result"]["seats"]] == [8, -8]
    assert [(h["action"], h["actor"]) for h in done["history"]][-1] == ("confirm", "organizer")
    claim_at = {h["actor"]: h["at"] for h in done["history"] if h["action"] == "claim"}
    card = (await api.client.get(f"/v1/events/{sim.eid}/entries/{a}/scorecard")).json()
    game = card["games"][0]
    assert game["score"] == "5/+8"
    assert game["player_sign_off"] == {"by": sim.entries[a]["name"], "at": claim_at[f"entry:{a}"]}
    assert game["organizer_sign_off"] == {"by": "organizer", "at": done["history"][-1]["at"]}
    text = (
        await api.client.get(f"/v1/events/{sim.eid}/entries/{a}/scorecard", params={"format": "csv"})
    ).text
    row = list(csv.DictReader(io.StringIO(text)))[0]
    assert row["player_signed_by"] == sim.entries[a]["name"] and row["organizer_signed_by"] == "organizer"
    # the organizer's own report is final, and carries only the organizer's sign-off
    other = rnd["matches"][1]
    seats = [
        {"entry_id": s["entry_id"], "place": i + 1, "character": sim.entries[s["entry_id"]]["characters"][0]}
        for i, s in enumerate(other["seats"])
    ]
    reported = await post_result(api, sim.token, other, {"seats": seats})
    assert reported["status"] == "confirmed"
    card = (await api.client.get(f"/v1/events/{sim.eid}/entries/{seats[0]['entry_id']}/scorecard")).json()
    assert (
        card["games"][0]["player_sign_off"] is None
        and card["games"][0]["organizer_sign_off"]["by"] == "organizer"
    )


async def test_heroes_are_declared_before_a_game_and_the_hero_rule_is_checked_at_declaration(
    api: Api,
) -> None:
    """ "Have each player choose the first hero … Then complete the rest of the Score Card with the
    players hero name and the opponents hero name": a seat's hero is declared on the pending match
    (by its player or the organizer), checked by the hero rule then, and shown on the pairing; a
    wrong game-2 hero is caught before the game is played."""
    sim = await create(api, "battlebooks-clash", 8, rated=False)
    tokens = {e["id"]: e["entry_token"] for e in sim.entries.values()}
    rnd = (await start(api, sim.eid, sim.token))["round"]
    m = rnd["matches"][0]
    a, b = (s["entry_id"] for s in m["seats"])
    books_a, books_b = sim.entries[a]["characters"], sim.entries[b]["characters"]
    url = f"/v1/matches/{m['id']}/heroes"

    async def declare(token: str, entry_id: str, hero: str, match_url: str = url) -> Any:
        return await api.client.post(
            match_url, json={"entry_id": entry_id, "character": hero}, headers=bearer(token)
        )

    r = await declare(tokens[a], a, books_a[0])
    assert r.status_code == 200, r.text
    assert [s["character"] for s in r.json()["seats"]] == [books_a[0], None]
    assert_problem(await declare(tokens[a], b, books_b[0]), 403)  # only one's own seat
    wrong = await declare(sim.token, b, next(x for x in BOOKS if x not in books_b))
    assert assert_problem(wrong, 422)["rule"] == bb.RULE_BOOK
    assert (await declare(sim.token, b, books_b[1])).status_code == 200
    shown = (await api.client.get(f"/v1/events/{sim.eid}/rounds/1")).json()["matches"][0]
    assert [s["character"] for s in shown["seats"]] == [books_a[0], books_b[1]]  # the pairing shows both
    card = (await api.client.get(f"/v1/events/{sim.eid}/entries/{a}/scorecard")).json()
    assert (card["games"][0]["hero"], card["games"][0]["opponent_hero"]) == (books_a[0], books_b[1])
    history = (await api.client.get(f"/v1/matches/{m['id']}")).json()["history"]
    assert [(h["action"], h["actor"]) for h in history] == [("hero", f"entry:{a}"), ("hero", "organizer")]

    # a result naming another hero than declared is refused; leaving the heroes out takes the declared
    other = await api.client.post(
        f"/v1/matches/{m['id']}/result",
        json={"seats": [{"entry_id": a, "place": 1, "character": books_a[1]}, {"entry_id": b, "place": 2}]},
        headers=bearer(sim.token),
    )
    assert assert_problem(other, 422)["rule"] == bb.RULE_DECLARED
    done = await post_result(
        api, sim.token, m, {"seats": [{"entry_id": a, "place": 1}, {"entry_id": b, "place": 2}]}
    )
    assert [s["character"] for s in done["seats"]] == [books_a[0], books_b[1]]
    late = await declare(sim.token, a, books_a[1])
    assert "before the game" in assert_problem(late, 409)["detail"]
    for x in rnd["matches"][1:]:
        seats = [
            {
                "entry_id": s["entry_id"],
                "place": i + 1,
                "character": sim.entries[s["entry_id"]]["characters"][0],
            }
            for i, s in enumerate(x["seats"])
        ]
        await post_result(api, sim.token, x, {"seats": seats})

    # game 2: the book not played in game 1, checked when declared
    rnd2 = await pair(api, sim.eid, sim.token)
    m2 = next(x for x in rnd2["matches"] if a in [s["entry_id"] for s in x["seats"]])
    url2 = f"/v1/matches/{m2['id']}/heroes"
    same = await declare(tokens[a], a, books_a[0], url2)
    body = assert_problem(same, 422)
    assert body["rule"] == bb.RULE_OTHER and books_a[1] in body["detail"]
    assert all(
        s["character"] is None for s in (await api.client.get(f"/v1/matches/{m2['id']}")).json()["seats"]
    )
    assert (await declare(tokens[a], a, books_a[1], url2)).status_code == 200


async def test_secret_wars_packs_are_assigned_at_registration_and_revealed_with_game_one(api: Api) -> None:
    """ "When players register they are given 1 pack and are told not to open until instructed";
    "when the tournament begins and the pairings are set … the seals are broken": a pack is drawn
    (or recorded as handed out) at registration, sealed to everyone but the organizer until game 1's
    pairings are published, and never overwritten."""
    catalog = list(bb.SAMPLE_CATALOG)
    event, token = await make_event(
        api,
        name="sealed",
        game="battlebooks",
        preset="battlebooks-secret-wars",
        seed=SEED,
        settings={"rated": False},
    )
    eid = event["id"]
    handed = await add_entry(api, eid, token, "Handed", characters=["Thor", "Hulk"])  # as handed out
    assert handed["characters"] == ["Thor", "Hulk"] and handed["sealed"] is True
    drawn = [await add_entry(api, eid, token, f"S{i}") for i in range(7)]
    # drawn from the event seed: the first pack of the seeded order that nobody holds yet
    expected = [
        p
        for p in bb.draw_packs(catalog, len(catalog) * (len(catalog) - 1) // 2, SEED)
        if set(p) != {"Thor", "Hulk"}
    ]
    assert [tuple(e["characters"]) for e in drawn] == expected[:7]
    for body, loc in (
        ({"characters": ["Hulk", "Thor"]}, ["characters"]),  # the same pack twice
        ({"characters": ["Thor", "Gambit"]}, ["characters", 1]),  # not in the catalog
        ({"characters": ["Thor"]}, ["characters"]),  # a pack is two books
    ):
        r = await api.client.post(
            f"/v1/events/{eid}/entries", json={"name": "Late", **body}, headers=bearer(token)
        )
        assert assert_problem(r, 422)["errors"][0]["loc"] == loc
    ids = [handed["id"]] + [e["id"] for e in drawn]
    packs = {e["id"]: e["characters"] for e in [handed, *drawn]}

    async def listed(headers: dict[str, str] | None = None) -> dict[str, dict[str, Any]]:
        r = await api.client.get(f"/v1/events/{eid}/entries", headers=headers or {})
        return {e["id"]: e for e in r.json()["items"]}

    public = await listed()
    assert all(e["characters"] == [] and e["sealed"] for e in public.values())
    player = await listed(bearer(drawn[0]["entry_token"]))
    assert player[drawn[0]["id"]]["characters"] == []  # sealed to the player too
    alone = await api.client.get(f"/v1/events/{eid}/entries/{ids[1]}")
    assert alone.json()["characters"] == [] and alone.json()["sealed"] is True
    card = (await api.client.get(f"/v1/events/{eid}/entries/{ids[1]}/scorecard")).json()
    assert card["books"] == []
    organizer = await listed(bearer(token))
    assert {k: v["characters"] for k, v in organizer.items()} == packs

    started = await start(api, eid, token)  # game 1's pairings: the seals are broken
    assert started["round"]["number"] == 1
    after = await listed()
    assert {k: v["characters"] for k, v in after.items()} == packs  # never overwritten
    assert not any(e["sealed"] for e in after.values())


async def test_game_3_after_a_bye_in_game_1_may_use_the_book_not_played(api: Api) -> None:
    # the ruling on game 3 (battlebooks.md, Clash): game 1 was a bye, so nothing was played with the other
    # book, and game 3 may use either of the two
    sim = await create(api, "battlebooks-clash", 9)
    rnd = (await start(api, sim.eid, sim.token))["round"]
    (bye,) = [m for m in rnd["matches"] if len(m["seats"]) == 1]
    x = bye["seats"][0]["entry_id"]
    books = sim.entries[x]["characters"]

    async def play(rnd: dict[str, Any], hero_of: Callable[[str], str | None]) -> None:
        for m in rnd["matches"]:
            if len(m["seats"]) < 2:
                continue
            seats = [
                {"entry_id": s["entry_id"], "place": i + 1}
                | ({"character": h} if (h := hero_of(s["entry_id"])) is not None else {})
                for i, s in enumerate(m["seats"])
            ]
            await post_result(api, sim.token, m, {"seats": seats})

    await play(rnd, lambda e: sim.entries[e]["characters"][0])
    game2 = await pair(api, sim.eid, sim.token)
    assert any(x in [s["entry_id"] for s in m["seats"]] and len(m["seats"]) == 2 for m in game2["matches"])
    # game 2: x names a book (nothing to switch from), the others take the other book (filled in)
    await play(game2, lambda e: books[0] if e == x else None)
    game3 = await pair(api, sim.eid, sim.token)
    m3 = next(m for m in game3["matches"] if x in [s["entry_id"] for s in m["seats"]])
    assert len(m3["seats"]) == 2
    seats = [
        {
            "entry_id": s["entry_id"],
            "place": i + 1,
            "character": books[1] if s["entry_id"] == x else sim.entries[s["entry_id"]]["characters"][0],
        }
        for i, s in enumerate(m3["seats"])
    ]
    await post_result(api, sim.token, m3, {"seats": seats})
    card = (await api.client.get(f"/v1/events/{sim.eid}/entries/{x}/scorecard")).json()
    assert [g["hero"] for g in card["games"][:3]] == [None, books[0], books[1]]


@pytest.mark.parametrize(
    "preset",
    [
        "battlebooks-clash",
        "battlebooks-roll-call",
        "battlebooks-secret-wars",
        "battlebooks-last-man-standing",
        "battlebooks-battle-royal",
    ],
)
async def test_a_battlebooks_preset_belongs_to_the_battlebooks_game(api: Api, preset: str) -> None:
    # battlebooks.md "World rankings": "A preset belongs to its game: a BATTLEBOOKS preset on an
    # event of another game is a 422" — naming the event's game, and no event is made
    before = (await api.client.get("/v1/events", headers=api.admin())).json()
    body = {"name": "Wrong game", "game": "generic", "preset": preset}
    r = await api.client.post("/v1/events", json=body, headers=api.admin())
    problem = assert_problem(r, 422)
    assert [e["loc"] for e in problem["errors"]] == [["game"]]
    assert "'battlebooks'" in problem["errors"][0]["msg"] and "'generic'" in problem["errors"][0]["msg"]
    assert (await api.client.get("/v1/events", headers=api.admin())).json() == before
    r = await api.client.post("/v1/events", json={**body, "game": "battlebooks"}, headers=api.admin())
    assert r.status_code == 201, r.text
