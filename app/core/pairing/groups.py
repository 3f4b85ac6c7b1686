"""Groups (formats.md "Pairing and scheduling" — Groups; bga-round-robin.md "11 or more" and "Large fields").

Split N entries into g groups whose sizes differ by at most one (16 → 8+8, 17 → 8+9).

Rulings where the spec is silent:

* ``random``: the entries are shuffled with ``rng.stream(seed, purpose)`` (after sorting the ids, so the
  result depends only on the set of entries and the seed) and dealt in consecutive chunks; the
  smaller groups come first, so 17 → 8 + 9 as in the spec's example.
* ``snake``: the entries are taken in the given ranking order and dealt 1..g, g..1, 1..g, …; with an
  uneven count the groups reached first in the last pass get the extra entry. Within a group the
  entries keep ranking order.
* g must be between 1 and N; otherwise InvalidInput.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from app.core import rng
from app.core.errors import InvalidInput, Problem

GroupMethod = Literal["random", "snake"]


def group_sizes(n: int, groups: int) -> list[int]:
    """Sizes differing by at most one, smaller first: group_sizes(17, 2) == [8, 9]."""
    base, extra = divmod(n, groups)
    return [base] * (groups - extra) + [base + 1] * extra


def split_groups(
    entry_ids: Sequence[str],
    groups: int,
    *,
    method: GroupMethod | str = "random",
    seed: str | None = None,
    purpose: str = "groups",
) -> list[list[str]]:
    """The entries split into ``groups`` groups (each a list of ids)."""
    ids = list(entry_ids)
    problems: list[Problem] = []
    if len(set(ids)) != len(ids):
        problems.append(Problem(("entries",), "duplicate entry ids"))
    if not 1 <= groups <= len(ids):
        problems.append(Problem(("groups",), f"need 1 to {len(ids)} groups for {len(ids)} entries"))
    if method not in ("random", "snake"):
        problems.append(Problem(("method",), f"unknown group method {method!r}; use random or snake"))
    if method == "random" and seed is None:
        problems.append(Problem(("seed",), "random groups need the event seed"))
    if problems:
        raise InvalidInput("cannot split into groups", problems)
    if method == "snake":
        out: list[list[str]] = [[] for _ in range(groups)]
        for i, e in enumerate(ids):
            lap, pos = divmod(i, groups)
            out[pos if lap % 2 == 0 else groups - 1 - pos].append(e)
        return out
    assert seed is not None
    shuffled = sorted(ids)
    rng.stream(seed, purpose).shuffle(shuffled)
    result: list[list[str]] = []
    start = 0
    for size in group_sizes(len(ids), groups):
        result.append(shuffled[start : start + size])
        start += size
    return result
