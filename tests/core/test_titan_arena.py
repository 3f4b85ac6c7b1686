"""Titan: The Arena adjudicator and the HMW-P helpers (titan-arena.md; seed 000)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.errors import InvalidInput
from app.core.games import titan_arena as ta


def seed_example(**extra: Any) -> dict[str, Any]:
    """The seed's sample game: Wu and Hatshepsut tie at 9; the Unicorn died last; Wu bet 3 on it."""
    log: dict[str, Any] = {
        "players": ["Anne", "Pippin", "Louis Wu", "Hatshepsut"],
        "scores": {"Anne": 12, "Pippin": 4, "Louis Wu": 9, "Hatshepsut": 9},
        "deaths": [
            {"creature": "Cyclops", "killed_by": "Anne"},
            {"creature": "Wyrm", "killed_by": "Hatshepsut"},
            {"creature": "Unicorn", "killed_by": "Anne"},
        ],
        "bets": [
            {"player": "Pippin", "creature": "Cyclops", "points": 4, "secret": True},
            {"player": "Hatshepsut", "creature": "Wyrm", "points": 5},
            {"player": "Louis Wu", "creature": "Unicorn", "points": 3},
        ],
    }
    log.update(extra)
    return log


def places(verdict: ta.Verdict) -> list[str]:
    return [p for p, _, _ in verdict.places]


def test_seed_worked_example() -> None:
    v = ta.adjudicate_log(seed_example())
    assert places(v) == ["Anne", "Louis Wu", "Hatshepsut", "Pippin"]
    assert [pl for _, pl, _ in v.places] == [1, 2, 3, 4]
    (tb,) = v.tiebreaks
    assert tb.order == ("Louis Wu", "Hatshepsut") and tb.decided_by == "Unicorn" and tb.rule == "bets"
    assert tb.values == {"Louis Wu": 3.0, "Hatshepsut": 0.0}
    assert v.statistics.kills == {"Anne": 2, "Pippin": 0, "Louis Wu": 0, "Hatshepsut": 1}
    assert v.statistics.bets["Cyclops"] == {"bets": 1, "points": 4.0, "secret": 1}


def test_the_original_rule_goes_to_the_last_play() -> None:
    v = ta.adjudicate_log(seed_example(tie_rule="last_play", last_play="Hatshepsut"))
    assert places(v)[1:3] == ["Hatshepsut", "Louis Wu"]
    assert v.tiebreaks[0].decided_by == "last_play"


def test_three_way_tie_split_across_several_creatures() -> None:
    # A, B, C tie at 10. Last death (Troll): A 2, B 2, C 0 → C is third.
    # Next back (Magus): A 1, B 3 → B first. First death (Ettin) is never reached.
    log = {
        "players": ["A", "B", "C", "D"],
        "scores": [10, 10, 10, 3],
        "deaths": [{"creature": "Ettin"}, {"creature": "Magus"}, {"creature": "Troll"}],
        "bets": [
            {"player": "A", "creature": "Troll", "points": 2},
            {"player": "B", "creature": "Troll", "points": 2},
            {"player": "A", "creature": "Magus", "points": 1},
            {"player": "B", "creature": "Magus", "points": 3},
            {"player": "C", "creature": "Ettin", "points": 9},
        ],
    }
    v = ta.adjudicate_log(log)
    assert places(v) == ["B", "A", "C", "D"]
    split = {tb.order: tb.decided_by for tb in v.tiebreaks}
    assert split == {("B", "A"): "Magus", ("A", "C"): "Troll"}
    assert all(tb.players == ("A", "B", "C") for tb in v.tiebreaks)


def test_exhausted_deaths_fall_to_last_play_then_dice() -> None:
    log = {
        "players": ["A", "B", "C"],
        "scores": {"A": 5, "B": 5, "C": 5},
        "deaths": [{"creature": "Titan"}],
        "bets": [],
        "last_play": "C",
    }
    v = ta.adjudicate_log(log, seed="s1")
    assert places(v)[0] == "C"
    rules = [tb.rule for tb in v.tiebreaks]
    assert rules == ["last_play", "dice"]
    # dice are reproducible from the seed and can differ with another seed
    again = ta.adjudicate_log(log, seed="s1")
    assert places(again) == places(v)
    orders = {tuple(places(ta.adjudicate_log(log, seed=f"s{i}"))) for i in range(20)}
    assert orders == {("C", "A", "B"), ("C", "B", "A")}


