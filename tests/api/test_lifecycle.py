"""Events run start to finish through HTTP, on Postgres and on SQLite."""

from __future__ import annotations

import asyncio
import hashlib

import pytest

from app.core import rng
from app.core.lifecycle import draw_tiebreak_values
from app.core.pairing.designs import search_design
from app.core.pairing.swiss import first_round_order
from tests.support.api import (
    Api,
    add_entry,
    advance,
    assert_problem,
    bearer,
    better_name_wins,
    pair,
    play_round,
    play_stage,
    report,
    setup_event,
    standings,
    start,
)

SEED = "lifecycle-seed-0001"


async def test_whole_swiss_event(api: Api) -> None:
    names = ["Ada", "Barbara", "Claude", "Dijkstra", "Edsger", "Frances", "Grace", "Hedy", "Ivan"]
    eid, token, entries = await setup_event(
        api,
        names,
        settings={"stages": [{"format": "swiss", "rounds": 4}], "tiebreaks": ["buchholz", "wins"]},
        seed=SEED,
    )
    started = await start(api, eid, token)
    assert started["event"]["status"] == "running" and started["stage"] == 0
    rounds = [started["round"]]
    seen_pairs: set[frozenset[str]] = set()
    byes: list[str] = []
    for n in range(4):
        rnd = rounds[-1]
        assert rnd["number"] == n + 1
        seated = [s["entry_id"] for m in rnd["matches"] for s in m["seats"]]
        assert sorted(seated) == sorted(e["id"] for e in entries.values())  # everyone once per round
        for m in rnd["matches"]:
            ids = frozenset(s["entry_id"] for s in m["seats"])
            if m["status"] == "bye":
                byes.extend(ids)
                assert m["result"]["outcome"] == "bye"
            else:
                assert ids not in seen_pairs  # no rematch
                seen_pairs.add(ids)
        await play_round(api, token, rnd)
        if n < 3:
            rounds.append(await pair(api, eid, token))
    assert len(byes) == len(set(byes)) == 4  # one bye a round, never twice
    # every generated round says why: each pair's cost parts and the bye
    why = rounds[-1]["pairing"]
    assert why["method"] == "matching" and why["rematches"] == 0 and len(why["pairs"]) == 4
    assert why["bye"]["entry"] == byes[-1] and why["bye"]["byes_before"] == 0
    assert all(set(p) >= {"score_gap", "rank_distance", "rematch", "cost"} for p in why["pairs"])
    # the fifth round is refused: the stage has 4
    assert (
        "all 4 rounds"
        in assert_problem(await api.client.post(f"/v1/events/{eid}/rounds", headers=bearer(token)), 409)[
            "detail"
        ]
    )
    rows = await standings(api, eid)
    ada = next(r for r in rows if r["name"] == "Ada")  # Ada wins every game she plays
    assert ada["points"] == 12 and rows[0]["points"] == 12 and rows[0]["decided_by"] is None
    assert all(set(r["tiebreaks"]) == {"buchholz", "wins"} for r in rows)
    assert [r["rank"] for r in rows] == sorted(r["rank"] for r in rows)
    done = await advance(api, eid, token)
    assert done["event"]["status"] == "finished"
    # the seed is revealed and every draw re-derives from it
    event = (await api.client.get(f"/v1/events/{eid}")).json()
    assert event["seed"] == SEED and hashlib.sha256(SEED.encode()).hexdigest() == event["seed_commitment"]
    listed = (await api.client.get(f"/v1/events/{eid}/entries")).json()["items"]
    values = draw_tiebreak_values([(e["id"], e["organizer"]) for e in listed], event["seed"])
    assert {e["id"]: e["tiebreak_value"] for e in listed} == values
    order = first_round_order([e["id"] for e in listed], event["seed"], "stage:0:round:1")
    first = (await api.client.get(f"/v1/events/{eid}/rounds/1")).json()
    expected_pairs = [set(order[i : i + 2]) for i in range(0, 8, 2)]
    assert [set(s["entry_id"] for s in m["seats"]) for m in first["matches"][:4]] == expected_pairs
    assert first["matches"][4]["seats"][0]["entry_id"] == order[8]  # the bye goes to the last
    for t, m in enumerate(first["matches"][:4], start=1):
        # seats are balanced (a generic game's 2-seat Swiss): the first seat holds the first token,
        # and in round 1 the higher-ranked entry takes it at odd tables
        assert [s["first_token"] for s in m["seats"]] == [True, False]
        higher = order[2 * (t - 1)]
        assert (m["seats"][0]["entry_id"] == higher) == (t % 2 == 1)


