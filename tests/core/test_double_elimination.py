"""Double elimination as data (app/core/pairing/double_elimination.py): every field size, byes,
the reset, and that every entry but the champion leaves after two losses."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.core.errors import InvalidInput
from app.core.pairing.double_elimination import DoubleBracket, bracket_state, build_double_elimination


def _run(n: int, reset: bool, seed: int) -> tuple[str, dict[str, int], int, list[tuple[str, ...]]]:
    ids = [f"p{i}" for i in range(n)]
    bracket = build_double_elimination(ids, method="seeded", reset=reset)
    assert DoubleBracket.from_dict(bracket.to_dict()) == bracket
    results: dict[str, tuple[str, str]] = {}
    losses = dict.fromkeys(ids, 0)
    rng = random.Random(seed)
    rounds: list[tuple[str, ...]] = []
    while (state := bracket_state(bracket, results)).champion is None:
        assert state.ready, "the bracket stalls"
        seen: set[str] = set()
        for key in state.ready:
            a, b = state.sides[key]
            assert a and b and not ({a, b} & seen)  # nobody plays two matches in one round
            seen |= {a, b}
            w, lose = (a, b) if rng.random() < 0.5 else (b, a)
            results[key] = (w, lose)
            losses[lose] += 1
        rounds.append(state.ready)
    return state.champion, losses, len(results), rounds


@given(st.integers(2, 40), st.booleans(), st.integers(0, 1000))
def test_everyone_but_the_champion_is_out_after_two_losses(n: int, reset: bool, seed: int) -> None:
    champion, losses, played, _ = _run(n, reset, seed)
    assert losses[champion] <= 1
    assert all(v <= 2 for v in losses.values())
    runner_ups = [p for p, v in losses.items() if p != champion and v < 2]
    assert len(runner_ups) <= 1  # only the grand-final loser without a reset may keep one loss
    assert played in (2 * n - 2, 2 * n - 1)


def test_eight_entries_play_in_waves() -> None:
    _, _, _, rounds = _run(8, False, 1)
    assert rounds[0] == ("W1.0", "W1.1", "W1.2", "W1.3")
    assert set(rounds[1]) == {"W2.0", "W2.1", "L1.0", "L1.1"}
    assert rounds[-1] == ("GF",)


def test_the_reset_is_played_only_when_the_losers_champion_wins() -> None:
    bracket = build_double_elimination(["a", "b"], method="seeded", reset=True)
    after = bracket_state(bracket, {"W1.0": ("a", "b")})
    assert after.ready == ("GF",) and after.sides["GF"] == ("a", "b")
    assert bracket_state(bracket, {"W1.0": ("a", "b"), "GF": ("a", "b")}).champion == "a"
    reset = bracket_state(bracket, {"W1.0": ("a", "b"), "GF": ("b", "a")})
    assert reset.ready == ("GF2",) and reset.champion is None
    assert bracket_state(bracket, {"W1.0": ("a", "b"), "GF": ("b", "a"), "GF2": ("b", "a")}).champion == "b"


def test_a_result_outside_its_match_is_refused() -> None:
    bracket = build_double_elimination(["a", "b", "c", "d"], method="seeded")
    with pytest.raises(InvalidInput):
        bracket_state(bracket, {"W1.0": ("a", "c")})
