"""Board Game Arena round robins: the pure rules (app/core/games/bga.py; bga-round-robin.md)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.core.errors import InvalidInput
from app.core.games import bga
from app.core.presets import resolve
from app.core.scoring import GameResult, SeatResult
from app.core.standings import EntryInfo, compute_standings, standings_config

T0 = datetime(2026, 11, 9, 0, 30, tzinfo=UTC)
GOOD = dict(bga.DEFAULT_TABLE_SETTINGS)


def test_presets_are_registered_and_valid_standings_settings() -> None:
    two = resolve("bga-round-robin", {})
    three = resolve("bga-round-robin-3p", {})
    assert two["capacity"] == 20 and two["stages"][1]["format"] == "playoff"
    cfg = standings_config(three)
    assert cfg.ranking_basis == "average" and cfg.tiebreaks == ("perfect_more_games", "head_to_head")
    assert three["violation_points"] == -0.5 and three["victim_points"] == 1


def test_plan_stages_by_entry_count() -> None:
    base = resolve("bga-round-robin", {})["stages"]
    small = bga.plan_stages(10, base)
    assert "groups" not in small[0] and small[1]["format"] == "playoff" and small[1]["best_of"] == 1
    large = bga.plan_stages(11, base)
    assert large[0]["groups"] == 2
    assert large[1]["format"] == "series" and large[1]["best_of"] == 3 and large[1]["rated"] is False
    assert large[1]["advance"] == {"group_winners": True} and large[1]["tiebreaks"] == ["tiebreak_value"]


def R(e: str, rank: int, tb: float, group: str | None = None) -> bga.Ranked:
    return bga.Ranked(e, rank, tb, group)


def test_sole_first_needs_no_final() -> None:
    d = bga.final_decision([R("a", 1, 1), R("b", 2, 9), R("c", 2, 8)])
    assert d.finalists == [] and d.winner == "a"


def test_three_way_tie_the_two_highest_values_play() -> None:
    rows = [R("a", 1, 3), R("b", 1, 7), R("c", 1, 5), R("d", 4, 10)]
    assert bga.final_decision(rows).finalists == ["b", "c"]
    # a withdrawal brings in the next in line: the third tied entry, then the next rank by value
    assert bga.final_decision(rows, ["b"]).finalists == ["c", "a"]
    assert bga.final_decision(rows, ["b", "c"]).finalists == ["a", "d"]


def test_two_tied_both_play_whatever_their_values() -> None:
    rows = [R("a", 1, 1), R("b", 1, 2), R("c", 3, 10), R("d", 3, 9)]
    assert sorted(bga.final_decision(rows).finalists) == ["a", "b"]
    # ties below first are broken by value only for a replacement
    assert bga.final_decision(rows, ["a"]).finalists == ["b", "c"]


def test_group_winners_ties_by_value_and_withdrawal_stays_in_the_group() -> None:
    rows = [R("a", 1, 2, "A"), R("b", 1, 6, "A"), R("c", 3, 9, "A"), R("x", 1, 1, "B"), R("y", 2, 11, "B")]
    assert bga.final_decision(rows, grouped=True).finalists == ["b", "x"]
    assert bga.final_decision(rows, ["b", "x"], grouped=True).finalists == ["a", "y"]


@given(st.lists(st.integers(1, 4), min_size=3, max_size=10))
def test_finalists_are_distinct_and_drawn_from_first_when_shared(ranks: list[int]) -> None:
    ranks = sorted(ranks)
    ranks = [1 + sum(1 for o in ranks if o < r) for r in ranks]  # competition ranks
    rows = [R(f"e{i}", r, float(i + 1)) for i, r in enumerate(ranks)]
    d = bga.final_decision(rows)
    first = [r for r in rows if r.rank == 1]
    if len(first) == 1:
        assert d.winner == first[0].entry_id and d.finalists == []
    else:
        assert len(set(d.finalists)) == 2
        tops = sorted(first, key=lambda r: -(r.tiebreak_value or 0))[:2]
        assert d.finalists == [r.entry_id for r in tops]


def test_deadline_places() -> None:
    assert bga.deadline_places(["a", "b"], ["a", "b"]) is None
    assert bga.deadline_places(["a", "b"], ["b"]) == [2, 1]
    assert bga.deadline_places(["a", "b"], []) == [2, 2]  # a double forfeit: no place 1


def table(t: str, minutes: int, players: tuple[str, ...] = ("a", "b", "c"), **kw: object) -> bga.BgaTable:
    settings = {**GOOD, **{k: v for k, v in kw.items() if k in GOOD}}
    return bga.BgaTable(t, T0 + timedelta(minutes=minutes), players, settings, bool(kw.get("allowed", False)))


def test_table_rules_wrong_settings_players_surplus_and_start() -> None:
    tables = [
        table("late", 30),
        table("wrong-speed", 5, speed="real time"),
        table("wrong-players", 6, players=("a", "b", "z")),
        table("early", -10),
        table("oldest", 10),
    ]
    verdicts = {v.table: v for v in bga.judge_tables(["a", "b", "c"], GOOD, T0, tables)}
    assert [t for t, v in verdicts.items() if v.counted] == ["oldest"]
    assert "speed" in verdicts["wrong-speed"].reasons[0]
    assert "wrong players" in verdicts["wrong-players"].reasons[0]
    assert "before the event started" in verdicts["early"].reasons[0]
    assert "surplus" in verdicts["late"].reasons[0]
    # the organizer's permission makes a wrong table valid; the oldest valid one counts
    allowed = bga.judge_tables(
        ["a", "b", "c"], GOOD, T0, [*tables, table("ok'd", 1, speed="x", allowed=True)]
    )
    assert [v.table for v in allowed if v.counted] == ["ok'd"]


def test_join_deadline_rulings() -> None:
    pending = [
        bga.PendingMatch("m1", ("a", "b", "c"), True),
        bga.PendingMatch("m2", ("d", "e", "f"), False),
        bga.PendingMatch("m3", ("g", "h", "i"), True),
    ]
    rulings = {r.match_id: r for r in bga.join_deadline_rulings(pending, {"m1": ["b"]})}
    assert set(rulings) == {"m1", "m2"}  # m3's table exists and everyone joined: still being played
    assert rulings["m1"].violators == ("b",) and rulings["m1"].places == (1, 3, 1)
    assert rulings["m2"].violators == ("d", "e", "f") and "not created" in rulings["m2"].reason
    with pytest.raises(InvalidInput) as err:
        bga.join_deadline_rulings(pending, {"m1": ["z"], "m9": ["a"]})
    assert {p.loc[1] for p in err.value.problems} == {"m1", "m9"}


def _g(mid: str, rnd: int, *seats: tuple[str, int]) -> GameResult:
    return GameResult(mid, rnd, "played", tuple(SeatResult(e, p, None) for e, p in seats))


def test_the_seed_head_to_head_example() -> None:
    """α, β, γ tie on average; B counts game 2 (all three tied at it) twice."""
    games = [
        _g("g1", 1, ("α", 1), ("β", 2), ("x", 3)),
        _g("g2", 2, ("γ", 1), ("α", 2), ("β", 3)),
        _g("g3", 3, ("β", 1), ("γ", 2), ("x", 3)),
        _g("g4", 4, ("x", 1), ("y", 2), ("α", 3)),
        _g("g5", 5, ("y", 1), ("x", 2), ("γ", 3)),
    ]
    cfg = standings_config(resolve("bga-round-robin-3p", {}))
    rows = compute_standings([EntryInfo(e, e) for e in ("α", "β", "γ", "x", "y")], games, cfg)
    by = {r.entry_id: r for r in rows}
    assert [r.entry_id for r in rows] == ["y", "γ", "α", "β", "x"]
    assert by["α"].tiebreaks["head_to_head"] == pytest.approx((1 + 2 * 0.5) / 3)
    assert by["β"].tiebreaks["head_to_head"] == pytest.approx((0.5 + 2 * 0 + 1) / 4)
    assert by["γ"].tiebreaks["head_to_head"] == pytest.approx((2 * 1 + 0.5) / 3)
    assert by["α"].decided_by == "head_to_head" and by["β"].decided_by == "head_to_head"


def test_table_settings_are_compared_as_the_site_shows_them() -> None:
    when = datetime(2099, 1, 1, tzinfo=UTC)
    required = {
        "variant": "adjusted game",
        "speed": ["turn-based, 1 move a day", "turn-based, 2 moves a day"],
    }
    shown = bga.BgaTable(
        "t1", when, ("a", "b", "c"), {"variant": "Adjusted  Game", "speed": "Turn-based, 2 moves a day"}
    )
    wrong = bga.BgaTable("t2", when, ("a", "b", "c"), {"variant": "Standard"})
    verdicts = bga.judge_tables(["a", "b", "c"], required, None, [shown, wrong])
    assert verdicts[0].counted and not verdicts[1].counted
    assert (
        verdicts[1].reasons[0]
        == "speed is not given, the event allows 'turn-based, 1 move a day' or 'turn-based, 2 moves a day'"
    )
    assert "'Standard'" in verdicts[1].reasons[1] and "'adjusted game'" in verdicts[1].reasons[1]