async def test_whole_round_robin_with_player_reports(api: Api) -> None:
    names = ["Ada", "Barbara", "Claude", "Dijkstra", "Edsger"]
    eid, token, entries = await setup_event(
        api, names, settings={"stages": [{"format": "round_robin"}]}, seed=SEED
    )
    tokens = {e["id"]: e["entry_token"] for e in entries.values()}
    rnd = (await start(api, eid, token))["round"]
    met: dict[frozenset[str], int] = {}
    for n in range(5):
        for m in rnd["matches"]:
            if m["status"] == "bye":
                continue
            ids = [s["entry_id"] for s in m["seats"]]
            met[frozenset(ids)] = met.get(frozenset(ids), 0) + 1
            places = better_name_wins(m)
            first = await report(api, tokens[ids[0]], m, places)
            assert first["status"] == "reported" and first["claims"] == 1
            second = await report(api, tokens[ids[1]], m, places)
            assert second["status"] == "confirmed"
            assert [h["action"] for h in second["history"]] == ["claim", "claim", "confirm"]
        if n < 4:
            rnd = await pair(api, eid, token)
    assert len(met) == 10 and set(met.values()) == {1}  # every pair exactly once
    assert_problem(await api.client.post(f"/v1/events/{eid}/rounds", headers=bearer(token)), 409)
    rows = await standings(api, eid)
    assert [r["name"] for r in rows] == names and [r["wins"] for r in rows] == [4, 3, 2, 1, 0]
    assert rows[1]["decided_by"] == "points"
    await advance(api, eid, token)
    # a report on a finished stage is refused and changes nothing
    m = rnd["matches"][0]
    r = await api.client.post(
        f"/v1/matches/{m['id']}/result",
        json={"seats": [{"entry_id": s["entry_id"], "place": 1} for s in m["seats"]]},
        headers=bearer(token),
    )
    assert_problem(r, 409)


async def test_dispute_resolved_by_the_organizer_and_correction_history(api: Api) -> None:
    eid, token, entries = await setup_event(
        api, ["Ada", "Barbara"], settings={"stages": [{"format": "swiss", "rounds": 1}]}, seed=SEED
    )
    m = (await start(api, eid, token))["round"]["matches"][0]
    ids = [s["entry_id"] for s in m["seats"]]
    tok = {e["id"]: e["entry_token"] for e in entries.values()}
    await report(api, tok[ids[0]], m, [1, 2])
    disputed = await report(api, tok[ids[1]], m, [2, 1])
    assert disputed["status"] == "disputed" and disputed["result"] is None
    # the next round waits for the dispute
    assert_problem(await api.client.post(f"/v1/events/{eid}/rounds", headers=bearer(token)), 409)
    ruled = await report(api, token, m, [2, 1])
    assert ruled["status"] == "confirmed" and [h["action"] for h in ruled["history"]][-1] == "ruling"
    # a player cannot change a confirmed result
    r = await api.client.post(
        f"/v1/matches/{m['id']}/result",
        json={"seats": [{"entry_id": ids[0], "place": 1}, {"entry_id": ids[1], "place": 2}]},
        headers=bearer(tok[ids[0]]),
    )
    assert_problem(r, 409)
    # the organizer corrects it, with If-Match, recording a violation after the fact
    url = f"/v1/matches/{m['id']}/result"
    body = {"seats": [{"entry_id": ids[0], "place": 2, "violation": True}, {"entry_id": ids[1], "place": 1}]}
    assert_problem(await api.client.put(url, json=body, headers=bearer(token)), 428)
    assert_problem(await api.client.put(url, json=body, headers={**bearer(token), "If-Match": '"1"'}), 412)
    current = (await api.client.get(f"/v1/matches/{m['id']}")).json()
    r = await api.client.put(url, json=body, headers={**bearer(token), "If-Match": f'"{current["version"]}"'})
    assert r.status_code == 200, r.text
    corrected = r.json()
    assert corrected["version"] == current["version"] + 1
    assert [h["action"] for h in corrected["history"]] == ["claim", "claim", "ruling", "correction"]
    assert corrected["history"][-1]["payload"]["seats"][0]["violation"] is True
    # an entry token cannot correct
    r = await api.client.put(
        url, json=body, headers={**bearer(tok[ids[1]]), "If-Match": f'"{corrected["version"]}"'}
    )
    assert_problem(r, 403)


