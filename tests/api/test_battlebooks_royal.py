"""BATTLEBOOKS Last Man Standing and Battle Royal run end to end through HTTP (battlebooks.md)."""

from __future__ import annotations

from typing import Any

import pytest

from app.core.games import battlebooks_royal as br
from app.core.pairing.elimination import single_elimination
from tests.support.api import (
    Api,
    advance,
    assert_problem,
    bearer,
    pair,
    post_result,
    setup_event,
    standings,
    start,
)

SEED = "battlebooks-royal-0001"
LMS, ROYAL = br.LAST_MAN_STANDING, br.BATTLE_ROYAL


async def setup(api: Api, preset: str, n: int, **kw: Any) -> tuple[str, str, dict[str, dict[str, Any]]]:
    names = [f"Hero {i:02d}" for i in range(n)]
    return await setup_event(api, names, game="battlebooks", preset=preset, seed=SEED, **kw)


async def no_ratings(api: Api, entries: dict[str, dict[str, Any]]) -> None:
    for e in entries.values():
        r = await api.client.get(f"/v1/players/{e['player_id']}/ratings")
        assert r.status_code == 200 and r.json()["items"] == [], r.text
    assert (await api.client.get("/v1/ratings/battlebooks")).status_code == 404


def duel(match: dict[str, Any]) -> dict[str, Any]:
    """The alphabetically first name wins with 21 body points left; the loser's hero has 29."""
    names = [s["name"] for s in match["seats"]]
    win = min(names)
    return {
        "seats": [
            {
                "entry_id": s["entry_id"],
                "place": 1 if s["name"] == win else 2,
                "body_points": 21 if s["name"] == win else 29,
            }
            for s in match["seats"]
        ]
    }


# --------------------------------------------------------------------------- Last Man Standing


@pytest.mark.parametrize("n", [8, 9, 17])
async def test_last_man_standing_end_to_end(api: Api, n: int) -> None:
    eid, token, entries = await setup(api, LMS, n)
    ids = [e["id"] for e in entries.values()]
    name_of = {e["id"]: name for name, e in entries.items()}
    started = await start(api, eid, token)
    first = started["round"]
    expected = single_elimination(ids, method="draw", seed=SEED, purpose="stage:0:bracket")
    tables = [[s["entry_id"] for s in m["seats"]] for m in first["matches"]]
    assert tables == [[e for e in (m.first, m.second) if e is not None] for m in expected.matches[0]]
    slots = 1 << (n - 1).bit_length()
    assert len(first["matches"]) == slots // 2
    byes = [m["seats"][0]["entry_id"] for m in first["matches"] if m["status"] == "bye"]
    assert len(byes) == slots - n
    for m in first["matches"]:
        assert sum(bool(s["first_token"]) for s in m["seats"]) == 1  # every pairing names the first holder

    rnd, games, alive = first, 0, set(ids)
    wins = dict.fromkeys(ids, 0)
    while True:
        games += 1
        winners = []
        for m in rnd["matches"]:
            if m["status"] == "bye":
                winners.append(m["seats"][0]["entry_id"])
                continue
            reported = await post_result(api, token, m, duel(m))
            seats = {s["entry_id"]: s for s in reported["result"]["seats"]}
            win = min(seats, key=lambda e: name_of[e])
            assert seats[win]["differential"] == 8 and seats[win]["place"] == 1
            winners.append(win)
            alive -= set(seats) - {win}
        for w in winners:
            wins[w] += 1
        if len(winners) == 1:
            break
        rnd = await pair(api, eid, token)
        seated = [s["entry_id"] for m in rnd["matches"] for s in m["seats"]]
        assert seated == winners  # winners advance in bracket order; the byes among them
        if games == 1:
            assert set(byes) <= set(seated)
    assert games == br.elimination_games(n) == expected.rounds
    r = await api.client.post(f"/v1/events/{eid}/rounds", headers=bearer(token))
    assert_problem(r, 409)
    assert (await advance(api, eid, token))["event"]["status"] == "finished"
    rows = await standings(api, eid)
    champion = min(ids, key=lambda e: name_of[e])
    assert alive == {champion} and rows[0]["entry_id"] == champion
    by_id = {row["entry_id"]: row for row in rows}
    for e in ids:
        assert by_id[e]["points"] == 5 * wins[e]  # 5 a win (a bye counts as one), 0 a loss
    assert wins[champion] == games
    await no_ratings(api, entries)


