"""BATTLEBOOKS Swiss presets: rounds by player count, the hero rule, blind packs, score cards."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.core.errors import InvalidInput, RuleViolation
from app.core.event_settings import GameLimits, fill_defaults, validate
from app.core.games import battlebooks as bb
from app.core.presets import resolve
from app.core.results import ReportedSeat, normalize
from app.core.scoring import GameResult, SeatResult, score_game, scoring_config
from app.core.standings import settings_problems

BOOKS = ("Wolverine", "Captain America")


def test_game_rounds_by_player_count() -> None:
    assert [bb.game_rounds(n) for n in (8, 9, 16, 17, 24, 25, 32, 33)] == [2, 3, 3, 4, 4, 5, 5, 6]
    assert [bb.roll_call_games(n) for n in (8, 9, 16, 17, 24)] == [6, 9, 9, 12, 12]
    assert bb.game_rounds(4) == 2  # ruling: fewer than 8 (not sanctioned) plays as 8
    assert bb.stage_rounds("battlebooks-clash", 9) == 10  # 3 game rounds + Final Battle
    assert bb.stage_rounds("battlebooks-secret-wars", 17) == 13
    assert bb.stage_rounds("battlebooks-roll-call", 8) == 7  # 6 games + Final Battle


def test_positions_blocks_and_final_battle() -> None:
    ps = [bb.position(i, 7, 3) for i in range(7)]
    assert [(p.block_no, p.game) for p in ps[:6]] == [(1, 1), (1, 2), (1, 3), (2, 1), (2, 2), (2, 3)]
    assert ps[6].final and not any(p.final for p in ps[:6])
    assert not bb.position(5, 6, 3).final  # rounds a multiple of the block: no Final Battle
    assert bb.position(6, 7, 1).final and not bb.position(5, 7, 1).final


def test_presets_are_valid_settings() -> None:
    limits = GameLimits("battlebooks", 2, 8)
    for name in bb.PRESETS:
        settings = fill_defaults(resolve(name, None), limits)
        validate(settings, limits, settings_problems)
        assert settings["scoring"] == {"scheme": "wdl", "win": 5, "draw": 2, "loss": 0, "bye": 5}
        assert settings["stages"][0]["pairing"] == "adjacent"
        assert settings["sanctioned"] is True and settings["rated"] is True
    with pytest.raises(InvalidInput) as e:
        validate(fill_defaults(resolve("battlebooks-secret-wars", {"catalog": ["A", "A"]}), limits), limits)
    assert e.value.problems[0].loc == ("settings", "catalog")


# --------------------------------------------------------------------------- scoring: the seed's example


def test_seed_example_5_plus_8_vs_0_minus_8() -> None:
    """A beats B; A's hero has 21 body points, B's 29 → A 5/+8, B 0/−8."""
    report = normalize(
        ["A", "B"],
        "played",
        [ReportedSeat("A", place=1, body_points=21), ReportedSeat("B", place=2, body_points=29)],
    )
    config = scoring_config(bb.PRESETS["battlebooks-clash"])
    game = GameResult(
        "m1",
        1,
        "played",
        tuple(SeatResult(s.entry_id, s.place, s.score, s.differential) for s in report.seats),
    )
    scored = score_game(game, config)
    assert scored is not None
    cards = {s.entry_id: bb.score_text(s.points, s.differential) for s in scored.seats}
    assert cards == {"A": "5/+8", "B": "0/-8"}


def test_draw_timeout_and_bye_scores() -> None:
    config = scoring_config(bb.PRESETS["battlebooks-clash"])
    for outcome in ("draw", "timeout"):
        r = normalize(
            ["A", "B"], outcome, [ReportedSeat("A", body_points=3), ReportedSeat("B", body_points=9)]
        )
        g = GameResult(
            "m", 1, outcome, tuple(SeatResult(s.entry_id, s.place, None, s.differential) for s in r.seats)
        )
        scored = score_game(g, config)
        assert scored is not None
        assert [(s.points, s.differential) for s in scored.seats] == [(2, 0), (2, 0)]
    bye = score_game(GameResult("b", 1, "bye", (SeatResult("A", 1, None),)), config)
    assert bye is not None and [(s.points, s.differential) for s in bye.seats] == [(5, 0)]


def test_a_differential_that_contradicts_the_winner_or_the_other_seat_is_refused() -> None:
    """The differential goes + to the winner and − to the loser, and is one gap for both seats: an
    explicit one against the winner's sign, against the other seat, against the body points, or
    not 0 in a draw, is refused — never re-signed."""

    def report(outcome: str, *seats: ReportedSeat) -> list[float | None]:
        return [s.differential for s in normalize(["A", "B"], outcome, list(seats)).seats]

    def refused(outcome: str, *seats: ReportedSeat) -> list[tuple[str | int, ...]]:
        with pytest.raises(InvalidInput) as e:
            normalize(["A", "B"], outcome, list(seats))
        return [p.loc for p in e.value.problems]

    # given on one seat: the other seat's is its opposite
    assert report("played", ReportedSeat("A", 1, differential=8), ReportedSeat("B", 2)) == [8, -8]
    assert report("played", ReportedSeat("A", 2, differential=-8), ReportedSeat("B", 1)) == [-8, 8]
    assert report("played", ReportedSeat("A", 1, differential=8), ReportedSeat("B", 2, differential=-8)) == [
        8,
        -8,
    ]
    # the winner's sign
    assert refused("played", ReportedSeat("A", 1, differential=-8), ReportedSeat("B", 2)) == [
        ("seats", 0, "differential")
    ]
    assert refused("played", ReportedSeat("A", 1), ReportedSeat("B", 2, differential=8)) == [
        ("seats", 1, "differential")
    ]
    # the other seat
    assert refused("played", ReportedSeat("A", 1, differential=8), ReportedSeat("B", 2, differential=-5)) == [
        ("seats", 1, "differential")
    ]
    # the body points
    both = ReportedSeat("A", 1, body_points=21, differential=5), ReportedSeat("B", 2, body_points=29)
    assert refused("played", *both) == [("seats", 0, "differential")]
    exact = ReportedSeat("A", 1, body_points=21, differential=8), ReportedSeat("B", 2, body_points=29)
    assert report("played", *exact) == [8, -8]
    # a draw, a time-out, a shared place: 0
    for outcome in ("draw", "timeout"):
        assert refused(outcome, ReportedSeat("A", differential=3), ReportedSeat("B")) == [
            ("seats", 0, "differential")
        ]
        assert report(outcome, ReportedSeat("A", differential=0), ReportedSeat("B")) == [0, 0]
    assert refused("played", ReportedSeat("A", 1, differential=2), ReportedSeat("B", 1)) == [
        ("seats", 0, "differential")
    ]


# --------------------------------------------------------------------------- the hero rule


def test_hero_rule_game_two_takes_the_other_book() -> None:
    assert bb.check_hero("Ann", BOOKS, "Wolverine", 1, {}) == "Wolverine"
    assert bb.check_hero("Ann", BOOKS, None, 2, {1: "Wolverine"}) == "Captain America"  # filled in
    with pytest.raises(RuleViolation) as e:
        bb.check_hero("Ann", BOOKS, "Wolverine", 2, {1: "Wolverine"})
    assert e.value.rule == bb.RULE_OTHER
    # game 3 and the Final Battle: either book
    for hero in BOOKS:
        assert bb.check_hero("Ann", BOOKS, hero, 3, {1: "Wolverine", 2: "Captain America"}) == hero
        assert bb.check_hero("Ann", BOOKS, hero, None, {}) == hero
    # a correction of game 1 is checked against game 2
    with pytest.raises(RuleViolation):
        bb.check_hero("Ann", BOOKS, "Captain America", 1, {2: "Captain America", 3: "Wolverine"})


def test_hero_rule_books_and_naming() -> None:
    with pytest.raises(RuleViolation) as e:
        bb.check_hero("Ann", BOOKS, "Hulk", 1, {})
    assert e.value.rule == bb.RULE_BOOK
    with pytest.raises(RuleViolation) as e:
        bb.check_hero("Ann", BOOKS, None, 1, {})
    assert e.value.rule == bb.RULE_NAMED
    assert bb.check_hero("Ann", BOOKS, None, 1, {}, required=False) is None  # a forfeit names none
    assert bb.check_hero("Ann", BOOKS, "Wolverine", 2, {1: None}) == "Wolverine"  # after a bye
    assert bb.check_one_hero("Ann", ["Thor"], None) == "Thor"
    with pytest.raises(RuleViolation) as e:
        bb.check_one_hero("Ann", ["Thor"], "Hulk")
    assert e.value.rule == bb.RULE_ONE


def test_registration_problems() -> None:
    entries = [("e1", "Ann", ["A", "B"]), ("e2", "Bob", ["A"]), ("e3", "Cy", [])]
    clash = bb.registration_problems("battlebooks-clash", entries)
    assert [p.loc[1] for p in clash] == ["e2", "e3"]
    roll = bb.registration_problems("battlebooks-roll-call", entries)
    assert [p.loc[1] for p in roll] == ["e1", "e3"]


# --------------------------------------------------------------------------- blind packs


@given(books=st.integers(2, 14), data=st.data())
def test_packs_are_distinct_pairs_of_two_books(books: int, data: st.DataObject) -> None:
    catalog = [f"Book {i}" for i in range(books)]
    players = data.draw(st.integers(1, bb.pack_count(books)))
    packs = bb.draw_packs(catalog, players, "seed-x")
    assert len(packs) == players
    assert all(a != b and a in catalog and b in catalog for a, b in packs)
    assert len({frozenset(p) for p in packs}) == players
    assert packs == bb.draw_packs(catalog, players, "seed-x")  # deterministic from the seed


def test_packs_depend_on_the_seed_and_refuse_a_small_catalog() -> None:
    catalog = list(bb.SAMPLE_CATALOG)
    assert bb.draw_packs(catalog, 20, "a") != bb.draw_packs(catalog, 20, "b")
    with pytest.raises(InvalidInput) as e:
        bb.draw_packs(["A", "B", "C", "D"], 7, "s")  # 4 books make 6 packs
    assert e.value.problems[0].loc == ("settings", "catalog")
    assert "6 different packs" in e.value.problems[0].msg


# --------------------------------------------------------------------------- score cards


def _game(index: int, points: float | None, diff: float | None, result: str | None = "win") -> bb.CardGame:
    return bb.CardGame(
        round=index + 1,
        stage=0,
        index=index,
        table=1,
        status="confirmed" if points is not None else "pending",
        outcome="played",
        opponent_id="o",
        opponent="Opp",
        hero="Wolverine",
        opponent_hero="Thor",
        points=points,
        differential=diff,
        result=result,
        first_token=index % 2 == 0,
    )


def test_score_card_running_totals_and_round_scores() -> None:
    games = [_game(0, 5, 8), _game(1, 0, -3), _game(2, 2, 0), _game(3, 5, 1), _game(4, 5, 2), _game(5, 0, -4)]
    games.append(_game(6, 5, 6))
    card = bb.score_card(games, {0: 7}, 3, 15, None)
    assert [r.total_points for r in card.rows] == [5, 5, 7, 12, 17, 17, 22]
    assert [r.total_differential for r in card.rows] == [8, 5, 5, 6, 8, 4, 10]
    assert [(r.game_round, r.points, r.differential, r.complete) for r in card.rounds] == [
        (1, 7, 5, True),
        (2, 10, -1, True),
    ]
    assert card.final_battle is card.rows[-1] and card.final_battle.label == "Final Battle"
    assert card.final_battle.minutes is None and card.rows[0].minutes == 15
    assert card.rows[1].label == "Round 1 · Game 2" and card.rows[1].score == "0/-3"
    # the final score is all round scores plus the Final Battle
    assert card.total_points == sum(r.points for r in card.rounds) + 5


def test_score_card_with_a_pending_game() -> None:
    card = bb.score_card([_game(0, 5, 8), _game(1, None, None, None)], {0: 7}, 3, 15, 20)
    assert card.rounds[0].complete is False and card.rows[1].score is None
    assert card.total_points == 5


def test_the_final_score_is_the_rounds_plus_the_final_battle_and_a_playoff_game_is_shown_apart() -> None:
    """ "Round 1 Score + Round 2 Score + Final Battle is the Final Score"; a playoff game decides the
    winner among those still tied on that score and is not part of it."""
    games = [_game(i, 2, 0, "draw") for i in range(6)] + [_game(6, 2, 0, "draw")]
    playoff = [
        dataclasses.replace(_game(7, 5, 4), stage=1, index=0),
        dataclasses.replace(_game(8, 0, -1, "loss"), stage=1, index=1),
    ]
    card = bb.score_card(games + playoff, {0: 7}, 3, 15, None)
    assert [r.label for r in card.rows] == [
        *(f"Round {b} · Game {g}" for b in (1, 2) for g in (1, 2, 3)),
        "Final Battle",
    ]
    assert (card.total_points, card.total_differential) == (14, 0)
    assert card.total_points == sum(r.points for r in card.rounds) + card.final_battle.points
    assert [(r.label, r.points, r.total_points, r.total_differential) for r in card.playoff] == [
        ("Playoff", 5, 5, 4),
        ("Playoff", 0, 5, 3),
    ]


@pytest.mark.parametrize("hero", BOOKS)
def test_game_3_after_a_bye_forfeit_or_void_in_game_1_or_2_takes_either_book(hero: str) -> None:
    # battlebooks.md, Clash, heroes: game 3 "with either of the two played"; the ruling: a game 1 or 2 that
    # was a bye, a forfeit or a void played no book, so game 3 may use either of the two
    for other in BOOKS:
        assert bb.check_hero("Ann", BOOKS, hero, 3, {1: None, 2: other}) == hero  # a bye in game 1
        assert bb.check_hero("Ann", BOOKS, hero, 3, {1: other, 2: None}) == hero  # a bye in game 2
    assert bb.check_hero("Ann", BOOKS, hero, 3, {1: None, 2: None}) == hero
    # and game 2 after a bye in game 1 is free as well; the rule still forces it after a played game 1
    assert bb.check_hero("Ann", BOOKS, hero, 2, {1: None}) == hero
    other = next(b for b in BOOKS if b != hero)
    with pytest.raises(RuleViolation) as e:
        bb.check_hero("Ann", BOOKS, hero, 2, {1: hero})
    assert e.value.rule == bb.RULE_OTHER and other in e.value.detail


def test_a_preset_belongs_to_the_games_its_declaration_names() -> None:
    # battlebooks.md "World rankings": a preset belongs to its game; the relation is read from
    # the game declarations (registry.GAMES), one row per declared preset
    from app.core import presets
    from app.core.games import registry

    for game in registry.GAMES:
        for name in game.presets:
            assert registry.PRESET_GAMES.get(name, ()) == game.events_of
    assert registry.PRESET_GAMES["battlebooks-clash"] == ("battlebooks",)
    assert registry.PRESET_GAMES["battlebooks-battle-royal"] == ("battlebooks",)
    assert presets.suits("battlebooks-clash", "battlebooks") and not presets.suits(
        "battlebooks-clash", "generic"
    )
    assert presets.suits("bga-round-robin", "seasons") and presets.suits("generic", "battlebooks")
    (problem,) = presets.game_problems("wbc-hmwp", "battlebooks")
    assert problem.loc == ("game",) and "'titan-the-arena'" in problem.msg