async def test_bad_reports_name_the_problem_and_change_nothing(api: Api) -> None:
    eid, token, entries = await setup_event(api, ["Ada", "Barbara", "Claude", "Dijkstra"], seed=SEED)
    rnd = (await start(api, eid, token))["round"]
    m, other = rnd["matches"][0], rnd["matches"][1]
    url = f"/v1/matches/{m['id']}/result"
    stranger = other["seats"][0]["entry_id"]
    r = await api.client.post(
        url,
        json={
            "seats": [{"entry_id": m["seats"][0]["entry_id"], "place": 1}, {"entry_id": stranger, "place": 2}]
        },
        headers=bearer(token),
    )
    body = assert_problem(r, 422)
    assert (
        body["errors"][0]["loc"] == ["seats", 1, "entry_id"]
        and "not at this table" in body["errors"][0]["msg"]
    )
    r = await api.client.post(
        url,
        json={"seats": [{"entry_id": s["entry_id"], "place": 3} for s in m["seats"]]},
        headers=bearer(token),
    )
    assert "does not fit" in assert_problem(r, 422)["detail"]
    r = await api.client.post(
        url, json={"seats": [{"entry_id": m["seats"][0]["entry_id"], "place": 1}]}, headers=bearer(token)
    )
    assert "missing" in assert_problem(r, 422)["detail"]
    r = await api.client.post(url, json={"outcome": "won", "seats": []}, headers=bearer(token))
    assert_problem(r, 422)
    # a player of another table may not report this one
    tok = {e["id"]: e["entry_token"] for e in entries.values()}
    r = await api.client.post(
        url,
        json={"seats": [{"entry_id": s["entry_id"], "place": i + 1} for i, s in enumerate(m["seats"])]},
        headers=bearer(tok[stranger]),
    )
    assert_problem(r, 403)
    current = (await api.client.get(f"/v1/matches/{m['id']}")).json()
    assert current["status"] == "pending" and current["history"] == [] and current["version"] == 1
    # scores decide places; a timeout is a draw
    r = await api.client.post(
        url,
        json={
            "seats": [
                {"entry_id": s["entry_id"], "score": sc} for s, sc in zip(m["seats"], [3, 7], strict=True)
            ]
        },
        headers=bearer(token),
    )
    assert [s["place"] for s in r.json()["result"]["seats"]] == [2, 1]
    r = await api.client.post(
        f"/v1/matches/{other['id']}/result",
        json={"outcome": "timeout", "seats": [{"entry_id": s["entry_id"]} for s in other["seats"]]},
        headers=bearer(token),
    )
    assert [s["place"] for s in r.json()["result"]["seats"]] == [1, 1]


async def test_manual_tables_are_checked(api: Api) -> None:
    eid, token, entries = await setup_event(
        api,
        ["Ada", "Barbara", "Claude", "Dijkstra"],
        settings={"stages": [{"format": "heats", "table_size": 2}]},
        seed=SEED,
    )
    started = await start(api, eid, token)
    assert started["round"] is None
    assert (
        "explicit tables"
        in assert_problem(await api.client.post(f"/v1/events/{eid}/rounds", headers=bearer(token)), 409)[
            "detail"
        ]
    )
    ids = [e["id"] for e in entries.values()]
    url = f"/v1/events/{eid}/rounds"
    bad = {"tables": [[ids[0], ids[1]], [ids[1], ids[2]]]}
    assert (
        "twice" in assert_problem(await api.client.post(url, json=bad, headers=bearer(token)), 422)["detail"]
    )
    r = await api.client.post(
        url, json={"tables": [ids + [f"x{i}" for i in range(5)]]}, headers=bearer(token)
    )
    assert_problem(r, 422)
    r = await api.client.post(url, json={"tables": [[ids[0], "no-such-entry"]]}, headers=bearer(token))
    assert "not in this event" in assert_problem(r, 422)["detail"]
    # nine seats do not fit a 2–8 seat game; three do
    r = await api.client.post(url, json={"tables": [ids[:3]]}, headers=bearer(token))
    assert r.status_code == 201 and len(r.json()["matches"][0]["seats"]) == 3
    assert (await api.client.get(f"/v1/events/{eid}/rounds")).json()["items"][0]["number"] == 1