async def test_last_man_standing_thirty_players_draw_sixteen_pairings(api: Api) -> None:
    eid, token, entries = await setup(api, LMS, 30)
    first = (await start(api, eid, token))["round"]
    assert len(first["matches"]) == 16
    byes = [m for m in first["matches"] if m["status"] == "bye"]
    assert len(byes) == 2 and all(len(m["seats"]) == 1 for m in byes)
    # names go into the first slots in order, then the second slots: the byes are the last pairings
    assert [m["table"] for m in byes] == [15, 16]
    assert sorted(s["entry_id"] for m in first["matches"] for s in m["seats"]) == sorted(
        e["id"] for e in entries.values()
    )


async def test_seed_example_five_plus_eight_and_no_draws(api: Api) -> None:
    eid, token, entries = await setup(api, LMS, 2)
    match = (await start(api, eid, token))["round"]["matches"][0]
    a, b = (s["entry_id"] for s in match["seats"])
    url = f"/v1/matches/{match['id']}/result"
    body = assert_problem(
        await api.client.post(
            url,
            json={
                "outcome": "draw",
                "seats": [{"entry_id": a, "body_points": 10}, {"entry_id": b, "body_points": 10}],
            },
            headers=bearer(token),
        ),
        422,
    )
    assert "last-man-standing/winner" in body["detail"]
    assert (await api.client.get(f"/v1/matches/{match['id']}")).json()["status"] == "pending"
    seats = [
        {"entry_id": a, "place": 1, "body_points": 21},
        {"entry_id": b, "place": 2, "body_points": 29},
    ]
    await post_result(api, token, match, {"seats": seats})
    rows = {row["entry_id"]: row for row in await standings(api, eid)}
    assert (rows[a]["points"], rows[a]["differential"]) == (5, 8)
    assert (rows[b]["points"], rows[b]["differential"]) == (0, -8)


@pytest.mark.parametrize("preset", [LMS, ROYAL])
async def test_never_rated_nor_sanctioned(api: Api, preset: str) -> None:
    for key in ("rated", "sanctioned"):
        eid, token, entries = await setup(api, preset, 4, settings={key: True})
        body = assert_problem(await api.client.post(f"/v1/events/{eid}/start", headers=bearer(token)), 422)
        assert "battlebooks/non-sanctioned" in body["detail"] and key in body["detail"]
        assert (await api.client.get(f"/v1/events/{eid}")).json()["status"] == "registration"


# --------------------------------------------------------------------------- Battle Royal


def legal_record(match: dict[str, Any], victims_by_name: list[str]) -> dict[str, Any]:
    """Play the table out: the token goes clockwise from the first holder; the named heroes fall in
    that order."""
    seats = sorted(match["seats"], key=lambda s: s["seat"])
    n = len(seats)
    seat_of = {s["name"]: s["seat"] for s in seats}
    first = next(s["seat"] for s in seats if s["first_token"])
    queue = [seat_of[v] for v in victims_by_name]
    body = [20] * n
    alive, holder, turns = set(range(n)), first, []
    while len(alive) > 1:
        if queue and queue[0] != holder:
            target = queue.pop(0)
            body[target] = 0
        else:
            target = next(s for s in sorted(alive) if s != holder)
            body[target] -= 1
        turns.append(
            {
                "attacker": holder,
                "target": target,
                "attacker_body_points": body[holder],
                "target_body_points": body[target],
            }
        )
        if body[target] <= 0:
            alive.discard(target)
        nxt = br.next_holder(holder, alive, n)
        assert nxt is not None or len(alive) == 1
        holder = nxt if nxt is not None else holder
    return {"body_points": [20] * n, "turns": turns}


