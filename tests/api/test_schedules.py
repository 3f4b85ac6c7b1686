"""POST /v1/schedules/round-robin: a design search as a job (in-process here; through Redis in tests/workers)."""

from __future__ import annotations

import itertools

import pytest

from tests.support.api import Api, assert_problem


async def search(api: Api, **body: object) -> dict:
    r = await api.client.post("/v1/schedules/round-robin", json=body)
    assert r.status_code == 202, r.text
    assert r.headers["location"] == f"/v1/jobs/{r.json()['job_id']}"
    await api.drain_jobs()
    job = (await api.client.get(r.headers["location"])).json()
    assert job["status"] == "done", job
    assert job["progress"] == 1.0
    return job["result"]


def meetings(tables: list[list[int]], players: int) -> dict[frozenset[int], int]:
    out = {frozenset(p): 0 for p in itertools.combinations(range(players), 2)}
    for t in tables:
        for p in itertools.combinations(t, 2):
            out[frozenset(p)] += 1
    return out


@pytest.mark.parametrize(
    ("players", "size", "tables", "rounds"),
    [(7, 3, 7, None), (9, 3, 12, 4), (15, 3, 35, 7), (13, 4, 13, None), (16, 4, 20, 5)],
)
async def test_exact_designs_come_out_of_the_api(
    api: Api, players: int, size: int, tables: int, rounds: int | None
) -> None:
    result = await search(
        api, players=players, table_size=size, mode="complete", rounds=rounds is not None, time_budget=10
    )
    assert len(result["tables"]) == tables
    assert set(meetings(result["tables"], players).values()) == {1}
    assert result["report"]["exact"] is True and result["report"]["pair_meetings"] == {
        "min": 1,
        "max": 1,
        "histogram": {"1": players * (players - 1) // 2},
    }
    if rounds is not None:
        assert len(result["rounds"]) == rounds
        for r in result["rounds"]:
            seated = [p for t in r for p in result["tables"][t]]
            assert sorted(seated) == list(range(players))


async def test_games_mode_and_unequal_games_warning(api: Api) -> None:
    result = await search(
        api, players=10, table_size=3, mode="games", games_per_player=3, seed="s", time_budget=5
    )
    games = [sum(p in t for t in result["tables"]) for p in range(10)]
    assert set(games) == {3}
    result = await search(api, players=8, table_size=3, mode="complete", time_budget=5)
    assert result["report"]["games_per_player"]["min"] < result["report"]["games_per_player"]["max"]
    assert any("win" in w for w in result["report"]["warnings"])


async def test_impossible_requests_are_422(api: Api) -> None:
    r = await api.client.post(
        "/v1/schedules/round-robin", json={"players": 3, "table_size": 5, "mode": "complete"}
    )
    assert "larger than" in assert_problem(r, 422)["detail"] + str(assert_problem(r, 422)["errors"])
    r = await api.client.post(
        "/v1/schedules/round-robin",
        json={"players": 10, "table_size": 3, "mode": "games", "games_per_player": 2},
    )
    assert_problem(r, 422)  # 10 × 2 seats do not fill tables of 3
    r = await api.client.post(
        "/v1/schedules/round-robin", json={"players": 10, "table_size": 3, "mode": "fair"}
    )
    assert_problem(r, 422)


@pytest.mark.parametrize("players", [8, 7, 12])
async def test_a_two_seat_schedule_is_seated_by_berger_tables(api: Api, players: int) -> None:
    # formats.md "Round robin, 2 seats": every player has the first seat
    # floor((n-1)/2) or ceil((n-1)/2) times, as in an event's round robin
    result = await search(api, players=players, table_size=2, mode="complete", rounds=True, time_budget=5)
    assert set(meetings(result["tables"], players).values()) == {1}
    first = [sum(t[0] == p for t in result["tables"]) for p in range(players)]
    assert set(first) <= {(players - 1) // 2, players // 2}, first
    rounds = result["rounds"]
    assert len(rounds) == (players if players % 2 else players - 1)
    for r in rounds:
        seated = [p for t in r for p in result["tables"][t]]
        assert len(seated) == len(set(seated)) >= players - 1
    if players == 8:  # FIDE's table, numbered from 0: round 1 is 0-7 1-6 2-5 3-4, round 2 7-4 5-3 6-2 0-1
        assert [result["tables"][t] for t in rounds[0]] == [[0, 7], [1, 6], [2, 5], [3, 4]]
        assert [result["tables"][t] for t in rounds[1]] == [[7, 4], [5, 3], [6, 2], [0, 1]]
