"""Board Game Arena round robins run through HTTP (bga-round-robin.md), on Postgres and on SQLite."""

from __future__ import annotations

from itertools import combinations
from typing import Any

from tests.support.api import (
    Api,
    advance,
    assert_problem,
    bearer,
    pair,
    post_result,
    report,
    setup_event,
    standings,
    start,
)

SEED = "bga-seed-004"
TWO, THREE = "bga-round-robin", "bga-round-robin-3p"


async def setup(
    api: Api, preset: str, names: list[str], organizer: str | None = None, **kw: Any
) -> tuple[str, str, dict[str, dict[str, Any]]]:
    game = "seasons" if preset == TWO else "puerto-rico"
    entries = {n: {"organizer": n == organizer} for n in names}
    return await setup_event(api, entries, game=game, preset=preset, seed=SEED, **kw)


async def post(api: Api, url: str, token: str, body: Any = None) -> dict[str, Any]:
    """A call to one of the preset's own routes (final, deadlines, tables) that must answer 200."""
    r = await api.client.post(url, json=body, headers=bearer(token))
    assert r.status_code == 200, r.text
    return r.json()


def by_name_order(match: dict[str, Any]) -> dict[str, int]:
    """The alphabetically earlier name places better."""
    ordered = sorted(match["seats"], key=lambda s: s["name"])
    return {s["entry_id"]: i + 1 for i, s in enumerate(ordered)}


async def values(api: Api, eid: str) -> dict[str, float]:
    return {
        e["id"]: e["tiebreak_value"]
        for e in (await api.client.get(f"/v1/events/{eid}/entries")).json()["items"]
    }


async def play_released(api: Api, eid: str, token: str, rule: Any) -> int:
    """Report every open game released so far (the 2-player round robin releases all at once);
    returns how many rounds are out."""
    rounds = (await api.client.get(f"/v1/events/{eid}/rounds")).json()["items"]
    for rnd in rounds:
        for m in rnd["matches"]:
            if m["status"] == "pending":
                await report(api, token, m, rule(m))
    return len(rounds)


async def summary(api: Api, eid: str) -> dict[str, Any]:
    r = await api.client.get(f"/v1/events/{eid}/bga")
    assert r.status_code == 200, r.text
    return r.json()


# --------------------------------------------------------------------------- 2 players
async def test_capacity_and_cancellation_at_two_entries(api: Api) -> None:
    eid, token, _ = await setup(api, TWO, ["Ann", "Bob", "Cy"], settings={"capacity": 3})
    r = await api.client.post(f"/v1/events/{eid}/entries", json={"name": "Dee"}, headers=bearer(token))
    assert "full" in assert_problem(r, 409)["detail"]
    eid, token, _ = await setup(api, TWO, ["Ann", "Bob"])
    started = await start(api, eid, token)
    assert started["event"]["status"] == "cancelled" and started.get("round") is None
    assert (await api.client.get(f"/v1/events/{eid}/rounds")).json()["items"] == []


