"""Titan: The Arena through HTTP: the adjudicator, logs in matches, and a whole WBC HMW-P event."""

from __future__ import annotations

import csv
import io
from typing import Any

from app.core.games import titan_arena as ta
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
    assert (await api.client.get(url)).json()["items"] == []
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
    entries = {e["name"]: e for e in (await api.client.get(f"/v1/events/{eid}/entries")).json()["items"]}
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

    r = await api.client.get(f"/v1/events/{eid}/places")
    places = r.json()
    assert places["complete"] is True
    # as CSV too (api.md "CSV"): one place a line, the JSON's rows, with its own tag and a 304
    as_csv = await api.client.get(f"/v1/events/{eid}/places", headers={"Accept": "text/csv"})
    assert as_csv.headers["content-disposition"] == f'attachment; filename="places-{eid}.csv"'
    assert list(csv.DictReader(io.StringIO(as_csv.text))) == [
        {k: str(v) for k, v in row.items()} for row in places["rows"]
    ]
    assert as_csv.headers["etag"] != r.headers["etag"]
    again = await api.client.get(
        f"/v1/events/{eid}/places",
        params={"format": "csv"},
        headers={"If-None-Match": as_csv.headers["etag"]},
    )
    assert again.status_code == 304
    order = [r["name"] for r in places["rows"]]
    assert order[:4] == [players[1], players[3], players[2], players[0]]
    assert [r["place"] for r in places["rows"]] == list(range(1, 31))
    semifinalists = set(expected) - set(finalists)
    assert set(order[4:16]) == semifinalists
    assert order[16:] == [n for n in seeding if n not in set(expected)]


# --- issue 19: the WBC rules, again ------------------------------------------------------------
async def heat(api: Api, eid: str, token: str, seats: list[str]) -> dict[str, Any]:
    return dict((await pair(api, eid, token, [seats]))["matches"][0])


async def score_heat(api: Api, token: str, m: dict[str, Any], scores: dict[str, float]) -> dict[str, Any]:
    """Report a heat by its scores (places follow them), ``scores`` by entry id."""
    seats = [{"entry_id": s["entry_id"], "score": scores[s["entry_id"]]} for s in m["seats"]]
    return await post_result(api, token, m, {"seats": seats})


async def test_a_heat_must_determine_every_place_draws_and_timeouts_are_refused(api: Api) -> None:
    eid, token, ids = await heat_event(api, ["Ann", "Bob", "Cy", "Dee"])
    m = await heat(api, eid, token, [ids["Ann"], ids["Bob"], ids["Cy"]])
    url = f"/v1/matches/{m['id']}/result"
    seats = [{"entry_id": s["entry_id"], "score": 5} for s in m["seats"]]
    for outcome in ("draw", "timeout"):
        r = await api.client.post(url, json={"outcome": outcome, "seats": seats}, headers=bearer(token))
        assert "every place determined" in assert_problem(r, 422)["detail"]
    # a forfeit must still name one winner
    two_first = [{"entry_id": s["entry_id"], "place": p} for s, p in zip(m["seats"], [1, 1, 3], strict=True)]
    r = await api.client.post(url, json={"outcome": "forfeit", "seats": two_first}, headers=bearer(token))
    assert "every place determined" in assert_problem(r, 422)["detail"]
    assert (await api.client.get(f"/v1/matches/{m['id']}")).json()["status"] == "pending"
    rows = await standings(api, eid)
    assert all(r["games"] == 0 for r in rows)  # nobody became a "heat winner" of a drawn heat


async def test_a_heat_needs_every_seats_score_and_places_must_agree_with_the_scores(api: Api) -> None:
    eid, token, ids = await heat_event(api, ["Ann", "Bob", "Cy", "Dee"])
    m = await heat(api, eid, token, [ids["Ann"], ids["Bob"], ids["Cy"], ids["Dee"]])
    url = f"/v1/matches/{m['id']}/result"
    places_only = [{"entry_id": s["entry_id"], "place": i + 1} for i, s in enumerate(m["seats"])]
    body = assert_problem(await api.client.post(url, json={"seats": places_only}, headers=bearer(token)), 422)
    assert "score" in body["detail"] and {tuple(e["loc"]) for e in body["errors"]} == {
        ("seats", i, "score") for i in range(4)
    }
    # the 9-point player placed 2nd, ahead of the 12-point one: the places contradict the scores
    scores = [15, 9, 12, 4]
    wrong = [
        {"entry_id": s["entry_id"], "place": i + 1, "score": sc}
        for i, (s, sc) in enumerate(zip(m["seats"], scores, strict=True))
    ]
    body = assert_problem(await api.client.post(url, json={"seats": wrong}, headers=bearer(token)), 422)
    assert "contradict" in body["detail"] and body["errors"][0]["loc"] == ["seats", 1, "place"]
    assert (await api.client.get(f"/v1/matches/{m['id']}")).json()["status"] == "pending"
    # equal scores may be split by explicit places either way (the tie-break was applied at the table)
    tied = [
        {"entry_id": s["entry_id"], "place": p, "score": sc}
        for s, p, sc in zip(m["seats"], [1, 3, 2, 4], [15, 9, 9, 4], strict=True)
    ]
    done = await post_result(api, token, m, {"seats": tied})
    assert [s["place"] for s in done["result"]["seats"]] == [1, 3, 2, 4]


