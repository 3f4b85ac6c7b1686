"""Titan: The Arena through HTTP: the adjudicator, logs in matches, and a whole WBC HMW-P event."""

from __future__ import annotations

from typing import Any

from app.core.games.titan_arena import snake_deal
from tests.support.api import (
    Api,
    add_entry,
    advance,
    assert_problem,
    bearer,
    pair,
    post_result,
    setup_event,
    standings,
    start,
)

SEED_LOG: dict[str, Any] = {
    "players": ["Anne", "Pippin", "Louis Wu", "Hatshepsut"],
    "scores": {"Anne": 12, "Pippin": 4, "Louis Wu": 9, "Hatshepsut": 9},
    "deaths": [
        {"creature": "Cyclops", "killed_by": "Anne"},
        {"creature": "Wyrm", "killed_by": "Hatshepsut"},
        {"creature": "Unicorn", "killed_by": "Anne"},
    ],
    "bets": [
        {"player": "Pippin", "creature": "Cyclops", "points": 4, "secret": True},
        {"player": "Hatshepsut", "creature": "Wyrm", "points": 5},
        {"player": "Louis Wu", "creature": "Unicorn", "points": 3},
    ],
}


async def test_adjudicate_the_seed_example(api: Api) -> None:
    r = await api.client.post("/v1/adjudicate/titan-arena", json=SEED_LOG)
    assert r.status_code == 200, r.text
    body = r.json()
    assert [(p["player"], p["place"]) for p in body["places"]] == [
        ("Anne", 1),
        ("Louis Wu", 2),
        ("Hatshepsut", 3),
        ("Pippin", 4),
    ]
    (tb,) = body["tiebreaks"]
    assert tb["order"] == ["Louis Wu", "Hatshepsut"] and tb["decided_by"] == "Unicorn"
    # the original rule instead: the last play decides
    r = await api.client.post(
        "/v1/adjudicate/titan-arena", json={**SEED_LOG, "tie_rule": "last_play", "last_play": "Hatshepsut"}
    )
    assert [p["player"] for p in r.json()["places"]][1:3] == ["Hatshepsut", "Louis Wu"]


async def test_adjudicate_bad_logs(api: Api) -> None:
    url = "/v1/adjudicate/titan-arena"
    cases = [
        (
            {"bets": [{"player": "Anne", "creature": "Dragon", "points": 1}], "variant": "colossal-arena"},
            "bets",
        ),
        ({"deaths": [{"creature": "Troll"}, {"creature": "Troll"}]}, "deaths"),
        ({"scores": {"Anne": 1, "Pippin": 2, "Louis Wu": 3, "Hatshepsut": 4, "Ghost": 5}}, "scores"),
        ({"players": ["Anne", "Pippin"], "scores": {"Anne": 1, "Pippin": 2}}, "players"),
    ]
    for change, where in cases:
        body = assert_problem(await api.client.post(url, json={**SEED_LOG, **change}), 422)
        assert body["errors"][0]["loc"][0] == where, body


async def heat_event(api: Api, names: list[str]) -> tuple[str, str, dict[str, str]]:
    eid, token, entries = await setup_event(
        api, names, game="titan-the-arena", preset="wbc-hmwp", seed="wbc-2026"
    )
    await start(api, eid, token)
    return eid, token, {n: e["id"] for n, e in entries.items()}


