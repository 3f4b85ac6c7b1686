"""N-seat round-robin designs (app/core/pairing/designs.py; formats.md "Round robin, N seats")."""

from __future__ import annotations

import json
import math
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.errors import InvalidInput
from app.core.pairing.designs import (
    Design,
    GamesRange,
    check_design,
    check_rounds,
    known_covering_number,
    rounds_lower_bound,
    schonheim_bound,
    search_design,
    steiner_system,
    validate_request,
)

# ---------------------------------------------------------------------------------------------
# independent recount (does not use the module's checker)


def recount(tables: list[list[int]], n: int) -> tuple[list[int], list[int]]:
    games = Counter(p for t in tables for p in t)
    pairs = Counter((min(a, b), max(a, b)) for t in tables for a, b in combinations(t, 2))
    return [games[p] for p in range(n)], [pairs[(a, b)] for a in range(n) for b in range(a + 1, n)]


def assert_report_matches(d: Design, n: int, k: int) -> None:
    for t in d.tables:
        assert len(t) == k
        assert len(set(t)) == k
        assert all(isinstance(p, int) and 0 <= p < n for p in t)
    games, pairs = recount(d.tables, n)
    r = d.report
    assert (r.games_per_player.min, r.games_per_player.max) == (min(games), max(games))
    assert (r.pair_meetings.min, r.pair_meetings.max) == (min(pairs), max(pairs))
    assert r.pair_meetings.histogram == dict(Counter(pairs))
    assert r.exact == (min(games) == max(games) and min(pairs) == max(pairs) >= 1)
    out = d.as_dict()
    assert set(out) == ({"tables", "rounds", "report"} if d.rounds is not None else {"tables", "report"})
    assert set(out["report"]) == {"games_per_player", "pair_meetings", "exact", "warnings"}
    assert set(out["report"]["pair_meetings"]) == {"min", "max", "histogram"}
    assert out["report"]["pair_meetings"]["histogram"] == {
        str(m): c for m, c in sorted(Counter(pairs).items())
    }
    assert json.loads(json.dumps(out)) == out


def assert_rounds_valid(d: Design, n: int) -> None:
    assert d.rounds is not None
    seen: list[int] = []
    for rnd in d.rounds:
        players = [p for ti in rnd for p in d.tables[ti]]
        assert len(players) == len(set(players)), "a player twice in one round"
        seen.extend(rnd)
    assert sorted(seen) == list(range(len(d.tables)))
    assert len(d.rounds) >= rounds_lower_bound(d.tables, n)


# ---------------------------------------------------------------------------------------------
# the exact designs the spec names


@pytest.mark.parametrize(
    ("n", "k", "n_tables", "n_rounds"),
    [
        (7, 3, 7, 7),  # Fano plane: any two lines meet, so one table a round
        (9, 3, 12, 4),  # AG(2,3)
        (15, 3, 35, 7),  # Kirkman's schoolgirls
        (13, 4, 13, 13),  # PG(2,3): any two lines meet
        (16, 4, 20, 5),  # AG(2,4)
    ],
)
def test_exact_designs(n: int, k: int, n_tables: int, n_rounds: int) -> None:
    d = search_design(n, k, "complete", rounds=True, seed="exact")
    assert len(d.tables) == n_tables
    games, pairs = recount(d.tables, n)
    assert set(pairs) == {1}
    assert len(set(games)) == 1
    assert d.report.exact is True
    assert d.report.warnings == []
    assert_report_matches(d, n, k)
    assert_rounds_valid(d, n)
    assert d.rounds is not None and len(d.rounds) == n_rounds
    if n % k == 0:  # resolvable: every round is a parallel class
        for rnd in d.rounds:
            assert sorted(p for ti in rnd for p in d.tables[ti]) == list(range(n))


@pytest.mark.parametrize(
    ("v", "k", "resolvable"),
    [
        (3, 3, True),
        (8, 2, True),
        (9, 2, False),
        (13, 3, False),
        (19, 3, False),
        (21, 3, False),
        (25, 3, False),
        (27, 3, True),
        (31, 3, False),
        (4, 4, True),
        (25, 4, False),
        (28, 4, False),
        (40, 4, False),
        (21, 5, False),
        (25, 5, True),
    ],
)
def test_constructions_are_steiner_systems(v: int, k: int, resolvable: bool) -> None:
    found = steiner_system(v, k)
    assert found is not None
    tables, rounds = found
    games, pairs = recount(tables, v)
    assert set(pairs) == {1} and len(set(games)) == 1
    assert all(len(t) == k for t in tables)
    assert len(tables) == v * (v - 1) // (k * (k - 1))
    if resolvable:
        assert rounds is not None and check_rounds(tables, rounds)
        assert len(rounds) == (v - 1) // (k - 1)