async def test_ten_entries_three_way_tie_final_with_withdrawal_and_forfeit(api: Api) -> None:
    names = [f"P{i}" for i in range(10)]
    eid, token, entries = await setup(
        api, TWO, names, organizer="P9", settings={"final_deadline": "2026-02-28T23:45:00+09:00"}
    )
    ids = {n: e["id"] for n, e in entries.items()}
    name_of = {v: k for k, v in ids.items()}
    cycle = {("P0", "P1"), ("P1", "P2"), ("P2", "P0")}  # P0 beats P1, P1 beats P2, P2 beats P0

    def places(m: dict[str, Any]) -> dict[str, int]:
        a, b = (name_of[s["entry_id"]] for s in m["seats"])
        a_wins = (a, b) in cycle or ((b, a) not in cycle and int(a[1]) < int(b[1]))
        return {ids[a]: 1 if a_wins else 2, ids[b]: 2 if a_wins else 1}

    started = await start(api, eid, token)
    assert started["event"]["status"] == "running"
    assert await play_released(api, eid, token, places) == 9
    rows = await standings(api, eid)
    assert {r["name"] for r in rows if r["rank"] == 1} == {"P0", "P1", "P2"}
    assert rows[3]["rank"] == 4 and rows[3]["name"] == "P3"
    tb = await values(api, eid)
    assert sorted(tb.values()) == [float(v) for v in range(1, 11)]  # distinct values
    assert tb[ids["P9"]] == 1.0  # the organizer plays: always the lowest value
    tied = sorted((ids["P0"], ids["P1"], ids["P2"]), key=lambda e: -tb[e])
    adv = await advance(api, eid, token)
    final = adv["round"]["matches"][0]
    assert adv["stage"] == 1 and {s["entry_id"] for s in final["seats"]} == set(tied[:2])
    # a finalist may not withdraw someone else; the highest value withdraws itself: the third tied plays
    tokens = {e["id"]: e["entry_token"] for e in entries.values()}
    url = f"/v1/events/{eid}/bga/final/withdrawals"
    assert_problem(
        await api.client.post(url, json={"entry_id": tied[1]}, headers=bearer(tokens[tied[0]])), 403
    )
    out = await post(api, url, tokens[tied[0]], {"entry_id": tied[0]})
    assert out["replacement"] == tied[2] and set(out["finalists"]) == {tied[1], tied[2]}
    game = (await api.client.get(f"/v1/events/{eid}/rounds/{adv['round']['number']}")).json()["matches"][0]
    assert {s["entry_id"] for s in game["seats"]} == {tied[1], tied[2]}
    reg = f"/v1/events/{eid}/bga/final/registrations"
    assert_problem(await api.client.post(reg, json={"entry_id": ids["P5"]}, headers=bearer(token)), 409)
    await post(api, reg, tokens[tied[2]], {"entry_id": tied[2]})
    closed = await post(api, f"/v1/events/{eid}/bga/final/deadline", token)
    assert closed["forfeits"] == [tied[1]]  # never registered: forfeits the one-game final
    assert_problem(await api.client.post(f"/v1/events/{eid}/bga/final/deadline", headers=bearer(token)), 409)
    done = await advance(api, eid, token)
    assert done["event"]["status"] == "finished"
    s = await summary(api, eid)
    assert s["winners"] == [tied[2]] and s["final"]["withdrawn"] == [tied[0]]


async def test_both_finalists_forfeit_the_higher_value_wins(api: Api) -> None:
    eid, token, entries = await setup(api, TWO, ["A", "B", "C"])
    ids = {n: e["id"] for n, e in entries.items()}
    beats = {(ids["A"], ids["B"]), (ids["B"], ids["C"]), (ids["C"], ids["A"])}

    def places(m: dict[str, Any]) -> dict[str, int]:
        a, b = (s["entry_id"] for s in m["seats"])
        return {a: 1, b: 2} if (a, b) in beats else {a: 2, b: 1}

    await start(api, eid, token)
    await play_released(api, eid, token, places)
    tb = await values(api, eid)
    adv = await advance(api, eid, token)
    finalists = [s["entry_id"] for s in adv["round"]["matches"][0]["seats"]]
    assert set(finalists) == set(sorted(tb, key=lambda e: -tb[e])[:2])
    assert set((await post(api, f"/v1/events/{eid}/bga/final/deadline", token))["forfeits"]) == set(finalists)
    await advance(api, eid, token)
    assert (await summary(api, eid))["winners"] == [max(finalists, key=lambda e: tb[e])]


