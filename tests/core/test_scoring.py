"""Scoring schemes, differential, violations and the settings the standings engine owns."""

from __future__ import annotations

import pytest

from app.core.errors import InvalidInput
from app.core.scoring import GameResult, ScoringConfig, SeatResult, score_game, scoring_config
from app.core.standings import EntryInfo, compute_standings, settings_problems, standings_config


def seat(entry: str, place: int | None = None, score: float | None = None, **kw) -> SeatResult:
    return SeatResult(entry, place, score, **kw)


def game(outcome: str, *seats: SeatResult, mid: str = "m", rnd: int = 1) -> GameResult:
    return GameResult(mid, rnd, outcome, tuple(seats))


def points(g: GameResult, cfg: ScoringConfig) -> dict[str, float]:
    scored = score_game(g, cfg)
    assert scored is not None
    return {s.entry_id: s.points for s in scored.seats}


PR = ScoringConfig(scheme="placement", points=(1.0, 0.5, 0.0), violation_points=-0.5, victim_points=1.0)


# --------------------------------------------------------------------------- wdl


def test_wdl_defaults_are_3_1_0_and_bye_is_a_win() -> None:
    cfg = standings_config({}).scoring
    assert (cfg.scheme, cfg.win, cfg.draw, cfg.loss, cfg.bye_points()) == ("wdl", 3.0, 1.0, 0.0, 3.0)
    assert points(game("played", seat("a", 1), seat("b", 2)), cfg) == {"a": 3.0, "b": 0.0}
    assert points(game("draw", seat("a"), seat("b")), cfg) == {"a": 1.0, "b": 1.0}
    assert points(game("bye", seat("a")), cfg) == {"a": 3.0}


def test_timeout_scores_as_a_draw_whatever_the_places() -> None:
    cfg = ScoringConfig(win=5, draw=2, loss=0)
    assert points(game("timeout", seat("a", 1), seat("b", 2)), cfg) == {"a": 2.0, "b": 2.0}


def test_bye_points_are_configurable() -> None:
    cfg = scoring_config({"scoring": {"scheme": "wdl", "win": 3, "draw": 1, "loss": 0, "bye": 1}})
    assert points(game("bye", seat("a")), cfg) == {"a": 1.0}


def test_shared_first_at_two_seats_is_a_draw() -> None:
    scored = score_game(game("played", seat("a", 1), seat("b", 1)), ScoringConfig())
    assert scored is not None
    assert [s.result for s in scored.seats] == ["draw", "draw"]


def test_places_inferred_from_scores_when_absent() -> None:
    assert points(game("played", seat("a", None, 10), seat("b", None, 12)), ScoringConfig()) == {
        "a": 0.0,
        "b": 3.0,
    }


def test_void_counts_for_nothing() -> None:
    assert score_game(game("void", seat("a", 1), seat("b", 2)), ScoringConfig()) is None


def test_forfeit_place_one_wins_others_lose_and_double_forfeit_loses_both() -> None:
    cfg = ScoringConfig(win=5, draw=2, loss=0)
    assert points(game("forfeit", seat("a", 2), seat("b", 1)), cfg) == {"a": 0.0, "b": 5.0}
    assert points(game("forfeit", seat("a"), seat("b")), cfg) == {"a": 0.0, "b": 0.0}


# --------------------------------------------------------------------------- placement


@pytest.mark.parametrize(
    ("places", "expected"),
    [
        ((1, 2, 3), (1.0, 0.5, 0.0)),
        ((1, 1, 3), (0.75, 0.75, 0.0)),
        ((1, 1, 2), (0.75, 0.75, 0.0)),  # dense numbering means the same order
        ((1, 2, 2), (1.0, 0.25, 0.25)),
        ((1, 1, 1), (0.5, 0.5, 0.5)),
        ((3, 1, 2), (0.0, 1.0, 0.5)),
    ],
)
def test_placement_ties_share_the_mean_of_covered_places(places, expected) -> None:
    g = game("played", *(seat(e, p) for e, p in zip("abc", places, strict=True)))
    got = points(g, PR)
    assert tuple(got[e] for e in "abc") == pytest.approx(expected)


