"""Double elimination through the API: winners' and losers' brackets, byes, seeded and drawn,
the grand final and its reset, best-of-N."""

from __future__ import annotations

from typing import Any

from tests.support.api import Api, advance, assert_problem, bearer, pair, report, setup_event, start


def _first_seed_wins(seed: dict[str, int]) -> Any:
    def rule(match: dict[str, Any]) -> list[int]:
        best = min(seed[s["name"]] for s in match["seats"])
        return [1 if seed[s["name"]] == best else 2 for s in match["seats"]]

    return rule


async def _play(
    api: Api, event_id: str, token: str, first: dict[str, Any], rule: Any
) -> list[dict[str, Any]]:
    """Every round until the bracket is decided; the rounds as played."""
    rounds, rnd = [], first
    while True:
        rounds.append(rnd)
        for m in rnd["matches"]:
            await report(api, token, m, rule(m))
        r = await api.client.post(f"/v1/events/{event_id}/rounds", headers=bearer(token))
        if r.status_code == 409:
            assert "decided" in r.json()["detail"]
            return rounds
        assert r.status_code == 201, r.text
        rnd = r.json()
        assert len(rounds) < 20


async def test_seeded_double_elimination_of_six_with_byes(api: Api) -> None:
    seeds = {n: i + 1 for i, n in enumerate(["Ada", "Bob", "Cy", "Di", "Eve", "Fay"])}
    event_id, token, _ = await setup_event(
        api,
        {n: {"seed": s} for n, s in seeds.items()},
        settings={"stages": [{"format": "double_elimination", "method": "seeded"}]},
    )
    first = (await start(api, event_id, token))["round"]
    # 8 slots: seeds 1 and 2 have byes; round 1 is 4–5 and 3–6
    assert [[s["name"] for s in m["seats"]] for m in first["matches"]] == [["Di", "Eve"], ["Cy", "Fay"]]
    rounds = await _play(api, event_id, token, first, _first_seed_wins(seeds))
    games = [m for r in rounds for m in r["matches"]]
    losses: dict[str, int] = {}
    for m in games:
        loser = next(
            s["name"] for s in m["seats"] if seeds[s["name"]] != min(seeds[x["name"]] for x in m["seats"])
        )
        losses[loser] = losses.get(loser, 0) + 1
    assert "Ada" not in losses  # the top seed never loses
    assert losses == {n: 2 for n in seeds if n != "Ada"}  # everyone else is out after two losses
    assert len(games) == 10  # byes play no table
    assert rounds[-1]["pairing"]["matches"] == ["GF"]
    done = await advance(api, event_id, token)
    assert done["event"]["status"] == "finished"


async def test_grand_final_reset_and_best_of(api: Api) -> None:
    names = ["Ada", "Bob", "Cy", "Di"]
    event_id, token, made = await setup_event(
        api,
        {n: {"seed": i + 1} for i, n in enumerate(names)},
        settings={
            "stages": [
                {"format": "double_elimination", "method": "seeded", "grand_final_reset": True, "best_of": 3}
            ]
        },
    )
    first = (await start(api, event_id, token))["round"]
    assert all(m["best_of"] == 3 for m in first["matches"])
    order = {"Ada": 1, "Bob": 2, "Cy": 3, "Di": 4}

    def rule(match: dict[str, Any]) -> list[int]:
        names_here = [s["name"] for s in match["seats"]]
        if set(names_here) == {"Ada", "Bob"} and match["round"] >= 4:
            return [1 if n == "Bob" else 2 for n in names_here]  # Bob wins the grand final(s)
        best = min(order[n] for n in names_here)
        return [1 if order[n] == best else 2 for n in names_here]

    rounds = await _play(api, event_id, token, first, rule)
    finals = [r for r in rounds if r["pairing"] and r["pairing"]["matches"][0].startswith("GF")]
    assert [r["pairing"]["matches"] for r in finals] == [["GF"], ["GF2"]]  # the reset is played
    assert_problem(await api.client.post(f"/v1/events/{event_id}/rounds", headers=bearer(token)), 409)


async def test_drawn_bracket_replays_after_an_undo(api: Api) -> None:
    names = ["Ada", "Bob", "Cy", "Di", "Eve"]
    event_id, token, _ = await setup_event(
        api, names, seed="double-draw", settings={"stages": [{"format": "double_elimination"}]}
    )
    first = (await start(api, event_id, token))["round"]
    for m in first["matches"]:
        await report(api, token, m, [1, 2])
    second = await pair(api, event_id, token)
    r = await api.client.delete(f"/v1/events/{event_id}/rounds/{second['number']}", headers=bearer(token))
    assert r.status_code == 200, r.text
    again = await pair(api, event_id, token)
    assert again["pairing"]["matches"] == second["pairing"]["matches"]
    assert [[s["entry_id"] for s in m["seats"]] for m in again["matches"]] == [
        [s["entry_id"] for s in m["seats"]] for m in second["matches"]
    ]


async def test_double_elimination_needs_tables_of_two(api: Api) -> None:
    event_id, token, _ = await setup_event(
        api, ["Ada", "Bob", "Cy"], settings={"stages": [{"format": "double_elimination", "table_size": 3}]}
    )
    r = await api.client.post(f"/v1/events/{event_id}/start", headers=bearer(token))
    assert assert_problem(r, 422)["errors"][0]["loc"][-1] == "table_size"
    assert (await api.client.get(f"/v1/events/{event_id}")).json()["status"] == "registration"
