"""Single elimination (formats.md "Pairing and scheduling" — Single elimination; battlebooks.md
"battlebooks-last-man-standing").

slots = next power of two ≥ N; first-round pairings = slots / 2; rounds = log2(slots).

* ``draw`` (BATTLEBOOKS): the names, shuffled with ``rng.stream(seed, purpose)``, are drawn into the
  FIRST slot of pairing 1, 2, … in order, then into the second slots; a pairing left without a second
  name is a bye (30 → 16 pairings, 2 byes; 65 → 64 pairings, 63 byes).
* ``seeded``: the entries are given in seed order (1 first); standard bracket order 1–16, 8–9, 4–13,
  5–12, 2–15, 7–10, 3–14, 6–11 (for 16), so the top seeds meet last; the missing seeds (> N) are the
  byes, which therefore go to the top seeds.

The bracket is data: ``matches[r - 1][i]`` is match i (0-based) of round r (1-based); its winner goes to
match ``i // 2`` of round r + 1, slot ``i % 2`` (0 = first seat, 1 = second), as written on every
match (``next_match``/``next_slot``, ``None`` for the final). ``best_of`` is the number of games in
every match (a field, the caller runs the series).

Multi-seat elimination (``multi_seat_tables`` / ``multi_seat_next``): tables of up to k seats, the top m
of each table advance.

Rulings where the spec is silent:

* Bye winners are placed into round 2 when the bracket is built (a bye "advances").
* ``draw`` shuffles the ids sorted first, so the draw depends only on the set of entries and the seed.
* ``best_of`` must be a positive integer (odd is usual, but even is accepted: a drawn series is decided
  by the caller's ``tiebreak_value``).
* Multi-seat: the first round snakes the seeds over ceil(N / k) tables (table sizes differ by at most
  one). Advancers are ordered by finishing place, then by table (all table winners in table order, then
  all seconds, …) and that order is snaked over the next round's tables; when the advancers fit one
  table (≤ k) that table is the final. m must be ≥ 1 and smaller than every table's size.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from app.core import rng
from app.core.errors import InvalidInput, Problem

EliminationMethod = Literal["draw", "seeded"]


@dataclass(frozen=True)
class BracketMatch:
    round: int  # 1-based
    index: int  # 0-based within the round
    first: str | None  # None: not yet known (or the empty side of a bye)
    second: str | None
    bye: bool  # a first-round pairing with only one name; it advances
    next_match: int | None  # index in round + 1; None for the final
    next_slot: int | None  # 0 = first seat, 1 = second seat
    winner: str | None = None


@dataclass(frozen=True)
class Bracket:
    method: str
    entrants: int
    slots: int
    rounds: int
    best_of: int
    matches: list[list[BracketMatch]]

    @property
    def pairings(self) -> int:
        return self.slots // 2

    @property
    def byes(self) -> int:
        return sum(1 for m in self.matches[0] if m.bye)

    def champion(self) -> str | None:
        return self.matches[-1][0].winner


def next_power_of_two(n: int) -> int:
    p = 1
    while p < n:
        p *= 2
    return p


def seeded_order(slots: int) -> list[int]:
    """Seed numbers (1-based) in bracket position order: 16 → [1, 16, 8, 9, 4, 13, 5, 12, 2, 15, …]."""
    order = [1]
    while len(order) < slots:
        size = 2 * len(order)
        order = [x for s in order for x in (s, size + 1 - s)]
    return order


def single_elimination(
    entry_ids: Sequence[str],
    *,
    method: EliminationMethod | str = "draw",
    seed: str | None = None,
    purpose: str = "elimination:draw",
    best_of: int = 1,
) -> Bracket:
    """Build the bracket. For ``seeded`` the ids are in seed order; for ``draw`` the seed is required."""
    ids = list(entry_ids)
    problems: list[Problem] = []
    if len(ids) < 2:
        problems.append(Problem(("entries",), "single elimination needs at least 2 entries"))
    if len(set(ids)) != len(ids):
        problems.append(Problem(("entries",), "duplicate entry ids"))
    if method not in ("draw", "seeded"):
        problems.append(Problem(("method",), f"unknown elimination method {method!r}; use draw or seeded"))
    if method == "draw" and seed is None:
        problems.append(Problem(("seed",), "the draw needs the event seed"))
    if best_of < 1:
        problems.append(Problem(("best_of",), "best_of must be at least 1"))
    if problems:
        raise InvalidInput("cannot build the bracket", problems)
    slots = next_power_of_two(len(ids))
    half = slots // 2
    rounds = slots.bit_length() - 1
    firsts: list[tuple[str | None, str | None]]
    if method == "draw":
        assert seed is not None
        drawn = sorted(ids)
        rng.stream(seed, purpose).shuffle(drawn)
        firsts = [(drawn[i], drawn[half + i] if half + i < len(drawn) else None) for i in range(half)]
    else:
        order = seeded_order(slots)
        names: list[str | None] = [ids[s - 1] if s <= len(ids) else None for s in order]
        firsts = [(names[2 * i], names[2 * i + 1]) for i in range(half)]
    matches: list[list[BracketMatch]] = []
    for r in range(1, rounds + 1):
        count = slots >> r
        final = r == rounds
        matches.append(
            [
                BracketMatch(r, i, None, None, False, None if final else i // 2, None if final else i % 2)
                for i in range(count)
            ]
        )
    for i, (a, b) in enumerate(firsts):
        bye = (a is None) != (b is None)
        matches[0][i] = replace(matches[0][i], first=a, second=b, bye=bye, winner=(a or b) if bye else None)
    bracket = Bracket(str(method), len(ids), slots, rounds, best_of, matches)
    return _propagate(bracket)


def _propagate(bracket: Bracket) -> Bracket:
    """Copy every decided winner into its next match's slot."""
    matches = [list(rnd) for rnd in bracket.matches]
    for r in range(len(matches) - 1):
        for m in matches[r]:
            if m.winner is None or m.next_match is None:
                continue
            nxt = matches[r + 1][m.next_match]
            nxt = replace(nxt, first=m.winner) if m.next_slot == 0 else replace(nxt, second=m.winner)
            matches[r + 1][m.next_match] = nxt
    return replace(bracket, matches=matches)


