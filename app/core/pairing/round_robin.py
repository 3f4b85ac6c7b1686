"""Round robin, 2 seats (formats.md "Pairing and scheduling" — Round robin, 2 seats; bga-round-robin.md).

Circle (Berger) method: with n entries (plus a ``None`` phantom when n is odd, so n' is even) the last
one stays fixed and the others rotate; round r pairs the fixed one with position r and positions
r+i with r−i (mod n'−1). Every pair meets once in n'−1 rounds; a ``double`` round robin repeats the
cycle with the seats swapped, so every pair meets twice, once in each seat.

Rulings where the spec is silent:

* Entries are taken in the order given (the caller shuffles by the event seed or numbers players by
  dice). Position 0..n−1 plays the role of the Berger table number.
* Seats: the fixed entry takes the first seat in odd-numbered rounds (1st, 3rd, …) and the second
  seat otherwise; in the other pairs the entry at r+i sits first when i is odd, else the one at r−i.
  Each entry's first-seat count is then within one of its second-seat count (checked by tests).
* The phantom's opponent has the bye for that round (one bye per round when n is odd).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.core.errors import InvalidInput, Problem


@dataclass(frozen=True)
class RoundRobinRound:
    number: int  # 1-based
    pairs: list[tuple[str, str]]  # (first_seat, second_seat)
    bye: str | None


def round_robin(entry_ids: Sequence[str], *, double: bool = False) -> list[RoundRobinRound]:
    """All rounds of a single (or double) 2-seat round robin over ``entry_ids`` in the given order."""
    ids = list(entry_ids)
    problems = [
        Problem(("entries", i), f"duplicate entry id {e!r}") for i, e in enumerate(ids) if e in ids[:i]
    ]
    if len(ids) < 2:
        problems.append(Problem(("entries",), "a round robin needs at least 2 entries"))
    if problems:
        raise InvalidInput("cannot schedule this round robin", problems)
    slots: list[str | None] = list(ids)
    if len(slots) % 2:
        slots.append(None)
    n = len(slots)
    m = n - 1  # rotating positions 0..m-1; slots[m] is fixed
    rounds: list[RoundRobinRound] = []
    for r in range(m):
        raw: list[tuple[str | None, str | None]] = []
        fixed, other = slots[m], slots[r]
        raw.append((fixed, other) if r % 2 == 0 else (other, fixed))
        for i in range(1, n // 2):
            a, b = slots[(r + i) % m], slots[(r - i) % m]
            raw.append((a, b) if i % 2 else (b, a))
        pairs: list[tuple[str, str]] = []
        bye = None
        for a, b in raw:
            if a is None:
                bye = b
            elif b is None:
                bye = a
            else:
                pairs.append((a, b))
        rounds.append(RoundRobinRound(r + 1, pairs, bye))
    if double:
        rounds += [RoundRobinRound(m + rd.number, [(b, a) for a, b in rd.pairs], rd.bye) for rd in rounds[:m]]
    return rounds