async def test_a_logs_players_are_matched_to_the_seats_by_entry_id_or_name(api: Api) -> None:
    eid, token, ids = await heat_event(api, ["Anne", "Pippin", "Louis Wu", "Hatshepsut"])
    # the table seats them in another order than the log lists them
    seats = [ids["Hatshepsut"], ids["Louis Wu"], ids["Pippin"], ids["Anne"]]
    m = await heat(api, eid, token, seats)
    url = f"/v1/matches/{m['id']}/result"
    unknown = {**SEED_LOG, "players": ["Anne", "Pippin", "Louis Wu", "Hatshepsutt"]}
    body = assert_problem(await api.client.post(url, json={"game_log": unknown}, headers=bearer(token)), 422)
    assert body["errors"][0]["loc"] == ["game_log", "players", 3] and "Hatshepsutt" in body["detail"]
    typo = {**SEED_LOG, "deaths": [*SEED_LOG["deaths"][:2], {"creature": "Unicron", "killed_by": "Anne"}]}
    body = assert_problem(await api.client.post(url, json={"game_log": typo}, headers=bearer(token)), 422)
    assert "Unicron" in body["detail"]
    assert (await api.client.get(f"/v1/matches/{m['id']}")).json()["status"] == "pending"
    done = await post_result(api, token, m, {"game_log": SEED_LOG})
    place = {s["entry_id"]: s["place"] for s in done["result"]["seats"]}
    assert [place[ids[n]] for n in ("Anne", "Louis Wu", "Hatshepsut", "Pippin")] == [1, 2, 3, 4]
    score = {s["entry_id"]: s["score"] for s in done["result"]["seats"]}
    assert score[ids["Anne"]] == 12 and score[ids["Pippin"]] == 4
    # statistics credit the kills to the right entries
    stats = (await api.client.get(f"/v1/events/{eid}/titan-arena/statistics")).json()
    assert stats["kills"][0] == {"entry_id": ids["Anne"], "name": "Anne", "kills": 2}
    # by entry id works as well
    m2 = await heat(api, eid, token, [ids["Anne"], ids["Pippin"], ids["Louis Wu"]])
    by_id = {
        "players": [ids["Louis Wu"], ids["Anne"], ids["Pippin"]],
        "scores": [3, 10, 7],
        "deaths": [],
        "bets": [],
    }
    done = await post_result(api, token, m2, {"game_log": by_id})
    place = {s["entry_id"]: s["place"] for s in done["result"]["seats"]}
    assert [place[ids[n]] for n in ("Anne", "Pippin", "Louis Wu")] == [1, 2, 3]


async def test_the_verdict_of_an_adjudicated_match_is_on_the_match_read(api: Api) -> None:
    eid, token, ids = await heat_event(api, ["Anne", "Pippin", "Louis Wu", "Hatshepsut"])
    m = await heat(api, eid, token, [ids[n] for n in SEED_LOG["players"]])
    dice = {**SEED_LOG, "scores": {"Anne": 12, "Pippin": 9, "Louis Wu": 9, "Hatshepsut": 9}, "bets": []}
    done = await post_result(api, token, m, {"game_log": dice})
    verdict = done["verdict"]
    assert verdict["adjudicator"] == "titan-arena"
    breaks = verdict["titan_arena"]["tiebreaks"]
    assert {b["rule"] for b in breaks} == {"dice"} and len(breaks) == 2
    read = (await api.client.get(f"/v1/matches/{m['id']}")).json()
    assert read["verdict"] == verdict
    # the round read shows it too
    rnd = (await api.client.get(f"/v1/events/{eid}/rounds/{read['round']}")).json()
    assert rnd["matches"][0]["verdict"] == verdict
    m2 = await heat(api, eid, token, [ids[n] for n in SEED_LOG["players"]])
    done = await post_result(api, token, m2, {"game_log": SEED_LOG})
    (tb,) = done["verdict"]["titan_arena"]["tiebreaks"]
    assert (
        tb["decided_by"] == "Unicorn"
        and tb["rule"] == "bets"
        and tb["values"]
        == {
            "Louis Wu": 3,
            "Hatshepsut": 0,
        }
    )
    # a match reported by places carries no verdict
    m3 = await heat(api, eid, token, [ids["Anne"], ids["Pippin"], ids["Louis Wu"]])
    done = await score_heat(api, token, m3, {ids["Anne"]: 3, ids["Pippin"]: 2, ids["Louis Wu"]: 1})
    assert done["verdict"] is None