async def test_eleven_entries_two_groups_and_an_unrated_drawn_best_of_three(api: Api) -> None:
    names = [f"Q{i:02d}" for i in range(11)]
    eid, token, entries = await setup(api, TWO, names)
    started = await start(api, eid, token)
    listed = (await api.client.get(f"/v1/events/{eid}/entries")).json()["items"]
    groups: dict[str, list[str]] = {}
    for e in listed:
        groups.setdefault(e["group"], []).append(e["name"])
    assert sorted(len(g) for g in groups.values()) == [5, 6]
    for m in started["round"]["matches"]:  # group round robins: nobody meets the other group
        assert len({next(e["group"] for e in listed if e["id"] == s["entry_id"]) for s in m["seats"]}) == 1
    await play_released(api, eid, token, by_name_order)
    winners = {min(g) for g in groups.values()}
    adv = await advance(api, eid, token)
    game1 = adv["round"]["matches"][0]
    assert {s["name"] for s in game1["seats"]} == winners
    tokens = {e["id"]: e["entry_token"] for e in entries.values()}
    for s in game1["seats"]:
        await post(
            api,
            f"/v1/events/{eid}/bga/final/registrations",
            tokens[s["entry_id"]],
            {"entry_id": s["entry_id"]},
        )
    assert (await post(api, f"/v1/events/{eid}/bga/final/deadline", token))["forfeits"] == []
    a, b = (s["entry_id"] for s in game1["seats"])
    game2, game3 = [m for r in await rounds_of(api, eid) if r["stage"] == 1 for m in r["matches"]][1:]
    await report(api, token, game1, {a: 1, b: 2})
    await report(api, token, game2, {a: 2, b: 1})
    await report(api, token, game3, {a: 1, b: 1}, outcome="draw")  # 1.5–1.5: the higher value wins
    await advance(api, eid, token)
    tb = await values(api, eid)
    s = await summary(api, eid)
    assert s["final"]["best_of"] == 3 and s["final"]["rated"] is False
    assert s["winners"] == [max((a, b), key=lambda e: tb[e])]
    # the final is unrated; the group games rated
    await api.drain_jobs()
    final_ids = {game1["id"], game2["id"], game3["id"]}
    player = next(e["player_id"] for e in listed if e["id"] == a)
    pools = (await api.client.get(f"/v1/players/{player}/ratings")).json()["items"]
    rated = {h["match_id"] for p in pools for h in p["history"]}
    assert rated and not rated & final_ids


# --------------------------------------------------------------------------- 3 players
async def test_the_seed_head_to_head_example_end_to_end(api: Api) -> None:
    names = ["α", "β", "γ", "x", "y"]
    eid, token, entries = await setup(
        api, THREE, names, settings={"stages": [{"format": "heats", "table_size": 3}], "rated": False}
    )
    ids = {n: e["id"] for n, e in entries.items()}
    await start(api, eid, token)
    games = [
        ["α", "β", "x"],  # game 1: α 1st, β 2nd
        ["γ", "α", "β"],  # game 2: all three tied players
        ["β", "γ", "x"],  # game 3
        ["x", "y", "α"],
        ["y", "x", "γ"],
    ]
    for order in games:
        rnd = await pair(api, eid, token, [[ids[n] for n in order]])
        await report(api, token, rnd["matches"][0], {ids[n]: i + 1 for i, n in enumerate(order)})
    rows = await standings(api, eid)
    assert [r["name"] for r in rows] == ["y", "γ", "α", "β", "x"]
    by = {r["name"]: r for r in rows}
    assert by["α"]["points"] == by["β"]["points"] == by["γ"]["points"] == 1.5
    assert abs(by["α"]["tiebreaks"]["head_to_head"] - (1 + 2 * 0.5) / 3) < 1e-9
    assert abs(by["β"]["tiebreaks"]["head_to_head"] - (0.5 + 2 * 0 + 1) / 4) < 1e-9
    assert abs(by["γ"]["tiebreaks"]["head_to_head"] - (2 * 1 + 0.5) / 3) < 1e-9
    assert by["α"]["decided_by"] == by["β"]["decided_by"] == "head_to_head"


async def _scheduled(api: Api, eid: str, token: str) -> list[dict[str, Any]]:
    started = await start(api, eid, token)
    if started.get("job_id"):
        await api.drain_jobs()
    rounds = (await api.client.get(f"/v1/events/{eid}/rounds")).json()["items"]
    assert len(rounds) == 1  # every table released at once
    return rounds[0]["matches"]


