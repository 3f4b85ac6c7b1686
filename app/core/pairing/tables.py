"""Swiss, N seats (formats.md "Pairing and scheduling" — Swiss, N seats).

Group entries of similar standing into tables of N (3–5) seats, spreading repeat meetings; when the
count does not divide, use some tables of N−1, never a table below the game's ``min_seats``.

Method: the ranking (given best first) is sliced into consecutive tables, then improved locally: for
every pair of neighbouring tables the best single swap (one entry each way) is made while it lowers
the cost, pass after pass until no swap helps (or ``max_passes``). Swaps only between neighbouring
tables keep every table made of entries of similar standing.

Rulings where the spec is silent:

* Repeat cost of a table: the sum over its pairs of m², m = how often the two have already met
  (never met 0, once 1, twice 4, three times 9 …), so meeting again is quadratically worse.
  ``met`` is read both ways (the larger count counts).
* Swap cost = ``REPEAT_WEIGHT`` (10,000) × repeat cost + ``GAP_WEIGHT`` (100) × Σ over the table's
  pairs of (score gap)²: avoiding one repeat meeting outweighs any plausible standing disruption
  between neighbouring tables; among equal repeat costs the tightest score grouping wins.
* Table sizes: t = ceil(count / N) tables, t·N − count of them with N−1 seats, placed at the bottom
  of the ranking. If N−1 seats are needed but fall below ``min_seats`` (default N−1), or the count
  cannot be written as tables of N and N−1 (e.g. 5 entries at tables of 4), InvalidInput says so.
* A forbidden pair at a table costs ``FORBIDDEN_WEIGHT`` (10⁷, above any repeat); with
  ``avoid_same_club`` two entries of one club at a table cost ``CLUB_WEIGHT`` (60, less than one
  point of score gap between them, like in 2-seat Swiss). Both are reported per table.
* Inside a table entries are listed in ranking order; seat order (first player) is the caller's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from app.core.errors import InvalidInput, Problem

REPEAT_WEIGHT = 10_000
GAP_WEIGHT = 100
FORBIDDEN_WEIGHT = 10_000_000
CLUB_WEIGHT = 60


@dataclass(frozen=True)
class TableEntry:
    """One entry, given in ranking order (best first). ``met`` maps opponent id → times met."""

    id: str
    score: float = 0.0
    met: Mapping[str, int] = field(default_factory=dict)
    forbidden: frozenset[str] = frozenset()
    club: str | None = None


@dataclass(frozen=True)
class Table:
    number: int  # 1-based, top table first
    entries: list[str]  # ranking order
    repeat_cost: int  # Σ m² over the table's pairs
    repeat_pairs: int  # pairs at the table that have met before
    forbidden_pairs: int = 0  # forbidden pairs the table could not avoid
    same_club_pairs: int = 0  # pairs of one club at the table (with avoid_same_club)


@dataclass
class TablePairing:
    tables: list[Table]
    total_repeat_cost: int
    swaps: int  # improving swaps made
    passes: int


def table_sizes(count: int, seats: int, min_seats: int | None = None) -> list[int]:
    """Table sizes top to bottom: as many tables of ``seats`` as possible, the rest ``seats`` − 1."""
    low = seats - 1 if min_seats is None else min_seats
    problems: list[Problem] = []
    if not seats >= 2:
        problems.append(Problem(("seats",), "a table needs at least 2 seats"))
    if not 1 <= low <= seats:
        problems.append(Problem(("min_seats",), f"min_seats must be between 1 and {seats}"))
    if count < 1:
        problems.append(Problem(("entries",), "no entries to seat"))
    if problems:
        raise InvalidInput("cannot seat these tables", problems)
    tables = -(-count // seats)
    short = tables * seats - count
    if short > tables:
        raise InvalidInput(
            f"{count} entries cannot be seated at tables of {seats} and {seats - 1}",
            [Problem(("entries",), f"{count} is not a sum of {seats}s and {seats - 1}s")],
        )
    if short and seats - 1 < low:
        raise InvalidInput(
            f"{count} entries need {short} table(s) of {seats - 1}, below the game's minimum of {low} seats",
            [
                Problem(
                    ("entries",), f"{count} is not a multiple of {seats} and {seats - 1} < min_seats {low}"
                )
            ],
        )
    return [seats] * (tables - short) + [seats - 1] * short


def pair_tables(
    entries: Sequence[TableEntry],
    seats: int,
    *,
    min_seats: int | None = None,
    max_passes: int = 50,
    avoid_same_club: bool = False,
) -> TablePairing:
    """Seat one N-seat Swiss round. ``entries`` must be in ranking order, best first."""
    ids = [e.id for e in entries]
    if len(set(ids)) != len(ids):
        raise InvalidInput("cannot seat these tables", [Problem(("entries",), "duplicate entry ids")])
    sizes = table_sizes(len(entries), seats, min_seats)
    n = len(entries)
    index = {e.id: i for i, e in enumerate(entries)}
    scores = [e.score for e in entries]
    met: list[dict[int, int]] = [{} for _ in range(n)]
    for i, e in enumerate(entries):
        for other, times in e.met.items():
            j = index.get(other)
            if j is not None and j != i and times > 0:
                met[i][j] = max(met[i].get(j, 0), times)
                met[j][i] = max(met[j].get(i, 0), times)

    banned = [{index[o] for o in e.forbidden if o in index} for e in entries]
    clubs = [e.club if avoid_same_club else None for e in entries]

    def cost(a: int, b: int) -> int:
        m = met[a].get(b, 0)
        gap = scores[a] - scores[b]
        extra = FORBIDDEN_WEIGHT if (b in banned[a] or a in banned[b]) else 0
        if clubs[a] is not None and clubs[a] == clubs[b]:
            extra += CLUB_WEIGHT
        return REPEAT_WEIGHT * m * m + round(GAP_WEIGHT * gap * gap) + extra

    tables: list[list[int]] = []
    start = 0
    for size in sizes:
        tables.append(list(range(start, start + size)))
        start += size

    swaps = 0
    passes = 0
    for _ in range(max_passes):
        passes += 1
        improved = False
        for t in range(len(tables) - 1):
            upper, lower = tables[t], tables[t + 1]
            best = 0
            best_move: tuple[int, int] | None = None
            for xi, x in enumerate(upper):
                x_up = sum(cost(x, z) for z in upper if z != x)
                x_low = sum(cost(x, w) for w in lower)
                for yi, y in enumerate(lower):
                    # moving x down and y up; pairs (x, y) cancel out on both sides
                    y_up = sum(cost(y, z) for z in upper if z != x)
                    y_low = sum(cost(y, w) for w in lower if w != y)
                    delta = (y_up - x_up) + (x_low - cost(x, y) - y_low)
                    if delta < best:
                        best, best_move = delta, (xi, yi)
            if best_move is not None:
                xi, yi = best_move
                upper[xi], lower[yi] = lower[yi], upper[xi]
                swaps += 1
                improved = True
        if not improved:
            break

    out: list[Table] = []
    for number, members in enumerate(tables, start=1):
        members.sort()
        rep = 0
        rep_pairs = 0
        banned_pairs = 0
        club_pairs = 0
        for a_pos, a in enumerate(members):
            for b in members[a_pos + 1 :]:
                m = met[a].get(b, 0)
                rep += m * m
                rep_pairs += m > 0
                banned_pairs += b in banned[a] or a in banned[b]
                club_pairs += clubs[a] is not None and clubs[a] == clubs[b]
        out.append(Table(number, [ids[i] for i in members], rep, rep_pairs, banned_pairs, club_pairs))
    return TablePairing(out, sum(t.repeat_cost for t in out), swaps, passes)