def test_no_construction_where_none_exists() -> None:
    assert steiner_system(8, 3) is None
    assert steiner_system(12, 4) is None


def test_schonheim_bound() -> None:
    assert schonheim_bound(7, 3) == 7
    assert schonheim_bound(9, 3) == 12
    assert schonheim_bound(13, 4) == 13
    assert schonheim_bound(5, 4) == 3
    assert schonheim_bound(7, 4) == 4
    assert schonheim_bound(19, 4) == 29
    assert schonheim_bound(8, 4, 3) == 14  # S(3,4,8) has 14 blocks
    assert known_covering_number(19, 4) == 31
    assert known_covering_number(5, 3) == 4


@pytest.mark.parametrize(("n", "k"), [(n, 3) for n in range(4, 15)] + [(n, 4) for n in range(5, 13)])
def test_complete_mode_reaches_the_covering_number(n: int, k: int) -> None:
    d = search_design(n, k, "complete", seed="cover")
    assert len(d.tables) == known_covering_number(n, k)
    games, pairs = recount(d.tables, n)
    assert min(pairs) >= 1
    assert max(games) - min(games) <= 1


# ---------------------------------------------------------------------------------------------
# properties


@st.composite
def requests(draw: st.DrawFn) -> dict:
    n = draw(st.integers(4, 14))
    k = draw(st.integers(2, min(4, n)))
    mode = draw(st.sampled_from(["complete", "games"]))
    gpp = None
    if mode == "games":
        step = k // math.gcd(n, k)
        gpp = step * draw(st.integers(1, max(1, 6 // step)))
    return {
        "players": n,
        "table_size": k,
        "mode": mode,
        "games_per_player": gpp,
        "rounds": draw(st.booleans()),
        "seed": draw(st.sampled_from(["", "a", "b"])),
    }


@settings(max_examples=40, deadline=None)
@given(requests())
def test_designs_are_valid(req: dict) -> None:
    d = search_design(**req)
    n, k = req["players"], req["table_size"]
    assert_report_matches(d, n, k)
    games, pairs = recount(d.tables, n)
    if req["mode"] == "complete":
        assert min(pairs) >= 1
        assert max(games) - min(games) <= 1
    else:
        assert set(games) == {req["games_per_player"]}
        assert len(d.tables) == n * req["games_per_player"] // k
        if max(pairs) - min(pairs) > 1:
            assert any("pair meetings differ by more than one" in w for w in d.report.warnings)
    if max(games) > min(games):
        assert any(
            w.startswith("a player who wins every game can miss first place") for w in d.report.warnings
        )
    if req["rounds"]:
        assert_rounds_valid(d, n)
    else:
        assert d.rounds is None


def test_unequal_games_warning_names_tiebreak_a() -> None:
    d = search_design(8, 3, "complete", seed="w")
    assert len(d.tables) == 11
    assert (d.report.games_per_player.min, d.report.games_per_player.max) == (4, 5)
    msg = next(w for w in d.report.warnings if w.startswith("a player who wins every game"))
    assert "tie-break A" in msg and "more games ranks higher" in msg
    assert any(w.startswith("pair meetings are uneven") for w in d.report.warnings)


def test_games_mode_uses_an_exact_design_when_one_fits() -> None:
    d = search_design(7, 3, "games", games_per_player=6, seed="x")
    assert d.report.exact and d.report.pair_meetings.min == 2 and len(d.tables) == 14


def test_games_mode_rounds_are_parallel_classes_when_k_divides_n() -> None:
    d = search_design(12, 3, "games", games_per_player=4, rounds=True, seed="x")
    assert d.rounds is not None and len(d.rounds) == 4
    assert d.report.pair_meetings.max <= 1


# ---------------------------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize(
    "kwargs",
    [
        {"players": 1, "table_size": 2, "mode": "complete"},
        {"players": 5, "table_size": 1, "mode": "complete"},
        {"players": 5, "table_size": 6, "mode": "complete"},
        {"players": 5, "table_size": 3, "mode": "swiss"},
        {"players": 7, "table_size": 3, "mode": "games"},
        {"players": 7, "table_size": 3, "mode": "games", "games_per_player": 0},
        {"players": 7, "table_size": 3, "mode": "games", "games_per_player": 2},
        {"players": 7, "table_size": 3, "mode": "complete", "games_per_player": 3},
        {"players": True, "table_size": 3, "mode": "complete"},
        {"players": 1000, "table_size": 3, "mode": "complete"},
    ],
)
def test_bad_input(kwargs: dict) -> None:
    with pytest.raises(InvalidInput) as info:
        search_design(**kwargs)
    assert info.value.problems and all(p.loc for p in info.value.problems)


def test_indivisible_games_suggests_feasible_values() -> None:
    with pytest.raises(InvalidInput) as info:
        search_design(7, 3, "games", games_per_player=2)
    assert "multiple of 3" in info.value.detail and "nearest: 3" in info.value.detail
    with pytest.raises(InvalidInput) as info:
        search_design(10, 4, "games", games_per_player=3)
    assert "nearest: 2 or 4" in info.value.detail


def test_check_design_rejects_bad_tables() -> None:
    with pytest.raises(InvalidInput):
        check_design([[0, 1, 5]], 4)
    with pytest.raises(InvalidInput):
        check_design([[0, 1, 1]], 4)


# ---------------------------------------------------------------------------------------------
# time budget, progress, determinism


@pytest.mark.parametrize(
    "kwargs",
    [
        {"players": 10, "table_size": 4, "mode": "complete"},
        {"players": 14, "table_size": 3, "mode": "complete", "rounds": True},
        {"players": 10, "table_size": 3, "mode": "games", "games_per_player": 3},
        {"players": 12, "table_size": 4, "mode": "games", "games_per_player": 5, "rounds": True},
    ],
)
def test_stop_at_once_still_returns_a_valid_design(kwargs: dict) -> None:
    d = search_design(**kwargs, should_stop=lambda: True)
    n, k = kwargs["players"], kwargs["table_size"]
    assert_report_matches(d, n, k)
    games, pairs = recount(d.tables, n)
    if kwargs["mode"] == "complete":
        assert min(pairs) >= 1
    else:
        assert set(games) == {kwargs["games_per_player"]}
    if kwargs.get("rounds"):
        assert_rounds_valid(d, n)
    assert d.report.warnings[0].startswith("search stopped at its time budget; ")


def test_budget_counts_calls() -> None:
    calls = {"n": 0}

    def should_stop() -> bool:
        calls["n"] += 1
        return calls["n"] > 20

    d = search_design(11, 4, "complete", should_stop=should_stop)
    _, pairs = recount(d.tables, 11)
    assert min(pairs) >= 1


def test_progress_is_monotone_and_ends_at_one() -> None:
    seen: list[float] = []
    search_design(10, 4, "complete", seed="p", progress=seen.append)
    assert seen and seen[-1] == 1.0
    assert all(0.0 <= a < b <= 1.0 for a, b in zip(seen, seen[1:], strict=False))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"players": 11, "table_size": 3, "mode": "complete", "rounds": True},
        {"players": 10, "table_size": 4, "mode": "games", "games_per_player": 4, "rounds": True},
    ],
)
def test_same_seed_same_design(kwargs: dict) -> None:
    a = search_design(**kwargs, seed="event-42")
    b = search_design(**kwargs, seed="event-42")
    assert a.as_dict() == b.as_dict()