async def test_retroactive_violation_changes_the_winner_and_ratings(api: Api) -> None:
    names = [f"R{i}" for i in range(7)]
    eid, token, entries = await setup(api, THREE, names)
    matches = await _scheduled(api, eid, token)
    assert len(matches) == 7  # the exact design: every pair once, 3 games each
    assert (await summary(api, eid))["warnings"] == []
    for m in matches:
        await report(api, token, m, by_name_order(m))
    rows = await standings(api, eid)
    r0 = entries["R0"]["id"]
    assert (
        rows[0]["entry_id"] == r0
        and rows[0]["points"] == 3
        and rows[0]["tiebreaks"]["perfect_more_games"] == 3
    )
    await api.drain_jobs()
    player = entries["R0"]["player_id"]
    before = (await api.client.get(f"/v1/players/{player}/ratings")).json()["items"][0]["rating"]
    # after the games: the organizer rules R0's first game unfair
    m = next(m for m in matches if r0 in {s["entry_id"] for s in m["seats"]})
    current = (await api.client.get(f"/v1/matches/{m['id']}")).json()
    body = {
        "seats": [
            {
                "entry_id": s["entry_id"],
                "place": by_name_order(m)[s["entry_id"]],
                "violation": s["entry_id"] == r0,
            }
            for s in m["seats"]
        ]
    }
    r = await api.client.put(
        f"/v1/matches/{m['id']}/result",
        json=body,
        headers={**bearer(token), "If-Match": f'"{current["version"]}"'},
    )
    assert r.status_code == 200, r.text
    assert r.json()["history"][-1]["action"] == "correction"
    rows = await standings(api, eid)
    mine = next(x for x in rows if x["entry_id"] == r0)
    assert mine["points"] == 1.5 and rows[0]["entry_id"] != r0
    others = {s["entry_id"] for s in m["seats"]} - {r0}
    for e in others:  # every other player at that table scores +1 for it, whatever the game's result
        row = next(x for x in rows if x["entry_id"] == e)
        assert row["wins"] >= 1
    await api.drain_jobs()
    after = (await api.client.get(f"/v1/players/{player}/ratings")).json()["items"][0]["rating"]
    assert after < before
    await advance(api, eid, token)
    # the new first place may be shared (with a random event seed the tables fall differently)
    assert (await summary(api, eid))["winners"] == [x["entry_id"] for x in rows if x["rank"] == 1]


async def test_seventeen_entries_two_groups_ranked_together_with_the_warning(api: Api) -> None:
    names = [f"S{i:02d}" for i in range(17)]
    stage = {"format": "round_robin", "table_size": 3, "groups": 2, "mode": "complete", "release": "all"}
    eid, token, entries = await setup(api, THREE, names, settings={"stages": [stage], "rated": False})
    matches = await _scheduled(api, eid, token)
    listed = {
        e["id"]: e["group"] for e in (await api.client.get(f"/v1/events/{eid}/entries")).json()["items"]
    }
    sizes = sorted([list(listed.values()).count(g) for g in set(listed.values())])
    assert sizes == [8, 9]
    met: set[frozenset[str]] = set()
    for m in matches:
        seats = [s["entry_id"] for s in m["seats"]]
        assert len(seats) == 3 and len({listed[e] for e in seats}) == 1  # a table stays in its group
        met |= {frozenset(p) for p in combinations(seats, 2)}
    for a, b in combinations(listed, 2):  # every pair of a group meets
        assert (frozenset((a, b)) in met) == (listed[a] == listed[b])
    s = await summary(api, eid)
    assert any("can miss first place" in w and w.startswith("group ") for w in s["warnings"])
    for m in matches:
        await report(api, token, m, by_name_order(m))
    rows = await standings(api, eid)
    assert len(rows) == 17
    # Each group's alphabetically first name wins every game it plays. Ranked together by average,
    # the undefeated leaders tie at 1.0 and tie-break A puts the one with more games first — the very
    # case the schedule's warning names; with equal games they share first (B has no game to split them).
    names_by_id = {e["id"]: n for n, e in entries.items()}
    leaders = {min(names_by_id[e] for e, g in listed.items() if g == group) for group in set(listed.values())}
    games = {r["name"]: r["games"] for r in rows}
    most = max(games[n] for n in leaders)
    firsts = [r["entry_id"] for r in rows if r["rank"] == 1]
    assert {names_by_id[e] for e in firsts} == {n for n in leaders if games[n] == most}
    assert all(r["average"] == 1.0 for r in rows if r["name"] in leaders)
    await advance(api, eid, token)
    assert (await summary(api, eid))["winners"] == firsts