def test_colossal_arena_accepts_only_its_eight() -> None:
    ok = seed_example(variant="colossal-arena")
    assert places(ta.adjudicate_log(ok))[1] == "Louis Wu"
    bad = seed_example(variant="colossal-arena")
    bad["deaths"] = [*bad["deaths"], {"creature": "Dragon"}]
    with pytest.raises(InvalidInput) as e:
        ta.adjudicate_log(bad)
    assert "Dragon" in e.value.detail and "Colossal" in e.value.detail
    assert e.value.problems[0].loc == ("deaths", 3, "creature")


@pytest.mark.parametrize(
    ("change", "loc", "words"),
    [
        (
            {"bets": [{"player": "Anne", "creature": "Gorgon", "points": 2}]},
            ("bets", 0, "creature"),
            "Gorgon",
        ),
        ({"deaths": [{"creature": "Troll"}, {"creature": "troll"}]}, ("deaths", 1, "creature"), "twice"),
        (
            {"scores": {"Anne": 1, "Pippin": 1, "Louis Wu": 1, "Hatshepsut": 1, "Zed": 3}},
            ("scores", "Zed"),
            "Zed",
        ),
        ({"players": ["Anne", "Pippin"], "scores": {"Anne": 1, "Pippin": 2}}, ("players",), "not 2"),
        ({"players": [f"P{i}" for i in range(6)], "scores": [1] * 6}, ("players",), "not 6"),
        ({"bets": [{"player": "Nobody", "creature": "Troll", "points": 2}]}, ("bets", 0, "player"), "Nobody"),
        ({"bets": [{"player": "Anne", "creature": "Troll", "points": -1}]}, ("bets", 0, "points"), ">= 0"),
        ({"tie_rule": "coin"}, ("tie_rule",), "wbc"),
    ],
)
def test_bad_logs_name_the_problem(change: dict[str, Any], loc: tuple[Any, ...], words: str) -> None:
    log = seed_example(creatures=["Cyclops", "Wyrm", "Unicorn", "Troll", "Titan", "Ettin", "Magus", "Amazon"])
    log.update(change)
    with pytest.raises(InvalidInput) as e:
        ta.parse_log(log)
    found = {p.loc: p.msg for p in e.value.problems}
    assert loc in found and words in found[loc]


def test_open_creature_names_match_case_insensitively() -> None:
    log = seed_example(creatures=["Seer", "Troll"], deaths=[{"creature": "Seer"}, {"creature": "seer"}])
    with pytest.raises(InvalidInput) as e:
        ta.parse_log(log)
    assert "twice" in e.value.detail


def test_a_match_maps_players_to_seats_in_order() -> None:
    adj = ta.adjudicate_match(seed_example(), 4, "event:match")
    assert [(s.seat, s.place, s.score) for s in adj.seats] == [(0, 1, 12), (1, 4, 4), (2, 2, 9), (3, 3, 9)]
    with pytest.raises(InvalidInput) as e:
        ta.adjudicate_match(seed_example(), 5, "x")
    assert e.value.problems[0].loc == ("game_log", "players")


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 4), min_size=3, max_size=5),
    st.lists(st.tuples(st.integers(0, 4), st.integers(0, 3), st.integers(1, 5)), max_size=8),
    st.permutations(["Amazon", "Cyclops", "Ettin", "Magus"]),
)
def test_places_are_a_permutation_and_respect_scores(
    scores: list[int], bets: list[tuple[int, int, int]], deaths: list[str]
) -> None:
    players = [f"P{i}" for i in range(len(scores))]
    log = {
        "players": players,
        "scores": scores,
        "deaths": [{"creature": c} for c in deaths],
        "bets": [
            {"player": players[p % len(players)], "creature": deaths[c], "points": pts} for p, c, pts in bets
        ],
    }
    v = ta.adjudicate_log(log, seed="prop")
    assert sorted(pl for _, pl, _ in v.places) == list(range(1, len(players) + 1))
    got = [s for _, _, s in v.places]
    assert got == sorted(got, reverse=True)
    # one record per adjacent pair of equal score
    assert len(v.tiebreaks) == sum(1 for a, b in zip(got, got[1:], strict=False) if a == b)
    # shuffling the players (and the scores with them) keeps the same ranking
    rev = {**log, "players": players[::-1], "scores": scores[::-1]}
    assert places(ta.adjudicate_log(rev, seed="prop")) == places(v)