def test_placement_draw_shares_all_places_and_default_points_are_linear() -> None:
    assert points(game("draw", seat("a"), seat("b"), seat("c")), PR) == pytest.approx(
        {"a": 0.5, "b": 0.5, "c": 0.5}
    )
    cfg = ScoringConfig(scheme="placement")
    four = game("played", seat("a", 1), seat("b", 2), seat("c", 3), seat("d", 4))
    assert points(four, cfg) == pytest.approx({"a": 1.0, "b": 2 / 3, "c": 1 / 3, "d": 0.0})


def test_placement_beyond_the_list_scores_zero() -> None:
    cfg = ScoringConfig(scheme="placement", points=(3.0, 1.0))
    assert points(game("played", seat("a", 1), seat("b", 2), seat("c", 3)), cfg) == {
        "a": 3.0,
        "b": 1.0,
        "c": 0.0,
    }


def test_game_score_is_summed() -> None:
    cfg = ScoringConfig(scheme="game_score")
    entries = [EntryInfo("a", "A"), EntryInfo("b", "B")]
    games = [
        game("played", seat("a", 1, 40), seat("b", 2, 35), mid="1"),
        game("played", seat("a", 2, 20), seat("b", 1, 30), mid="2"),
    ]
    cfg_all = standings_config({"scoring": {"scheme": "game_score"}})
    assert cfg_all.scoring == cfg
    rows = compute_standings(entries, games, cfg_all)
    assert [(r.entry_id, r.points) for r in rows] == [("b", 65.0), ("a", 60.0)]


# --------------------------------------------------------------------------- violations


def test_violation_overrides_the_outcome() -> None:
    # the violator finished first, yet scores -0.5; both others +1
    g = game("played", seat("a", 1, violation=True), seat("b", 2), seat("c", 3))
    assert points(g, PR) == {"a": -0.5, "b": 1.0, "c": 1.0}
    two = game("played", seat("a", 1, violation=True), seat("b", 2, violation=True), seat("c", 3))
    assert points(two, PR) == {"a": -0.5, "b": -0.5, "c": 1.0}
    drawn = game("draw", seat("a", violation=True), seat("b"), seat("c"))
    assert points(drawn, PR) == {"a": -0.5, "b": 1.0, "c": 1.0}


def test_violation_touches_no_other_table() -> None:
    cfg = standings_config(
        {
            "scoring": {"scheme": "placement", "points": [1, 0.5, 0]},
            "violation_points": -0.5,
            "victim_points": 1,
        }
    )
    entries = [EntryInfo(e, e.upper()) for e in "abcdef"]
    games = [
        game("played", seat("a", 1, violation=True), seat("b", 2), seat("c", 3), mid="t1"),
        game("played", seat("d", 1), seat("e", 2), seat("f", 3), mid="t2"),
    ]
    pts = {r.entry_id: r.points for r in compute_standings(entries, games, cfg)}
    assert pts == {"a": -0.5, "b": 1.0, "c": 1.0, "d": 1.0, "e": 0.5, "f": 0.0}


def test_violation_defaults_follow_the_scheme() -> None:
    cfg = ScoringConfig(win=5, draw=2, loss=0)
    assert points(game("played", seat("a", 1, violation=True), seat("b", 2)), cfg) == {"a": 0.0, "b": 5.0}


# --------------------------------------------------------------------------- differential


def test_battlebooks_differential_5_plus_8_vs_0_minus_8() -> None:
    cfg = standings_config({"scoring": {"scheme": "wdl", "win": 5, "draw": 2, "loss": 0}})
    entries = [EntryInfo("A", "A"), EntryInfo("B", "B")]
    # A beats B; the body-point difference between the heroes (21 vs 29) is 8
    rows = compute_standings(entries, [game("played", seat("A", 1, differential=8), seat("B", 2))], cfg)
    assert [(r.entry_id, r.points, r.differential) for r in rows] == [("A", 5.0, 8.0), ("B", 0.0, -8.0)]
    # reported on the loser only, or on both: same result
    for seats in [
        (seat("A", 1), seat("B", 2, differential=-8)),
        (seat("A", 1, differential=8), seat("B", 2, differential=-8)),
    ]:
        rows = compute_standings(entries, [game("played", *seats)], cfg)
        assert [(r.points, r.differential) for r in rows] == [(5.0, 8.0), (0.0, -8.0)]


