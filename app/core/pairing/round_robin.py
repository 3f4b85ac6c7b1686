"""Round robin, 2 seats (formats.md "Pairing and scheduling" — Round robin, 2 seats, and the ruling
"2-seat round-robin schedules"; bga-round-robin.md).

Berger tables (the FIDE tables): n entries numbered 1..n (plus a phantom n when the count is odd,
so n is even), m = n − 1. Round r (1..m) has a start s = 2 + (r − 1)·n/2, counted cyclically over
1..m: entry s − 1 meets entry n (entry n has the first seat in the even rounds, the second in the odd
ones), and for b = 0..n/2 − 2 entry s + b takes the first seat against entry s − 2 − b. So 8
entries give 1–8 2–7 3–6 4–5, then 8–5 6–4 7–3 1–2, …, as FIDE prints them; every pair meets once
in m rounds and every entry has the first seat ⌊m/2⌋ or ⌈m/2⌉ times. A ``double`` round robin
repeats the cycle with the seats swapped, so every pair meets twice, once in each seat.

Rulings where the spec is silent:

* Entries are taken in the order given (the caller shuffles by the event seed or numbers players by
  dice): position i is Berger number i + 1. The stateless schedule tool seats its 2-seat designs
  by these tables too (``berger_rounds``).
* The phantom's opponent has the bye for that round (one bye per round when n is odd). Boards are
  listed as FIDE lists them: entry n's game first.
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


def berger_rounds(count: int) -> list[list[tuple[int, int]]]:
    """The Berger tables of ``count`` entries (0-based positions), round by round: (first seat,
    second seat) per board; when ``count`` is odd, the board against the phantom (position
    ``count``) is included — its other entry has the bye."""
    n = count + count % 2
    m = n - 1

    def cyc(x: int) -> int:  # a number 1..m, cyclically
        return (x - 1) % m + 1

    rounds: list[list[tuple[int, int]]] = []
    for r in range(1, m + 1):
        s = cyc(2 + (r - 1) * (n // 2))
        p0 = cyc(s - 1)
        boards = [(n, p0) if r % 2 == 0 else (p0, n)]
        boards += [(cyc(s + b), cyc(s - 2 - b)) for b in range(n // 2 - 1)]
        rounds.append([(a - 1, b - 1) for a, b in boards])
    return rounds


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
    slots: list[str | None] = [*ids, None]  # the phantom, met only when the count is odd
    rounds: list[RoundRobinRound] = []
    for number, boards in enumerate(berger_rounds(len(ids)), start=1):
        pairs: list[tuple[str, str]] = []
        bye = None
        for i, j in boards:
            a, b = slots[i], slots[j]
            if a is None:
                bye = b
            elif b is None:
                bye = a
            else:
                pairs.append((a, b))
        rounds.append(RoundRobinRound(number, pairs, bye))
    m = len(rounds)
    if double:
        rounds += [RoundRobinRound(m + rd.number, [(b, a) for a, b in rd.pairs], rd.bye) for rd in rounds[:m]]
    return rounds
