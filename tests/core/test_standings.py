"""Standings and the tie-break chain: the seeds' worked examples, every criterion's direction,
N/A handling, and order/refinement properties."""

from __future__ import annotations

import itertools

import pytest

from app.core.errors import InvalidInput
from app.core.scoring import GameResult, SeatResult
from app.core.standings import (
    EntryInfo,
    StandingRow,
    StandingsConfig,
    build_ledger,
    compute_standings,
    standings_config,
)
from app.core.tiebreaks import CRITERIA, build_chain

_ids = itertools.count()


def table(*seats: tuple[str, int | None, float | None], outcome: str = "played", rnd: int = 1) -> GameResult:
    return GameResult(f"m{next(_ids)}", rnd, outcome, tuple(SeatResult(e, p, s) for e, p, s in seats))


def beat(winner: str, loser: str, rnd: int = 1, diff: float | None = None) -> GameResult:
    return GameResult(
        f"m{next(_ids)}", rnd, "played", (SeatResult(winner, 1, None, diff), SeatResult(loser, 2, None))
    )


def entries_of(games: list[GameResult], extra: tuple[str, ...] = (), **values: float) -> list[EntryInfo]:
    ids = sorted({s.entry_id for g in games for s in g.seats} | set(extra))
    return [EntryInfo(e, e, values.get(e)) for e in ids]


def order(rows: list[StandingRow]) -> list[str]:
    return [r.entry_id for r in rows]


def row(rows: list[StandingRow], entry: str) -> StandingRow:
    return next(r for r in rows if r.entry_id == entry)


WDL1 = {"scoring": {"scheme": "wdl", "win": 1, "draw": 0.5, "loss": 0}}
BGA3 = {
    "scoring": {"scheme": "placement", "points": [1, 0.5, 0]},
    "violation_points": -0.5,
    "victim_points": 1,
}


# --------------------------------------------------------------------------- head to head (BGA, B.)


def alpha_beta_gamma() -> list[GameResult]:
    # games 1: [α, β, x], 2: [α, β, γ], 3: [x, β, γ]
    return [
        table(("alpha", 1, None), ("beta", 2, None), ("x", 3, None)),  # α 1, β 0.5
        table(("gamma", 1, None), ("alpha", 2, None), ("beta", 3, None)),  # γ 1, α 0.5, β 0
        table(("beta", 1, None), ("gamma", 2, None), ("x", 3, None)),  # β 1, γ 0.5
    ]


def test_head_to_head_seed_example_numbers() -> None:
    games = alpha_beta_gamma()
    cfg = standings_config({**BGA3, "tiebreaks": ["head_to_head"]})
    ledger = build_ledger(entries_of(games), games, cfg)
    got = CRITERIA["head_to_head"].fn(ledger, ["alpha", "beta", "gamma"])
    g = {"alpha": (1.0, 0.5, None), "beta": (0.5, 0.0, 1.0), "gamma": (None, 1.0, 0.5)}
    assert got["alpha"] == pytest.approx((g["alpha"][0] + 2 * g["alpha"][1]) / 3)  # (g1 + 2·g2)/3
    assert got["beta"] == pytest.approx((g["beta"][0] + 2 * g["beta"][1] + g["beta"][2]) / 4)
    assert got["gamma"] == pytest.approx((2 * g["gamma"][1] + g["gamma"][2]) / 3)
    assert (got["alpha"], got["beta"], got["gamma"]) == pytest.approx((2 / 3, 0.375, 2.5 / 3))


def test_head_to_head_ranks_the_tied_trio() -> None:
    games = alpha_beta_gamma()
    cfg = standings_config({**BGA3, "tiebreaks": ["head_to_head"]})
    rows = compute_standings(entries_of(games), games, cfg)
    # all three have 1.5 points; x has 0
    assert order(rows) == ["gamma", "alpha", "beta", "x"]
    assert [r.rank for r in rows] == [1, 2, 3, 4]
    assert [r.decided_by for r in rows] == [None, "head_to_head", "head_to_head", "points"]
    assert row(rows, "gamma").tiebreaks["head_to_head"] == pytest.approx(2.5 / 3)
    assert row(rows, "x").tiebreaks["head_to_head"] is None  # alone on its points: never reached


