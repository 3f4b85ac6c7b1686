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