def test_draw_timeout_and_bye_have_zero_differential() -> None:
    cfg = ScoringConfig(win=5, draw=2)
    for g in (
        game("draw", seat("a", 1, differential=4), seat("b", 2, differential=-4)),
        game("timeout", seat("a", 1, differential=4), seat("b", 2, differential=-4)),
        game("bye", seat("a", differential=4)),
    ):
        scored = score_game(g, cfg)
        assert scored is not None
        assert all(s.differential == 0.0 for s in scored.seats)


# --------------------------------------------------------------------------- settings


def test_settings_list_every_problem_with_its_location() -> None:
    bad = {
        "scoring": {"scheme": "elo", "win": "three", "points": [1, "x"], "colour": 1},
        "violation_points": "a lot",
        "victim_points": True,
        "ranking_basis": "median",
        "tiebreaks": ["wins", "buchholz", "foo", "wins", 7],
        "h2h_default": None,
        "stages": [],  # not ours: ignored
    }
    with pytest.raises(InvalidInput) as err:
        standings_config(bad)
    locs = {p.loc: p.msg for p in err.value.problems}
    assert set(locs) == {
        ("scoring", "scheme"),
        ("scoring", "win"),
        ("scoring", "points", 1),
        ("scoring", "colour"),
        ("violation_points",),
        ("victim_points",),
        ("ranking_basis",),
        ("tiebreaks", 2),
        ("tiebreaks", 3),
        ("tiebreaks", 4),
    }
    assert locs[("tiebreaks", 2)] == "unknown criterion 'foo'"


def test_settings_problems_prefix_and_key_filter() -> None:
    bad = {"tiebreaks": ["foo"], "violation_points": "x"}
    assert [p.loc for p in settings_problems(bad, ("settings",))] == [
        ("settings", "violation_points"),
        ("settings", "tiebreaks", 0),
    ]
    assert [p.loc for p in settings_problems(bad, ("settings",), keys=("scoring", "tiebreaks"))] == [
        ("settings", "tiebreaks", 0)
    ]
    assert settings_problems({"tiebreaks": "wins"}) != []


def test_bga_3p_settings_build() -> None:
    cfg = standings_config(
        {
            "scoring": {"scheme": "placement", "points": [1, 0.5, 0]},
            "violation_points": -0.5,
            "victim_points": 1,
            "ranking_basis": "average",
            "tiebreaks": ["perfect_more_games", "head_to_head"],
        }
    )
    assert cfg.scoring == PR
    assert cfg.ranking_basis == "average"
    assert cfg.tiebreaks == ("perfect_more_games", "head_to_head")
    assert cfg.h2h_default == 0.5


def test_invalid_results_are_rejected_with_every_problem() -> None:
    entries = [EntryInfo("a", "A"), EntryInfo("b", "B")]
    games = [
        game("played", seat("a", 1), seat("zz", 2), mid="1"),
        game("bye", seat("a"), seat("b"), mid="2"),
        game("lost", seat("a"), seat("b"), mid="3"),
        game("played", seat("a", 1), seat("b"), mid="4"),
        game("played", seat("a", 1), seat("a", 2), mid="4"),
    ]
    with pytest.raises(InvalidInput) as err:
        compute_standings(entries, games, standings_config({}))
    locs = [p.loc for p in err.value.problems]
    assert ("games", 0, "seats", 1, "entry_id") in locs
    assert ("games", 1, "seats") in locs
    assert ("games", 2, "outcome") in locs
    assert ("games", 3, "seats") in locs
    assert ("games", 4, "match_id") in locs
    assert ("games", 4, "seats", 1, "entry_id") in locs


# --------------------------------------------------------------------------- fast path


def test_two_seat_fast_path_matches_the_general_path() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from app.core.scoring import _score_general, _score_two_wdl

    optional = st.one_of(st.none(), st.integers(-9, 9).map(float))

    @settings(max_examples=300, deadline=None)
    @given(
        outcome=st.sampled_from(["played", "draw", "timeout", "forfeit"]),
        places=st.tuples(st.one_of(st.none(), st.integers(1, 3)), st.one_of(st.none(), st.integers(1, 3))),
        scores=st.tuples(optional, optional),
        diffs=st.tuples(optional, optional),
        violations=st.tuples(st.booleans(), st.booleans()),
    )
    def check(outcome, places, scores, diffs, violations) -> None:
        g = GameResult(
            "m",
            1,
            outcome,
            tuple(SeatResult(e, places[i], scores[i], diffs[i], violations[i]) for i, e in enumerate("ab")),
        )
        if outcome == "played" and None in places and None in scores:
            return  # invalid input, rejected before scoring
        cfg = ScoringConfig(win=5, draw=2, loss=0)
        fast = _score_two_wdl(g, cfg)
        if fast is not None:
            assert fast == _score_general(g, cfg)

    check()