@pytest.mark.parametrize("n", [4, 5, 6, 7, 8])
async def test_battle_royal_end_to_end(api: Api, n: int) -> None:
    eid, token, entries = await setup(api, ROYAL, n)
    rnd = (await start(api, eid, token))["round"]
    assert len(rnd["matches"]) == 1
    match = rnd["matches"][0]
    assert sorted(s["entry_id"] for s in match["seats"]) == sorted(e["id"] for e in entries.values())
    assert sum(bool(s["first_token"]) for s in match["seats"]) == 1
    # the heroes fall in reverse name order: the first name stands last
    names = sorted(entries, reverse=True)
    record = legal_record(match, names[:-1])
    result = (await post_result(api, token, match, {"game_log": record}))["result"]["seats"]
    place_of = {s["entry_id"]: s["place"] for s in result}
    for k, name in enumerate(names):
        assert place_of[entries[name]["id"]] == n - k
    rows = await standings(api, eid)
    assert [row["name"] for row in rows] == sorted(entries)
    assert [row["rank"] for row in rows] == list(range(1, n + 1))
    assert_problem(await api.client.post(f"/v1/events/{eid}/rounds", headers=bearer(token)), 409)
    assert (await advance(api, eid, token))["event"]["status"] == "finished"
    await no_ratings(api, entries)


async def test_the_verdict_of_a_battle_royal_shows_its_token_holders_and_eliminations(api: Api) -> None:
    eid, token, entries = await setup(api, ROYAL, 5)
    match = (await start(api, eid, token))["round"]["matches"][0]
    names = sorted(entries, reverse=True)
    record = legal_record(match, names[:-1])
    done = await post_result(api, token, match, {"game_log": record})
    verdict = done["verdict"]
    assert verdict["adjudicator"] == "battlebooks-royal"
    royal = verdict["battlebooks_royal"]
    first = next(s["seat"] for s in match["seats"] if s["first_token"])
    assert royal["first"] == first and royal["holders"] == [t["attacker"] for t in record["turns"]]
    seat_of = {s["name"]: s["seat"] for s in match["seats"]}
    assert [e["seat"] for e in royal["eliminations"]] == [seat_of[n] for n in names[:-1]]
    assert (await api.client.get(f"/v1/matches/{match['id']}")).json()["verdict"] == verdict


async def test_battle_royal_table_limits(api: Api) -> None:
    eid, token, entries = await setup(api, ROYAL, 8)
    r = await api.client.post(f"/v1/events/{eid}/entries", json={"name": "Ninth"}, headers=bearer(token))
    assert_problem(r, 409)
    eid, token, _ = await setup(api, ROYAL, 9, settings={"capacity": 20})
    body = assert_problem(await api.client.post(f"/v1/events/{eid}/start", headers=bearer(token)), 409)
    assert "4–8" in body["detail"] and "9" in body["detail"]
    assert (await api.client.get(f"/v1/events/{eid}")).json()["status"] == "registration"
    eid, token, _ = await setup(api, ROYAL, 3, settings={"min_entries": 2})
    assert_problem(await api.client.post(f"/v1/events/{eid}/start", headers=bearer(token)), 409)


async def test_battle_royal_broken_records_rejected(api: Api) -> None:
    eid, token, entries = await setup(api, ROYAL, 5)
    match = (await start(api, eid, token))["round"]["matches"][0]
    url = f"/v1/matches/{match['id']}/result"
    first = next(s["seat"] for s in match["seats"] if s["first_token"])
    nxt, third = (first + 1) % 5, (first + 2) % 5
    bp = [20] * 5

    def t(a: int, target: int, abp: int, tbp: int) -> dict[str, int]:
        return {"attacker": a, "target": target, "attacker_body_points": abp, "target_body_points": tbp}

    # the first holder knocks out the next seat, who then acts anyway
    after = {"body_points": bp, "turns": [t(first, nxt, 20, 0), t(nxt, third, 20, 5)]}
    body = assert_problem(await api.client.post(url, json={"game_log": after}, headers=bearer(token)), 422)
    assert br.RULE_ELIMINATED in body["detail"] and "turn 2" in body["detail"]
    # someone other than the token holder opens
    wrong = {"body_points": bp, "turns": [t(nxt, third, 20, 5)]}
    body = assert_problem(await api.client.post(url, json={"game_log": wrong}, headers=bearer(token)), 422)
    assert br.RULE_TOKEN in body["detail"]
    # structure errors name the field
    body = assert_problem(
        await api.client.post(
            url, json={"game_log": {"body_points": [1], "turns": []}}, headers=bearer(token)
        ),
        422,
    )
    assert {tuple(p["loc"])[-1] for p in body["errors"]} >= {"body_points", "turns"}
    r = await api.client.get(f"/v1/matches/{match['id']}")
    assert r.json()["status"] == "pending" and r.json()["result"] is None  # nothing written
    # a correct record afterwards is accepted
    record = legal_record(match, sorted(entries)[1:])
    r = await api.client.post(url, json={"game_log": record}, headers=bearer(token))
    assert r.status_code == 200, r.text


