"""Single elimination: draw and seeded brackets, byes, routing, multi-seat tables."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.errors import InvalidInput
from app.core.pairing.elimination import (
    multi_seat_next,
    multi_seat_tables,
    record_winners,
    seeded_order,
    single_elimination,
)


def ids(n: int) -> list[str]:
    return [f"p{i:03d}" for i in range(1, n + 1)]


@pytest.mark.parametrize(
    ("n", "pairings", "byes", "rounds"), [(30, 16, 2, 5), (65, 64, 63, 7), (16, 8, 0, 4), (2, 1, 0, 1)]
)
def test_draw_counts(n: int, pairings: int, byes: int, rounds: int) -> None:
    b = single_elimination(ids(n), method="draw", seed="s")
    assert (b.pairings, b.byes, b.rounds) == (pairings, byes, rounds)


def test_draw_fills_first_slots_in_order() -> None:
    b = single_elimination(ids(30), seed="s")
    first = b.matches[0]
    assert all(m.first is not None for m in first)
    assert [m.second is None for m in first] == [False] * 14 + [True] * 2
    b65 = single_elimination(ids(65), seed="s")
    assert b65.matches[0][0].second is not None and not b65.matches[0][0].bye
    assert all(m.bye for m in b65.matches[0][1:])


def test_draw_is_seeded() -> None:
    a = single_elimination(ids(20), seed="x")
    assert a == single_elimination(list(reversed(ids(20))), seed="x")
    assert a != single_elimination(ids(20), seed="y")


@pytest.mark.parametrize(
    ("n", "rounds"), [(9, 4), (16, 4), (17, 5), (32, 5), (129, 8), (256, 8), (3, 2), (4, 2)]
)
def test_number_of_games(n: int, rounds: int) -> None:
    assert single_elimination(ids(n), seed="s").rounds == rounds


def test_seeded_layout_16() -> None:
    b = single_elimination([str(i) for i in range(1, 17)], method="seeded")
    pairs = [(m.first, m.second) for m in b.matches[0]]
    assert pairs[:2] == [("1", "16"), ("8", "9")]
    assert sorted(tuple(sorted((int(a or 0), int(c or 0)))) for a, c in pairs) == [
        (i, 17 - i) for i in range(1, 9)
    ]
    assert seeded_order(4) == [1, 4, 2, 3]
    # 1 and 2 can only meet in the final
    top_half = {x for m in b.matches[0][:4] for x in (m.first, m.second)}
    assert "1" in top_half and "2" not in top_half


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 100))
def test_seeded_byes_to_top_seeds(n: int) -> None:
    entries = [str(i) for i in range(1, n + 1)]
    b = single_elimination(entries, method="seeded")
    bye_seeds = sorted(int(m.first or m.second or 0) for m in b.matches[0] if m.bye)
    assert bye_seeds == list(range(1, b.slots - n + 1))
    seated = [x for m in b.matches[0] for x in (m.first, m.second) if x]
    assert sorted(seated) == sorted(entries)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 70), st.sampled_from(["draw", "seeded"]), st.integers(0, 10**6))
def test_routing_to_a_champion(n: int, method: str, pick: int) -> None:
    b = single_elimination(ids(n), method=method, seed="s", best_of=3)
    assert b.best_of == 3
    assert b.slots >= n > b.slots // 2
    assert len(b.matches) == b.rounds and len(b.matches[-1]) == 1
    for r, rnd in enumerate(b.matches, start=1):
        assert len(rnd) == b.slots >> r
        for i, m in enumerate(rnd):
            assert (m.round, m.index) == (r, i)
            if r < b.rounds:
                assert (m.next_match, m.next_slot) == (i // 2, i % 2)
            else:
                assert m.next_match is None
    # play it out: pick a winner in each match in round order
    for r in range(1, b.rounds + 1):
        winners = {}
        for m in b.matches[r - 1]:
            if m.winner is None:
                assert m.first is not None and m.second is not None
                winners[(r, m.index)] = m.first if (pick + m.index) % 2 else m.second
        b = record_winners(b, winners)
        for m in b.matches[r - 1]:
            if r < b.rounds:
                nxt = b.matches[r][m.next_match or 0]
                assert (nxt.first, nxt.second)[m.next_slot or 0] == m.winner
    assert b.champion() in ids(n)


def test_record_winner_validation() -> None:
    b = single_elimination(ids(4), method="seeded")
    with pytest.raises(InvalidInput):
        record_winners(b, {(1, 0): "p002"})
    with pytest.raises(InvalidInput):
        record_winners(b, {(5, 0): "p001"})


def test_invalid() -> None:
    with pytest.raises(InvalidInput):
        single_elimination(["a"], seed="s")
    with pytest.raises(InvalidInput):
        single_elimination(["a", "b"])  # draw without a seed
    with pytest.raises(InvalidInput):
        single_elimination(["a", "b"], method="seeded", best_of=0)


def test_multi_seat() -> None:
    seeds = [f"s{i}" for i in range(1, 17)]
    tables = multi_seat_tables(seeds, 4)
    assert tables == [
        ["s1", "s8", "s9", "s16"],
        ["s2", "s7", "s10", "s15"],
        ["s3", "s6", "s11", "s14"],
        ["s4", "s5", "s12", "s13"],
    ]
    nxt = multi_seat_next(tables, 2, 4)
    assert nxt.advancing == ["s1", "s2", "s3", "s4", "s8", "s7", "s6", "s5"]
    assert nxt.tables == [["s1", "s4", "s8", "s5"], ["s2", "s3", "s7", "s6"]]
    assert not nxt.final
    final = multi_seat_next(nxt.tables, 2, 4)
    assert final.final and final.tables == [["s1", "s2", "s4", "s3"]]
    with pytest.raises(InvalidInput):
        multi_seat_next([["a", "b"]], 2, 4)


@settings(max_examples=50, deadline=None)
@given(st.integers(2, 60), st.integers(2, 6))
def test_multi_seat_sizes(n: int, k: int) -> None:
    tables = multi_seat_tables([f"e{i}" for i in range(n)], k)
    sizes = [len(t) for t in tables]
    assert max(sizes) <= k and max(sizes) - min(sizes) <= 1
    assert sum(sizes) == n
