"""2-seat round robin (circle/Berger): every pair once (twice when double), everyone once a round, seats."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.errors import InvalidInput
from app.core.pairing.round_robin import round_robin


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 40), st.booleans())
def test_round_robin_properties(n: int, double: bool) -> None:
    ids = [f"e{i}" for i in range(n)]
    rounds = round_robin(ids, double=double)
    cycles = 2 if double else 1
    per_cycle = n - 1 if n % 2 == 0 else n
    assert len(rounds) == cycles * per_cycle
    assert [r.number for r in rounds] == list(range(1, len(rounds) + 1))
    meetings: Counter[frozenset[str]] = Counter()
    first: Counter[str] = Counter()
    second: Counter[str] = Counter()
    byes: Counter[str] = Counter()
    for r in rounds:
        seated = [x for p in r.pairs for x in p] + ([r.bye] if r.bye else [])
        assert sorted(seated) == sorted(ids)  # everyone exactly once per round
        assert (r.bye is not None) == (n % 2 == 1)  # one bye per round when odd
        for a, b in r.pairs:
            meetings[frozenset((a, b))] += 1
            first[a] += 1
            second[b] += 1
        if r.bye:
            byes[r.bye] += 1
    for a, b in combinations(ids, 2):
        assert meetings[frozenset((a, b))] == cycles
    for e in ids:
        assert abs(first[e] - second[e]) <= 1
        if double:
            assert first[e] == second[e]
        if n % 2:
            assert byes[e] == cycles


def test_double_swaps_seats() -> None:
    rounds = round_robin(["a", "b", "c", "d"], double=True)
    for r1, r2 in zip(rounds[:3], rounds[3:], strict=True):
        assert r2.pairs == [(b, a) for a, b in r1.pairs]


def test_odd_uses_phantom() -> None:
    rounds = round_robin(["a", "b", "c"])
    assert len(rounds) == 3
    assert sorted(r.bye for r in rounds if r.bye) == ["a", "b", "c"]
    assert all(len(r.pairs) == 1 for r in rounds)


def test_invalid() -> None:
    with pytest.raises(InvalidInput):
        round_robin(["a"])
    with pytest.raises(InvalidInput):
        round_robin(["a", "a", "b"])


def test_the_fide_berger_tables_for_eight_and_six() -> None:
    # formats.md "Round robin, 2 seats": Berger tables, as FIDE prints them (1-based)
    eight = [
        "1-8 2-7 3-6 4-5",
        "8-5 6-4 7-3 1-2",
        "2-8 3-1 4-7 5-6",
        "8-6 7-5 1-4 2-3",
        "3-8 4-2 5-1 6-7",
        "8-7 1-6 2-5 3-4",
        "4-8 5-3 6-2 7-1",
    ]
    six = ["1-6 2-5 3-4", "6-4 5-3 1-2", "2-6 3-1 4-5", "6-5 1-4 2-3", "3-6 4-2 5-1"]
    for n, table in ((8, eight), (6, six)):
        got = [
            " ".join(f"{a}-{b}" for a, b in rd.pairs) for rd in round_robin([str(i) for i in range(1, n + 1)])
        ]
        assert got == table


@pytest.mark.parametrize("n", range(2, 21))
def test_every_entry_has_the_first_seat_half_of_its_games(n: int) -> None:
    rounds = round_robin([f"e{i}" for i in range(n)])
    games = n - 1
    first = {f"e{i}": 0 for i in range(n)}
    for rd in rounds:
        for a, _ in rd.pairs:
            first[a] += 1
    assert set(first.values()) <= {games // 2, (games + 1) // 2}