async def test_table_rules_and_the_join_deadline(api: Api) -> None:
    eid, token, entries = await setup(
        api, THREE, ["Ann", "Bob", "Cy", "Dee"], settings={"join_deadline": "2026-11-15T23:59:00+09:00"}
    )
    matches = await _scheduled(api, eid, token)
    assert len(matches) == 3
    s = await summary(api, eid)
    assert any("can miss first place" in w for w in s["warnings"])  # 4 players: 2 or 3 games each
    good = {"variant": "adjusted game", "two_player_rule": "classic", "speed": "turn-based, 2 moves a day"}
    m1, m2, m3 = matches
    seats1 = [s["entry_id"] for s in m1["seats"]]
    tokens = {e["id"]: e["entry_token"] for e in entries.values()}
    url = f"/v1/matches/{m1['id']}/bga/tables"
    wrong = {
        "table": "t1",
        "created_at": "2099-01-01T00:00:00Z",
        "players": seats1,
        "settings": {**good, "speed": "real time"},
    }
    out = await post(api, url, tokens[seats1[0]], wrong)
    assert out["tables"][0]["counted"] is False and "speed" in out["tables"][0]["reasons"][0]
    r = await api.client.post(
        f"/v1/matches/{m1['id']}/result",
        json={"seats": [{"entry_id": e, "place": i + 1} for i, e in enumerate(seats1)]},
        headers=bearer(token),
    )
    assert "bga.table" in assert_problem(r, 422)["detail"]
    assert (await api.client.get(f"/v1/matches/{m1['id']}")).json()["status"] == "pending"
    assert_problem(
        await api.client.post(
            url, json={**wrong, "allowed": True, "table": "t9"}, headers=bearer(tokens[seats1[0]])
        ),
        403,
    )
    await post(
        api, url, token, {**wrong, "table": "t2", "settings": good, "created_at": "2099-01-02T00:00:00Z"}
    )
    out = await post(
        api, url, token, {**wrong, "table": "t3", "settings": good, "created_at": "2099-01-03T00:00:00Z"}
    )
    assert [t["counted"] for t in out["tables"]] == [False, True, False] and "surplus" in out["tables"][2][
        "reasons"
    ][0]
    await report(api, token, m1, {e: i + 1 for i, e in enumerate(seats1)})
    seats2 = [s["entry_id"] for s in m2["seats"]]
    await post(
        api,
        f"/v1/matches/{m2['id']}/bga/tables",
        token,
        {**wrong, "table": "u1", "players": seats2, "settings": good},
    )
    # unknown match / player in the absent list: 422 and nothing written
    bad = {"absent": {m2["id"]: ["nobody"], "no-such-match": [seats2[0]]}}
    assert (
        len(
            assert_problem(
                await api.client.post(f"/v1/events/{eid}/bga/join-deadline", json=bad, headers=bearer(token)),
                422,
            )["errors"]
        )
        == 2
    )
    out = await post(api, f"/v1/events/{eid}/bga/join-deadline", token, {"absent": {m2["id"]: [seats2[0]]}})
    assert {r["match_id"]: r["violators"] for r in out["rulings"]} == {
        m2["id"]: [seats2[0]],
        m3["id"]: [s["entry_id"] for s in m3["seats"]],  # its table was never created
    }
    points: dict[str, float] = {}
    for row in await standings(api, eid):
        points[row["entry_id"]] = row["points"]
    expected = {e: 0.0 for e in points}
    for i, e in enumerate(seats1):
        expected[e] += [1, 0.5, 0][i]
    for e in seats2:
        expected[e] += -0.5 if e == seats2[0] else 1
    for s_ in m3["seats"]:
        expected[s_["entry_id"]] -= 0.5
    assert points == expected
    assert_problem(await api.client.post(f"/v1/events/{eid}/bga/join-deadline", headers=bearer(token)), 409)


async def test_join_deadline_not_yet_passed(api: Api) -> None:
    eid, token, _ = await setup(
        api, THREE, ["Ann", "Bob", "Cy"], settings={"join_deadline": "2099-11-15T23:59:00+09:00"}
    )
    await _scheduled(api, eid, token)
    r = await api.client.post(f"/v1/events/{eid}/bga/join-deadline", headers=bearer(token))
    assert "not passed" in assert_problem(r, 409)["detail"]