def record_winners(bracket: Bracket, winners: Mapping[tuple[int, int], str]) -> Bracket:
    """A new bracket with the given winners, keyed by (round, index), recorded and routed onward."""
    matches = [list(rnd) for rnd in bracket.matches]
    problems: list[Problem] = []
    for (r, i), w in sorted(winners.items()):
        if not (1 <= r <= bracket.rounds and 0 <= i < len(matches[r - 1])):
            problems.append(Problem(("winners", f"{r}:{i}"), "no such match"))
            continue
        m = matches[r - 1][i]
        if w not in (m.first, m.second):
            problems.append(Problem(("winners", f"{r}:{i}"), f"{w!r} does not play in this match"))
            continue
        matches[r - 1][i] = replace(m, winner=w)
        if m.next_match is not None:
            nxt = matches[r][m.next_match]
            matches[r][m.next_match] = replace(nxt, first=w) if m.next_slot == 0 else replace(nxt, second=w)
    if problems:
        raise InvalidInput("cannot record these winners", problems)
    return replace(bracket, matches=matches)


# --- multi-seat elimination ---------------------------------------------------------------------------


def _snake(ordered: Sequence[str], tables: int) -> list[list[str]]:
    out: list[list[str]] = [[] for _ in range(tables)]
    for i, e in enumerate(ordered):
        lap, pos = divmod(i, tables)
        out[pos if lap % 2 == 0 else tables - 1 - pos].append(e)
    return out


def multi_seat_tables(seeded_ids: Sequence[str], table_size: int) -> list[list[str]]:
    """First round of a multi-seat elimination: snake the seeds over ceil(N / k) tables."""
    ids = list(seeded_ids)
    problems: list[Problem] = []
    if table_size < 2:
        problems.append(Problem(("table_size",), "tables need at least 2 seats"))
    if len(ids) < 2:
        problems.append(Problem(("entries",), "elimination needs at least 2 entries"))
    if len(set(ids)) != len(ids):
        problems.append(Problem(("entries",), "duplicate entry ids"))
    if problems:
        raise InvalidInput("cannot seat this elimination round", problems)
    return _snake(ids, -(-len(ids) // table_size))


@dataclass(frozen=True)
class MultiSeatRound:
    advancing: list[str]  # by place, then table
    tables: list[list[str]]  # next round's tables
    final: bool  # the next round is a single (final) table


def multi_seat_next(table_results: Sequence[Sequence[str]], advance: int, table_size: int) -> MultiSeatRound:
    """Given each table's finishing order (best first), the top ``advance`` of every table go on."""
    problems: list[Problem] = []
    if advance < 1:
        problems.append(Problem(("advance",), "at least one entry per table must advance"))
    for t, res in enumerate(table_results):
        if len(res) <= advance:
            problems.append(Problem(("tables", t), f"a table of {len(res)} cannot send on its top {advance}"))
    if problems:
        raise InvalidInput("cannot advance this elimination round", problems)
    advancing = [res[p] for p in range(advance) for res in table_results if p < len(res)]
    if len(advancing) <= table_size:
        return MultiSeatRound(advancing, [list(advancing)], True)
    tables = _snake(advancing, -(-len(advancing) // table_size))
    return MultiSeatRound(advancing, tables, len(tables) == 1)