async def test_drops_and_late_entries(api: Api) -> None:
    eid, token, entries = await setup_event(
        api,
        ["Ada", "Barbara", "Claude", "Dijkstra"],
        settings={"stages": [{"format": "swiss", "rounds": 3}], "late_entries": True},
        seed=SEED,
    )
    rnd = (await start(api, eid, token))["round"]
    await play_round(api, token, rnd)
    dropped = entries["Dijkstra"]["id"]
    r = await api.client.delete(f"/v1/events/{eid}/entries/{dropped}", headers=bearer(token))
    assert r.json()["status"] == "dropped"
    late = await add_entry(api, eid, token, "Zuse")
    rnd2 = await pair(api, eid, token)
    seated = {s["entry_id"] for m in rnd2["matches"] for s in m["seats"]}
    assert dropped not in seated and late["id"] in seated and len(seated) == 4
    rows = await standings(api, eid)
    drop_row = next(r for r in rows if r["entry_id"] == dropped)
    assert drop_row["status"] == "dropped" and drop_row["games"] == 1  # results kept


async def test_no_late_entries_unless_allowed(api: Api) -> None:
    eid, token, _ = await setup_event(api, ["Ada", "Barbara"], seed=SEED)
    await start(api, eid, token)
    r = await api.client.post(f"/v1/events/{eid}/entries", json={"name": "Late"}, headers=bearer(token))
    assert_problem(r, 409)
    assert_problem(await api.client.post(f"/v1/events/{eid}/start", headers=bearer(token)), 409)


async def test_start_needs_enough_entries(api: Api) -> None:
    eid, token, _ = await setup_event(api, ["Ada"], seed=SEED)
    assert (
        "at least 2"
        in assert_problem(await api.client.post(f"/v1/events/{eid}/start", headers=bearer(token)), 409)[
            "detail"
        ]
    )
    eid, token, _ = await setup_event(
        api, ["Ada", "Barbara", "Claude"], settings={"sanctioned": True}, seed=SEED
    )
    assert (
        "sanctioned"
        in assert_problem(await api.client.post(f"/v1/events/{eid}/start", headers=bearer(token)), 409)[
            "detail"
        ]
    )


async def test_swiss_then_top_four_bracket(api: Api) -> None:
    names = [f"P{i:02d}" for i in range(8)]
    settings = {
        "stages": [
            {"format": "swiss", "rounds": 2},
            {"format": "single_elimination", "method": "seeded", "advance": {"top": 4}},
        ],
        "tiebreaks": ["buchholz", "tiebreak_value"],
    }
    eid, token, entries = await setup_event(api, names, settings=settings, seed=SEED)
    rnd = (await start(api, eid, token))["round"]
    await play_round(api, token, rnd)
    await play_round(api, token, await pair(api, eid, token))
    top4 = [r["entry_id"] for r in (await standings(api, eid))[:4]]
    adv = await advance(api, eid, token)
    assert adv["stage"] == 1
    semis = adv["round"]["matches"]
    assert [[s["entry_id"] for s in m["seats"]] for m in semis] == [[top4[0], top4[3]], [top4[1], top4[2]]]
    assert_problem(await api.client.post(f"/v1/events/{eid}/advance", headers=bearer(token)), 409)
    await play_round(api, token, adv["round"])
    final = await pair(api, eid, token)
    assert len(final["matches"]) == 1
    await play_round(api, token, final)
    assert_problem(await api.client.post(f"/v1/events/{eid}/rounds", headers=bearer(token)), 409)
    done = await advance(api, eid, token)
    assert done["event"]["status"] == "finished" and done["event"]["seed"] == SEED