async def test_sole_first_wins_without_a_final(api: Api) -> None:
    eid, token, entries = await setup(api, TWO, ["Ann", "Bob", "Cy"])
    await start(api, eid, token)
    await play_released(api, eid, token, by_name_order)
    done = await advance(api, eid, token)
    assert done["event"]["status"] == "finished" and done.get("round") is None
    s = await summary(api, eid)
    assert s["winners"] == [entries["Ann"]["id"]] and s["final"]["finalists"] == []


# --------------------------------------------------------------------------- issue 19
async def rounds_of(api: Api, eid: str) -> list[dict[str, Any]]:
    return list((await api.client.get(f"/v1/events/{eid}/rounds")).json()["items"])


async def test_the_two_player_round_robin_releases_all_its_games_at_once(api: Api) -> None:
    names = [f"Q{i:02d}" for i in range(11)]
    eid, token, entries = await setup(api, TWO, names)
    await start(api, eid, token)
    listed = {
        e["id"]: e["group"] for e in (await api.client.get(f"/v1/events/{eid}/entries")).json()["items"]
    }
    games = [m for r in await rounds_of(api, eid) for m in r["matches"] if m["status"] != "bye"]
    assert len(games) == 10 + 15  # every game of both groups (5 and 6), open from the start
    assert all(m["status"] == "pending" for m in games)
    met = {frozenset(s["entry_id"] for s in m["seats"]) for m in games}
    assert len(met) == 25 and all(len({listed[e] for e in pair}) == 1 for pair in met)
    # there is nothing to pair: every game is out
    assert (
        "released"
        in assert_problem(await api.client.post(f"/v1/events/{eid}/rounds", headers=bearer(token)), 409)[
            "detail"
        ]
    )
    # group B plays out while one game of group A is slow; the stage waits only for that one game
    slow = next(m for m in games if listed[m["seats"][0]["entry_id"]] == "A")
    for m in games:
        if m["id"] != slow["id"]:
            await report(api, token, m, by_name_order(m))
    r = await api.client.post(f"/v1/events/{eid}/advance", headers=bearer(token))
    assert "1 match" in assert_problem(r, 409)["detail"]
    await report(api, token, slow, by_name_order(slow))
    adv = await advance(api, eid, token)
    # the best-of-3 final's games run side by side too: all three are out at once
    final_games = [m for r in await rounds_of(api, eid) if r["stage"] == 1 for m in r["matches"]]
    assert len(final_games) == 3 and all(m["status"] == "pending" for m in final_games)
    assert adv["round"]["matches"][0]["id"] == final_games[0]["id"]
    tokens = {e["id"]: e["entry_token"] for e in entries.values()}
    finalists = [s["entry_id"] for s in final_games[0]["seats"]]
    for f in finalists:
        await post(api, f"/v1/events/{eid}/bga/final/registrations", tokens[f], {"entry_id": f})
    await post(api, f"/v1/events/{eid}/bga/final/deadline", token)
    # games 2 and 3 are played first; the same finalist wins both: the series is decided
    winner = finalists[0]
    for m in final_games[1:]:
        await report(api, token, m, {s["entry_id"]: 1 if s["entry_id"] == winner else 2 for s in m["seats"]})
    done = await advance(api, eid, token)
    assert done["event"]["status"] == "finished"
    assert (await summary(api, eid))["winners"] == [winner]
    game1 = (await api.client.get(f"/v1/matches/{final_games[0]['id']}")).json()
    assert game1["status"] == "confirmed" and game1["result"]["outcome"] == "void"  # not needed


