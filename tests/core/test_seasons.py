"""A season's table (app/core/seasons.py), computed by hand: shared places share their points,
countback decides equal points, best-of counts the best results."""

from __future__ import annotations

from app.core.seasons import EventPlaces, Placing, place_points, standings

TABLE = [10, 6, 4, 3]


def test_shared_places_share_the_points_they_cover() -> None:
    assert place_points(TABLE, 1) == 10
    assert place_points(TABLE, 2, shared=2) == 5  # (6 + 4) / 2
    assert place_points(TABLE, 3, shared=3) == (4 + 3 + 0) / 3  # past the table's end: 0
    assert place_points(TABLE, 9) == 0


def test_countback_decides_equal_points_and_else_the_rank_is_shared() -> None:
    one = EventPlaces(
        "e1", [Placing("a", "A", 1), Placing("b", "B", 2), Placing("c", "C", 3), Placing("d", "D", 4)]
    )
    two = EventPlaces(
        "e2", [Placing("c", "C", 1), Placing("b", "B", 2), Placing("d", "D", 3), Placing("a", "A", 4)]
    )
    three = EventPlaces(
        "e3", [Placing("b", "B", 1), Placing("a", "A", 2), Placing("d", "D", 3), Placing("c", "C", 4)]
    )
    rows = standings(TABLE, [one, two, three])
    # a 10+3+6 = 19 (1st, 2nd, 4th); b 6+6+10 = 22; c 4+10+3 = 17; d 3+4+4 = 11
    assert [(r.rank, r.player_id, r.points, r.decided_by) for r in rows] == [
        (1, "b", 22, "points"),
        (2, "a", 19, "points"),
        (3, "c", 17, "points"),
        (4, "d", 11, "points"),
    ]
    # x and y share 2nd of e1 ((6 + 4) / 2 = 5 each) and 1st of e2 ((10 + 6) / 2 = 8 each): 13 each,
    # the same places, so they share the rank; a: 10 + 4 = 14
    e1 = EventPlaces("e1", [Placing("a", "A", 1), Placing("x", "X", 2, 2), Placing("y", "Y", 2, 2)])
    e2 = EventPlaces("e2", [Placing("x", "X", 1, 2), Placing("y", "Y", 1, 2), Placing("a", "A", 3)])
    rows = standings([10, 6, 4], [e1, e2])
    assert [(r.rank, r.player_id, r.points, r.decided_by) for r in rows] == [
        (1, "a", 14, "points"),
        (2, "x", 13, None),
        (2, "y", 13, None),
    ]
    e3 = EventPlaces("e3", [Placing("p", "P", 1), Placing("q", "Q", 2)])
    e4 = EventPlaces("e4", [Placing("q", "Q", 2), Placing("p", "P", 3)])
    e5 = EventPlaces("e5", [Placing("q", "Q", 2)])
    rows = standings([12, 6, 0], [e3, e4, e5])  # p: 12 + 0; q: 6 + 6 + 6 — 18 against 12
    assert [(r.player_id, r.points) for r in rows] == [("q", 18), ("p", 12)]
    rows = standings([12, 6, 0], [e3, e4])  # p 12 (a 1st), q 12 (two 2nds): countback
    assert [(r.rank, r.player_id, r.decided_by) for r in rows] == [
        (1, "p", "countback"),
        (2, "q", "countback"),
    ]


def test_best_of_counts_the_best_results_and_lists_the_others() -> None:
    events = [EventPlaces(f"e{i}", [Placing("a", "A", p)]) for i, p in enumerate([3, 1, 2, 1])]
    (row,) = standings(TABLE, events, best_of=2)
    assert row.points == 20 and [r.counted for r in row.results] == [False, True, False, True]
    assert row.events == 4