async def qualify(api: Api, names: list[str], heats: list[list[str]]) -> tuple[str, str, dict[str, str]]:
    """A wbc-hmwp event whose heats seat ``heats`` (names, best score first)."""
    eid, token, ids = await heat_event(api, names)
    for table in heats:
        m = await heat(api, eid, token, [ids[n] for n in table])
        await score_heat(api, token, m, {ids[n]: 20 - k for k, n in enumerate(table)})
    return eid, token, ids


async def test_a_field_too_small_for_two_semifinal_tables_goes_straight_to_one_final_table(api: Api) -> None:
    names = ["A", "B", "C", "D", "E", "F"]
    eid, token, ids = await qualify(api, names, [["A", "B", "C"], ["D", "E", "F"]])
    done = await advance(api, eid, token)  # 2 winners and 2 seconds: 4 fit one table
    assert done["stage"] == 2
    (final,) = done["round"]["matches"]
    assert {s["entry_id"] for s in final["seats"]} == {ids[n] for n in "ABDE"}
    rounds = (await api.client.get(f"/v1/events/{eid}/rounds")).json()["items"]
    assert [r["stage"] for r in rounds] == [0, 0, 2]  # no semifinal table was played
    await score_heat(api, token, final, {ids["E"]: 9, ids["A"]: 7, ids["D"]: 5, ids["B"]: 3})
    assert (await advance(api, eid, token))["event"]["status"] == "finished"
    places = (await api.client.get(f"/v1/events/{eid}/places")).json()["rows"]
    assert [(r["name"], r["decided_by"]) for r in places[:4]] == [
        ("E", "final"),
        ("A", "final"),
        ("D", "final"),
        ("B", "final"),
    ]
    assert [r["decided_by"] for r in places[4:]] == ["seeding", "seeding"]
    # six qualifiers need two semifinal tables
    names = [f"Q{i}" for i in range(9)]
    eid, token, _ = await qualify(api, names, [names[0:3], names[3:6], names[6:9]])
    done = await advance(api, eid, token)
    assert done["stage"] == 1 and [len(m["seats"]) for m in done["round"]["matches"]] == [3, 3]


async def test_the_semifinal_make_up_is_readable(api: Api) -> None:
    names = [f"W{i}" for i in range(12)]
    heats = [names[i : i + 3] for i in range(0, 12, 3)]  # 4 winners, 4 seconds, 4 thirds
    eid, token, ids = await qualify(api, names, heats)
    url = f"/v1/events/{eid}/titan-arena/semifinal"
    live = (await api.client.get(url)).json()
    assert live["recorded"] is False and live["target_size"] == 16 and live["size"] == 8
    assert set(live["winners"]) == {ids[t[0]] for t in heats}
    assert set(live["alternates"]) == {ids[t[1]] for t in heats}
    assert live["seats"] == live["winners"] + live["alternates"] and live["tables"] == 2
    await advance(api, eid, token)
    kept = (await api.client.get(url)).json()
    assert kept["recorded"] is True and kept["seats"] == live["seats"] and kept["stale"] is False
    seeding = [r["entry_id"] for r in kept["seeding"]]
    assert seeding[:8] == kept["seats"] and set(seeding[8:]) == {ids[t[2]] for t in heats}
    assert [r["role"] for r in kept["seeding"]] == ["winner"] * 4 + ["alternate"] * 4 + [None] * 4


async def test_a_correction_after_its_stage_closed_warns_what_is_stale(api: Api) -> None:
    names = [f"W{i}" for i in range(12)]
    heats = [names[i : i + 3] for i in range(0, 12, 3)]
    eid, token, ids = await qualify(api, names, heats)
    first = (await api.client.get(f"/v1/events/{eid}/rounds/1")).json()["matches"][0]
    await advance(api, eid, token)
    current = (await api.client.get(f"/v1/matches/{first['id']}")).json()
    # the organizer finds that the heat's third (W2) really won it
    seats = [
        {"entry_id": s["entry_id"], "score": {"W0": 18, "W1": 17, "W2": 20}[s["name"]]}
        for s in current["seats"]
    ]
    r = await api.client.put(
        f"/v1/matches/{first['id']}/result",
        json={"seats": seats},
        headers={**bearer(token), "If-Match": f'"{current["version"]}"'},
    )
    assert r.status_code == 200, r.text
    warnings = r.json()["warnings"]
    assert warnings and any("Semifinal" in w for w in warnings)
    stale = " ".join(warnings)
    assert "W2" in stale and "W1" in stale  # who would now be in, who out
    history = r.json()["history"][-1]
    assert history["action"] == "correction" and history["payload"]["warnings"] == warnings
    semi = (await api.client.get(f"/v1/events/{eid}/titan-arena/semifinal")).json()
    assert semi["stale"] is True and ids["W1"] in semi["seats"]  # the record stays as it was drawn
    # a correction that changes nothing downstream warns of nothing
    again = (await api.client.get(f"/v1/matches/{first['id']}")).json()
    r = await api.client.put(
        f"/v1/matches/{first['id']}/result",
        json={"seats": seats},
        headers={**bearer(token), "If-Match": f'"{again["version"]}"'},
    )
    assert r.status_code == 200 and r.json()["warnings"] == []