async def test_a_heat_reported_as_its_log(api: Api) -> None:
    eid, token, ids = await heat_event(api, ["Anne", "Pippin", "Louis Wu", "Hatshepsut", "Zed"])
    url = f"/v1/events/{eid}/rounds"
    # a heat seats 3–5: 2, 6 and 1 are refused, and nothing is created
    for bad in (
        [[ids["Anne"], ids["Pippin"]]],
        [[ids["Anne"]]],
        [[*ids.values(), ids["Anne"]]],
    ):
        assert_problem(await api.client.post(url, json={"tables": bad}, headers=bearer(token)), 422)
    assert (await api.client.get(url)).json() == []
    seats = [ids[n] for n in SEED_LOG["players"]]
    heat = (await pair(api, eid, token, [seats]))["matches"][0]
    murl = f"/v1/matches/{heat['id']}/result"
    # bad logs are 422 naming the problem, and the heat stays unreported
    bad_logs = [
        {**SEED_LOG, "bets": [{"player": "Anne", "creature": "Gorgon", "points": 1}], "variant": "colossal"},
        {**SEED_LOG, "deaths": [{"creature": "Wyrm"}, {"creature": "Wyrm"}]},
        {**SEED_LOG, "scores": {**SEED_LOG["scores"], "Zed": 3}},
        {**SEED_LOG, "players": SEED_LOG["players"][:3]},
    ]
    for log in bad_logs:
        body = assert_problem(await api.client.post(murl, json={"game_log": log}, headers=bearer(token)), 422)
        assert body["errors"][0]["loc"][0] == "game_log"
    assert (await api.client.get(f"/v1/matches/{heat['id']}")).json()["status"] == "pending"
    # tied scores without a log or places break no tie: refused
    tied = [{"entry_id": s, "score": sc} for s, sc in zip(seats, [12, 4, 9, 9], strict=True)]
    r = await api.client.post(murl, json={"seats": tied}, headers=bearer(token))
    assert "every place" in assert_problem(r, 422)["detail"]
    reported = await post_result(api, token, heat, {"game_log": SEED_LOG})
    by_entry = {s["entry_id"]: s for s in reported["result"]["seats"]}
    assert by_entry[ids["Louis Wu"]]["place"] == 2 and by_entry[ids["Hatshepsut"]]["place"] == 3
    assert by_entry[ids["Louis Wu"]]["score"] == 9
    stats = (await api.client.get(f"/v1/events/{eid}/titan-arena/statistics")).json()
    assert stats["games"] == 1 and stats["kills"][0] == {"entry_id": ids["Anne"], "name": "Anne", "kills": 2}
    assert stats["bets"]["Unicorn"]["points"] == 3 and stats["deaths"]["Wyrm"] == 1
    # one heat has one winner and one second: too few for a semifinal
    r = await api.client.post(f"/v1/events/{eid}/advance", headers=bearer(token))
    assert "semifinal needs at least 3" in assert_problem(r, 409)["detail"]
    # entries join while the heats run, and play a heat of their own
    late = [(await add_entry(api, eid, token, n))["id"] for n in ("Late", "Later")]
    await pair(api, eid, token, [[*late, ids["Zed"]]])


def heats_plan() -> list[tuple[str, str, int, list[str]]]:
    """(winner, second, winner's margin over the second, others) for 12 heats of 30 entries."""
    return [
        ("P00", "P11", 2, ["P21", "P22"]),
        ("P01", "P12", 5, ["P23", "P24", "P25"]),
        ("P02", "P13", 1, ["P26"]),
        ("P03", "P14", 7, ["P27", "P28"]),
        ("P04", "P15", 2, ["P29", "P21"]),
        ("P05", "P16", 9, ["P22", "P23", "P24"]),
        ("P06", "P17", 3, ["P25"]),
        ("P07", "P18", 8, ["P26", "P27"]),
        ("P08", "P19", 3, ["P28", "P29"]),
        ("P09", "P11", 4, ["P21"]),
        ("P10", "P20", 6, ["P22", "P19"]),
        ("P00", "P01", 2, ["P03", "P23", "P24"]),
    ]