async def test_groups_then_series_final(api: Api) -> None:
    names = [f"P{i:02d}" for i in range(6)]
    settings = {
        "stages": [
            {"format": "round_robin", "groups": 2},
            {"format": "series", "best_of": 3, "advance": {"group_winners": True}},
        ]
    }
    eid, token, entries = await setup_event(api, names, settings=settings, seed=SEED)
    rnd = (await start(api, eid, token))["round"]
    listed = (await api.client.get(f"/v1/events/{eid}/entries")).json()["items"]
    groups = {e["group"] for e in listed}
    assert groups == {"A", "B"} and sorted([e["group"] for e in listed]).count("A") == 3
    assert await play_stage(api, eid, token, rnd) == 3  # groups of three: a bye each round
    by_group = {}
    for g in ("A", "B"):
        rows = await standings(api, eid, group=g)
        by_group[g] = rows[0]["entry_id"]
    adv = await advance(api, eid, token)
    game1 = adv["round"]["matches"][0]
    assert {s["entry_id"] for s in game1["seats"]} == set(by_group.values())
    await report(api, token, game1, [1, 2])
    game2 = (await pair(api, eid, token))["matches"][0]
    assert game2["seats"][0]["entry_id"] == game1["seats"][1]["entry_id"]  # seats alternate
    await report(api, token, game2, [2, 1])  # the same entry wins again: 2–0
    assert (
        "decided"
        in assert_problem(await api.client.post(f"/v1/events/{eid}/rounds", headers=bearer(token)), 409)[
            "detail"
        ]
    )
    done = await advance(api, eid, token)
    assert done["event"]["status"] == "finished"


async def test_three_seat_round_robin_schedule_job(api: Api) -> None:
    names = [f"P{i}" for i in range(7)]
    eid, token, entries = await setup_event(
        api,
        names,
        game="puerto-rico",
        settings={"stages": [{"format": "round_robin", "table_size": 3, "time_budget": 5}]},
        seed=SEED,
    )
    started = await start(api, eid, token)
    assert started["job_id"] and started["round"] is None
    await api.drain_jobs()
    job = (await api.client.get(f"/v1/jobs/{started['job_id']}")).json()
    assert job["status"] == "done", job
    assert job["result"]["report"]["exact"] is True
    rounds = (await api.client.get(f"/v1/events/{eid}/rounds")).json()["items"]
    assert len(rounds) == 1 and len(rounds[0]["matches"]) == 7  # the Fano plane, all tables at once
    pairs: dict[frozenset[str], int] = {}
    for m in rounds[0]["matches"]:
        ids = [s["entry_id"] for s in m["seats"]]
        for i in range(3):
            for j in range(i + 1, 3):
                pairs[frozenset((ids[i], ids[j]))] = pairs.get(frozenset((ids[i], ids[j])), 0) + 1
    assert len(pairs) == 21 and set(pairs.values()) == {1}
    # the schedule re-derives from the seed: the design, then players numbered by the seed
    design = search_design(7, 3, "complete", None, False, f"{SEED}:stage:0:group:A")
    numbered = sorted(e["id"] for e in entries.values())
    rng.stream(SEED, "stage:0:group:A:seat_numbers").shuffle(numbered)
    expected = [[numbered[s] for s in t] for t in design.tables]
    assert [[s["entry_id"] for s in m["seats"]] for m in rounds[0]["matches"]] == expected


async def test_idempotent_report(api: Api) -> None:
    eid, token, _ = await setup_event(api, ["Ada", "Barbara"], seed=SEED)
    m = (await start(api, eid, token))["round"]["matches"][0]
    body = {"seats": [{"entry_id": s["entry_id"], "place": i + 1} for i, s in enumerate(m["seats"])]}
    h = {**bearer(token), "Idempotency-Key": "r-1"}
    r1 = await api.client.post(f"/v1/matches/{m['id']}/result", json=body, headers=h)
    r2 = await api.client.post(f"/v1/matches/{m['id']}/result", json=body, headers=h)
    assert r1.status_code == r2.status_code == 200 and r1.json() == r2.json()
    assert len((await api.client.get(f"/v1/matches/{m['id']}")).json()["history"]) == 1


