"""Strategic Titan record keeper: one caught violation and one legal case per rule of sections 4-8."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.core.errors import InvalidInput, RuleViolation
from app.core.games.strategic_titan import ReplayResult, adjudicate_match, replay
from tests.support.strategic_titan import P4, enc, four_player_game, mv, split, start

P2 = ["Ann", "Bob"]


def run(events: list[dict[str, Any]], players: list[str] = P2, **start_kw: Any) -> ReplayResult:
    return replay(players, None, [start(len(players), **start_kw), *events])


def ok(res: ReplayResult) -> dict[str, Any]:
    assert res.valid, res.violation
    return {p["name"]: p for p in res.state.to_dict()["players"]}


def broken(res: ReplayResult, rule: str, index: int | None = None) -> dict[str, Any]:
    assert not res.valid and res.violation is not None, "expected a violation"
    assert res.violation.rule == rule, res.violation
    if index is not None:
        assert res.violation.index == index
    assert res.violation.message and "\n" not in res.violation.message
    return {p["name"]: p for p in res.state.to_dict()["players"]}


def rules(player: dict[str, Any], fld: str = "mulligans") -> list[tuple[str, int | None]]:
    return [(e["rule"], e["change"]) for e in player["ledger"] if e["field"] == fld and e["index"]]


# --- section 4: movement numbers ---------------------------------------------------------------
def test_4_2_a_number_of_the_last_two_turns_is_rejected_and_state_is_before_it() -> None:
    res = run([mv("Ann", 3), mv("Bob", 1), mv("Ann", 3)])
    players = broken(res, "4.2", index=3)
    assert "3" in res.violation.message  # type: ignore[union-attr]
    assert players["Ann"]["movement_numbers"] == [3] and res.state.events_applied == 3
    assert res.state.to_dict() == run([mv("Ann", 3), mv("Bob", 1)]).state.to_dict()
    json.dumps(res.to_dict())


def test_4_2_a_number_three_turns_back_is_legal() -> None:
    events = [
        mv("Ann", 3),
        mv("Bob", 1),
        mv("Ann", 4),
        mv("Bob", 2),
        mv("Ann", 5),
        mv("Bob", 6),
        mv("Ann", 3),
    ]
    assert ok(run(events))["Ann"]["movement_numbers"] == [3, 4, 5, 3]
    broken(run([mv("Ann", 3), mv("Bob", 1), mv("Ann", 4), mv("Bob", 2), mv("Ann", 3)]), "4.2")


def test_4_7_pass_only_with_a_single_titan_legion_and_may_repeat() -> None:
    players = ok(run([mv("Ann", "pass"), mv("Bob", 2), mv("Ann", "pass"), mv("Bob", 3), mv("Ann", "pass")]))
    assert players["Ann"]["movement_numbers"] == ["pass"] * 3
    broken(run([*split("Ann"), mv("Ann", "pass")]), "4.7", index=2)


def test_4_8_no_one_with_a_legion_in_the_centre_after_the_first_turn() -> None:
    first = [mv("Ann", 1, centre=1), mv("Bob", 2)]  # the first turn is exempt
    ok(run(first))
    broken(run([mv("Ann", 2, centre=1), mv("Bob", 2), mv("Ann", 1)]), "4.8", index=3)
    ok(run([mv("Ann", 2, centre=1), mv("Bob", 2), mv("Ann", 1, centre_blocked=True)]))
    ok(run([mv("Ann", 2, centre=1), mv("Bob", 2), mv("Ann", 1, centre=0)]))


def test_turn_order_is_kept() -> None:
    broken(run([mv("Ann", 3), mv("Ann", 4)]), "3.2", index=2)
    ok(run([mv("Bob", 3), mv("Ann", 4)], order=["Bob", "Ann"]))


# --- section 5: Towers -------------------------------------------------------------------------
def test_5_1_teleport_needs_a_six_and_a_tower() -> None:
    broken(run([mv("Ann", 5), {"type": "teleport", "player": "Ann", "to": 300}]), "5.1")
    broken(run([mv("Ann", 6), {"type": "teleport", "player": "Ann", "to": 35}]), "5.1")
    players = ok(run([mv("Ann", 6), {"type": "teleport", "player": "Ann", "to": 300}]))
    assert players["Ann"]["towers"] == [100, 300]


def test_5_2_no_warlock_after_a_first_move_teleport() -> None:
    tele = [mv("Ann", 6), {"type": "teleport", "player": "Ann", "to": 300}]
    broken(run([*tele, {"type": "recruit", "player": "Ann", "creature": "Warlock"}]), "5.2")
    later = [mv("Ann", 6), {"type": "teleport", "player": "Ann", "to": 300, "first_move": False}]
    ok(run([*later, {"type": "recruit", "player": "Ann", "creature": "Warlock"}]))


def test_5_3_not_the_same_tower_twice_in_a_row_starting_tower_counts() -> None:
    broken(run([mv("Ann", 6), {"type": "stop", "player": "Ann", "tower": 100}]), "5.3")
    events = [
        mv("Ann", 6),
        {"type": "stop", "player": "Ann", "tower": 300},
        mv("Bob", 3),
        mv("Ann", 5),
    ]
    broken(run([*events, {"type": "stop", "player": "Ann", "tower": 300}]), "5.3", index=5)
    assert ok(run([*events, {"type": "stop", "player": "Ann", "tower": 100}]))["Ann"]["towers"] == [
        100,
        300,
        100,
    ]


# --- section 6: legion markers -----------------------------------------------------------------
def test_6_2_no_more_legions_than_markers_and_the_12_cap() -> None:
    broken(replay(P2, {"legion_markers": 2}, [start(), *split("Ann", 2)]), "6.2", index=2)
    with pytest.raises(InvalidInput):
        replay(P2, {"legion_markers": 13}, [start()])
    # at 12 a successful defence acquires nothing, and so costs no mulligan (7.4)
    big = [
        start(options={"legion_markers": 12}),
        *split("Ann", 11),
        mv("Ann", 3),
        *split("Bob", 1),
        mv("Bob", 2),
    ]
    big += [enc("Bob", "Ann", "defended")]
    players = ok(replay(P2, None, big))
    assert players["Ann"]["legion_markers"] == 12 and players["Ann"]["mulligans"] == 6
    assert ("6.2", 0) in rules(players["Ann"], "legion_markers")
    five = [mv("Ann", 3), mv("Bob", 2), enc("Bob", "Ann", "defended", legions={"Ann": 6})]
    broken(run(five), "6.2")  # 5 markers, not 6 legions
    with pytest.raises(InvalidInput):  # never more than 12 legions: out of bounds
        replay(P2, None, [*big, enc("Bob", "Ann", "destroyed", legions={"Ann": 13})])


def test_6_3_and_6_6_markers_for_destroying_and_defending() -> None:
    events = [*split("Ann", 2), mv("Ann", 3), *split("Bob", 2), mv("Bob", 2), enc("Bob", "Ann", "destroyed")]
    players = ok(run(events))
    assert players["Bob"]["legion_markers"] == 6 and players["Ann"]["legions_on_board"] == 2
    players = ok(run([*events, enc("Bob", "Ann", "time-out")]))
    assert players["Ann"]["legion_markers"] == 6 and players["Bob"]["legions_on_board"] == 2
    players = ok(run([*events, enc("Bob", "Ann", "mutual")]))
    assert players["Bob"]["legion_markers"] == 6 and players["Ann"]["legion_markers"] == 5


def test_6_4_two_surrenders_make_one_marker() -> None:
    events = [*split("Ann", 1), mv("Ann", 3), *split("Bob", 3), mv("Bob", 2)]
    one = ok(run([*events, enc("Bob", "Ann", "surrendered")]))
    assert one["Bob"]["legion_markers"] == 5 and one["Bob"]["surrenders_received"] == 1
    two = ok(run([*events, enc("Bob", "Ann", "surrendered"), mv("Ann", 4), enc("Ann", "Bob", "surrendered")]))
    assert two["Bob"]["legion_markers"] == 5  # Ann's surrender to Bob does not count for Ann
    events += [enc("Bob", "Ann", "surrendered"), mv("Ann", 4), mv("Bob", 3), enc("Bob", "Ann", "surrendered")]
    two = ok(run(events))
    assert two["Bob"]["legion_markers"] == 6 and ("6.4", 1) in rules(two["Bob"], "legion_markers")
    broken(run([*events, enc("Bob", "Ann", "surrendered")]), "record")  # Ann has no legion left


def test_6_7_two_forfeited_attacks_make_one_marker() -> None:
    events = [*split("Ann", 2), mv("Ann", 3), *split("Bob", 2), mv("Bob", 2), enc("Bob", "Ann", "forfeited")]
    one = ok(run(events))
    assert one["Ann"]["legion_markers"] == 5 and one["Bob"]["legions_on_board"] == 2
    two = ok(run([*events, enc("Bob", "Ann", "forfeited")]))
    assert two["Ann"]["legion_markers"] == 6 and ("6.7", 1) in rules(two["Ann"], "legion_markers")
    broken(run([*events, *[enc("Bob", "Ann", "forfeited")] * 3]), "record")


# --- section 7: mulligans ----------------------------------------------------------------------
def test_7_3_gain_for_a_lost_marker_unless_still_leading() -> None:
    # Bob loses a legion but still has the most (3 vs 1): no gain
    lead = ok(
        run([mv("Ann", 3), *split("Bob", 3), mv("Bob", 2), mv("Ann", 4), enc("Ann", "Bob", "destroyed")])
    )
    assert lead["Bob"]["mulligans"] == 6 and ("7.3", 0) in rules(lead["Bob"])
    # tied for the lead after the battle: no gain
    tied = ok(
        run(
            [*split("Ann", 1), mv("Ann", 3), *split("Bob", 2), mv("Bob", 2), mv("Ann", 4)]
            + [enc("Ann", "Bob", "destroyed")]
        )
    )
    assert tied["Bob"]["mulligans"] == 6
    # behind after the battle: +1
    behind = ok(
        run(
            [*split("Ann", 3), mv("Ann", 3), *split("Bob", 2), mv("Bob", 2), mv("Ann", 4)]
            + [enc("Ann", "Bob", "destroyed")]
        )
    )
    assert behind["Bob"]["mulligans"] == 7 and ("7.3", 1) in rules(behind["Bob"])


def test_7_4_loss_for_an_acquired_marker_unless_the_laggard() -> None:
    # Ann (1 legion) destroys one of Bob's 3: Ann has the fewest legions, no loss
    lag = ok(
        run([mv("Ann", 3), *split("Bob", 2), mv("Bob", 2), mv("Ann", 4), enc("Ann", "Bob", "destroyed")])
    )
    assert lag["Ann"]["legion_markers"] == 6 and lag["Ann"]["mulligans"] == 6
    # Ann (3 legions) destroys Bob's (2 -> 1): she loses one
    lead = ok(
        run(
            [*split("Ann", 2), mv("Ann", 3), *split("Bob", 1), mv("Bob", 2), mv("Ann", 4)]
            + [enc("Ann", "Bob", "destroyed")]
        )
    )
    assert lead["Ann"]["mulligans"] == 5 and ("7.4", -1) in rules(lead["Ann"])
    # tied for fewest legions (1 and 1) with more total markers than Bob: she loses one
    tie = ok(
        run([mv("Ann", 3), *split("Bob", 1), mv("Bob", 2), mv("Ann", 4), enc("Ann", "Bob", "destroyed")])
    )
    assert tie["Ann"]["legion_markers"] == 6 and tie["Ann"]["mulligans"] == 5
    # tied for fewest legions (1, 1, 1) and for fewest markers (6, 6, 6): no loss
    three = ["Ann", "Bob", "Cy"]
    events = [*split("Ann", 2), mv("Ann", 3), *split("Bob", 1), mv("Bob", 2), enc("Bob", "Ann", "destroyed")]
    events += [mv("Cy", 4), enc("Cy", "Ann", "destroyed"), mv("Ann", 4), enc("Ann", "Bob", "destroyed")]
    tie2 = ok(run(events, players=three))
    assert [tie2[n]["legions_on_board"] for n in three] == [1, 1, 1]
    assert [tie2[n]["legion_markers"] for n in three] == [6, 6, 6]
    assert tie2["Ann"]["mulligans"] == 7 and ("7.4", 0) in rules(tie2["Ann"])


def test_7_41_a_mulligan_lost_at_each_100_point_mark_unless_last() -> None:
    pts = [
        {"type": "points", "player": "Bob", "points": 50},
        {"type": "points", "player": "Ann", "points": 120},
    ]
    players = ok(run(pts))
    assert players["Ann"]["mulligans"] == 5 and ("7.41", -1) in rules(players["Ann"])
    players = ok(run([*pts, {"type": "points", "player": "Bob", "points": 60}]))
    assert players["Bob"]["mulligans"] == 6 and ("7.41", 0) in rules(players["Bob"])  # 110 < 120
    players = ok(run([{"type": "points", "player": "Ann", "points": 250}]))
    assert players["Ann"]["mulligans"] == 4  # two marks passed at once
    later = [
        {"type": "points", "player": "Bob", "points": 300},
        {"type": "points", "player": "Ann", "points": 110},
    ]
    players = ok(run(later))
    assert players["Ann"]["mulligans"] == 6 and ("7.41", 0) in rules(players["Ann"])


def test_7_6_temporary_titan_mulligan_used_or_lost() -> None:
    base = [
        *split("Ann", 1),
        mv("Ann", 3),
        mv("Bob", 2),
        {"type": "attack", "attacker": "Bob", "defender": "Ann", "titan": True},
    ]
    used = ok(
        run([*base, {"type": "reroll", "player": "Ann", "titan": True}, enc("Bob", "Ann", "destroyed")])
    )
    assert used["Ann"]["mulligans"] == 6 and used["Ann"]["temporary_mulligan"] == 0
    assert ("7.6", -1) in rules(used["Ann"], "temporary_mulligan")
    lost = ok(run([*base, enc("Bob", "Ann", "destroyed")]))
    assert lost["Ann"]["mulligans"] == 6 and lost["Ann"]["temporary_mulligan"] == 0
    assert [e["note"] for e in lost["Ann"]["ledger"] if e["rule"] == "7.6"][-1].endswith("lost")
    # a non-Titan re-roll does not use it
    other = ok(run([*base, {"type": "reroll", "player": "Ann"}]))
    assert other["Ann"]["mulligans"] == 5 and other["Ann"]["temporary_mulligan"] == 1
    broken(run([*base, mv("Ann", 4)]), "record")  # the attack must close first


def test_7_5_cannot_spend_more_than_held() -> None:
    attack = [mv("Ann", 3), {"type": "attack", "attacker": "Ann", "defender": "Bob"}]
    broken(run([*attack, {"type": "reroll", "player": "Bob", "count": 7}]), "7.5")
    assert ok(run([*attack, {"type": "reroll", "player": "Bob", "count": 6}]))["Bob"]["mulligans"] == 0
    broken(run([*attack, {"type": "mulligan", "player": "Bob", "count": 7, "reason": "battleland"}]), "7.8")


def test_7_2_oops_retraction_costs_n_and_not_after_an_encounter() -> None:
    players = ok(
        run(
            [
                *split("Ann"),
                mv("Ann", 3),
                {"type": "retract", "player": "Ann", "what": "movement", "stacks": 2},
                mv("Ann", 4),
            ]
        )
    )
    assert players["Ann"]["mulligans"] == 4 and players["Ann"]["movement_numbers"] == [4]
    fixed = [
        mv("Ann", 3),
        {"type": "mulligan", "player": "Ann", "count": 1, "reason": "retraction"},
        mv("Ann", 3),
    ]
    assert ok(run(fixed))["Ann"]["mulligans"] == 5
    moved = [mv("Ann", 6), {"type": "stop", "player": "Ann", "tower": 300}]
    undone = ok(run([*moved, {"type": "retract", "player": "Ann", "what": "movement"}, mv("Ann", 5)]))
    assert undone["Ann"]["towers"] == [100] and ("7.2", None) in rules(undone["Ann"], "towers")
    met = [*split("Ann"), mv("Ann", 3), enc("Ann", "Bob", "forfeited")]
    broken(run([*met, {"type": "retract", "player": "Ann", "what": "movement"}]), "7.2")
    broken(run([mv("Ann", 3), {"type": "retract", "player": "Bob", "what": "movement"}]), "3.2")


def test_7_21_to_7_24_corrections_and_splits() -> None:
    corr = ok(
        run(
            [
                mv("Ann", 3),
                {"type": "mulligan", "player": "Ann", "count": 1, "reason": "correction", "number": 4},
            ]
        )
    )
    assert corr["Ann"]["movement_numbers"] == [4] and corr["Ann"]["mulligans"] == 5
    # a corrected number is checked against 4.2 too
    res = run(
        [
            mv("Ann", 3),
            mv("Bob", 2),
            mv("Ann", 4),
            {"type": "mulligan", "player": "Ann", "count": 1, "reason": "correction", "number": 3},
        ]
    )
    broken(res, "4.2")
    assert (
        ok(run([*split("Ann"), mv("Ann", 3), {"type": "retract", "player": "Ann", "what": "split"}]))["Ann"][
            "mulligans"
        ]
        == 5
    )
    broken(run([mv("Ann", 3), {"type": "retract", "player": "Ann", "what": "split"}]), "7.23")
    forgot = ok(run([mv("Ann", 3), {"type": "split", "player": "Ann", "forgotten": True}]))
    assert forgot["Ann"]["legions_on_board"] == 2 and forgot["Ann"]["mulligans"] == 5
    broken(run([mv("Ann", 3), {"type": "split", "player": "Ann"}]), "7.24")


def test_7_9_recruits_paid_with_mulligans() -> None:
    gorgon = ok(
        run([mv("Ann", 3), {"type": "recruit", "player": "Ann", "creature": "Gorgon", "mulligans": True}])
    )
    assert gorgon["Ann"]["mulligans"] == 4
    wrong = {"type": "mulligan", "player": "Ann", "count": 3, "reason": "recruit", "creature": "gorgon"}
    broken(run([mv("Ann", 3), wrong]), "7.9")
    broken(
        run([mv("Ann", 3), {"type": "recruit", "player": "Ann", "creature": "Dragon", "mulligans": True}]),
        "7.9",
    )
    broken(
        run([mv("Ann", 3), {"type": "recruit", "player": "Ann", "creature": "Ogre", "mulligans": True}]),
        "7.9",
    )


# --- section 8: resurrection -------------------------------------------------------------------
def _losses(n: int) -> list[dict[str, Any]]:
    """Ann (5 legions) loses n legions to Bob (5 legions), each +1 mulligan (7.3), then her Titan's."""
    events = [*split("Ann", 4), mv("Ann", 3), *split("Bob", 4), mv("Bob", 2)]
    events += [enc("Bob", "Ann", "destroyed")] * n
    return [*events, enc("Bob", "Ann", "destroyed", titan=True)]


