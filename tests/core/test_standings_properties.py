"""Hypothesis properties of the standings engine (formats.md "Tie-break criteria": order does not
matter, shared ranks are stable)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.errors import InvalidInput
from app.core.scoring import GameResult, SeatResult
from app.core.standings import EntryInfo, StandingRow, StandingsConfig, compute_standings, standings_config
from app.core.tiebreaks import CRITERIA, build_chain

NAMES = list(CRITERIA)
SCORINGS = [
    {"scheme": "wdl", "win": 3, "draw": 1, "loss": 0},
    {"scheme": "wdl", "win": 1, "draw": 0.5, "loss": 0, "bye": 0.5},
    {"scheme": "placement", "points": [1, 0.5, 0]},
    {"scheme": "game_score"},
]


@st.composite
def events(draw: st.DrawFn) -> tuple[list[EntryInfo], list[GameResult]]:
    n = draw(st.integers(2, 9))
    ids = [f"e{i}" for i in range(n)]
    entries = [
        EntryInfo(
            e,
            draw(st.sampled_from(["Ann", "Bob", "Cy"])),
            draw(st.one_of(st.none(), st.integers(0, 3).map(float))),
            draw(st.sampled_from(["active", "active", "dropped"])),
        )
        for e in ids
    ]
    games: list[GameResult] = []
    for k in range(draw(st.integers(0, 14))):
        outcome = draw(st.sampled_from(["played"] * 6 + ["draw", "timeout", "forfeit", "void", "bye"]))
        size = 1 if outcome == "bye" else draw(st.integers(2, min(3, n)))
        players = draw(st.permutations(ids))[:size]
        seats = tuple(
            SeatResult(
                p,
                draw(st.integers(1, size)),
                float(draw(st.integers(0, 6))),
                draw(st.one_of(st.none(), st.integers(-5, 5).map(float))),
                draw(st.booleans()) if draw(st.integers(0, 5)) == 0 else False,
            )
            for p in players
        )
        games.append(GameResult(f"g{k}", draw(st.integers(1, 4)), outcome, seats))
    return entries, games


def configs(chain: list[str]) -> st.SearchStrategy[StandingsConfig]:
    return st.builds(
        lambda scoring, basis: standings_config(
            {"scoring": scoring, "ranking_basis": basis, "tiebreaks": chain}
        ),
        st.sampled_from(SCORINGS),
        st.sampled_from(["total", "average"]),
    )


def signature(rows: list[StandingRow]) -> list[tuple]:
    return [
        (r.rank, r.entry_id, r.decided_by, r.points, r.differential, tuple(r.tiebreaks.items())) for r in rows
    ]


chains = st.lists(st.sampled_from(NAMES), unique=True, max_size=6)


@settings(max_examples=150, deadline=None)
@given(data=st.data(), event=events(), chain=chains)
def test_input_order_never_changes_the_standings(data, event, chain) -> None:
    entries, games = event
    config = data.draw(configs(chain))
    base = compute_standings(entries, games, config, seed="seed")
    shuffled_entries = data.draw(st.permutations(entries))
    shuffled_games = data.draw(st.permutations(games))
    again = compute_standings(shuffled_entries, shuffled_games, config, seed="seed")
    assert signature(again) == signature(base)


@settings(max_examples=150, deadline=None)
@given(data=st.data(), event=events(), chain=chains)
def test_adding_a_criterion_never_merges_split_ranks(data, event, chain) -> None:
    entries, games = event
    extra = data.draw(st.sampled_from([c for c in NAMES if c not in chain]))
    config = data.draw(configs(chain))
    longer = StandingsConfig(
        config.scoring, config.ranking_basis, (*config.tiebreaks, extra), config.h2h_default
    )
    before = {r.entry_id: r.rank for r in compute_standings(entries, games, config, seed="s")}
    after = {r.entry_id: r.rank for r in compute_standings(entries, games, longer, seed="s")}
    for a in before:
        for b in before:
            if before[a] < before[b]:
                assert after[a] < after[b]


@settings(max_examples=150, deadline=None)
@given(data=st.data(), event=events(), chain=chains)
def test_ranks_are_one_based_and_gap_correct(data, event, chain) -> None:
    entries, games = event
    rows = compute_standings(entries, games, data.draw(configs(chain)), seed="s")
    assert len(rows) == len(entries)
    assert rows[0].rank == 1 and rows[0].decided_by is None
    for i in range(1, len(rows)):
        if rows[i].rank == rows[i - 1].rank:
            assert rows[i].decided_by is None  # a shared rank names no criterion
        else:
            assert rows[i].rank == i + 1  # gap-correct: 1, 2, 2, 4
            assert rows[i].decided_by in {"points", "average", *chain}
    for row in rows:
        assert list(row.tiebreaks) == list(chain)
    if "dice" in chain:  # dice always separates
        assert len({r.rank for r in rows}) == len(rows)


@settings(max_examples=100, deadline=None)
@given(
    prefix=st.lists(st.sampled_from(NAMES), unique=True, max_size=4),
    bogus=st.text(min_size=1, max_size=12).filter(lambda s: s not in CRITERIA),
)
def test_unknown_criterion_is_rejected(prefix, bogus) -> None:
    chain = [*prefix, bogus]
    with pytest.raises(InvalidInput) as err:
        build_chain(chain)
    assert [p.loc for p in err.value.problems] == [("tiebreaks", len(prefix))]
    with pytest.raises(InvalidInput):
        standings_config({"tiebreaks": chain})
    with pytest.raises(InvalidInput):
        compute_standings([], [], StandingsConfig(tiebreaks=tuple(chain)))
