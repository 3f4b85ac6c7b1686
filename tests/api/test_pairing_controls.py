"""Organizers' controls over rounds and pairings: undo the last round, swap two entries, forbidden
pairs, same-club avoidance and seat balance in 2-seat Swiss."""

from __future__ import annotations

from typing import Any

from tests.support.api import (
    Api,
    assert_problem,
    bearer,
    pair,
    play_round,
    report,
    setup_event,
    start,
)

NAMES = ["Ada", "Bob", "Cy", "Di", "Eve", "Fay"]


def tables(rnd: dict[str, Any]) -> list[list[str]]:
    return [[s["entry_id"] for s in m["seats"]] for m in rnd["matches"]]


async def test_undo_the_last_round_and_pair_it_again(api: Api) -> None:
    event_id, token, made = await setup_event(
        api, NAMES, settings={"stages": [{"format": "swiss", "rounds": 3}]}
    )
    first = (await start(api, event_id, token))["round"]
    await play_round(api, token, first)
    second = await pair(api, event_id, token)
    await report(api, token, second["matches"][0], [1, 2])
    r = await api.client.delete(f"/v1/events/{event_id}/rounds/2", headers=bearer(token))
    body = assert_problem(r, 409)
    assert second["matches"][0]["id"] in body["detail"] and "table 1" in body["detail"]
    assert_problem(await api.client.delete(f"/v1/events/{event_id}/rounds/1", headers=bearer(token)), 409)

    # a fresh round 3 situation: the organizer corrects nothing, drops a no-show, undoes and re-pairs
    event_id, token, made = await setup_event(
        api, NAMES, settings={"stages": [{"format": "swiss", "rounds": 3}]}
    )
    first = (await start(api, event_id, token))["round"]
    await play_round(api, token, first)
    second = await pair(api, event_id, token)
    no_show = second["matches"][0]["seats"][0]["entry_id"]
    await api.client.delete(f"/v1/events/{event_id}/entries/{no_show}", headers=bearer(token))
    r = await api.client.delete(f"/v1/events/{event_id}/rounds/2", headers=bearer(token))
    assert r.status_code == 200, r.text
    assert r.json()["tables"] == tables(second)
    assert_problem(await api.client.get(f"/v1/events/{event_id}/rounds/2"), 404)
    again = await pair(api, event_id, token)
    assert again["number"] == 2
    assert no_show not in {e for t in tables(again) for e in t}
    history = (await api.client.get(f"/v1/events/{event_id}/history")).json()["items"]
    assert history[-1]["action"] == "undo_round" and history[-1]["payload"]["round"] == 2


async def test_an_elimination_draw_is_not_undone(api: Api) -> None:
    event_id, token, _ = await setup_event(
        api, NAMES[:4], settings={"stages": [{"format": "single_elimination"}]}
    )
    await start(api, event_id, token)
    body = assert_problem(
        await api.client.delete(f"/v1/events/{event_id}/rounds/1", headers=bearer(token)), 409
    )
    assert "first round" in body["detail"]