def test_8_1_resurrection_exactly_at_10() -> None:
    res = run([*_losses(3), {"type": "titan_killed", "player": "Ann", "tower": 500}])
    ann = ok(res)["Ann"]
    assert ann["alive"] and ann["resurrected"] == 1 and ann["mulligans"] == 16
    assert ann["legions_on_board"] == 1 and ann["towers"][-1] == 500 and ann["legion_markers"] == 5
    assert not res.state.finished
    broken(run([*_losses(3), {"type": "titan_killed", "player": "Ann"}]), "8.2")
    res = run([*_losses(2), {"type": "titan_killed", "player": "Ann"}])
    ann = ok(res)["Ann"]
    assert not ann["alive"] and ann["mulligans"] == 9
    assert res.state.finished and res.state.places() == [2, 1]
    broken(run([*_losses(2), {"type": "titan_killed", "player": "Ann", "tower": 500}]), "8.1")


def test_double_titan_is_out_with_the_last_titan() -> None:
    battle = [start(), *split("Ann"), mv("Ann", 3), mv("Bob", 2), enc("Bob", "Ann", "destroyed", titan=True)]
    killed = {"type": "titan_killed", "player": "Ann"}
    res = replay(P2, {"titans": "double"}, [*battle, killed])
    assert ok(res)["Ann"]["alive"] and not res.state.finished
    res = replay(P2, {"titans": "double"}, [*battle, killed, killed])
    assert not ok(res)["Ann"]["alive"] and res.state.finished