def test_head_to_head_is_computed_among_the_entries_still_tied() -> None:
    # a cycle: everyone 1 point; among all three h2h is 0.5 each; tiebreak_value lifts A out,
    # then between B and C only their own game counts
    games = [beat("B", "C"), beat("C", "A"), beat("A", "B")]
    cfg = standings_config({**WDL1, "tiebreaks": ["tiebreak_value", "head_to_head"]})
    rows = compute_standings(entries_of(games, A=0.9, B=0.1, C=0.1), games, cfg)
    assert order(rows) == ["A", "B", "C"]
    assert [r.decided_by for r in rows] == [None, "tiebreak_value", "head_to_head"]
    assert row(rows, "B").tiebreaks["head_to_head"] == 1.0
    assert row(rows, "C").tiebreaks["head_to_head"] == 0.0
    assert row(rows, "A").tiebreaks["head_to_head"] is None


def test_head_to_head_default_when_tied_entries_never_met() -> None:
    games = [beat("A", "x"), beat("B", "y")]
    rows = compute_standings(
        entries_of(games), games, standings_config({**WDL1, "tiebreaks": ["head_to_head"]})
    )
    assert [r.rank for r in rows[:2]] == [1, 1]
    assert row(rows, "A").tiebreaks["head_to_head"] == 0.5
    cfg = standings_config({**WDL1, "tiebreaks": ["head_to_head"], "h2h_default": 0.25})
    assert row(compute_standings(entries_of(games), games, cfg), "A").tiebreaks["head_to_head"] == 0.25


def test_head_to_head_direction() -> None:
    # A and B both 1 point; A beat B
    games = [beat("A", "B"), beat("B", "x"), beat("y", "A")]
    rows = compute_standings(
        entries_of(games), games, standings_config({**WDL1, "tiebreaks": ["head_to_head"]})
    )
    # A, B and y all have 1 point: h2h among them y 1 (beat A), A 0.5, B 0 (lost to A)
    assert order(rows) == ["y", "A", "B", "x"]
    assert [r.tiebreaks["head_to_head"] for r in rows[:3]] == [1.0, 0.5, 0.0]


# --------------------------------------------------------------------------- BGA 3p: A. perfect_more_games


def test_perfect_more_games_with_average_basis() -> None:
    # p won 2 of 2, q won 1 of 1: both average 1.0; r average lower
    games = [
        table(("p", 1, None), ("f1", 2, None), ("f2", 3, None)),
        table(("p", 1, None), ("f3", 2, None), ("f4", 3, None)),
        table(("q", 1, None), ("f5", 2, None), ("f6", 3, None)),
    ]
    cfg = standings_config({**BGA3, "ranking_basis": "average", "tiebreaks": ["perfect_more_games"]})
    rows = compute_standings(entries_of(games, extra=("idle",)), games, cfg)
    assert order(rows)[:2] == ["p", "q"]
    assert rows[1].decided_by == "perfect_more_games"
    assert (rows[0].tiebreaks["perfect_more_games"], rows[1].tiebreaks["perfect_more_games"]) == (2, 1)
    assert row(rows, "f1").tiebreaks["perfect_more_games"] is None
    # an entry that has not played has no average and ranks last
    assert rows[-1].entry_id == "idle" and rows[-1].average is None and rows[-1].decided_by == "average"


def test_average_leaves_byes_out() -> None:
    games = [
        table(("a", 1, None), ("b", 2, None), ("c", 3, None)),
        GameResult("bye-b", 2, "bye", (SeatResult("b", None, None),)),
    ]
    cfg = standings_config({**BGA3, "ranking_basis": "average"})
    rows = compute_standings(entries_of(games), games, cfg)
    b = row(rows, "b")
    assert (b.points, b.games, b.byes, b.average) == (1.5, 1, 1, 0.5)
    assert order(rows) == ["a", "b", "c"]
    total = compute_standings(entries_of(games), games, standings_config(BGA3))
    assert order(total) == ["b", "a", "c"]


