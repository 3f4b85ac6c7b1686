"""Rite of Command (rite-of-command.md): catalog, dealing, replay, arming, fights, game, wagers."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.errors import InvalidInput, RuleViolation
from app.core.games import rite_of_command as roc
from app.core.games.registry import get_adjudicator

CATALOG = roc.load_catalog(
    {
        "soldiers": [
            {"name": "Shield bearer", "hands": ["any"], "power": [3, 3]},
            {"name": "Mace bearer", "hands": ["blunt", "blunt"], "power": [2, 2]},
            {
                "name": "Priest of Osiris",
                "tags": ["priest"],
                "hands": ["any"],
                "power": [6, 0],
                "condition": "vs non-priest",
            },
            {"name": "Acolyte", "tags": ["priest"], "power": [1, 1]},
            {"name": "Grunt", "power": [4, 4]},
            {"name": "Veteran", "power": [8, 8]},
            {"name": "Squire", "power": [5, 5]},
            {"name": "Charioteer", "hands": ["vehicle"], "power": [1, 1]},
            {"name": "Temple charioteer", "tags": ["priest"], "hands": ["vehicle"], "power": [1, 1]},
        ],
        "weapons": [
            {"name": "Club", "type": "blunt", "power": [2, 2]},
            {"name": "Sword", "type": "blade", "power": [3, 3]},
            {"name": "Divine Staff", "type": "blunt", "power": [1, 1]},
            {"name": "Chariot", "type": "vehicle", "power": [5, 0], "condition": "if wielder is priest"},
        ],
    }
)


def ring(*cards: tuple[str, int]) -> list[roc.Placed]:
    return [roc.Placed(name, owner) for name, owner in cards]


def resolve(*cards: tuple[str, int]) -> roc.RingVerdict:
    return roc.resolve_ring(CATALOG, ring(*cards))


def armed(verdict: roc.RingVerdict) -> list[tuple[str, list[str]]]:
    return [(a.soldier.name, [w.name for w in a.weapons]) for a in verdict.armed]


# --- the sample catalog ----------------------------------------------------------------------
def test_sample_catalog_has_every_card_the_seed_names() -> None:
    sample = roc.sample_catalog()
    for name in ["Shield bearer", "Mace bearer", "Priest of Osiris"]:
        assert name in sample.soldiers
    for name in ["Club", "Sword", "Divine Staff", "Axe", "Chariot"]:
        assert name in sample.weapons
    assert sample.soldiers["Shield bearer"].hands == ("any",)
    assert sample.soldiers["Mace bearer"].hands == ("blunt", "blunt")
    priest = sample.soldiers["Priest of Osiris"]
    assert (priest.power.when, priest.power.otherwise, str(priest.power.condition)) == (6, 0, "vs non-priest")
    chariot = sample.weapons["Chariot"]
    assert (chariot.power.when, chariot.power.otherwise) == (5, 0)
    assert str(chariot.power.condition) == "if wielder is priest"
    assert [sample.weapons[w].type for w in ("Club", "Sword", "Divine Staff")] == ["blunt", "blade", "blunt"]


# --- arming ----------------------------------------------------------------------------------
def test_seed_arming_example() -> None:
    v = resolve(("Shield bearer", 1), ("Mace bearer", 2), ("Club", 1), ("Sword", 2), ("Divine Staff", 1))
    assert armed(v) == [("Shield bearer", ["Club"]), ("Mace bearer", ["Divine Staff"])]


def test_arming_takes_the_largest_set_before_the_leftmost_weapon() -> None:
    cat = roc.load_catalog(
        {
            "soldiers": [{"name": "Duelist", "hands": ["any", "blunt"], "power": [1, 1]}],
            "weapons": [
                {"name": "Club", "type": "blunt", "power": [1, 1]},
                {"name": "Sword", "type": "blade", "power": [1, 1]},
            ],
        }
    )
    # hand by hand, "any" would grab the Club and leave the blunt hand empty; the largest set wins
    v = roc.resolve_ring(cat, ring(("Sword", 2), ("Duelist", 1), ("Club", 2)))
    assert armed(v) == [("Duelist", ["Sword", "Club"])]


def test_soldier_without_hands_takes_nothing() -> None:
    v = resolve(("Club", 1), ("Grunt", 1), ("Shield bearer", 2))
    assert armed(v) == [("Grunt", []), ("Shield bearer", ["Club"])]


# --- fights ----------------------------------------------------------------------------------
def test_priest_of_osiris_against_priest_and_non_priest() -> None:
    v = resolve(("Priest of Osiris", 1), ("Grunt", 2))
    assert (v.fights[0].p1_power, v.fights[0].p2_power, v.winner) == (6, 4, 1)
    v = resolve(("Priest of Osiris", 1), ("Acolyte", 2))
    assert (v.fights[0].p1_power, v.fights[0].p2_power, v.winner) == (0, 1, 2)


def test_chariot_with_and_without_a_priest_wielder() -> None:
    v = resolve(("Temple charioteer", 1), ("Chariot", 2), ("Grunt", 2))
    assert armed(v)[0] == ("Temple charioteer", ["Chariot"])
    assert (v.fights[0].p1_power, v.fights[0].p2_power, v.winner) == (6, 4, 1)
    v = resolve(("Charioteer", 1), ("Chariot", 2), ("Grunt", 2))
    assert armed(v)[0] == ("Charioteer", ["Chariot"])
    assert (v.fights[0].p1_power, v.fights[0].p2_power, v.winner) == (1, 4, 2)


def test_fatigue_decides_a_later_fight() -> None:
    v = resolve(("Squire", 2), ("Veteran", 1), ("Grunt", 2))
    # Veteran 8 beats the Squire 5; tired once, 8 - 3 = 5 still beats the Grunt 4
    assert [(f.p1_power, f.p2_power, f.winner) for f in v.fights] == [(8, 5, 1), (5, 4, 1)]
    v = resolve(("Grunt", 2), ("Squire", 2), ("Veteran", 1))
    # Veteran 8 beats the Grunt 4; tired, 5 against the Squire 5: equal, and the Squire is further
    # left, so the Squire wins a fight a fresh Veteran would have won
    assert [(f.p1_power, f.p2_power, f.winner) for f in v.fights] == [(8, 4, 1), (5, 5, 2)]
    assert v.winner == 2
    v = resolve(("Veteran", 1), ("Grunt", 2), ("Squire", 2), ("Acolyte", 1))
    # the same fights with the Veteran leftmost: the tie goes to the Veteran
    assert [(f.p1_power, f.p2_power, f.winner) for f in v.fights] == [(8, 4, 1), (5, 5, 1)]
    assert v.winner == 1


def test_equal_power_goes_to_the_leftmost_soldier() -> None:
    v = resolve(("Grunt", 2), ("Grunt", 1))
    assert (v.fights[0].p1_power, v.fights[0].p2_power, v.fights[0].winner) == (4, 4, 2)
    v = resolve(("Grunt", 1), ("Grunt", 2))
    assert v.fights[0].winner == 1


def test_ring_with_no_soldiers_and_ring_with_one_side() -> None:
    v = resolve(("Club", 1), ("Sword", 2))
    assert (v.armed, v.fights, v.winner) == ([], [], None)
    assert resolve().winner is None
    v = resolve(("Acolyte", 2), ("Club", 1))
    assert (v.fights, v.winner) == ([], 2)


# --- the game and wagers ---------------------------------------------------------------------
def test_one_one_split_with_an_empty_ring_is_a_draw() -> None:
    rings = [ring(("Veteran", 1), ("Grunt", 2)), ring(("Grunt", 1), ("Veteran", 2)), ring(("Club", 1))]
    verdict = roc.adjudicate(CATALOG, rings, {1: 10, 2: 10})
    assert [r.winner for r in verdict.rings] == [1, 2, None]
    assert verdict.winner is None
    assert verdict.wagers == {
        "stakes": {"1": 10, "2": 10},
        "goes_to": {"1": 1, "2": 2},
        "payouts": {"1": 10, "2": 10},
    }


def test_two_rings_win_and_take_both_wagers() -> None:
    rings = [ring(("Veteran", 1)), ring(("Grunt", 1), ("Acolyte", 2)), ring(("Veteran", 2))]
    verdict = roc.adjudicate(CATALOG, rings, {1: 5, 2: "20 linen"})
    assert verdict.winner == 1
    assert verdict.wagers == {
        "stakes": {"1": 5, "2": "20 linen"},
        "goes_to": {"1": 1, "2": 1},
        "payouts": None,
    }


def test_adjudicate_match_places_and_draw() -> None:
    adjudicate = get_adjudicator("rite-of-command")
    win = {
        "catalog": {
            "soldiers": [{"name": "A", "power": [1, 1]}, {"name": "B", "power": [2, 2]}],
            "weapons": [],
        },
        "rings": [[{"card": "A", "owner": 2}], [{"card": "B", "owner": 2}], []],
    }
    result = adjudicate(win, 2, "seed")
    assert result.outcome == "played"
    assert [(s.seat, s.place) for s in result.seats] == [(0, 2), (1, 1)]
    assert result.details["winner"] == 2 and len(result.details["rings"]) == 3
    draw = {**win, "rings": [[{"card": "A", "owner": 2}], [{"card": "B", "owner": 1}], []]}
    result = adjudicate(draw, 2, "seed")
    assert result.outcome == "draw" and [s.place for s in result.seats] == [1, 1]
    with pytest.raises(InvalidInput):
        adjudicate(win, 3, "seed")


# --- dealing and replay ----------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(deck_size=st.integers(1, 40), seed=st.text(min_size=1, max_size=20))
def test_deal_gives_both_players_the_same_cards(deck_size: int, seed: str) -> None:
    dealt = roc.deal(roc.sample_catalog(), deck_size, seed)
    assert len(dealt.cards) == deck_size
    assert Counter(dealt.orders[1]) == Counter(dealt.orders[2]) == Counter(dealt.cards)
    if len(set(dealt.cards)) > 1:
        assert dealt.orders[1] != dealt.orders[2]
    assert dealt.first_player in (1, 2)
    assert roc.deal(roc.sample_catalog(), deck_size, seed) == dealt


def test_deal_uses_both_first_players_and_rejects_bad_sizes() -> None:
    firsts = {roc.deal(CATALOG, 5, f"s{i}").first_player for i in range(20)}
    assert firsts == {1, 2}
    for bad in (0, 101):
        with pytest.raises(InvalidInput) as err:
            roc.deal(CATALOG, bad, "s")
        assert err.value.problems[0].loc == ("deck_size",)


def full_record(dealt: roc.Deal) -> dict[str, Any]:
    plays, turn = [], dealt.first_player
    for i in range(2 * len(dealt.cards)):
        plays.append({"player": turn, "ring": i % 3 + 1})
        turn = 3 - turn
    return {"deal": dealt.as_dict(), "first_player": dealt.first_player, "plays": plays}


@settings(max_examples=25, deadline=None)
@given(deck_size=st.integers(1, 12), seed=st.text(min_size=1, max_size=10))
def test_replay_places_each_top_card(deck_size: int, seed: str) -> None:
    dealt = roc.deal(roc.sample_catalog(), deck_size, seed)
    record = full_record(dealt)
    rings = roc.replay(roc.sample_catalog(), dealt, dealt.first_player, record["plays"])
    placed = Counter(p.card for r in rings for p in r)
    assert placed == Counter(dealt.cards) + Counter(dealt.cards)
    by_log = roc.adjudicate_log(record).as_dict()
    by_rings = roc.adjudicate_log(
        {"rings": [[{"card": p.card, "owner": p.owner} for p in r] for r in rings]}
    ).as_dict()
    assert by_log == by_rings
    # the deal may also be given as {deck_size, seed} and is then dealt again
    redealt = {**record, "deal": {"deck_size": deck_size, "seed": seed}}
    assert roc.adjudicate_log(redealt).as_dict() == by_log


def test_replay_rejects_the_first_wrong_play() -> None:
    dealt = roc.deal(roc.sample_catalog(), 4, "replay")
    record = full_record(dealt)
    other = 3 - dealt.first_player
    out_of_turn = {**record, "plays": [{"player": other, "ring": 1}, *record["plays"][1:]]}
    with pytest.raises(RuleViolation, match=r"plays\[0\].*out of turn"):
        roc.adjudicate_log(out_of_turn)
    second = dealt.orders[dealt.first_player][1]
    not_top = [{**record["plays"][0], "card": second}, *record["plays"][1:]]
    if second != dealt.orders[dealt.first_player][0]:
        with pytest.raises(RuleViolation, match=r"plays\[0\].*not the top card"):
            roc.adjudicate_log({**record, "plays": not_top})
    bad_ring = [*record["plays"][:2], {**record["plays"][2], "ring": 4}, *record["plays"][3:]]
    with pytest.raises(InvalidInput) as err:
        roc.adjudicate_log({**record, "plays": bad_ring})
    assert err.value.problems[0].loc == ("plays", 2, "ring")
    with pytest.raises(InvalidInput, match="not played"):
        roc.adjudicate_log({**record, "plays": record["plays"][:-1]})
    with pytest.raises(RuleViolation, match="already been played"):
        roc.adjudicate_log({**record, "plays": [*record["plays"], {"player": dealt.first_player, "ring": 1}]})


def test_unknown_card_and_both_forms_rejected() -> None:
    with pytest.raises(InvalidInput) as err:
        roc.adjudicate_log({"rings": [[], [{"card": "Dragon", "owner": 1}], []]})
    assert err.value.problems[0].loc == ("rings", 1, 0, "card")
    assert "Dragon" in err.value.detail
    with pytest.raises(InvalidInput):
        roc.adjudicate_log({"rings": [[], [], []], "plays": []})
    with pytest.raises(InvalidInput):
        roc.adjudicate_log({"rings": [[], []]})


# --- catalog validation ----------------------------------------------------------------------
def test_catalog_validation_lists_every_problem() -> None:
    bad = {
        "soldiers": [
            {"name": "Priest", "tags": ["priest"], "hands": ["any", "staff"], "power": [6, 0]},
            {"name": "Priest", "hands": ["blunt", "blunt", "blunt", "any"], "power": [1]},
            {"name": "Odd", "power": [1, 1], "condition": "if wielder is priest"},
            {"name": "Bad tag", "tags": ["non-priest"], "power": [1, 1], "color": "red"},
        ],
        "weapons": [
            {"name": "Club", "type": "blunt", "power": [2, 2], "condition": "when raining"},
            {"name": "", "type": "any", "power": [1, 1]},
        ],
    }
    with pytest.raises(InvalidInput) as err:
        roc.load_catalog(bad)
    locs = {p.loc for p in err.value.problems}
    assert locs == {
        ("catalog", "soldiers", 0, "hands", 1),  # no weapon has the type "staff"
        ("catalog", "soldiers", 1, "name"),  # duplicate
        ("catalog", "soldiers", 1, "hands"),  # four hands
        ("catalog", "soldiers", 1, "power"),  # one number
        ("catalog", "soldiers", 2, "condition"),  # soldiers test the opponent
        ("catalog", "soldiers", 3, "tags", 0),  # "non-" prefix
        ("catalog", "soldiers", 3, "color"),  # unknown field
        ("catalog", "weapons", 0, "condition"),  # not a condition
        ("catalog", "weapons", 1, "name"),  # empty
        ("catalog", "weapons", 1, "type"),  # "any" is not a type
    }
    assert err.value.detail.startswith("invalid catalog: catalog.soldiers[0].hands[1]: no weapon has")
    assert "(and 9 more)" in err.value.detail


def test_catalog_must_be_an_object_with_cards() -> None:
    for bad in (None, [], {"soldiers": [], "weapons": []}, {"soldiers": {}}):
        with pytest.raises(InvalidInput):
            roc.load_catalog(bad)


def test_conditions_parse_both_forms_case_insensitively() -> None:
    cat = roc.load_catalog(
        {
            "soldiers": [
                {"name": "Hunter", "power": [7, 1], "condition": "VS Undead"},
                {"name": "Zombie", "tags": ["UNDEAD"], "power": [2, 2]},
                {"name": "Guard", "power": [3, 0], "condition": "vs non-undead"},
            ],
            "weapons": [
                {"name": "Torch", "type": "fire", "power": [1, 4], "condition": "if wielder is non-undead"}
            ],
        }
    )
    hunter, zombie, guard = (cat.soldiers[n] for n in ("Hunter", "Zombie", "Guard"))
    assert hunter.rating_against(zombie) == 7 and hunter.rating_against(guard) == 1
    assert guard.rating_against(zombie) == 0 and guard.rating_against(hunter) == 3
    torch = cat.weapons["Torch"]
    assert (
        torch.power.value(zombie.tags, hunter.tags) == 4 and torch.power.value(hunter.tags, zombie.tags) == 1
    )


@given(st.text(min_size=1, max_size=20), st.integers(1, 100))
@settings(max_examples=50, deadline=None)
def test_a_deals_first_player_is_the_same_for_every_deck_size_and_names_the_first_seat(
    seed: str, size: int
) -> None:
    """rite-of-command.md "In a match": the first player comes from its own stream of the seed, so
    the round knows it before the deck size is chosen; it holds the match's first token."""
    first = roc.first_player(seed)
    assert roc.deal(roc.sample_catalog(), size, seed).first_player == first
    assert roc.first_seat(seed, 2) == first - 1 and roc.first_seat(seed, 3) is None
