"""Elo for 2 and N seats, pools, clamping, titles, rating periods and a seat's result as rated
(app/core/ratings.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.ratings import (
    CharacterGame,
    PoolConfig,
    PoolPlan,
    PoolState,
    RatedGame,
    config_settings,
    expectation,
    game_deltas,
    pool_config,
    pool_plan,
    rate_characters,
    rate_games,
    rate_stream,
    rated_places,
    seat_outcome,
    seed_settings,
    settings_problems,
    title,
)

K32 = PoolConfig()


def g(mid: str, *players: str, places: tuple[int | None, ...] | None = None, **kw: object) -> RatedGame:
    places = places if places is not None else tuple(range(1, len(players) + 1))
    return RatedGame(mid, tuple(players), places, **kw)  # type: ignore[arg-type]


def test_equal_players_k32_winner_gains_16() -> None:
    run = rate_games([g("m1", "a", "b")], K32)
    assert run.ratings == {"a": 1516.0, "b": 1484.0}
    assert run.games == {"a": 1, "b": 1}
    assert [(h.player_id, h.before, h.after) for h in run.history] == [
        ("a", 1500.0, 1516.0),
        ("b", 1500.0, 1484.0),
    ]


def test_expectation_and_upset() -> None:
    # 1600 vs 1400: E = 1 / (1 + 10^(-200/400)) = 0.75975 (hand-checked)
    assert expectation(1600, 1400) == pytest.approx(0.7597469, abs=1e-7)
    run = rate_games([g("m1", "low", "high")], K32, {"low": 1400, "high": 1600})
    assert run.ratings["low"] == pytest.approx(1400 + 32 * 0.7597469, abs=1e-6)  # 1424.31
    assert run.ratings["high"] == pytest.approx(1600 - 32 * 0.7597469, abs=1e-6)  # 1575.69


def test_draw_and_timeout_rate_as_draws_whatever_the_places() -> None:
    for outcome in ("draw", "timeout"):
        run = rate_games([g("m1", "a", "b", places=(1, 2), outcome=outcome)], K32, {"a": 1600, "b": 1400})
        assert run.ratings["a"] == pytest.approx(1600 + 32 * (0.5 - 0.7597469), abs=1e-6)  # 1591.69
        assert run.ratings["b"] == pytest.approx(1400 + 32 * (0.5 - 0.2402531), abs=1e-6)  # 1408.31


def test_three_player_table_pairwise_with_k_over_n_minus_1() -> None:
    run = rate_games([g("m1", "a", "b", "c")], K32)
    # a beats 2 (expected 1): +32/2 * 1 = +16; b 1 of 2: 0; c: -16
    assert run.ratings == {"a": 1516.0, "b": 1500.0, "c": 1484.0}
    tied = rate_games([g("m1", "a", "b", "c", places=(1, 1, 3))], K32)
    assert tied.ratings == {"a": 1508.0, "b": 1508.0, "c": 1484.0}


def test_four_player_deltas_sum_to_zero_with_equal_k() -> None:
    deltas = game_deltas([1700, 1500, 1450, 1300], [2, 1, 4, 3], [24, 24, 24, 24], draw=False)
    assert sum(deltas) == pytest.approx(0, abs=1e-9)
    assert deltas[1] > 0 and deltas[0] < 0


def test_clamping_to_0_and_3000() -> None:
    run = rate_games([g("m1", "a", "b"), g("m2", "c", "d")], K32, {"a": 2990, "b": 2990, "c": 5, "d": 5})
    assert run.ratings["a"] == 3000.0  # 3006 clamped
    assert run.ratings["b"] == 2974.0
    assert run.ratings["d"] == 0.0  # -11 clamped
    assert run.ratings["c"] == 21.0


def test_titles_by_threshold() -> None:
    assert [title(r) for r in (0, 1499.9, 1500, 1999.9, 2000, 2499, 2500, 3000)] == [
        None,
        None,
        "novice",
        "novice",
        "intermediate",
        "intermediate",
        "expert",
        "expert",
    ]


def test_k_schedule_by_games_played() -> None:
    cfg = pool_config({"k": [[1, 40], [None, 20]]})
    assert (cfg.k_for(0), cfg.k_for(1), cfg.k_for(50)) == (40, 20, 20)
    run = rate_games([g("m1", "a", "b"), g("m2", "a", "c")], cfg)
    # game 1 with K 40: a 1520, b 1480; game 2: a has played 1 game (K 20), c none (K 40)
    e = expectation(1520, 1500)
    assert run.ratings["a"] == pytest.approx(1520 + 20 * (1 - e))
    assert run.ratings["c"] == pytest.approx(1500 + 40 * (0 - (1 - e)))


def test_period_event_rates_against_ratings_at_event_start() -> None:
    games = [g("m1", "a", "b", period="E1"), g("m2", "a", "c", period="E1"), g("m3", "a", "b", period="E2")]
    by_game = rate_games(games[:2], K32)
    assert by_game.ratings["a"] == pytest.approx(1516 + 32 * (1 - expectation(1516, 1500)))  # 1531.26
    cfg = pool_config({"period": "event"})
    run = rate_games(games, cfg)
    after_e1 = 1532.0  # +16 +16, both against 1500
    hist = [(h.match_id, h.player_id, h.before, h.after) for h in run.history]
    assert hist[:4] == [
        ("m1", "a", 1500, 1516),
        ("m1", "b", 1500, 1484),
        ("m2", "a", 1516, 1532),
        ("m2", "c", 1500, 1484),
    ]
    # the next event starts from the ratings after E1
    assert run.ratings["a"] == pytest.approx(after_e1 + 32 * (1 - expectation(after_e1, 1484)))


def test_forfeits_voids_byes_and_missing_places() -> None:
    games = [
        g("f", "a", "b", outcome="forfeit"),
        g("v", "a", "b", outcome="void"),
        g("bye", "a", places=(1,), outcome="bye"),
        g("one", "a", places=(1,)),
        g("nop", "a", "b", places=(1, None)),
    ]
    assert rate_games(games, K32).history == []
    forfeits = pool_config({"rate_forfeits": True})
    run = rate_games(games, forfeits)
    assert [h.match_id for h in run.history] == ["f", "f"]
    assert run.ratings == {"a": 1516.0, "b": 1484.0}


def test_masked_seats_are_not_changed() -> None:
    run = rate_games([g("m1", "a", "b", rated=(True, False))], K32)
    assert run.ratings == {"a": 1516.0, "b": 1500.0}
    assert [h.player_id for h in run.history] == ["a"]


def test_settings_validation_lists_every_problem() -> None:
    assert settings_problems({"k": 24, "start": 1200, "min": 100, "max": 2800, "period": "event"}) == []
    assert settings_problems({"k": [[30, 40], [None, 20]], "rate_forfeits": True}) == []
    locs = [loc for loc, _ in settings_problems({"k": [[30, 40], [20, 10]], "period": "x", "foo": 1})]
    assert ("foo",) in locs and ("period",) in locs and ("k", 1, 0) in locs
    assert settings_problems({"k": -1})[0][0] == ("k",)
    assert settings_problems({"min": 10, "max": 5})[0][0] == ("max",)
    assert settings_problems({"start": 4000})[0][0] == ("start",)
    assert settings_problems([]) == [((), "must be an object")]
    assert config_settings(pool_config({})) == {
        "k": 32.0,
        "start": 1500.0,
        "min": 0.0,
        "max": 3000.0,
        "period": "game",
        "rate_forfeits": False,
    }


def test_pool_plans() -> None:
    assert pool_plan("seasons", None, {"rated": False}) is None
    assert pool_plan("seasons", None, {}) is None
    assert pool_plan("seasons", None, {"rated": True}) == PoolPlan("seasons", None)
    assert pool_plan("seasons", None, {"rated": True, "rating": {"pool": "league"}}) == PoolPlan(
        "league", None
    )
    both = pool_plan("battlebooks", None, {"rated": True, "rating": {"per_character": True}})
    assert both == PoolPlan("battlebooks", "battlebooks")
    assert both.keys_for(["Elf", None, "Orc", "Elf"]) == ["battlebooks", "battlebooks:Elf", "battlebooks:Orc"]
    roll_call = pool_plan("battlebooks", "battlebooks-roll-call", {"rated": True})
    assert roll_call == PoolPlan(None, "battlebooks")
    assert pool_plan("battlebooks", None, {"rated": True, "rating": {"pools": "character"}}) == roll_call
    forced = pool_plan(
        "battlebooks", "battlebooks-roll-call", {"rated": True, "rating": {"pools": "overall"}}
    )
    assert forced == PoolPlan("battlebooks", None)
    assert seed_settings({"rating": {"k": 24, "period": "event", "pool": "x"}}) == {
        "k": 24,
        "period": "event",
    }


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 5), st.integers(0, 5), st.sampled_from([(1, 2), (2, 1), (1, 1)]), st.booleans()
        ),
        min_size=1,
        max_size=40,
    ),
    st.sampled_from([((None, 32.0),), ((3, 40.0), (None, 16.0))]),
)
def test_fast_two_seat_path_matches_the_general_formula(
    raw: list[tuple[int, int, tuple[int, int], bool]], schedule: tuple[tuple[int | None, float], ...]
) -> None:
    cfg = PoolConfig(k_schedule=schedule)
    games = [(i, None, (a, b), places, None, draw) for i, (a, b, places, draw) in enumerate(raw) if a != b]
    state = PoolState([1500.0] * 6, [0] * 6)
    hist = rate_stream(games, cfg, state)
    # the same games one by one through game_deltas (N-seat formula with N = 2)
    ratings = [1500.0] * 6
    played = [0] * 6
    expected_after = []
    for _, _, (a, b), places, _, draw in games:
        d = game_deltas([ratings[a], ratings[b]], places, [cfg.k_for(played[a]), cfg.k_for(played[b])], draw)
        for p, delta in ((a, d[0]), (b, d[1])):
            ratings[p] = min(3000.0, max(0.0, ratings[p] + delta))
            played[p] += 1
            expected_after.append(ratings[p])
    assert list(hist.after) == expected_after
    assert state.ratings == ratings and state.games == played


@settings(max_examples=30, deadline=None)
@given(st.lists(st.permutations(["a", "b", "c", "d"]), min_size=1, max_size=10))
def test_rating_is_conserved_at_equal_k_without_clamping(orders: list[list[str]]) -> None:
    run = rate_games([g(f"m{i}", *o) for i, o in enumerate(orders)], K32)
    assert sum(run.ratings.values()) == pytest.approx(4 * 1500.0)


def test_hero_pools_count_the_opponent_in_the_pool_of_the_hero_they_played() -> None:
    # battlebooks.md "World rankings", the ruling on per-hero pools
    games = [
        CharacterGame("m1", ("Ada", "Cy"), ("Elf", "Elf"), (1, 2)),
        CharacterGame("m2", ("Ada", "Bob"), ("Elf", "Orc"), (1, 2)),
        CharacterGame("m3", ("Bob", "Dee"), ("Orc", None), (1, 2)),  # Dee named no hero: not rated
    ]
    run = rate_characters(games, {"Elf": PoolConfig(), "Orc": PoolConfig(k_schedule=((None, 16.0),))})
    elf, orc = run.pools["Elf"], run.pools["Orc"]
    rating = {c: dict(zip(p.players, p.state.ratings, strict=True)) for c, p in run.pools.items()}
    e = expectation(1516, 1500)
    assert rating["Elf"] == {"Ada": 1516 + 32 * (1 - e), "Cy": 1484.0}
    bob = 1500 - 16 * (1 - e)  # against Ada at her Elf 1516, with the Orc pool's own K
    assert rating["Orc"]["Bob"] == bob + 16 * (1 - expectation(bob, 1500))
    assert run.match_ids == ["m1", "m2", "m3"]
    assert list(elf.history.game) == [0, 0, 1] and list(orc.history.game) == [1, 2]
    # one hero's games alone are the plain pool's
    plain = rate_games([RatedGame("m1", ("Ada", "Cy"), (1, 2))], PoolConfig())
    assert rating["Elf"]["Cy"] == plain.ratings["Cy"]


def test_a_seats_result_is_the_game_as_rated() -> None:
    def said(places: list[int | None], seat: int, draw: bool = False) -> tuple[str, int, int, int]:
        o = seat_outcome(places, seat, draw)
        return o.kind, o.place, o.shared, o.field

    assert said([1, 2], 0) == ("win", 1, 1, 2) and said([1, 2], 1) == ("loss", 2, 1, 2)
    assert said([1, 1], 1) == ("draw", 1, 2, 2) and said([1, 2], 1, draw=True) == ("draw", 1, 2, 2)
    # a bigger table: the place after those above, shared places counted
    assert said([3, 1, 2, 2], 0) == ("place", 4, 1, 4) and said([3, 1, 2, 2], 2) == ("place", 2, 2, 4)
    assert said([1, 2, 3], 2, draw=True) == ("place", 1, 3, 3)
    # a violator ranks below every other seat, whatever was reported
    assert rated_places([1, 2, 3], [True, False, False]) == [2, 1, 1]
    assert said(rated_places([1, 2], [True, False]), 0) == ("loss", 2, 1, 2)