async def test_a_player_who_drops_resigns_their_remaining_games(api: Api) -> None:
    eid, token, entries = await setup(api, TWO, ["Ann", "Bob", "Cy", "Dee"])
    ids = {n: e["id"] for n, e in entries.items()}
    await start(api, eid, token)
    games = [m for r in await rounds_of(api, eid) for m in r["matches"] if m["status"] != "bye"]
    # Dee beats Ann, then drops; Ann wins her other games, Bob beats Cy
    for m in games:
        seated = {s["entry_id"] for s in m["seats"]}
        if seated == {ids["Ann"], ids["Dee"]}:
            await report(api, token, m, {ids["Dee"]: 1, ids["Ann"]: 2})
        elif ids["Ann"] in seated:
            await report(api, token, m, {e: 1 if e == ids["Ann"] else 2 for e in seated})
        elif seated == {ids["Bob"], ids["Cy"]}:
            await report(api, token, m, {ids["Bob"]: 1, ids["Cy"]: 2})
    r = await api.client.delete(
        f"/v1/events/{eid}/entries/{ids['Dee']}", headers=bearer(entries["Dee"]["entry_token"])
    )
    assert r.status_code == 200 and r.json()["status"] == "dropped"
    for m in games:
        read = (await api.client.get(f"/v1/matches/{m['id']}")).json()
        seated = {s["entry_id"] for s in read["seats"]}
        assert read["status"] == "confirmed"
        if ids["Dee"] in seated and ids["Ann"] not in seated:  # resigned: the opponent wins
            place = {s["entry_id"]: s["place"] for s in read["result"]["seats"]}
            assert read["result"]["outcome"] == "forfeit" and place[ids["Dee"]] == 2
            assert read["history"][-1]["action"] == "drop"
    rows = {r["name"]: r for r in await standings(api, eid)}
    assert rows["Bob"]["points"] == 2 and rows["Cy"]["points"] == 1  # each won the game Dee resigned
    assert rows["Ann"]["points"] == 2 and rows["Ann"]["rank"] == 1 and rows["Bob"]["rank"] == 1
    assert rows["Dee"]["points"] == 1 and rows["Dee"]["status"] == "dropped"


async def test_a_double_forfeit_credits_nobody_with_a_win(api: Api) -> None:
    eid, token, entries = await setup(api, TWO, ["Ann", "Bob", "Cy"])
    await start(api, eid, token)
    games = [m for r in await rounds_of(api, eid) for m in r["matches"] if m["status"] != "bye"]
    first, *rest = games
    both = [{"entry_id": s["entry_id"], "place": 2} for s in first["seats"]]
    done = await post_result(api, token, first, {"outcome": "forfeit", "seats": both})
    assert [s["place"] for s in done["result"]["seats"]] == [2, 2]
    rows = {r["entry_id"]: r for r in await standings(api, eid)}
    for s in first["seats"]:
        assert rows[s["entry_id"]]["wins"] == 0 and rows[s["entry_id"]]["points"] == 0


async def test_bga_table_settings_are_compared_as_the_site_shows_them(api: Api) -> None:
    eid, token, entries = await setup(api, THREE, ["Ann", "Bob", "Cy"])
    (m,) = await _scheduled(api, eid, token)
    seats = [s["entry_id"] for s in m["seats"]]
    shown = {"variant": "Adjusted game", "two_player_rule": " Classic", "speed": "Turn-based,  2 moves a day"}
    url = f"/v1/matches/{m['id']}/bga/tables"
    out = await post(
        api,
        url,
        token,
        {"table": "t1", "created_at": "2099-01-01T00:00:00Z", "players": seats, "settings": shown},
    )
    assert out["tables"][0]["counted"] is True, out
    wrong = {**shown, "speed": "Real time"}
    out = await post(
        api,
        url,
        token,
        {"table": "t2", "created_at": "2099-01-02T00:00:00Z", "players": seats, "settings": wrong},
    )
    reason = out["tables"][1]["reasons"][0]
    assert "Real time" in reason and "turn-based, 2 moves a day" in reason  # the allowed value is named
    # a preset may allow several values for a setting; the error lists them all
    eid2, token2, _ = await setup(
        api,
        THREE,
        ["Ann", "Bob", "Cy"],
        settings={"table_settings": {"speed": ["turn-based, 1 move a day", "turn-based, 2 moves a day"]}},
    )
    (m2,) = await _scheduled(api, eid2, token2)
    seats2 = [s["entry_id"] for s in m2["seats"]]
    out = await post(
        api,
        f"/v1/matches/{m2['id']}/bga/tables",
        token2,
        {
            "table": "u1",
            "created_at": "2099-01-01T00:00:00Z",
            "players": seats2,
            "settings": {"speed": "real time"},
        },
    )
    assert "turn-based, 1 move a day" in out["tables"][0]["reasons"][0]
    out = await post(
        api,
        f"/v1/matches/{m2['id']}/bga/tables",
        token2,
        {
            "table": "u2",
            "created_at": "2099-01-02T00:00:00Z",
            "players": seats2,
            "settings": {"speed": "Turn-based, 1 move a day"},
        },
    )
    assert out["tables"][1]["counted"] is True
    s = await summary(api, eid2)
    assert s["table_settings"] == {"speed": ["turn-based, 1 move a day", "turn-based, 2 moves a day"]}


