"""The kept standings ledger (``core.standings.StandingsLedger``): after any sequence of changes of
games — new results, corrections, games gone, draws, forfeits, voids, byes, 3-seat tables — its
standings equal a clean ``compute_standings`` of the same input, row for row and float for float,
for every scoring scheme, ranking basis and tie-break chain; whatever else changes it refuses."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.errors import InvalidInput
from app.core.scoring import GameResult, SeatResult
from app.core.standings import EntryInfo, StandingsLedger, compute_standings, standings_config
from app.core.tiebreaks import CRITERIA
from tests.core.test_standings_properties import SCORINGS, events

CHAINS = [
    ["buchholz"],
    ["median_buchholz", "buchholz"],
    ["sonneborn_berger", "wins"],
    ["head_to_head", "differential"],
    ["opponent_win_pct", "fewest_games"],
    ["differential", "points_behind_all", "seconds", "points_behind_in_seconds"],
    ["perfect_more_games", "tiebreak_value", "dice"],
    list(CRITERIA),
]


@st.composite
def a_game(draw: st.DrawFn, match_id: str, ids: list[str]) -> GameResult:
    """One game at ``match_id`` among ``ids``: any outcome, 2 or 3 seats, scores and violations."""
    outcome = draw(st.sampled_from(["played"] * 5 + ["draw", "timeout", "forfeit", "void", "bye"]))
    size = 1 if outcome == "bye" else draw(st.integers(2, min(3, len(ids))))
    players = draw(st.permutations(ids))[:size]
    seats = tuple(
        SeatResult(
            p,
            draw(st.integers(1, size)),
            draw(st.sampled_from([0.0, 1.0, 2.5, 0.1, 0.7, 6.0])),  # 0.1, 0.7: sums that round
            draw(st.one_of(st.none(), st.sampled_from([-5.0, 0.3, 2.0, 7.1]))),
            draw(st.booleans()) if draw(st.integers(0, 6)) == 0 else False,
        )
        for p in players
    )
    return GameResult(match_id, draw(st.integers(1, 4)), outcome, seats)


def _copy(games: list[GameResult]) -> list[GameResult]:
    """The same games as new objects (as a read from the database gives them)."""
    return [dataclasses.replace(g, seats=tuple(dataclasses.replace(s) for s in g.seats)) for g in games]


@settings(max_examples=120, deadline=None)
@given(
    data=st.data(),
    event=events(),
    chain=st.one_of(
        st.sampled_from(CHAINS), st.lists(st.sampled_from(list(CRITERIA)), unique=True, max_size=5)
    ),
    scoring=st.sampled_from(SCORINGS),
    basis=st.sampled_from(["total", "average"]),
)
def test_the_ledger_after_every_change_equals_a_clean_recompute(data, event, chain, scoring, basis) -> None:
    entries, games = event
    config = standings_config({"scoring": scoring, "ranking_basis": basis, "tiebreaks": chain})
    ids = [e.entry_id for e in entries]
    ledger = StandingsLedger(entries, games, config, "seed")
    assert ledger.standings() == compute_standings(entries, games, config, "seed")
    fresh = len(games)
    for _ in range(data.draw(st.integers(1, 12))):
        kind = data.draw(st.sampled_from(["new", "new", "correct", "correct", "gone", "several"]))
        if kind == "new" or not games:
            games = [*games, data.draw(a_game(f"g{fresh}", ids))]
            fresh += 1
        elif kind == "correct":
            i = data.draw(st.integers(0, len(games) - 1))
            games = [*games[:i], data.draw(a_game(games[i].match_id, ids)), *games[i + 1 :]]
        elif kind == "gone":
            i = data.draw(st.integers(0, len(games) - 1))
            games = games[:i] + games[i + 1 :]
        else:  # several at once (results of several matches between two reads), in any order
            games = [data.draw(a_game(g.match_id, ids)) if data.draw(st.booleans()) else g for g in games]
            games = [*games, data.draw(a_game(f"g{fresh}", ids))]
            fresh += 1
            games = data.draw(st.permutations(games))
        given_games = _copy(games)
        if data.draw(st.booleans()):
            assert ledger.update(entries, given_games, config, "seed")
        else:  # the difference found by the caller
            now = {g.match_id: g for g in given_games}
            changed = [g for mid, g in now.items() if ledger.games.get(mid) != g]
            gone = [mid for mid in ledger.games if mid not in now]
            assert ledger.apply(entries, changed, gone, config, "seed")
        assert ledger.standings() == compute_standings(entries, games, config, "seed")


@settings(max_examples=60, deadline=None)
@given(data=st.data(), event=events(), chain=st.sampled_from(CHAINS))
def test_a_change_of_anything_but_games_is_refused_and_leaves_the_ledger(data, event, chain) -> None:
    entries, games = event
    config = standings_config({"tiebreaks": chain})
    ledger = StandingsLedger(entries, games, config, "seed")
    before = ledger.standings()
    first = entries[0]
    others = [
        [
            dataclasses.replace(first, status="dropped" if first.status == "active" else "active"),
            *entries[1:],
        ],
        [dataclasses.replace(first, name=first.name + "!"), *entries[1:]],
        [dataclasses.replace(first, tiebreak_value=(first.tiebreak_value or 0.0) + 1), *entries[1:]],
        [*entries, EntryInfo("newcomer", "Zed")],
    ]
    seated = {s.entry_id for g in games for s in g.seats}
    others += [[e for e in entries if e is not gone] for gone in entries if gone.entry_id not in seated][:1]
    which = data.draw(st.integers(0, len(others) + 1))
    if which < len(others):
        assert not ledger.update(others[which], games, config, "seed")
    elif which == len(others):
        assert not ledger.update(entries, games, standings_config({"tiebreaks": chain[:-1]}), "seed")
    else:
        assert not ledger.update(entries, games, config, "other seed")
    assert ledger.standings() == before == compute_standings(entries, games, config, "seed")


@pytest.mark.parametrize(
    "bad",
    [
        GameResult("g0", 1, "played", (SeatResult("e0", 1, None), SeatResult("nobody", 2, None))),
        GameResult("g0", 1, "played", (SeatResult("e0", 1, None), SeatResult("e0", 2, None))),
        GameResult("g0", 1, "nonsense", (SeatResult("e0", 1, None), SeatResult("e1", 2, None))),
    ],
)
def test_an_invalid_game_is_refused_and_a_clean_computation_names_it(bad: GameResult) -> None:
    entries = [EntryInfo("e0", "Ada"), EntryInfo("e1", "Bob")]
    good = GameResult("g0", 1, "played", (SeatResult("e0", 1, None), SeatResult("e1", 2, None)))
    config = standings_config({"tiebreaks": ["buchholz"]})
    ledger = StandingsLedger(entries, [good], config)
    assert not ledger.update(entries, [bad], config)
    assert ledger.standings() == compute_standings(entries, [good], config)
    with pytest.raises(InvalidInput):
        compute_standings(entries, [bad], config)
    duplicate = [good, dataclasses.replace(good)]
    assert not ledger.update(entries, duplicate, config)
    assert not ledger.apply(entries, duplicate, [], config)
    assert not ledger.apply(entries, [good], ["g0"], config)  # changed and gone at once
    assert not ledger.apply(entries, [], ["never held"], config)
    with pytest.raises(InvalidInput):
        compute_standings(entries, duplicate, config)