async def test_swap_two_entries_between_tables_and_seats(api: Api) -> None:
    event_id, token, _ = await setup_event(
        api, NAMES, settings={"stages": [{"format": "swiss", "rounds": 3}]}
    )
    rnd = (await start(api, event_id, token))["round"]
    (a, b), (c, d) = tables(rnd)[0], tables(rnd)[1]
    r = await api.client.post(
        f"/v1/events/{event_id}/rounds/1/swap", json={"entries": [a, c]}, headers=bearer(token)
    )
    assert r.status_code == 200, r.text
    swapped = r.json()
    assert tables(swapped)[:2] == [[c, b], [a, d]]
    assert swapped["swaps"][0]["entries"] == [a, c]
    # both tables changed: each match's version (its ETag) moves, as a result's does
    version = {m["id"]: m["version"] for m in rnd["matches"]}
    assert [m["version"] for m in swapped["matches"][:2]] == [
        version[m["id"]] + 1 for m in swapped["matches"][:2]
    ]
    assert swapped["matches"][2]["version"] == version[swapped["matches"][2]["id"]]
    # one table: the seats change hands
    r = await api.client.post(
        f"/v1/events/{event_id}/rounds/1/swap", json={"entries": [b, c]}, headers=bearer(token)
    )
    assert r.status_code == 200, r.text
    assert tables(r.json())[0] == [b, c]
    assert r.json()["matches"][0]["version"] == version[r.json()["matches"][0]["id"]] + 2
    # a reported table is not swapped
    await report(api, token, r.json()["matches"][0], [1, 2])
    r = await api.client.post(
        f"/v1/events/{event_id}/rounds/1/swap", json={"entries": [b, d]}, headers=bearer(token)
    )
    assert "table 1" in assert_problem(r, 409)["detail"]
    r = await api.client.post(
        f"/v1/events/{event_id}/rounds/1/swap", json={"entries": [d, "nobody"]}, headers=bearer(token)
    )
    assert assert_problem(r, 422)["errors"][0]["loc"] == ["entries", 1]
    history = (await api.client.get(f"/v1/events/{event_id}/history")).json()["items"]
    assert [h["action"] for h in history] == ["swap", "swap"]


async def test_forbidden_pairs_are_never_paired(api: Api) -> None:
    event_id, token, made = await setup_event(
        api, NAMES[:4], settings={"stages": [{"format": "swiss", "rounds": 2}]}
    )
    ids = {n: e["id"] for n, e in made.items()}
    url = f"/v1/events/{event_id}/forbidden-pairs"
    bad = await api.client.put(
        url, json={"pairs": [[ids["Ada"], ids["Ada"]], [ids["Bob"], "x"]]}, headers=bearer(token)
    )
    locs = [e["loc"] for e in assert_problem(bad, 422)["errors"]]
    assert ["pairs", 0] in locs and ["pairs", 1, 1] in locs
    # forbid every pair but two: round 1 can only be Ada–Bob, Cy–Di
    forbid = [
        [ids["Ada"], ids["Cy"]],
        [ids["Ada"], ids["Di"]],
        [ids["Bob"], ids["Cy"]],
        [ids["Bob"], ids["Di"]],
    ]
    r = await api.client.put(url, json={"pairs": forbid}, headers=bearer(token))
    assert r.status_code == 200, r.text
    assert len((await api.client.get(url)).json()["pairs"]) == 4
    rnd = (await start(api, event_id, token))["round"]
    pairs = {frozenset(t) for t in tables(rnd)}
    assert pairs == {frozenset((ids["Ada"], ids["Bob"])), frozenset((ids["Cy"], ids["Di"]))}
    assert all(p["forbidden"] is False for p in rnd["pairing"]["pairs"])


async def test_same_club_is_avoided_and_reported(api: Api) -> None:
    entries = {n: {"club": club} for n, club in zip(NAMES[:4], ["Red", "Red", "Blue", "Blue"], strict=True)}
    for seed in ("club-seed-1", "club-seed-2", "club-seed-3"):
        event_id, token, made = await setup_event(
            api, entries, seed=seed, settings={"stages": [{"format": "swiss", "rounds": 2}]}
        )
        rnd = (await start(api, event_id, token))["round"]
        assert rnd["pairing"]["avoid_same_club"] is True
        for p in rnd["pairing"]["pairs"]:
            assert p["same_club"] is False and p["club_cost"] == 0
    # switched off, the reasons say when clubmates meet
    event_id, token, made = await setup_event(
        api,
        {n: {"club": "Red"} for n in NAMES[:4]},
        settings={"stages": [{"format": "swiss", "rounds": 2, "avoid_same_club": False}]},
    )
    rnd = (await start(api, event_id, token))["round"]
    assert rnd["pairing"]["avoid_same_club"] is False
    assert all(p["same_club"] for p in rnd["pairing"]["pairs"])


