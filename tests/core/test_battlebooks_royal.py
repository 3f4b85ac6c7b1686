"""Battle Royal record checker and Last Man Standing bracket arithmetic (battlebooks.md)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.errors import InvalidInput, RuleViolation
from app.core.event_settings import GameLimits, fill_defaults, validate
from app.core.games import battlebooks_royal as br
from app.core.games.registry import get_adjudicator
from app.core.pairing.elimination import single_elimination
from app.core.presets import PRESETS, resolve
from app.core.standings import standings_config


def turn(a: int, t: int, abp: float, tbp: float) -> dict[str, Any]:
    return {"attacker": a, "target": t, "attacker_body_points": abp, "target_body_points": tbp}


def play_out(seats: int, first: int, victims: list[int]) -> dict[str, Any]:
    """A legal record: each holder in token order attacks; the listed victims fall in that order
    (the holder attacks the next victim, or a living neighbour for a harmless exchange)."""
    body = [20.0] * seats
    alive = set(range(seats))
    turns: list[dict[str, Any]] = []
    holder: int | None = first
    queue = list(victims)
    while len(alive) > 1:
        assert holder is not None
        target = queue[0] if queue and queue[0] != holder else next(s for s in sorted(alive) if s != holder)
        if queue and target == queue[0]:
            body[target] = 0
            queue.pop(0)
        else:
            body[target] -= 1
        turns.append(turn(holder, target, body[holder], body[target]))
        if body[target] <= 0:
            alive.discard(target)
        holder = br.next_holder(holder, alive, seats)
    return {"first": first, "body_points": [20] * seats, "turns": turns}


def test_presets_registered_and_valid() -> None:
    game = GameLimits("battlebooks", 2, 8)
    for name in (br.LAST_MAN_STANDING, br.BATTLE_ROYAL):
        settings = fill_defaults(resolve(name, {}), game)
        assert validate(settings, game) is settings
        standings_config(settings)
        assert settings["sanctioned"] is False and settings["rated"] is False
    lms = PRESETS[br.LAST_MAN_STANDING]
    assert lms["stages"][0]["format"] == "single_elimination" and lms["stages"][0]["method"] == "draw"
    assert lms["scoring"] == {"scheme": "wdl", "win": 5, "draw": 2, "loss": 0, "bye": 5}
    royal = PRESETS[br.BATTLE_ROYAL]
    assert royal["stages"][0]["format"] == "free_for_all"
    assert (royal["min_entries"], royal["capacity"]) == (4, 8)


@pytest.mark.parametrize(
    ("players", "pairings", "byes", "games"),
    [
        (2, 1, 0, 1),
        (3, 2, 1, 2),
        (4, 2, 0, 2),
        (8, 4, 0, 3),
        (9, 8, 7, 4),
        (16, 8, 0, 4),
        (17, 16, 15, 5),
        (30, 16, 2, 5),
        (32, 16, 0, 5),
        (65, 64, 63, 7),
        (129, 128, 127, 8),
        (256, 128, 0, 8),
    ],
)
def test_last_man_standing_bracket(players: int, pairings: int, byes: int, games: int) -> None:
    ids = [f"p{i:03d}" for i in range(players)]
    bracket = single_elimination(ids, method="draw", seed="s", purpose="stage:0:bracket")
    assert bracket.pairings == pairings and bracket.byes == byes
    assert br.elimination_games(players) == games == bracket.rounds


def test_token_passes_right_skipping_the_eliminated() -> None:
    assert br.next_holder(2, {0, 1, 2, 3}, 4) == 3
    assert br.next_holder(3, {0, 1, 2, 3}, 4) == 0
    assert br.next_holder(3, {1, 3}, 4) == 1
    assert br.next_holder(1, {1}, 4) is None


def test_places_are_the_reverse_elimination_order() -> None:
    record = play_out(5, first=3, victims=[1, 4, 0, 3])
    verdict = br.check_record(br.parse_record(record, 5), 5, first_token=3)
    assert [s for _, s in verdict.eliminations] == [1, 4, 0, 3]
    # winner seat 2 first; the last eliminated 2nd; the first eliminated last
    assert verdict.places == (3, 5, 1, 2, 4)
    assert verdict.holders == (3, 4, 0, 2, 3, 2)  # clockwise from seat 3, skipping the eliminated
    adj = br.adjudicate_match(record, 5, "seed", first_token=3)
    assert [(o.seat, o.place) for o in adj.seats] == [(0, 3), (1, 5), (2, 1), (3, 2), (4, 4)]
    assert adj.details["places"] == [3, 5, 1, 2, 4]


def test_the_seed_walkthrough_by_hand() -> None:
    # 4 players, seat 1 holds the token first; clockwise 1 → 2 → 3 → 0 …
    record = {
        "body_points": [25, 30, 28, 22],
        "turns": [
            turn(1, 3, 27, 10),
            turn(2, 3, 20, 0),  # seat 3 out (4th)
            turn(0, 2, 5, 12),  # seat 3 skipped: after 2 comes 0
            turn(1, 0, 20, -2),  # seat 0 out (3rd)
            turn(2, 1, 0, 4),  # the token holder falls in their own exchange: seat 2 is 2nd
        ],
    }
    verdict = br.check_record(br.parse_record(record, 4), 4, first_token=1)
    assert verdict.holders == (1, 2, 0, 1, 2)
    assert verdict.places == (3, 1, 2, 4)
    assert verdict.body_points == (-2, 4, 0, 0)


def test_acting_after_elimination_rejected() -> None:
    record = {"body_points": [10, 10, 10, 10], "turns": [turn(0, 1, 10, 0), turn(1, 2, 10, 5)]}
    with pytest.raises(RuleViolation) as err:
        br.check_record(br.parse_record(record, 4), 4, first_token=0)
    assert err.value.rule == br.RULE_ELIMINATED and "turn 2" in err.value.message
    attacked = {"body_points": [10, 10, 10, 10], "turns": [turn(0, 1, 10, 0), turn(2, 1, 10, 5)]}
    with pytest.raises(RuleViolation) as err:
        br.check_record(br.parse_record(attacked, 4), 4, first_token=0)
    assert err.value.rule == br.RULE_ELIMINATED and "seat 1 is attacked" in err.value.message


def test_acting_out_of_turn_rejected() -> None:
    record = {"body_points": [10, 10, 10, 10], "turns": [turn(0, 1, 10, 5), turn(3, 1, 10, 5)]}
    with pytest.raises(RuleViolation) as err:
        br.check_record(br.parse_record(record, 4), 4, first_token=0)
    assert err.value.rule == br.RULE_TOKEN and "seat 1 holds the token" in err.value.message
    # the first turn belongs to the match's first token holder
    with pytest.raises(RuleViolation) as err:
        br.check_record(br.parse_record(record, 4), 4, first_token=2)
    assert err.value.rule == br.RULE_TOKEN
    with pytest.raises(RuleViolation) as err:
        br.check_record(br.parse_record({**record, "first": 0}, 4), 4, first_token=2)
    assert err.value.rule == br.RULE_FIRST


def test_other_broken_records() -> None:
    unfinished = {"body_points": [10, 10, 10, 10], "turns": [turn(0, 1, 10, 0)]}
    with pytest.raises(RuleViolation) as err:
        br.check_record(br.parse_record(unfinished, 4), 4)
    assert err.value.rule == br.RULE_UNFINISHED
    over = {"body_points": [10, 10], "turns": [turn(0, 1, 10, 0), turn(1, 0, 10, 0)]}
    with pytest.raises(RuleViolation) as err:
        br.check_record(br.parse_record(over, 2), 2)
    assert err.value.rule == br.RULE_OVER
    selfish = {"body_points": [10, 10, 10], "turns": [turn(0, 0, 10, 10)]}
    with pytest.raises(RuleViolation) as err:
        br.check_record(br.parse_record(selfish, 3), 3)
    assert err.value.rule == br.RULE_TARGET


def test_last_two_falling_together_share_first() -> None:
    record = {"body_points": [10, 10, 10], "turns": [turn(0, 1, 10, 0), turn(2, 0, 0, 0)]}
    assert br.check_record(br.parse_record(record, 3), 3).places == (1, 3, 1)


def test_malformed_records_name_the_field() -> None:
    with pytest.raises(InvalidInput) as err:
        br.parse_record(
            {"body_points": [10, 0], "turns": [{"attacker": 5, "target": "x", "extra": 1}], "x": 1}, 2
        )
    locs = {p.loc for p in err.value.problems}
    assert ("game_log", "x") in locs and ("game_log", "body_points", 1) in locs
    assert ("game_log", "turns", 0, "attacker") in locs and ("game_log", "turns", 0, "target") in locs
    assert ("game_log", "turns", 0, "extra") in locs
    assert ("game_log", "turns", 0, "attacker_body_points") in locs
    with pytest.raises(InvalidInput):
        br.parse_record([], 4)
    with pytest.raises(InvalidInput):
        br.parse_record({"body_points": [1, 2, 3], "turns": []}, 4)


def test_registered_adjudicator() -> None:
    fn = get_adjudicator("battlebooks-royal")
    record = play_out(4, first=0, victims=[2, 1, 0])
    assert [o.place for o in fn(record, 4, "seed").seats] == [2, 3, 4, 1]


@settings(max_examples=60, deadline=None)
@given(
    st.integers(4, 8).flatmap(
        lambda n: st.tuples(st.just(n), st.integers(0, n - 1), st.permutations(range(n)))
    )
)
def test_any_legal_record_places_everyone_by_reverse_elimination(case: tuple[int, int, list[int]]) -> None:
    n, first, order = case
    victims = list(order[: n - 1])
    record = play_out(n, first, victims)
    verdict = br.check_record(br.parse_record(record, n), n, first_token=first)
    assert [s for _, s in verdict.eliminations] == victims
    assert sorted(verdict.places) == list(range(1, n + 1))
    for k, seat in enumerate(victims):
        assert verdict.places[seat] == n - k
    # the token never skips a living player: each holder is the next living seat after the previous
    alive = set(range(n))
    for i, holder in enumerate(verdict.holders[1:], start=1):
        prev = verdict.holders[i - 1]
        for t, s in verdict.eliminations:
            if t == i - 1:
                alive.discard(s)
        assert holder == br.next_holder(prev, alive, n)
