"""Seat allocation in 2-seat Swiss (app/core/pairing/seats.py) and the Swiss cost terms around it:
forbidden pairs, same club, seat clashes."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from app.core.pairing.seats import ABSOLUTE, MILD, NONE, STRONG, allocate, balanced_by_default, preference
from app.core.pairing.swiss import SwissEntry, pair_swiss


def test_preferences() -> None:
    assert preference([]).strength == NONE
    assert (preference([0]).seat, preference([0]).strength) == (1, STRONG)
    assert (preference([0, 1]).seat, preference([0, 1]).strength) == (0, MILD)  # alternate
    assert (preference([1, 0, 0]).seat, preference([1, 0, 0]).strength) == (1, ABSOLUTE)  # two in a row
    assert (preference([0, 1, 0, 1, 0, 0, 1, 0]).seat, preference([0, 1, 0, 1, 0, 0, 1, 0]).strength) == (
        1,
        ABSOLUTE,
    )


def test_allocation_rules_in_order() -> None:
    assert allocate("a", "b", [], [], 1).first == "a"  # initial: odd table, the higher-ranked first
    assert allocate("a", "b", [], [], 2).first == "b"
    both = allocate("a", "b", [1], [0], 1)
    assert (both.first, both.rule) == ("a", "both")
    stronger = allocate("a", "b", [0, 1], [0, 1, 1][1:] + [1], 1)  # b sat second twice: absolute
    assert (stronger.first, stronger.rule) == ("b", "stronger")
    # the same mild preference; three games ago a sat second and b first: now the other way round
    alternate = allocate("a", "b", [0, 1, 0, 1], [1, 0, 0, 1], 1)
    assert alternate.rule == "alternate" and alternate.first == "a"
    rank = allocate("a", "b", [0, 1], [0, 1], 3)
    assert (rank.first, rank.rule) == ("a", "rank")


@given(st.lists(st.integers(0, 1), max_size=6), st.lists(st.integers(0, 1), max_size=6), st.integers(1, 9))
def test_a_granted_absolute_preference_is_never_refused_for_a_weaker_one(
    h: list[int], low: list[int], t: int
) -> None:
    a = allocate("h", "l", h, low, t)
    assert {a.first, a.second} == {"h", "l"} and a.reason
    ph, pl = preference(h), preference(low)
    if ph.strength == ABSOLUTE and pl.strength < ABSOLUTE:
        assert (a.first == "h") == (ph.seat == 0)
    if pl.strength == ABSOLUTE and ph.strength < ABSOLUTE:
        assert (a.first == "l") == (pl.seat == 0)


def test_games_that_draw_their_first_player_are_not_balanced() -> None:
    assert balanced_by_default("generic") and not balanced_by_default("battlebooks")


def _brute(entries: list[SwissEntry]) -> set[frozenset[frozenset[str]]]:
    ids = [e.id for e in entries]
    out = set()
    for perm in itertools.permutations(ids):
        out.add(frozenset(frozenset(perm[i : i + 2]) for i in range(0, len(perm), 2)))
    return out


@given(st.sets(st.tuples(st.integers(0, 5), st.integers(0, 5)), max_size=8))
def test_forbidden_pairs_are_avoided_whenever_some_pairing_avoids_them(raw: set[tuple[int, int]]) -> None:
    ids = [f"e{i}" for i in range(6)]
    banned = {frozenset((ids[a], ids[b])) for a, b in raw if a != b}
    entries = [
        SwissEntry(id=e, forbidden=frozenset(x for p in banned if e in p for x in p if x != e)) for e in ids
    ]
    result = pair_swiss(entries)
    chosen = {frozenset((p.first, p.second)) for p in result.pairs}
    possible = any(not (pairing & banned) for pairing in _brute(entries))
    assert (not (chosen & banned)) == possible
    assert all(p.cost.forbidden == (frozenset((p.first, p.second)) in banned) for p in result.pairs)


def test_same_club_is_a_cost_term_inside_a_score_group() -> None:
    entries = [
        SwissEntry(id="a", club="Red"),
        SwissEntry(id="b", club="Red"),
        SwissEntry(id="c", club="Blue"),
        SwissEntry(id="d", club="Blue"),
    ]
    plain = pair_swiss(entries)
    assert [(p.first, p.second) for p in plain.pairs] == [("a", "b"), ("c", "d")]
    avoided = pair_swiss(entries, avoid_same_club=True)
    assert all(not p.cost.same_club for p in avoided.pairs)
    # across a score gap of a point, clubmates meet: the club costs less than the float
    gapped = [
        SwissEntry(id="a", score=1, club="Red"),
        SwissEntry(id="b", score=1, club="Red"),
        SwissEntry(id="c", score=0),
        SwissEntry(id="d", score=0),
    ]
    kept = pair_swiss(gapped, avoid_same_club=True)
    assert [(p.first, p.second, p.cost.club_cost) for p in kept.pairs][0] == ("a", "b", 60)


def test_two_entries_needing_the_same_seat_are_kept_apart_when_the_group_allows() -> None:
    # a and b both sat first once (both need the second seat); c and d sat second once
    entries = [SwissEntry(id=e, seats=s) for e, s in (("a", (0,)), ("b", (0,)), ("c", (1,)), ("d", (1,)))]
    pairing = pair_swiss(entries)
    assert all(not p.cost.seat_clash for p in pairing.pairs)
    without = pair_swiss([SwissEntry(id=e.id) for e in entries])
    assert [(p.first, p.second) for p in without.pairs] == [("a", "b"), ("c", "d")]


def test_multi_seat_tables_keep_forbidden_pairs_and_clubs_apart() -> None:
    from app.core.pairing.tables import TableEntry, pair_tables

    ids = [f"e{i}" for i in range(8)]
    clubs = ["Red", "Red", "Blue", "Blue", "Green", "Green", "Gold", "Gold"]
    entries = [
        TableEntry(e, club=c, forbidden=frozenset({"e3"}) if e == "e2" else frozenset())
        for e, c in zip(ids, clubs, strict=True)
    ]
    plain = pair_tables(entries, 4)
    assert sum(t.same_club_pairs for t in plain.tables) == 0  # clubs are counted only when avoided
    kept = pair_tables(entries, 4, avoid_same_club=True)
    for t in kept.tables:
        assert t.forbidden_pairs == 0 and t.same_club_pairs == 0
        assert len({clubs[ids.index(e)] for e in t.entries}) == 4