# --- parsing -----------------------------------------------------------------------------------
def test_malformed_events_name_their_place() -> None:
    with pytest.raises(InvalidInput) as err:
        run(
            [mv("Ann", 7), {"type": "jump", "player": "Ann"}, mv("Zed", 3), {"type": "movement", "player": 1}]
        )
    locs = [p.loc for p in err.value.problems]
    assert locs == [
        ("events", 1, "number"),
        ("events", 2, "type"),
        ("events", 3, "player"),
        ("events", 4, "number"),
    ]
    with pytest.raises(InvalidInput) as err:
        replay(P2, None, [mv("Ann", 3)])
    assert err.value.problems[0].loc == ("events", 0, "type")
    with pytest.raises(InvalidInput):
        replay(["Ann"], None, [])
    assert replay(P2, None, []).valid


def test_an_object_or_a_list_where_a_word_or_a_tower_goes_is_named() -> None:
    events = [
        {"type": "start", "towers": [{}, 400]},
        {"type": "mulligan", "player": "Ann", "count": 1, "reason": {}},
        {"type": "encounter", "attacker": "Ann", "defender": "Bob", "outcome": []},
        {"type": "stop", "player": "Ann", "tower": {}},
    ]
    with pytest.raises(InvalidInput) as err:
        replay(P2, None, events)
    locs = [p.loc for p in err.value.problems]
    assert locs == [
        ("events", 0, "towers"),
        ("events", 1, "reason"),
        ("events", 2, "outcome"),
        ("events", 3, "tower"),
    ]