def test_validate_request_matches_search() -> None:
    validate_request(9, 3, "complete")
    with pytest.raises(InvalidInput):
        validate_request(7, 3, "games", 2)


@pytest.mark.parametrize(
    ("n", "k", "mode", "gpp", "rounds"),
    [
        (21, 3, "complete", None, 10),  # a Kirkman triple system
        (33, 3, "complete", None, 16),
        (45, 3, "complete", None, 22),
        (99, 3, "complete", None, 49),  # the tripling of 33: KTS(3) × KTS(33)
        (171, 3, "complete", None, 85),  # KTS(3) × KTS(57), the most triples the table limit allows
        (8, 4, "complete", None, 3),  # everyone plays every round: 2 tables a round
        (6, 3, "complete", None, 4),  # no 3-round one exists; 4 rounds of 2 tables
        (6, 3, "games", 2, 2),
        (12, 4, "games", 3, 3),
        (10, 5, "games", 4, 4),
    ],
)
def test_a_schedule_released_by_rounds_uses_the_fewest_rounds_where_a_resolvable_design_exists(
    n: int, k: int, mode: str, gpp: int | None, rounds: int
) -> None:
    d = search_design(n, k, mode, gpp, rounds=True, seed="fewest")
    assert_rounds_valid(d, n)
    assert d.rounds is not None and len(d.rounds) == rounds
    assert all(len(r) * k == n for r in d.rounds)  # every round seats everyone
    if mode == "complete":
        assert d.report.pair_meetings.min >= 1
    else:
        assert d.report.games_per_player == GamesRange(gpp, gpp)