async def test_stateless_record_checker(api: Api) -> None:
    def t(a: int, target: int, abp: float, tbp: float) -> dict[str, Any]:
        return {"attacker": a, "target": target, "attacker_body_points": abp, "target_body_points": tbp}

    good = {
        "players": 4,
        "first": 1,
        "body_points": [25, 30, 28, 22],
        "turns": [t(1, 3, 27, 10), t(2, 3, 20, 0), t(0, 2, 5, 12), t(1, 0, 20, -2), t(2, 1, 0, 4)],
    }
    r = await api.client.post("/v1/adjudicate/battlebooks-royal", json=good)
    assert r.status_code == 200, r.text
    assert r.json()["places"] == [3, 1, 2, 4] and r.json()["holders"] == [1, 2, 0, 1, 2]
    assert [e["seat"] for e in r.json()["eliminations"]] == [3, 0, 2]
    late = {**good, "turns": [*good["turns"][:2], t(3, 0, 5, 5)]}
    body = assert_problem(await api.client.post("/v1/adjudicate/battlebooks-royal", json=late), 422)
    assert body["rule"] == br.RULE_ELIMINATED
    skip = {**good, "turns": [good["turns"][0], t(3, 0, 5, 5)]}
    body = assert_problem(await api.client.post("/v1/adjudicate/battlebooks-royal", json=skip), 422)
    assert body["rule"] == br.RULE_TOKEN
    body = assert_problem(
        await api.client.post("/v1/adjudicate/battlebooks-royal", json={**good, "players": 9}), 422
    )
    assert any("players" in p["loc"] for p in body["errors"])


async def test_battle_royal_players_claim_the_record(api: Api) -> None:
    eid, token, entries = await setup(api, ROYAL, 4)
    match = (await start(api, eid, token))["round"]["matches"][0]
    record = legal_record(match, sorted(entries)[:3])
    tokens = {e["id"]: e["entry_token"] for e in entries.values()}
    seats = [s["entry_id"] for s in match["seats"]]
    for i, entry_id in enumerate(seats):
        claimed = await post_result(api, tokens[entry_id], match, {"game_log": record})
        assert claimed["status"] == ("confirmed" if i == len(seats) - 1 else "reported")
    winner = entries[sorted(entries)[3]]["id"]
    assert {s["entry_id"]: s["place"] for s in claimed["result"]["seats"]}[winner] == 1


async def test_a_battle_royal_records_body_points_are_bounded(api: Api) -> None:
    """Body points are bounded in a Battle Royal record as in a result (battlebooks.md "Scoring"):
    ±1e308, or a number JSON reads as infinite, is a 422 naming it — never stored, never a 500."""
    eid, token, _ = await setup(api, ROYAL, 4)
    match = (await start(api, eid, token))["round"]["matches"][0]
    url = f"/v1/matches/{match['id']}/result"
    first = next(s["seat"] for s in match["seats"] if s["first_token"])
    turn = {
        "attacker": first,
        "target": (first + 1) % 4,
        "attacker_body_points": 20,
        "target_body_points": -1e308,
    }
    huge = {"body_points": [1e308, 20, 20, 20], "turns": [turn]}
    body = assert_problem(await api.client.post(url, json={"game_log": huge}, headers=bearer(token)), 422)
    assert [e["loc"] for e in body["errors"]] == [
        ["game_log", "body_points", 0],
        ["game_log", "turns", 0, "target_body_points"],
    ]
    raw = '{"game_log": {"body_points": [1e999, 20, 20, 20], "turns": [{"attacker": 0, "target": 1, "attacker_body_points": 1, "target_body_points": 0}]}}'
    r = await api.client.post(url, content=raw, headers={**bearer(token), "Content-Type": "application/json"})
    assert assert_problem(r, 422)["errors"][0]["loc"] == ["game_log", "body_points", 0]
    assert (await api.client.get(f"/v1/matches/{match['id']}")).json()["status"] == "pending"