async def test_the_bga_summary_names_entries_not_only_ids(api: Api) -> None:
    eid, token, entries = await setup(api, TWO, ["Ann", "Bob", "Cy"])
    await start(api, eid, token)
    await play_released(api, eid, token, by_name_order)
    await advance(api, eid, token)
    s = await summary(api, eid)
    assert s["winners"] == [entries["Ann"]["id"]]
    assert s["names"] == {e["id"]: n for n, e in entries.items()}


async def test_a_schedule_released_by_rounds_uses_the_fewest_rounds_where_a_resolvable_design_exists(
    api: Api,
) -> None:
    names = [f"K{i:02d}" for i in range(21)]
    stage = {"format": "round_robin", "table_size": 3, "mode": "complete", "release": "rounds"}
    eid, token, _ = await setup(api, THREE, names, settings={"stages": [stage], "rated": False})
    started = await start(api, eid, token)
    await api.drain_jobs()
    assert started["job_id"]
    rounds = await rounds_of(api, eid)
    assert len(rounds) == 10  # a Kirkman triple system: (21 − 1) / 2 rounds, every pair once
    met: set[frozenset[str]] = set()
    for rnd in rounds:
        seated = [s["entry_id"] for m in rnd["matches"] for s in m["seats"]]
        assert len(seated) == len(set(seated)) == 21  # everyone plays every round
        met |= {
            frozenset(p) for m in rnd["matches"] for p in combinations([s["entry_id"] for s in m["seats"]], 2)
        }
    assert len(met) == 210


async def test_a_decided_best_of_three_refuses_its_third_game(api: Api) -> None:
    # bga-round-robin.md, the ruling on a decided series: at 2-0 the third game is void; its result is a 409 naming
    # the rule, and nothing of it counts
    names = [f"Q{i:02d}" for i in range(11)]
    eid, token, entries = await setup(api, TWO, names)
    await start(api, eid, token)
    await play_released(api, eid, token, by_name_order)
    game1 = (await advance(api, eid, token))["round"]["matches"][0]
    tokens = {e["id"]: e["entry_token"] for e in entries.values()}
    for s in game1["seats"]:
        reg = {"entry_id": s["entry_id"]}
        await post(api, f"/v1/events/{eid}/bga/final/registrations", tokens[s["entry_id"]], reg)
    await post(api, f"/v1/events/{eid}/bga/final/deadline", token)
    a, b = (s["entry_id"] for s in game1["seats"])
    game2, game3 = [m for r in await rounds_of(api, eid) if r["stage"] == 1 for m in r["matches"]][1:]
    await report(api, token, game1, {a: 1, b: 2})
    await report(api, token, game2, {a: 1, b: 2})
    seats = [{"entry_id": s["entry_id"], "place": 1 if s["entry_id"] == b else 2} for s in game3["seats"]]
    r = await api.client.post(
        f"/v1/matches/{game3['id']}/result", json={"seats": seats}, headers=bearer(token)
    )
    body = assert_problem(r, 409)
    assert body["rule"] == "bga.series.decided" and "void" in body["detail"]
    assert (await api.client.get(f"/v1/matches/{game3['id']}")).json()["result"] is None
    # a player's claim is refused alike
    r = await api.client.post(
        f"/v1/matches/{game3['id']}/result", json={"seats": seats}, headers=bearer(tokens[b])
    )
    assert assert_problem(r, 409)["rule"] == "bga.series.decided"
    done = await advance(api, eid, token)
    assert done["event"]["status"] == "finished"
    assert (await summary(api, eid))["winners"] == [a]
    final_rows = await standings(api, eid, stage=1)
    wins = {row["entry_id"]: row["wins"] for row in final_rows}
    assert wins == {a: 2, b: 0}
    game3_read = (await api.client.get(f"/v1/matches/{game3['id']}")).json()
    assert game3_read["result"]["outcome"] == "void"