async def _seat_histories(api: Api, balance: bool) -> tuple[dict[str, list[int]], list[dict[str, Any]]]:
    # Round 1 by rating and results by name: the same pairings on every run, whatever the entry ids.
    stage = {"format": "swiss", "rounds": 4, "seat_balance": balance, "first_round": "rating"}
    names = {name: {"rating": 2000 - 10 * i} for i, name in enumerate([*NAMES, "Gus", "Hal"])}
    event_id, token, _ = await setup_event(api, names, seed="seat-history", settings={"stages": [stage]})
    rnd = (await start(api, event_id, token))["round"]
    history: dict[str, list[int]] = {}
    rounds = []
    for n in range(4):
        rounds.append(rnd)
        for m in rnd["matches"]:
            for s in m["seats"]:
                history.setdefault(s["entry_id"], []).append(s["seat"])
        await play_round(api, token, rnd)
        if n < 3:
            rnd = await pair(api, event_id, token)
    return history, rounds


async def test_seats_alternate_by_history_with_the_reason(api: Api) -> None:
    history, rounds = await _seat_histories(api, True)
    assert rounds[0]["pairing"]["seat_balance"] is True
    assert {p["seats"]["rule"] for p in rounds[0]["pairing"]["pairs"]} == {"initial"}
    for rnd in rounds:
        for m in rnd["matches"]:  # the first seat holds the first token
            assert [s["first_token"] for s in m["seats"]] == [True, False]
        for p in rnd["pairing"]["pairs"]:
            assert p["seats"]["first"] in p["entries"] and p["seats"]["reason"]
    assert {p["seats"]["rule"] for r in rounds[1:] for p in r["pairing"]["pairs"]} <= {
        "both",
        "stronger",
        "alternate",
        "rank",
    }
    for seats in history.values():
        assert not any(seats[k] == seats[k + 1] == seats[k + 2] for k in range(len(seats) - 2)), history
        assert abs(seats.count(0) - seats.count(1)) <= 2, history
    unbalanced, _ = await _seat_histories(api, False)
    spread = sum(abs(s.count(0) - s.count(1)) for s in history.values())
    assert spread < sum(abs(s.count(0) - s.count(1)) for s in unbalanced.values())


async def test_seat_balance_is_off_where_the_game_draws_the_first_player(api: Api) -> None:
    event_id, token, _ = await setup_event(
        api, NAMES[:4], game="battlebooks", settings={"stages": [{"format": "swiss", "rounds": 2}]}
    )
    rnd = (await start(api, event_id, token))["round"]
    assert rnd["pairing"]["seat_balance"] is False
    assert all("seats" not in p for p in rnd["pairing"]["pairs"])


async def test_multi_seat_swiss_keeps_clubs_and_forbidden_pairs_apart(api: Api) -> None:
    clubs = ["Red", "Red", "Blue", "Blue", "Green", "Green", "Gold", "Gold"]
    entries = {f"P{i}": {"club": c} for i, c in enumerate(clubs)}
    event_id, token, made = await setup_event(
        api, entries, settings={"stages": [{"format": "swiss", "rounds": 2, "table_size": 4}]}
    )
    ids = {n: e["id"] for n, e in made.items()}
    r = await api.client.put(
        f"/v1/events/{event_id}/forbidden-pairs",
        json={"pairs": [[ids["P0"], ids["P2"]]]},
        headers=bearer(token),
    )
    assert r.status_code == 200, r.text
    rnd = (await start(api, event_id, token))["round"]
    assert rnd["pairing"]["avoid_same_club"] is True
    for t in rnd["pairing"]["tables"]:
        assert t["same_club_pairs"] == 0 and t["forbidden_pairs"] == 0
    for m in rnd["matches"]:
        seated = {s["entry_id"] for s in m["seats"]}
        assert len({entries[n]["club"] for n, i in ids.items() if i in seated}) == len(seated)
        assert not {ids["P0"], ids["P2"]} <= seated
