"""Stored resolvable coverings: every pair meets, every round seats everyone (formats.md "Round robin,
N seats", the ruling on schedules released by rounds).

Where no exact resolvable design is constructed with its rounds, a schedule by rounds for N players in tables of k
(k divides N) comes from ``data/resolvable_covers.json``, computed once by ``bench/resolvable_build.py``.
Each entry is compact: players are Z_g × {0..c−1} (player i·g + x is x in copy i) plus e fixed players
(numbered from c·g); a base round is shifted by every t in Z_g (x ↦ x + t in every copy, the fixed
players stay), which gives g rounds, and a few further rounds (``extra``) seat the pairs the shifts
never seat together; an entry with g = 0 is its rounds as they are (the smallest sizes, found by the
round-structured search given minutes, and the resolutions of the exact designs for 28 and 40 players
in fours). Every entry is checked before it is used (every pair meets, every round a
partition into tables of k); an entry that fails its check is never used.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from app.core.pairing.designs.checks import check_design, check_rounds

DATA = Path(str(resources.files("app.core.pairing.designs").joinpath("data/resolvable_covers.json")))


def expand(entry: dict[str, Any]) -> list[list[list[int]]]:
    """The rounds (each a list of tables) of a stored entry: the shifts of the base round, then ``extra``."""
    g, c = int(entry["g"]), int(entry["c"])
    fixed = c * g

    def shift(p: int, t: int) -> int:
        if p >= fixed:
            return p
        i, x = divmod(p, g)
        return i * g + (x + t) % g

    rounds = [[sorted(shift(p, t) for p in b) for b in entry["base"]] for t in range(g)]
    rounds += [[sorted(b) for b in rnd] for rnd in entry["extra"]]
    return rounds


@lru_cache(maxsize=1)
def _stored() -> dict[str, Any]:
    try:
        data: dict[str, Any] = json.loads(DATA.read_text("utf-8"))
    except FileNotFoundError:
        return {}
    return data


def stored_sizes() -> list[tuple[int, int]]:
    """(players, table size) of every stored entry."""
    return sorted(tuple(int(x) for x in key.split(":")) for key in _stored())  # type: ignore[misc]


def stored_rounds(n: int, k: int) -> int | None:
    """The number of rounds of the stored covering for n players in tables of k, without building it."""
    entry = _stored().get(f"{n}:{k}")
    return None if entry is None else int(entry["g"]) + len(entry["extra"])


@lru_cache(maxsize=32)
def _checked(n: int, k: int) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]] | None:
    entry = _stored().get(f"{n}:{k}")
    if entry is None:
        return None
    rounds = expand(entry)
    tables = [t for rnd in rounds for t in rnd]
    idx: list[list[int]] = []
    for rnd in rounds:
        idx.append(list(range(sum(len(r) for r in idx), sum(len(r) for r in idx) + len(rnd))))
    if any(len(t) != k for t in tables) or any(len(rnd) * k != n for rnd in rounds):
        return None
    if not check_rounds(tables, idx) or check_design(tables, n).pair_meetings.min < 1:
        return None
    return tuple(tuple(t) for t in tables), tuple(tuple(r) for r in idx)


def stored_cover(n: int, k: int) -> tuple[list[list[int]], list[list[int]]] | None:
    """Tables and rounds of the stored resolvable covering for n players in tables of k, checked; None
    when none is stored (or the stored one fails its check)."""
    found = _checked(n, k)
    if found is None:
        return None
    tables, rounds = found
    return [list(t) for t in tables], [list(r) for r in rounds]