def test_a_double_forfeit_keeps_nobody_at_place_one_when_normalized() -> None:
    from app.core.results import ReportedSeat, normalize

    both = normalize(["a", "b"], "forfeit", [ReportedSeat("a", place=2), ReportedSeat("b", place=2)])
    assert [s.place for s in both.seats] == [2, 2]
    seats3 = [ReportedSeat("a", place=2), ReportedSeat("b", place=3), ReportedSeat("c", place=3)]
    assert 1 not in [s.place for s in normalize(["a", "b", "c"], "forfeit", seats3).seats]
    one = normalize(
        ["a", "b", "c"],
        "forfeit",
        [ReportedSeat("a", place=1), ReportedSeat("b", place=2), ReportedSeat("c", place=2)],
    )
    assert [s.place for s in one.seats] == [1, 2, 2]
    # places with a winner are never renumbered: 1, 3, 3 is refused naming the two seats out of form
    with pytest.raises(InvalidInput) as e:
        normalize(
            ["a", "b", "c"],
            "forfeit",
            [ReportedSeat("a", place=1), ReportedSeat("b", place=3), ReportedSeat("c", place=3)],
        )
    assert [p.loc for p in e.value.problems] == [("seats", 1, "place"), ("seats", 2, "place")]


# --- issue 33: reported places are never renumbered (formats.md "Presets") ---------------------------
@pytest.mark.parametrize(
    ("places", "named"),
    [
        ([2, 3, 3], [0, 1, 2]),  # nobody 1st, and the two 3rds are 2nd by the count of seats ahead
        ([1, 3, 3], [1, 2]),
        ([1, 1, 2], [2]),
        ([1, 3], [1]),
        ([2, 2], [0, 1]),  # a played [2, 2] is not a draw
        ([1, 2, 4, 4], [2, 3]),
    ],
)
def test_places_out_of_competition_form_are_refused_naming_each_seat(
    places: list[int], named: list[int]
) -> None:
    from app.core.results import ReportedSeat, normalize

    entries = [f"e{i}" for i in range(len(places))]
    seats = [ReportedSeat(e, place=p) for e, p in zip(entries, places, strict=True)]
    with pytest.raises(InvalidInput) as e:
        normalize(entries, "played", seats)
    assert [p.loc for p in e.value.problems] == [("seats", i, "place") for i in named]
    assert "renumbered" in e.value.detail or "does not fit a table of 2" in e.value.detail


@pytest.mark.parametrize("places", [[1, 2, 2], [1, 1, 3], [1, 2, 2, 4], [3, 1, 2], [1, 1], [2, 1], [1, 1, 1]])
def test_places_in_competition_form_are_kept_as_reported(places: list[int]) -> None:
    from app.core.results import ReportedSeat, normalize

    entries = [f"e{i}" for i in range(len(places))]
    # reported in another order than the table's: the named seat is the reported one
    seats = [ReportedSeat(e, place=p) for e, p in zip(entries, places, strict=True)][::-1]
    got = normalize(entries, "played", seats)
    assert [s.place for s in got.seats] == places


def test_an_out_of_form_place_is_named_where_it_was_reported() -> None:
    from app.core.results import ReportedSeat, normalize

    with pytest.raises(InvalidInput) as e:
        normalize(
            ["a", "b", "c"],
            "played",
            [ReportedSeat("c", place=3), ReportedSeat("a", place=1), ReportedSeat("b", place=3)],
        )
    assert {p.loc for p in e.value.problems} == {("seats", 0, "place"), ("seats", 2, "place")}


def test_a_stage_whose_format_is_an_object_is_skipped_by_the_points_per_seat_check() -> None:
    from app.core.scoring import points_per_seat_problems

    settings = {"stages": [{"format": {}}, {"format": ["free_for_all"]}], "scoring": {"scheme": "wdl"}}
    assert points_per_seat_problems(settings, 4) == []  # the format itself is the settings check's 422