# --------------------------------------------------------------------------- HMW-P seeding


def hmwp() -> tuple[list[EntryInfo], list[GameResult]]:
    games = [
        table(("P1", 1, 30), ("P2", 2, 27), ("P8", 3, 25)),
        table(("P1", 1, 30), ("P3", 2, 25), ("P10", 3, 23)),
        table(("P2", 1, 30), ("S", 2, 28), ("P11", 3, 23)),
        table(("P3", 1, 30), ("S", 2, 29), ("P9", 3, 28)),
        table(("P4", 1, 30), ("S", 2, 29), ("P9", 3, 27)),
        table(("P5", 1, 30), ("S", 2, 28), ("P4", 3, 24)),
        table(("W", 1, 30), ("S", 2, 28), ("P5", 3, 26)),
    ]
    return entries_of(games, extra=("P12",)), games


HMWP = {
    # event points = heat wins, so the basis agrees with `wins`
    "scoring": {"scheme": "placement", "points": [1]},
    "tiebreaks": ["wins", "seconds", "points_behind_in_seconds", "points_behind_all", "fewest_games", "dice"],
}


def test_hmwp_seeding_chain() -> None:
    entries, games = hmwp()
    rows = compute_standings(entries, games, standings_config(HMWP), seed="wbc-2026")
    got = order(rows)
    assert got[:9] == ["P1", "P2", "P3", "W", "P5", "P4", "S", "P8", "P9"]
    assert set(got[9:11]) == {"P10", "P11"} and got[11] == "P12"
    assert [r.rank for r in rows] == list(range(1, 13))
    assert [r.decided_by for r in rows] == [
        None,
        "points",
        "points_behind_in_seconds",  # P2 3 behind, P3 5 behind
        "seconds",  # W has no second place
        "points_behind_all",  # W 0 (a win adds 0), P5 4
        "points_behind_all",  # P4 6
        "points",  # S: no win, five seconds
        "seconds",  # P8
        "fewest_games",  # P8 and P9 both 5 behind; P8 played one heat, P9 two
        "points_behind_all",  # P10/P11: 7 behind
        "dice",
        "points_behind_all",  # P12 played nothing: N/A ranks below every real value
    ]
    tb = {r.entry_id: r.tiebreaks for r in rows}
    assert tb["P2"]["points_behind_in_seconds"] == 3 and tb["P3"]["points_behind_in_seconds"] == 5
    assert tb["W"]["points_behind_in_seconds"] is None  # no second places: N/A, not 0
    assert tb["P5"]["points_behind_in_seconds"] is None
    assert (tb["W"]["points_behind_all"], tb["P5"]["points_behind_all"], tb["P4"]["points_behind_all"]) == (
        0,
        4,
        6,
    )
    assert tb["P12"]["points_behind_all"] is None and tb["P12"]["fewest_games"] == 0
    assert tb["P9"]["fewest_games"] == 2
    rolls = {e: tb[e]["dice"] for e in ("P10", "P11")}
    assert sorted(rolls.values()) == [1.0, 2.0]  # recorded with the standings
    assert rolls[got[9]] > rolls[got[10]]  # higher roll ranks higher
    assert all(tb[e]["dice"] is None for e in tb if e not in ("P10", "P11"))
    # the roll comes from the event seed: same seed, same rolls
    again = compute_standings(entries, list(reversed(games)), standings_config(HMWP), seed="wbc-2026")
    assert order(again) == got


def test_dice_depends_on_the_seed_only() -> None:
    entries = [EntryInfo(f"e{i}", f"E{i}") for i in range(6)]
    cfg = standings_config({"tiebreaks": ["dice"]})
    outcomes = {tuple(order(compute_standings(entries, [], cfg, seed=f"s{k}"))) for k in range(8)}
    assert len(outcomes) > 1
    assert order(compute_standings(entries, [], cfg, seed="s1")) == order(
        compute_standings(entries, [], cfg, seed="s1")
    )