# --- a whole game ------------------------------------------------------------------------------
def test_a_whole_four_player_game() -> None:
    res = replay(P4, None, four_player_game())
    players = ok(res)
    assert res.state.finished and res.state.ended_by == "elimination"
    assert res.state.places() == [2, 1, 4, 3]
    assert players["Dee"]["towers"] == [400, 200]
    assert players["Ann"]["legion_markers"] == 7 and players["Bob"]["points"] == 160
    adj = adjudicate_match({"players": P4, "events": four_player_game()}, 4, "seed")
    assert [(s.seat, s.place) for s in adj.seats] == [(0, 2), (1, 1), (2, 4), (3, 3)]
    assert adj.outcome == "played" and adj.details["valid"]
    json.dumps(adj.details)


def test_adjudicate_match_unfinished_violation_and_called_game() -> None:
    with pytest.raises(InvalidInput, match="not finished"):
        adjudicate_match({"events": [start(), mv("Player 1", 3)]}, 2, "s")
    with pytest.raises(RuleViolation) as err:
        adjudicate_match({"events": [start(), mv(1, 3), mv(2, 1), mv(1, 3)]}, 2, "s")
    assert err.value.rule == "4.2"
    called = [start(), mv(1, 3), {"type": "points", "player": 2, "points": 30}, {"type": "end"}]
    adj = adjudicate_match({"events": called}, 2, "s")
    assert [s.place for s in adj.seats] == [2, 1]
    tie = adjudicate_match({"events": [start(), {"type": "end"}]}, 2, "s")
    assert tie.outcome == "draw"
    broken(replay(P2, None, [start(), {"type": "end"}, mv("Ann", 3)]), "record")
    with pytest.raises(InvalidInput):
        adjudicate_match({"events": []}, 3, "s") if False else adjudicate_match(
            {"players": P2, "events": []}, 3, "s"
        )


