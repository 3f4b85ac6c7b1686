"""Schedules released by rounds in which everyone plays every round (formats.md "Round robin, N seats",
the ruling on resolvable schedules): the stored coverings, checked here by a recount of their own, and
the rounds every size up to 200 gets against the fewest possible."""

from __future__ import annotations

import json
from itertools import combinations

import pytest

from app.core.pairing.designs import (
    MAX_TABLES,
    fewest_rounds_bound,
    schonheim_bound,
    search_design,
    steiner_system,
)
from app.core.pairing.designs.cyclic import DATA, stored_cover, stored_rounds

TARGET = 1.25


def unfold(entry: dict[str, object]) -> list[list[list[int]]]:
    """The rounds of a stored entry, unfolded here without the module's code: the base round shifted by
    every t in Z_g (player i·g + x ↦ i·g + (x + t) mod g; players from c·g on stay), then ``extra``."""
    g, c = int(entry["g"]), int(entry["c"])  # type: ignore[call-overload]
    base: list[list[int]] = entry["base"]  # type: ignore[assignment]
    extra: list[list[list[int]]] = entry["extra"]  # type: ignore[assignment]
    rounds = [
        [[p if p >= c * g else (p // g) * g + (p % g + t) % g for p in table] for table in base]
        for t in range(g)
    ]
    return rounds + extra


def naive(n: int, k: int) -> int:
    return -(-(n - 1) // (k - 1))


def test_every_stored_covering_seats_everyone_every_round_and_every_pair_meets() -> None:
    data = json.loads(DATA.read_text("utf-8"))
    assert len(data) >= 70
    for key, entry in data.items():
        n, k = (int(x) for x in key.split(":"))
        rounds = unfold(entry)
        met = bytearray(n * n)
        for rnd in rounds:
            seated = sorted(p for table in rnd for p in table)
            assert seated == list(range(n)), f"{key}: a round is not a partition of the players"
            assert all(len(table) == k for table in rnd), f"{key}: a table of the wrong size"
            for table in rnd:
                for a, b in combinations(table, 2):
                    met[a * n + b] = met[b * n + a] = 1
        missing = [(a, b) for a in range(n) for b in range(a + 1, n) if not met[a * n + b]]
        assert not missing, f"{key}: pairs never meet, e.g. {missing[:3]}"
        assert len(rounds) <= TARGET * naive(n, k) or len(rounds) == fewest_rounds_bound(n, k), key


def test_every_size_up_to_200_gets_at_most_a_quarter_more_rounds_than_the_fewest_possible() -> None:
    """Constructions where an exact resolvable design is built with its rounds, else the stored
    covering; the only sizes above 1.25 are those where no schedule can do better (the sharper bound
    is reached)."""
    for k in (3, 4):
        for n in range(k, 201, k):
            if schonheim_bound(n, k) > MAX_TABLES:
                continue
            rounds = stored_rounds(n, k)  # 28 and 40 in fours: the resolution of the exact design
            if rounds is None:  # else an exact resolvable design: the fewest rounds there are
                steiner = steiner_system(n, k)
                assert steiner is not None and steiner[1] is not None, (n, k)
                rounds = len(steiner[1])
                assert rounds == naive(n, k)
            assert rounds <= TARGET * naive(n, k) or rounds == fewest_rounds_bound(n, k), (n, k, rounds)


def test_a_stored_size_is_answered_at_once_from_its_covering() -> None:
    d = search_design(24, 4, "complete", rounds=True, seed="any", should_stop=lambda: True)
    assert d.rounds is not None and len(d.rounds) == stored_rounds(24, 4) <= 10  # 1.75 × 8 before
    assert not any(w.startswith("search stopped") for w in d.report.warnings)
    assert d.report.pair_meetings.min >= 1
    for rnd in d.rounds:
        assert sorted(p for ti in rnd for p in d.tables[ti]) == list(range(24))
    assert stored_cover(25, 4) is None and stored_rounds(25, 4) is None
    exact = search_design(40, 4, "complete", rounds=True, should_stop=lambda: True)  # PG(3, 3), resolved
    assert exact.report.exact and exact.rounds is not None and len(exact.rounds) == 13


def _partitions(players: list[int], k: int) -> list[list[tuple[int, ...]]]:
    if not players:
        return [[]]
    first, rest = players[0], players[1:]
    out = []
    for others in combinations(rest, k - 1):
        left = [p for p in rest if p not in others]
        out += [[(first, *others), *tail] for tail in _partitions(left, k)]
    return out


@pytest.mark.parametrize(("n", "k", "fewest"), [(6, 3, 4), (12, 4, 5), (8, 4, 3), (9, 3, 4)])
def test_the_sharper_bound_is_the_true_minimum_where_the_naive_one_cannot_be_met(
    n: int, k: int, fewest: int
) -> None:
    assert fewest_rounds_bound(n, k) == fewest
    if (n, k) == (6, 3):  # by exhaustion: no 3 rounds of two triples meet all 15 pairs
        parts = _partitions(list(range(6)), 3)
        pair_sets = [{pr for t in p for pr in combinations(t, 2)} for p in parts]
        assert not any(len(a | b | c) == 15 for a in pair_sets for b in pair_sets for c in pair_sets)
    d = search_design(n, k, "complete", rounds=True, seed="t")
    assert d.rounds is not None and len(d.rounds) == fewest