async def test_under_colossal_rules_the_final_shows_its_drawn_creatures_and_checks_the_log(api: Api) -> None:
    names = ["A", "B", "C", "D", "E", "F"]
    eid, token, ids = await qualify(api, names, [["A", "B", "C"], ["D", "E", "F"]])
    final = (await advance(api, eid, token))["round"]["matches"][0]
    url = f"/v1/events/{eid}/titan-arena/final-rules"
    for s in final["seats"]:
        r = await api.client.post(
            url, json={"entry_id": s["entry_id"], "colossal": True}, headers=bearer(token)
        )
        assert r.status_code == 200, r.text
    rules = r.json()
    assert rules["version"] == "colossal-arena"
    drawn = rules["creatures"]
    assert drawn == list(ta.final_creatures("wbc-2026")) and len(drawn) == 8
    outside = next(c for c in ta.creature_catalog().creatures if c not in drawn)
    players = [s["name"] for s in final["seats"]]
    log = {
        "variant": "colossal-arena",
        "players": players,
        "scores": [10, 8, 6, 4],
        "deaths": [{"creature": drawn[0]}, {"creature": outside}],
        "bets": [],
    }
    murl = f"/v1/matches/{final['id']}/result"
    body = assert_problem(await api.client.post(murl, json={"game_log": log}, headers=bearer(token)), 422)
    assert outside in body["detail"] and drawn[1] in body["detail"]
    log["deaths"] = [{"creature": drawn[0]}, {"creature": drawn[1]}]
    done = await post_result(api, token, final, {"game_log": log})
    assert done["verdict"]["titan_arena"]["deaths"] == drawn[:2]


# --- issue 33: a negative score is refused, in reported scores and in a log --------------------------
async def test_a_heat_with_a_negative_score_is_refused_and_counts_nothing(api: Api) -> None:
    eid, token, ids = await heat_event(api, ["Ann", "Bob", "Cy", "Dee"])
    m = await heat(api, eid, token, [ids["Ann"], ids["Bob"], ids["Cy"], ids["Dee"]])
    url = f"/v1/matches/{m['id']}/result"
    by_scores = [
        {"entry_id": s["entry_id"], "score": sc} for s, sc in zip(m["seats"], [5, -4, 3, 2], strict=True)
    ]
    body = assert_problem(await api.client.post(url, json={"seats": by_scores}, headers=bearer(token)), 422)
    assert [e["loc"] for e in body["errors"]] == [["seats", 1, "score"]]
    by_places = [
        {"entry_id": s["entry_id"], "place": i + 1, "score": sc}
        for i, (s, sc) in enumerate(zip(m["seats"], [4, 1, -3, -5], strict=True))
    ]
    body = assert_problem(await api.client.post(url, json={"seats": by_places}, headers=bearer(token)), 422)
    assert [e["loc"] for e in body["errors"]] == [["seats", 2, "score"], ["seats", 3, "score"]]
    names = {v: k for k, v in ids.items()}
    log = {
        "players": [names[s["entry_id"]] for s in m["seats"]],
        "scores": [5, -4, 3, 2],
    }
    body = assert_problem(await api.client.post(url, json={"game_log": log}, headers=bearer(token)), 422)
    assert body["errors"][0]["loc"] == ["game_log", "scores", 1]
    assert (await api.client.get(f"/v1/matches/{m['id']}")).json()["status"] == "pending"
    assert all(r["games"] == 0 for r in await standings(api, eid))


async def test_the_adjudicator_refuses_a_log_with_more_than_five_deaths(api: Api) -> None:
    eight = ["Amazon", "Cyclops", "Ettin", "Magus", "Titan", "Troll", "Unicorn", "Wyrm"]
    log = {**SEED_LOG, "deaths": [{"creature": c} for c in eight], "bets": []}
    body = assert_problem(await api.client.post("/v1/adjudicate/titan-arena", json=log), 422)
    assert body["errors"][0]["loc"] == ["deaths"] and "alive" in body["detail"]
    five = {**log, "deaths": log["deaths"][:5]}
    assert (await api.client.post("/v1/adjudicate/titan-arena", json=five)).status_code == 200