# --- issue: the rules as the FAQ words them ---------------------------------------------------
def test_4_2_counts_turns_after_3_4_pass_a_3_is_legal_and_a_4_is_not() -> None:
    """ "NOT the SAME number as either of his last TWO turns'": after 3, 4, pass the last two turns
    are 4 and a pass."""
    base = [mv("Ann", 3), mv("Bob", 1), mv("Ann", 4), mv("Bob", 2), mv("Ann", "pass"), mv("Bob", 5)]
    assert ok(run([*base, mv("Ann", 3)]))["Ann"]["movement_numbers"] == [3, 4, "pass", 3]
    broken(run([*base, mv("Ann", 4)]), "4.2", index=7)
    # two passes in a row: any number again
    passes = [mv("Ann", 3), mv("Bob", 1), mv("Ann", "pass"), mv("Bob", 2), mv("Ann", "pass"), mv("Bob", 4)]
    ok(run([*passes, mv("Ann", 3)]))


def test_7_7_a_reroll_is_demanded_only_inside_a_combat_by_a_player_in_it() -> None:
    """ "During combat … the player whose creatures are taking damage may use a mulligan to demand
    that the player inflicting damage re-roll"; the roller may answer with his own."""
    three = ["Ann", "Bob", "Cy"]
    attack = [mv("Ann", 3), {"type": "attack", "attacker": "Ann", "defender": "Bob"}]
    broken(run([mv("Ann", 3), {"type": "reroll", "player": "Bob"}], players=three), "7.7", index=2)
    broken(run([*attack, {"type": "reroll", "player": "Cy"}], players=three), "7.7", index=3)
    spent = {"type": "mulligan", "player": "Cy", "count": 1, "reason": "reroll"}
    broken(run([*attack, spent], players=three), "7.7", index=3)
    players = ok(
        run(
            [*attack, {"type": "reroll", "player": "Bob"}, {"type": "reroll", "player": "Ann"}], players=three
        )
    )
    assert players["Bob"]["mulligans"] == 5 and players["Ann"]["mulligans"] == 5