def test_semifinal_field_sizes_and_alternates() -> None:
    seeding = [f"e{i:02}" for i in range(40)]
    winners = set(seeding[:12])
    seconds = set(seeding[10:30])
    f = ta.semifinal_field(seeding, winners, seconds)
    assert f.size == 16 and f.winners == seeding[:12] and f.alternates == seeding[12:16]
    f = ta.semifinal_field(seeding, set(seeding[:17]), set(seeding[17:40]))
    assert f.size == 20 and len(f.seats) == 20
    f = ta.semifinal_field(seeding, set(seeding[:30]), set(seeding[30:]))
    assert f.size == 25 and f.seats == seeding[:25] and f.alternates == []
    # too few qualify: the field shrinks
    f = ta.semifinal_field(seeding, set(seeding[:5]), {seeding[7], seeding[3]})
    assert f.seats == [*seeding[:5], seeding[7]]


def test_table_counts_and_snake_dealing() -> None:
    assert [ta.table_count(s) for s in (16, 20, 25)] == [4, 5, 5]
    for s in range(3, 26):
        sizes = [len(t) for t in ta.snake_deal(list(range(s)), ta.table_count(s))]
        assert sum(sizes) == s and max(sizes) - min(sizes) <= 1 and max(sizes) <= 5
        if s >= 9:
            assert len(sizes) >= 3 and min(sizes) >= 3
    tables = ta.snake_deal(list(range(1, 17)), 4)
    assert tables == [[1, 8, 9, 16], [2, 7, 10, 15], [3, 6, 11, 14], [4, 5, 12, 13]]
    assert ta.table_count(2) == 0


def test_final_seats_and_places() -> None:
    rank = {e: i for i, e in enumerate("abcdefghij")}
    semis = [[("c", 2), ("a", 1), ("f", 3)], [("b", 2), ("d", 1), ("e", 3)]]
    seats = ta.final_seats(semis, rank)
    assert seats == ["a", "d", "b"]  # two winners by seeding, then the best second by seeding
    out = ta.final_places([("d", 1), ("a", 2), ("b", 3)], [s for t in semis for s in t], list("abcdefghij"))
    assert [e for e, _, _ in out] == ["d", "a", "b", "c", "e", "f", "g", "h", "i", "j"]
    assert [how for _, _, how in out][:5] == ["final", "final", "final", "semifinal", "semifinal"]
    assert ta.final_version(["a", "d"], {"a": True, "d": True}) == ta.COLOSSAL
    assert ta.final_version(["a", "d"], {"a": True}) == ta.ORIGINAL
    assert ta.final_version(["a", "d"], {"a": True, "d": False}) == ta.ORIGINAL


# --- the game's creatures (issue 19, items 11 and 12) -------------------------------------------
def test_the_twelve_colossal_arena_creatures_are_catalog_data_with_their_source() -> None:
    catalog = ta.creature_catalog()
    assert len(catalog.creatures) == 12 and len(set(catalog.creatures)) == 12
    # the seed names the WBC's eight; the game has four more
    assert set(catalog.wbc_eight) <= set(catalog.creatures) and len(catalog.wbc_eight) == 8
    assert catalog.wbc_eight == ta.COLOSSAL_CREATURES
    assert catalog.source["wbc_eight"] and catalog.source["creatures"]


def test_creature_names_come_from_the_games_list() -> None:
    # a typo is refused, not sent silently to the dice: the original game's names are the catalog's
    typo = seed_example(deaths=[{"creature": "Cyclops"}, {"creature": "Unicron"}])
    with pytest.raises(InvalidInput) as e:
        ta.parse_log(typo)
    assert e.value.problems[0].loc == ("deaths", 1, "creature") and "Unicron" in e.value.problems[0].msg
    # a creature outside the catalog is accepted when the log lists the game's creatures
    listed = seed_example(creatures=["Cyclops", "Wyrm", "Unicorn", "Hydra"], deaths=[{"creature": "Hydra"}])
    assert ta.parse_log(listed).deaths[0].creature == "Hydra"
    # names match whatever their case, reported as the catalog spells them
    assert ta.parse_log(seed_example(deaths=[{"creature": "unicorn"}])).deaths[0].creature == "Unicorn"


def test_the_colossal_final_draws_eight_of_the_twelve_from_the_event_seed() -> None:
    twelve = ta.creature_catalog().creatures
    drawn = ta.final_creatures("wbc-2026")
    assert len(drawn) == 8 and len(set(drawn)) == 8 and set(drawn) <= set(twelve)
    assert list(drawn) == [c for c in twelve if c in drawn]  # listed in the catalog's order
    assert ta.final_creatures("wbc-2026") == drawn  # reproducible from the seed
    assert len({ta.final_creatures(f"seed-{i}") for i in range(30)}) > 1  # and random across seeds
    # a colossal log is checked against the eight in play
    outside = next(c for c in twelve if c not in drawn)
    log = seed_example(variant="colossal-arena", deaths=[{"creature": outside}], bets=[])
    with pytest.raises(InvalidInput) as e:
        ta.parse_log(log, colossal_creatures=drawn)
    assert outside in e.value.problems[0].msg and drawn[0] in e.value.problems[0].msg
    inside = seed_example(variant="colossal-arena", deaths=[{"creature": drawn[0]}], bets=[])
    assert ta.parse_log(inside, colossal_creatures=drawn).deaths[0].creature == drawn[0]


