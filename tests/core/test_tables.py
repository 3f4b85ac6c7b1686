"""N-seat Swiss tables: sizes, min-seats error, everyone once, repeat meetings spread."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.errors import InvalidInput
from app.core.pairing.tables import TableEntry, pair_tables, table_sizes


def repeat_cost(tables: list[list[str]], met: dict[str, dict[str, int]]) -> int:
    total = 0
    for t in tables:
        for i, a in enumerate(t):
            for b in t[i + 1 :]:
                total += max(met[a].get(b, 0), met[b].get(a, 0)) ** 2
    return total


@st.composite
def fields(draw: st.DrawFn) -> tuple[list[TableEntry], dict[str, dict[str, int]]]:
    n = draw(st.integers(1, 40))
    ids = [f"e{i}" for i in range(n)]
    scores = sorted((draw(st.integers(0, 6)) for _ in ids), reverse=True)
    met: dict[str, dict[str, int]] = {i: {} for i in ids}
    for a, b, m in draw(st.lists(st.tuples(st.sampled_from(ids), st.sampled_from(ids), st.integers(1, 3)))):
        if a != b:
            met[a][b] = met[b][a] = m
    return [TableEntry(i, float(s), met[i]) for i, s in zip(ids, scores, strict=True)], met


@settings(max_examples=150, deadline=None)
@given(fields(), st.integers(3, 5), st.integers(2, 5))
def test_tables_invariants(
    field: tuple[list[TableEntry], dict[str, dict[str, int]]], seats: int, min_seats: int
) -> None:
    entries, met = field
    min_seats = min(min_seats, seats)
    n = len(entries)
    try:
        sizes = table_sizes(n, seats, min_seats)
    except InvalidInput:
        with pytest.raises(InvalidInput):
            pair_tables(entries, seats, min_seats=min_seats)
        t = -(-n // seats)
        short = t * seats - n
        assert short > t or (short > 0 and seats - 1 < min_seats)
        return
    result = pair_tables(entries, seats, min_seats=min_seats)
    got = [len(t.entries) for t in result.tables]
    assert got == sizes
    assert all(s in (seats, seats - 1) and s >= min_seats for s in got)
    assert sorted(x for t in result.tables for x in t.entries) == sorted(e.id for e in entries)
    groups = [t.entries for t in result.tables]
    assert result.total_repeat_cost == repeat_cost(groups, met) == sum(t.repeat_cost for t in result.tables)
    # local improvement never makes repeats worse than the plain slice of the ranking
    order = [e.id for e in entries]
    plain, start = [], 0
    for s in sizes:
        plain.append(order[start : start + s])
        start += s
    assert result.total_repeat_cost <= repeat_cost(plain, met)
    rank = {e: i for i, e in enumerate(order)}
    for table in result.tables:
        assert [rank[x] for x in table.entries] == sorted(rank[x] for x in table.entries)


def test_sizes() -> None:
    assert table_sizes(12, 4) == [4, 4, 4]
    assert table_sizes(10, 4) == [4, 3, 3]
    assert table_sizes(11, 4, min_seats=3) == [4, 4, 3]
    assert table_sizes(9, 5, min_seats=4) == [5, 4]


def test_min_seats_error() -> None:
    with pytest.raises(InvalidInput) as err:
        table_sizes(10, 4, min_seats=4)
    assert "minimum" in err.value.detail
    with pytest.raises(InvalidInput):
        table_sizes(5, 4, min_seats=2)  # 4 + 1 or 3 + 2: not tables of 4 and 3


def test_repeat_meetings_spread() -> None:
    # 8 equal entries; the first four met each other: a plain slice would repeat them all
    ids = [f"e{i}" for i in range(8)]
    met: dict[str, dict[str, int]] = {i: {} for i in ids}
    for a in ids[:4]:
        for b in ids[:4]:
            if a != b:
                met[a][b] = 1
    entries = [TableEntry(i, 1.0, met[i]) for i in ids]
    result = pair_tables(entries, 4)
    assert result.total_repeat_cost == 2  # at best two of the four sit at each table: one pair each
    assert all(t.repeat_cost == 1 for t in result.tables)
    # quadratic: met twice costs 4
    twice = [TableEntry("a", 0, {"b": 2}), TableEntry("b", 0, {"a": 2}), TableEntry("c", 0)]
    assert pair_tables(twice, 3).tables[0].repeat_cost == 4


def test_duplicates_rejected() -> None:
    with pytest.raises(InvalidInput):
        pair_tables([TableEntry("a"), TableEntry("a"), TableEntry("b")], 3)