def test_7_8_the_battleland_mulligan_is_the_defenders() -> None:
    """ "The DEFENDER rolls a die to determine which battleland is used. If he is not satisfied, he
    may mulligan.\""""
    battleland = {"type": "mulligan", "count": 1, "reason": "battleland"}
    attack = [mv("Ann", 3), {"type": "attack", "attacker": "Ann", "defender": "Bob"}]
    broken(run([*attack, {**battleland, "player": "Ann"}]), "7.8", index=3)
    broken(run([mv("Ann", 3), {**battleland, "player": "Bob"}]), "7.8", index=2)
    assert ok(run([*attack, {**battleland, "player": "Bob"}]))["Bob"]["mulligans"] == 5


def test_a_titan_killed_needs_a_battle() -> None:
    """ "Should a player's Titan be killed in battle": a titan_killed follows the encounter it died in
    (or another titan_killed of it), for a player who fought there."""
    broken(run([mv("Ann", 3), {"type": "titan_killed", "player": "Ann"}]), "8.1", index=2)
    three = ["Ann", "Bob", "Cy"]
    battle = [
        mv("Ann", 3),
        *split("Bob"),
        mv("Bob", 2),
        mv("Cy", 4),
        mv("Ann", 4),
        enc("Ann", "Bob", "destroyed"),
    ]
    broken(run([*battle, {"type": "titan_killed", "player": "Cy"}], players=three), "8.1")
    broken(run([*battle, mv("Bob", 5), {"type": "titan_killed", "player": "Bob"}], players=three), "8.1")
    assert not ok(run([*battle, {"type": "titan_killed", "player": "Bob"}], players=three))["Bob"]["alive"]