# --------------------------------------------------------------------------- each criterion's direction


def test_wins_direction() -> None:
    cfg = standings_config(
        {"scoring": {"scheme": "wdl", "win": 2, "draw": 1, "loss": 0}, "tiebreaks": ["wins"]}
    )
    games = [
        beat("A", "f1"),
        beat("f2", "A"),
        table(("B", 1, None), ("f3", 1, None)),
        table(("B", 1, None), ("f4", 1, None)),
    ]
    rows = compute_standings(entries_of(games), games, cfg)
    assert row(rows, "A").points == row(rows, "B").points == 2
    assert row(rows, "A").rank < row(rows, "B").rank
    assert [r.decided_by for r in rows if r.entry_id == "B"] == ["wins"]


def test_seconds_direction() -> None:
    games = [table(("A", 2, 5), ("x", 1, 9), ("y", 3, 1)), table(("B", 3, 5), ("z", 1, 9), ("w", 2, 6))]
    cfg = standings_config({"scoring": {"scheme": "placement", "points": [1]}, "tiebreaks": ["seconds"]})
    rows = compute_standings(entries_of(games), games, cfg)
    assert row(rows, "A").rank < row(rows, "B").rank


@pytest.mark.parametrize("criterion", ["points_behind_in_seconds", "points_behind_all"])
def test_points_behind_direction_and_na(criterion: str) -> None:
    games = [
        table(("A", 2, 8), ("x", 1, 9), ("y", 3, 1)),  # 1 behind
        table(("B", 2, 5), ("z", 1, 9), ("w", 3, 1)),  # 4 behind
    ]
    cfg = standings_config({"scoring": {"scheme": "placement", "points": [1]}, "tiebreaks": [criterion]})
    rows = compute_standings(entries_of(games, extra=("C",)), games, cfg)
    assert row(rows, "A").rank < row(rows, "B").rank < row(rows, "C").rank  # C: N/A, below real values


def test_fewest_games_direction() -> None:
    games = [beat("x", "A"), beat("y", "B"), beat("z", "B")]
    rows = compute_standings(
        entries_of(games), games, standings_config({**WDL1, "tiebreaks": ["fewest_games"]})
    )
    assert row(rows, "A").rank < row(rows, "B").rank


def test_differential_direction() -> None:
    cfg = standings_config(
        {"scoring": {"scheme": "wdl", "win": 5, "draw": 2, "loss": 0}, "tiebreaks": ["differential"]}
    )
    games = [beat("A", "x", diff=8), beat("B", "y", diff=3)]
    rows = compute_standings(entries_of(games), games, cfg)
    assert order(rows)[:2] == ["A", "B"] and rows[1].decided_by == "differential"


def test_tiebreak_value_direction_and_missing_value() -> None:
    entries = [EntryInfo("A", "A", 0.2), EntryInfo("B", "B", 0.9), EntryInfo("C", "C", None)]
    rows = compute_standings(entries, [], standings_config({"tiebreaks": ["tiebreak_value"]}))
    assert order(rows) == ["B", "A", "C"]


def swiss_field() -> tuple[list[EntryInfo], list[GameResult]]:
    """A, B, C: 1 win 2 losses each. Opponents' final totals per game:
    A [0, 4, 1], B [1, 2, 2], C [0, 1, 1]."""
    games: list[GameResult] = []
    fodder = itertools.count()

    def extra_wins(who: str, n: int) -> None:
        for _ in range(n):
            games.append(beat(who, f"f{next(fodder)}", rnd=9))

    plan = {"A": (0, 3, 0), "B": (1, 1, 1), "C": (0, 0, 0)}
    for who, (e1, e2, e3) in plan.items():
        o1, o2, o3 = f"{who}o1", f"{who}o2", f"{who}o3"
        games += [beat(who, o1, 1), beat(o2, who, 2), beat(o3, who, 3)]
        extra_wins(o1, e1)
        extra_wins(o2, e2)
        extra_wins(o3, e3)
    return entries_of(games), games