def test_a_logs_players_are_matched_to_the_seats_by_entry_id_or_name_in_any_order() -> None:
    seats = [("e-wu", "Louis Wu"), ("e-anne", "Anne"), ("e-hat", "Hatshepsut"), ("e-pip", "Pippin")]
    log = seed_example()  # Anne, Pippin, Louis Wu, Hatshepsut: not the seat order
    ordered = ta.in_seat_order(log, seats)
    assert ordered["players"] == ["Louis Wu", "Anne", "Hatshepsut", "Pippin"]
    adj = ta.adjudicate_match(ordered, 4, "event:match")
    assert [(s.seat, s.place) for s in adj.seats] == [(0, 2), (1, 1), (2, 3), (3, 4)]
    # by entry id, scores as a list in the log's order follow their players
    by_id = {**log, "players": ["e-anne", "e-pip", "e-wu", "e-hat"], "scores": [12, 4, 9, 9]}
    by_id["deaths"] = [{"creature": "Unicorn", "killed_by": "e-anne"}]
    by_id["bets"] = [{"player": "e-wu", "creature": "Unicorn", "points": 3}]
    ordered = ta.in_seat_order(by_id, seats)
    assert ordered["players"] == ["e-wu", "e-anne", "e-hat", "e-pip"] and ordered["scores"] == [9, 12, 9, 4]
    adj = ta.adjudicate_match(ordered, 4, "event:match")
    assert [s.place for s in adj.seats] == [2, 1, 3, 4]
    # an unknown name, or a seat left out, is refused naming it
    with pytest.raises(InvalidInput) as e:
        ta.in_seat_order({**log, "players": ["Anne", "Pippin", "Louis Wu", "Hatshepsutt"]}, seats)
    assert e.value.problems[0].loc == ("game_log", "players", 3) and "Hatshepsutt" in e.value.problems[0].msg
    assert "Hatshepsut" in e.value.problems[0].msg  # the seated names are listed


# --- issue 33: scores and bets are never negative; at most five creatures die -----------------------
@pytest.mark.parametrize(
    ("change", "loc"),
    [
        ({"players": ["A", "B", "C", "D"], "scores": [5, -4, 3, 2], "bets": []}, ("scores", 1)),
        ({"scores": {"Anne": 12, "Pippin": -3, "Louis Wu": 9, "Hatshepsut": -5}}, ("scores", "Pippin")),
        ({"bets": [{"player": "Anne", "creature": "Troll", "points": -2}]}, ("bets", 0, "points")),
    ],
)
def test_a_negative_score_or_bet_is_refused_naming_it(change: dict[str, Any], loc: tuple[Any, ...]) -> None:
    with pytest.raises(InvalidInput) as e:
        ta.parse_log(seed_example(**change))
    assert e.value.problems[0].loc == loc


def test_every_negative_score_is_named() -> None:
    with pytest.raises(InvalidInput) as e:
        ta.parse_log(seed_example(scores={"Anne": 12, "Pippin": -3, "Louis Wu": 9, "Hatshepsut": -5}))
    assert {p.loc for p in e.value.problems} == {("scores", "Pippin"), ("scores", "Hatshepsut")}
    # a score of 0 is a score
    assert ta.parse_log(seed_example(scores={"Anne": 12, "Pippin": 0, "Louis Wu": 9, "Hatshepsut": 9}))


def test_the_game_ends_with_three_creatures_alive_so_at_most_five_die() -> None:
    eight = ["Amazon", "Cyclops", "Ettin", "Magus", "Titan", "Troll", "Unicorn", "Wyrm"]
    five = seed_example(variant="colossal-arena", deaths=[{"creature": c} for c in eight[:5]], bets=[])
    assert len(ta.parse_log(five).deaths) == 5
    for dead in (6, 8):
        log = seed_example(variant="colossal-arena", deaths=[{"creature": c} for c in eight[:dead]], bets=[])
        with pytest.raises(InvalidInput) as e:
            ta.parse_log(log)
        assert e.value.problems[0].loc == ("deaths",)
        assert "three" in e.value.detail or "3 are left alive" in e.value.detail