def test_a_player_with_no_legion_left_is_out() -> None:
    """A player whose last legion is destroyed has lost his Titan's legion: he is out from the next
    event (a titan_killed of that battle may still resurrect him), and the game ends with one left."""
    three = ["Ann", "Bob", "Cy"]
    gone = [mv("Ann", 3), enc("Ann", "Bob", "destroyed")]
    pending = run(gone, players=three)
    assert ok(pending)["Bob"]["legions_on_board"] == 0  # a titan_killed may still follow
    res = run([*gone, mv("Cy", 2)], players=three)
    players = ok(res)
    assert not players["Bob"]["alive"] and players["Bob"]["eliminated_at"] == 2
    assert res.state.to_dict()["order"] == three and res.state.due() == 0  # Bob's turn is skipped
    broken(run([*gone, mv("Bob", 2)], players=three), "record")
    two = run([*gone, {"type": "end"}])
    assert two.state.finished and two.state.ended_by == "elimination" and two.state.places() == [1, 2]
    adj = adjudicate_match({"players": P2, "events": [start(), *gone, {"type": "end"}]}, 2, "s")
    assert [s.place for s in adj.seats] == [1, 2]


def test_mulligan_recruiting_is_in_the_players_own_turn() -> None:
    """7.9: mulligans buy a recruit "upon entering a Tower" — in the player's own turn."""
    paid = {"type": "recruit", "player": "Bob", "creature": "Gorgon", "mulligans": True}
    broken(run([mv("Ann", 3), paid]), "7.9", index=2)
    spent = {"type": "mulligan", "player": "Bob", "count": 2, "reason": "recruit", "creature": "Gorgon"}
    broken(run([mv("Ann", 3), spent]), "7.9", index=2)
    assert ok(run([mv("Ann", 3), mv("Bob", 2), paid]))["Bob"]["mulligans"] == 4
    ok(run([mv("Ann", 3), {"type": "recruit", "player": "Bob", "creature": "Gorgon"}]))  # a plain recruit