@pytest.mark.parametrize(
    ("chain", "expected", "values"),
    [
        (["buchholz"], [["A", "B"], ["C"]], {"A": 5, "B": 5, "C": 2}),
        (["median_buchholz"], [["B"], ["A", "C"]], {"A": 1, "B": 2, "C": 1}),
        (["buchholz", "median_buchholz"], [["B"], ["A"], ["C"]], None),
        (["sonneborn_berger"], [["B"], ["A", "C"]], {"A": 0, "B": 1, "C": 0}),
        (["opponent_win_pct"], [["B"], ["A", "C"]], {"A": 2 / 3, "B": 2.5 / 3, "C": 2 / 3}),
    ],
)
def test_swiss_criteria_direction(chain: list[str], expected: list[list[str]], values) -> None:
    entries, games = swiss_field()
    rows = [
        r
        for r in compute_standings(entries, games, standings_config({**WDL1, "tiebreaks": chain}))
        if r.entry_id in "ABC"
    ]
    assert all(r.points == 1 for r in rows)
    groups: dict[int, list[str]] = {}
    for r in rows:
        groups.setdefault(r.rank, []).append(r.entry_id)
    assert [sorted(g) for _, g in sorted(groups.items())] == expected
    if values:
        assert {r.entry_id: r.tiebreaks[chain[0]] for r in rows} == pytest.approx(values)


def test_sonneborn_berger_counts_half_for_draws() -> None:
    games = [table(("A", 1, None), ("x", 1, None)), beat("x", "y"), beat("B", "z")]
    cfg = standings_config({**WDL1, "tiebreaks": ["sonneborn_berger"]})
    rows = compute_standings(entries_of(games), games, cfg)
    assert row(rows, "A").tiebreaks["sonneborn_berger"] == 0.75  # half of x's 1.5
    assert row(rows, "B").tiebreaks["sonneborn_berger"] == 0.0


# --------------------------------------------------------------------------- ranks, dropped, stages


def test_shared_ranks_are_gap_correct_and_dropped_entries_stay() -> None:
    games = [beat("A", "B"), beat("C", "D"), beat("A", "C", 2), beat("B", "D", 2)]
    entries = [EntryInfo(e, e, status="dropped" if e == "D" else "active") for e in "ABCD"]
    rows = compute_standings(entries, games, standings_config(WDL1))
    assert [(r.entry_id, r.rank, r.decided_by) for r in rows] == [
        ("A", 1, None),
        ("B", 2, "points"),
        ("C", 2, None),
        ("D", 4, "points"),
    ]
    assert row(rows, "D").status == "dropped" and row(rows, "D").games == 2


def test_stage_filter() -> None:
    g1 = GameResult("s1", 1, "played", (SeatResult("A", 1, None), SeatResult("B", 2, None)), stage="heats")
    g2 = GameResult("s2", 1, "played", (SeatResult("B", 1, None), SeatResult("A", 2, None)), stage="final")
    rows = compute_standings(entries_of([g1]), [g1, g2], standings_config(WDL1), stage="final")
    assert order(rows) == ["B", "A"] and rows[0].games == 1


def test_unknown_criterion_rejected_when_the_chain_is_built() -> None:
    with pytest.raises(InvalidInput) as err:
        build_chain(["wins", "foo"])
    assert err.value.problems[0].loc == ("tiebreaks", 1)
    with pytest.raises(InvalidInput):
        compute_standings([], [], StandingsConfig(tiebreaks=("wins", "bogus")))


def test_every_row_has_every_chain_criterion() -> None:
    entries, games = hmwp()
    chain = list(CRITERIA)
    rows = compute_standings(entries, games, standings_config({"tiebreaks": chain}), seed="x")
    assert all(list(r.tiebreaks) == chain for r in rows)