@pytest.mark.parametrize("calls", [6])
async def test_concurrent_pairing_and_reports(api: Api, calls: int) -> None:
    names = [f"P{i}" for i in range(6)]
    eid, token, _ = await setup_event(
        api, names, settings={"stages": [{"format": "swiss", "rounds": 3}]}, seed=SEED
    )
    starts = await asyncio.gather(
        *[api.client.post(f"/v1/events/{eid}/start", headers=bearer(token)) for _ in range(3)]
    )
    assert sorted(r.status_code for r in starts) == [200, 409, 409]
    rnd = next(r.json() for r in starts if r.status_code == 200)["round"]
    m = rnd["matches"][0]
    body = {"seats": [{"entry_id": s["entry_id"], "place": i + 1} for i, s in enumerate(m["seats"])]}
    posts = await asyncio.gather(
        *[
            api.client.post(f"/v1/matches/{m['id']}/result", json=body, headers=bearer(token))
            for _ in range(4)
        ]
    )
    assert sorted(r.status_code for r in posts) == [200, 409, 409, 409]
    assert len((await api.client.get(f"/v1/matches/{m['id']}")).json()["history"]) == 1
    await play_round(api, token, {"matches": rnd["matches"][1:]})
    rs = await asyncio.gather(
        *[api.client.post(f"/v1/events/{eid}/rounds", headers=bearer(token)) for _ in range(calls)]
    )
    assert sorted(r.status_code for r in rs) == [201] + [409] * (calls - 1)
    assert len((await api.client.get(f"/v1/events/{eid}/rounds")).json()["items"]) == 2


async def test_integrity_check_of_a_running_event(api: Api) -> None:
    """The job reports progress per match while it reads; on SQLite that must not wait on its own lock."""
    eid, token, _ = await setup_event(api, ["Ada", "Barbara", "Claude", "Dijkstra", "Edsger"], seed=SEED)
    rnd = (await start(api, eid, token))["round"]
    await play_round(api, token, rnd)
    r = await api.client.post(f"/v1/events/{eid}/integrity-check", headers=bearer(token))
    await api.drain_jobs()
    job = (await api.client.get(f"/v1/jobs/{r.json()['job_id']}")).json()
    assert job["status"] == "done", job["error"]
    assert job["result"]["ok"] is True and job["result"]["checked"]["matches"] == 3


async def test_a_playoff_wider_than_a_table_waits_for_explicit_tables(api: Api) -> None:
    """A multi-seat playoff (tables of 3 here) among more tied entries than one table seats."""
    names = [f"P{i}" for i in range(10)]
    settings = {"stages": [{"format": "swiss", "rounds": 1}, {"format": "playoff", "table_size": 3}]}
    eid, token, entries = await setup_event(api, names, settings=settings, seed=SEED)
    rnd = (await start(api, eid, token))["round"]
    for m in rnd["matches"]:
        await report(api, token, m, [1, 1], outcome="draw")  # ten entries share first
    adv = await advance(api, eid, token)
    assert adv["stage"] == 1 and adv["round"] is None  # ten do not fit one table of 2–8 seats
    assert "create the playoff's tables explicitly" in adv["note"]
    r = await api.client.post(f"/v1/events/{eid}/advance", headers=bearer(token))
    assert "not been created" in assert_problem(r, 409)["detail"]
    ids = [e["id"] for e in entries.values()]
    r = await api.client.post(
        f"/v1/events/{eid}/rounds", json={"tables": [ids[:5], ids[5:]]}, headers=bearer(token)
    )
    assert r.status_code == 201 and len(r.json()["matches"]) == 2


# --------------------------------------------------------------------------- issue 19
async def test_a_two_seat_round_robin_with_release_all_opens_every_round_at_once(api: Api) -> None:
    names = ["Ada", "Barbara", "Claude", "Dijkstra", "Edsger"]
    stage = {"format": "round_robin", "release": "all"}
    eid, token, _ = await setup_event(api, names, settings={"stages": [stage]}, seed=SEED)
    await start(api, eid, token)
    rounds = (await api.client.get(f"/v1/events/{eid}/rounds")).json()["items"]
    assert len(rounds) == 5  # the whole circle, one bye a round
    r = await api.client.post(f"/v1/events/{eid}/rounds", headers=bearer(token))
    assert "released at once" in assert_problem(r, 409)["detail"]
    for rnd in reversed(rounds):  # any order: no game waits for another
        await play_round(api, token, rnd)
    assert [r["wins"] for r in await standings(api, eid)] == [4, 3, 2, 1, 0]
    assert (await advance(api, eid, token))["event"]["status"] == "finished"
    # a generic 2-seat round robin still goes one round at a time
    eid, token, _ = await setup_event(api, names, settings={"stages": [{"format": "round_robin"}]}, seed=SEED)
    await start(api, eid, token)
    assert len((await api.client.get(f"/v1/events/{eid}/rounds")).json()["items"]) == 1