def test_7_41_is_arithmetic_marks_passed_are_floor_new_minus_floor_old() -> None:
    """One entry per score, losing ⌊new/100⌋ − ⌊old/100⌋ mulligans (no more than held): a huge
    points value costs nothing to compute."""
    players = ok(run([{"type": "points", "player": "Ann", "points": 250}]))
    assert rules(players["Ann"]) == [("7.41", -2)] and players["Ann"]["mulligans"] == 4
    players = ok(
        run(
            [
                {"type": "points", "player": "Ann", "points": 99},
                {"type": "points", "player": "Ann", "points": 2},
            ]
        )
    )
    assert rules(players["Ann"]) == [("7.41", -1)]
    huge = ok(run([{"type": "points", "player": "Ann", "points": 100_000}]))
    assert huge["Ann"]["mulligans"] == 0 and rules(huge["Ann"]) == [("7.41", -6)]
    assert "1000 100-point marks" in [e["note"] for e in huge["Ann"]["ledger"] if e["rule"] == "7.41"][0]


def test_every_number_in_a_record_is_bounded() -> None:
    """Points, counts, hexes and legions have bounds (vocabulary), named when broken; a string is
    not a number and `true` is not a count."""
    cases = [
        ({"type": "points", "player": "Ann", "points": 10**18}, "points"),
        ({"type": "points", "player": "Ann", "points": True}, "points"),
        (mv("Ann", 3, centre=13), "centre"),
        ({"type": "retract", "player": "Ann", "what": "movement", "stacks": 13}, "stacks"),
        ({"type": "reroll", "player": "Ann", "count": 10**9}, "count"),
        ({"type": "mulligan", "player": "Ann", "count": 10**9, "reason": "battleland"}, "count"),
        ({"type": "teleport", "player": "Ann", "to": 10**12}, "to"),
        (enc("Ann", "Bob", "destroyed", legions={"Bob": 13}), "legions"),
        (enc("Ann", "Bob", "destroyed", points={"Ann": 10**18}), "points"),
        (mv("1", 3), "player"),
    ]
    for event, field in cases:
        with pytest.raises(InvalidInput) as err:
            run([event])
        assert err.value.problems[0].loc == ("events", 1, field), event
    with pytest.raises(InvalidInput) as err:
        replay(P2, {"legion_markers": True}, [start()])
    assert err.value.problems[0].loc == ("options",)
    with pytest.raises(InvalidInput) as err:
        replay(P2, None, [start(), *[mv(1 + n % 2, 1 + n % 3) for n in range(10_001)]])
    assert err.value.problems[0].loc == ("events",)


def test_7_2_a_retraction_names_no_more_stacks_than_legions_on_the_board() -> None:
    # the ruling (strategic-titan.md 7.2): one legion on the board, so two stacks cannot have moved
    one = [mv("Ann", 3), {"type": "retract", "player": "Ann", "what": "movement", "stacks": 2}]
    state = broken(run(one), "7.2", index=2)
    assert state["Ann"]["mulligans"] == 6  # nothing charged
    assert ok(run([*one[:1], {**one[1], "stacks": 1}]))["Ann"]["mulligans"] == 5
    # after a split, two legions: two stacks may be retracted, three may not
    two = [*split("Ann"), mv("Ann", 3)]
    assert ok(run([*two, {**one[1], "stacks": 2}]))["Ann"]["mulligans"] == 4
    state = broken(run([*two, {**one[1], "stacks": 3}]), "7.2")
    assert (
        state["Ann"]["mulligans"] == 6
        and "2 legions on the board" in run([*two, {**one[1], "stacks": 3}]).violation.message
    )  # type: ignore[union-attr]