async def test_whole_hmwp_event(api: Api) -> None:
    names = [f"P{i:02}" for i in range(30)]
    eid, token, ids = await heat_event(api, names)
    name_of = {v: k for k, v in ids.items()}
    plan = heats_plan()
    # every heat opens before any is reported: heats run side by side
    heats = []
    for w, s, _, others in plan:
        table = [ids[s], *[ids[o] for o in others], ids[w]]
        heats.append((await pair(api, eid, token, [table]))["matches"][0])
    assert len(heats) == 12 and sum(len(h["seats"]) for h in heats) == 48
    for (w, s, margin, others), heat in zip(plan, heats, strict=True):
        score = {w: 20, s: 20 - margin, **{o: 10 - k for k, o in enumerate(others)}}
        seats = [{"entry_id": x["entry_id"], "score": score[x["name"]]} for x in heat["seats"]]
        await post_result(api, token, heat, {"seats": seats})

    rows = await standings(api, eid)
    seeding = [name_of[r["entry_id"]] for r in rows]
    assert seeding[:2] == ["P00", "P01"]  # two wins; then one win and a second
    winners = [n for n in seeding if n in {p[0] for p in plan}]
    assert len(winners) == 11 and winners[-1] == "P03"  # P03 lost 4 points in its other heat
    by_name = {name_of[r["entry_id"]]: r for r in rows}
    assert by_name["P19"]["decided_by"] == "points_behind_all"  # level with P17 on points behind in 2nds

    done = await advance(api, eid, token)
    assert done["stage"] == 1
    semi = done["round"]["matches"]
    # 11 winners → 16 seats: the winners by seeding, then the 5 best alternates
    expected = [*winners, "P11", "P13", "P15", "P17", "P19"]
    assert [len(m["seats"]) for m in semi] == [4, 4, 4, 4]
    dealt = [[s["name"] for s in m["seats"]] for m in semi]
    assert dealt == snake_deal(expected, 4)
    assert dealt[0] == [expected[0], expected[7], expected[8], expected[15]]
    assert "P12" not in {n for t in dealt for n in t}  # the sixth alternate stays out

    # the organizer cannot open the final early, nor choose rules before it exists
    r = await api.client.post(
        f"/v1/events/{eid}/titan-arena/final-rules",
        json={"entry_id": ids["P00"], "colossal": True},
        headers=bearer(token),
    )
    assert_problem(r, 409)
    # each table: the lowest seed at the table wins it (scores decide)
    table_winners = []
    for m in semi:
        order = sorted(m["seats"], key=lambda s: -expected.index(s["name"]))
        table_winners.append(order[0]["name"])
        seats = [{"entry_id": s["entry_id"], "score": 30 - k} for k, s in enumerate(order)]
        await post_result(api, token, m, {"seats": seats})
    final = await advance(api, eid, token)
    assert final["stage"] == 2
    (table,) = final["round"]["matches"]
    finalists = [s["name"] for s in table["seats"]]
    assert sorted(finalists, key=expected.index) == finalists
    assert set(finalists) == set(table_winners)

    # the rules version: three say yes, one says no → the original rules
    entries = {e["name"]: e for e in (await api.client.get(f"/v1/events/{eid}/entries")).json()}
    assert entries  # the listing names every entry
    url = f"/v1/events/{eid}/titan-arena/final-rules"
    for n in finalists[:3]:
        r = await api.client.post(url, json={"entry_id": ids[n], "colossal": True}, headers=bearer(token))
        assert r.status_code == 200, r.text
    assert r.json()["version"] == "titan-the-arena"
    r = await api.client.post(url, json={"entry_id": ids["P29"], "colossal": True}, headers=bearer(token))
    assert_problem(r, 422)
    r = await api.client.post(
        url, json={"entry_id": ids[finalists[3]], "colossal": True}, headers=bearer(token)
    )
    assert r.json()["version"] == "colossal-arena"
    r = await api.client.post(
        url, json={"entry_id": ids[finalists[3]], "colossal": False}, headers=bearer(token)
    )
    assert r.json()["version"] == "titan-the-arena"
    # the final, reported as its log (original rules): the two last finalists tie, bets decide
    players = finalists
    log = {
        "players": players,
        "scores": {players[0]: 7, players[1]: 15, players[2]: 11, players[3]: 11},
        "deaths": [{"creature": "Troll", "killed_by": players[1]}, {"creature": "Magus"}],
        "bets": [{"player": players[3], "creature": "Magus", "points": 2}],
    }
    wrong = {**log, "variant": "colossal-arena"}
    r = await api.client.post(
        f"/v1/matches/{table['id']}/result", json={"game_log": wrong}, headers=bearer(token)
    )
    assert "rule 5" in assert_problem(r, 422)["detail"]
    await post_result(api, token, table, {"game_log": log})
    done = await advance(api, eid, token)
    assert done["event"]["status"] == "finished"

    places = (await api.client.get(f"/v1/events/{eid}/places")).json()
    assert places["complete"] is True
    order = [r["name"] for r in places["rows"]]
    assert order[:4] == [players[1], players[3], players[2], players[0]]
    assert [r["place"] for r in places["rows"]] == list(range(1, 31))
    semifinalists = set(expected) - set(finalists)
    assert set(order[4:16]) == semifinalists
    assert order[16:] == [n for n in seeding if n not in set(expected)]