async def test_a_drop_leaves_byes_by_default_and_resigns_the_games_with_on_drop_resign(api: Api) -> None:
    names = ["Ada", "Barbara", "Claude", "Dijkstra"]
    for on_drop in ("bye", "resign"):
        stage = {"format": "round_robin", **({"on_drop": on_drop} if on_drop != "bye" else {})}
        eid, token, entries = await setup_event(api, names, settings={"stages": [stage]}, seed=SEED)
        rnd = (await start(api, eid, token))["round"]
        await play_round(api, token, rnd)
        dropped = entries["Dijkstra"]["id"]
        r = await api.client.delete(f"/v1/events/{eid}/entries/{dropped}", headers=bearer(token))
        assert r.status_code == 200
        nxt = await pair(api, eid, token)
        mine = next(
            m
            for m in nxt["matches"]
            if dropped in {s["entry_id"] for s in m["seats"]} or m["status"] == "bye"
        )
        if on_drop == "bye":  # the general engine's ruling: the opponent gets a bye
            assert mine["status"] == "bye" and dropped not in {s["entry_id"] for s in mine["seats"]}
        else:  # the game is released and lost at once: the opponent wins it
            read = (await api.client.get(f"/v1/matches/{mine['id']}")).json()
            place = {s["entry_id"]: s["place"] for s in read["result"]["seats"]}
            assert read["status"] == "confirmed" and read["result"]["outcome"] == "forfeit"
            assert place[dropped] == 2 and read["history"][-1]["action"] == "drop"
            (other,) = set(place) - {dropped}
            assert next(r for r in await standings(api, eid) if r["entry_id"] == other)["wins"] >= 1


async def test_a_double_forfeit_credits_nobody_with_a_win_in_any_event(api: Api) -> None:
    eid, token, _ = await setup_event(
        api, ["Ada", "Barbara"], settings={"stages": [{"format": "swiss", "rounds": 1}]}
    )
    m = (await start(api, eid, token))["round"]["matches"][0]
    await report(api, token, m, [2, 2], outcome="forfeit")
    rows = await standings(api, eid)
    assert [(r["wins"], r["points"]) for r in rows] == [(0, 0), (0, 0)]


async def test_a_playoff_of_duels_among_three_or_more_is_a_knockout_seeded_by_tiebreak_value(
    api: Api,
) -> None:
    """A two-seat playoff among three tied entries: a small single elimination, seeded by the
    tie-break value (seed 1 the highest), the missing seed's place a bye for the top seed."""
    names = [f"P{i}" for i in range(6)]
    settings = {"stages": [{"format": "swiss", "rounds": 1}, {"format": "playoff", "table_size": 2}]}
    eid, token, _ = await setup_event(api, names, settings=settings, seed=SEED)
    rnd = (await start(api, eid, token))["round"]
    await play_round(api, token, rnd)  # three winners share first place
    winners = sorted(
        s["entry_id"]
        for m in rnd["matches"]
        for s in m["seats"]
        if s["name"] == min(x["name"] for x in m["seats"])
    )
    value = {
        e["id"]: e["tiebreak_value"]
        for e in (await api.client.get(f"/v1/events/{eid}/entries")).json()["items"]
    }
    seeds = sorted(winners, key=lambda e: -value[e])
    adv = await advance(api, eid, token)
    assert adv["stage"] == 1 and adv["note"] is None
    first = adv["round"]
    assert [[s["entry_id"] for s in m["seats"]] for m in first["matches"]] == [[seeds[0]], seeds[1:]]
    assert first["matches"][0]["status"] == "bye"
    await play_round(api, token, first, lambda m: [2, 1])  # the lower seed wins
    r = await api.client.post(f"/v1/events/{eid}/advance", headers=bearer(token))
    assert "not decided" in assert_problem(r, 409)["detail"]
    final = await pair(api, eid, token)
    assert [[s["entry_id"] for s in m["seats"]] for m in final["matches"]] == [[seeds[0], seeds[2]]]
    await play_round(api, token, final, lambda m: [2, 1])
    done = await advance(api, eid, token)
    assert done["event"]["status"] == "finished"
    assert (await standings(api, eid, stage=1))[0]["entry_id"] == seeds[2]
