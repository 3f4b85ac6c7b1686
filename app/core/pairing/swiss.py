"""Swiss pairing, 2 seats (formats.md "Pairing and scheduling" — Swiss, 2 seats; battlebooks.md Clash).

The caller sorts the entries by the ranking (standings) and passes them best first. Two methods:

* ``matching`` — a minimum-cost perfect matching on a sparse graph (``swiss_graph``: each entry's
  nearest eligible ranks, widened while no perfect matching exists; the complete graph with rematches
  priced only when even the whole block cannot avoid one), the cost of a pair by ``swiss_cost``.
* ``adjacent`` — the literal BATTLEBOOKS procedure: 1–2, 3–4, … down the list, the last one gets the bye.

Rulings where the spec is silent:

* The cost of a pair orders what a Swiss must get right, as FIDE's Dutch rules order them: first no
  forbidden pair and no rematch, then the fewest **floats**, then the seats, the score gap, clubs, and
  last the rank distance. A float is counted once per score group the pair crosses
  (``FLOAT_WEIGHT`` × groups crossed: 2.5 against 1.0 across the groups 2.0 and 1.5 is three), as
  FIDE counts a downfloater once in every bracket it passes; 10⁸ outweighs everything below it over
  any block, so a seat preference never costs a float. Below the floats: ``SEAT_COSTS`` for the
  preference one of the two loses (absolute 50,000 — a third seat in a row or a difference past ±2;
  strong 1,000 — a difference of ±2; mild 10 — two in a row), ``GAP_WEIGHT`` × gap² (10,000 a point²:
  half a point 2,500, a point 10,000), ``CLUB_PENALTY`` (60) and 1 per rank step. So with the floats
  fixed an absolute seat outweighs a gap of up to two points (nobody sits three times running on one
  seat where a pairing of as many floats avoids it), a gap outweighs a strong preference (FIDE puts
  score differences before colours), and ties pair in ranking order, 1–2, 3–4, where nothing else
  decides. Without seats, clubs or rematches in the way the optimum is exactly the adjacent pairing.
* The bye is chosen BEFORE matching, as a hard rule, by one of two rules (``bye``):
  ``fewest_byes`` (the general engine's): the lowest-ranked entry among those with the fewest byes,
  so nobody gets a second bye while someone has none; ``lowest_score`` (BATTLEBOOKS: "the player
  with the lowest score will receive the buy"): among the entries lowest on score and then
  differential, the one with the fewest byes, the lowest-ranked of those; never an entry above the
  lowest score. Rematch avoidance comes after it.
* Optimality: the result is the exact minimum over the sparse graph. Tests compare it with brute force
  over every pairing (≤ 10 entries), and each simulated round's floats — and, with seats balanced,
  its absolute seat preferences refused at those floats — with networkx's exact minimum over every
  rematch-free pair (≤ 40 entries); ``bench/swiss_quality_bench.py`` does the same at
  1,000 entries beside bbpPairings.
* ``adjacent`` uses the same bye rules: under ``fewest_byes`` the last entry gets the bye unless it
  already had more byes than someone else, then the lowest-ranked entry with the fewest byes.
* ``adjacent`` with ``avoid_rematches``: each top unpaired entry takes the next entry down the list it
  has not met (depth-first, backtracking), i.e. the lexicographically first rematch-free pairing, which
  is the minimal departure from 1–2, 3–4, …. If none exists (or the search exceeds ``SEARCH_BUDGET``
  steps) the ``matching`` result (fewest rematches) is used and a note says so.
* Forbidden pairs (``forbidden``) are left out of the sparse graph like rematches and cost
  ``FORBIDDEN_PENALTY`` (10¹⁴, above any rematch) on the complete graph, so one is paired only when
  nothing else can be; a note then says so.
* Same club (``avoid_same_club``): a pair of one ``club`` costs ``CLUB_PENALTY`` (60): below a float
  and a score gap, more than the rank distance of swapping partners inside a score group, so
  clubmates meet only when keeping them apart would cost a float, a gap or a seat. Such edges do not
  fill an entry's window, so each entry still reaches ``k`` partners of other clubs.
* In every pair ``first`` is the higher-ranked entry; seats are allocated by ``seats.allocate``
  (or the caller).
* First round: ``first_round_order`` shuffles with ``rng.stream(seed, purpose)``; by rating, the caller
  sorts instead. Either way the list then goes to ``pair_swiss`` (all scores equal → 1–2, 3–4, …).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from app.core import rng
from app.core.errors import InvalidInput, Problem
from app.core.pairing.swiss_cost import (
    CLUB_PENALTY,
    FORBIDDEN_PENALTY,
    RANK_WEIGHT,
    REMATCH_PENALTY,
    clash,
    class_cost,
    score_groups,
)
from app.core.pairing.swiss_graph import match_all, seat_pref

SEARCH_BUDGET = 200_000

PairingMethod = Literal["matching", "adjacent"]
ByeRule = Literal["fewest_byes", "lowest_score"]
BYE_RULES = ("fewest_byes", "lowest_score")


@dataclass(frozen=True, kw_only=True)
class SwissEntry:
    """One entry as the pairing sees it; a list of these is given in ranking order (best first)."""

    id: str
    score: float = 0.0
    opponents: frozenset[str] = frozenset()
    byes: int = 0
    forbidden: frozenset[str] = frozenset()  # entries this one is never paired with
    club: str | None = None
    seats: tuple[int, ...] | None = None  # seat history (0 first, 1 second) when seats are balanced
    differential: float = 0.0  # the second figure of the score, for the ``lowest_score`` bye


@dataclass(frozen=True)
class PairCost:
    """Why a pair costs what it costs (integer cost units, see the module docstring)."""

    score_gap: float
    gap_cost: int
    rank_distance: int
    rematch: bool
    rematch_penalty: int
    total: int
    forbidden: bool = False
    forbidden_penalty: int = 0
    same_club: bool = False
    club_cost: int = 0
    seat_clash: bool = False
    seat_cost: int = 0
    floated: bool = False
    float_cost: int = 0


@dataclass(frozen=True)
class Pair:
    first: str
    second: str
    cost: PairCost


@dataclass(frozen=True)
class SwissBye:
    entry: str
    byes_before: int


@dataclass
class SwissPairing:
    pairs: list[Pair]
    bye: SwissBye | None
    total_cost: int
    rematches: int
    method: str
    window: int = 0
    notes: list[str] = field(default_factory=list)


def first_round_order(entry_ids: Iterable[str], seed: str, purpose: str = "swiss:round:1") -> list[str]:
    """A seeded shuffle of the entries for a random first round (same seed and purpose → same order)."""
    ids = sorted(entry_ids)
    rng.stream(seed, purpose).shuffle(ids)
    return ids


def is_forbidden(a: SwissEntry, b: SwissEntry) -> bool:
    return b.id in a.forbidden or a.id in b.forbidden


def same_club(a: SwissEntry, b: SwissEntry) -> bool:
    return a.club is not None and a.club == b.club


def seat_clash(a: SwissEntry, b: SwissEntry) -> bool:
    """Both entries prefer the same seat: one of them cannot have it."""
    return clash(seat_pref(a.seats), seat_pref(b.seats)) > 0


def pair_cost(
    a: SwissEntry,
    b: SwissEntry,
    rank_a: int,
    rank_b: int,
    avoid_rematches: bool = True,
    avoid_same_club: bool = False,
    groups: Mapping[float, int] | None = None,
) -> PairCost:
    """The cost of pairing ``a`` (at rank ``rank_a``) with ``b`` (at ``rank_b``), part by part."""
    if groups is None:
        groups = score_groups((a.score, b.score))
    float_cost, gap_cost, seat_cost = class_cost(
        a.score, seat_pref(a.seats), b.score, seat_pref(b.seats), groups
    )
    dist = abs(rank_a - rank_b) * RANK_WEIGHT
    rematch = b.id in a.opponents or a.id in b.opponents
    penalty = REMATCH_PENALTY if (rematch and avoid_rematches) else 0
    forbidden = is_forbidden(a, b)
    forbidden_penalty = FORBIDDEN_PENALTY if forbidden else 0
    club = same_club(a, b)
    club_cost = CLUB_PENALTY if (club and avoid_same_club) else 0
    total = float_cost + gap_cost + dist + penalty + forbidden_penalty + club_cost + seat_cost
    return PairCost(
        score_gap=abs(a.score - b.score),
        gap_cost=gap_cost,
        rank_distance=dist,
        rematch=rematch,
        rematch_penalty=penalty,
        total=total,
        forbidden=forbidden,
        forbidden_penalty=forbidden_penalty,
        same_club=club,
        club_cost=club_cost,
        seat_clash=seat_cost > 0,
        seat_cost=seat_cost,
        floated=float_cost > 0,
        float_cost=float_cost,
    )


def choose_bye(entries: Sequence[SwissEntry], rule: ByeRule | str = "fewest_byes") -> int | None:
    """Index of the bye for an odd field. ``fewest_byes``: the lowest-ranked entry among those with
    the fewest byes. ``lowest_score``: among the entries lowest on (score, differential), the one
    with the fewest byes (the lowest-ranked of those)."""
    if len(entries) % 2 == 0:
        return None
    candidates = list(range(len(entries)))
    if rule == "lowest_score":
        lowest = min((e.score, e.differential) for e in entries)
        candidates = [i for i in candidates if (entries[i].score, entries[i].differential) == lowest]
    fewest = min(entries[i].byes for i in candidates)
    return max(i for i in candidates if entries[i].byes == fewest)


def _validate(entries: Sequence[SwissEntry], pairing: str, bye: str) -> None:
    problems: list[Problem] = []
    if pairing not in ("matching", "adjacent"):
        problems.append(
            Problem(("pairing",), f"unknown pairing method {pairing!r}; use matching or adjacent")
        )
    if bye not in BYE_RULES:
        problems.append(Problem(("bye",), f"unknown bye rule {bye!r}; use {' or '.join(BYE_RULES)}"))
    seen: set[str] = set()
    for i, e in enumerate(entries):
        if e.id in seen:
            problems.append(Problem(("entries", i, "id"), f"duplicate entry id {e.id!r}"))
        seen.add(e.id)
        if e.byes < 0:
            problems.append(Problem(("entries", i, "byes"), "byes cannot be negative"))
    if problems:
        raise InvalidInput("cannot pair this Swiss round", problems)


def pair_swiss(
    entries: Sequence[SwissEntry],
    *,
    avoid_rematches: bool = True,
    pairing: PairingMethod | str = "matching",
    avoid_same_club: bool = False,
    bye: ByeRule | str = "fewest_byes",
) -> SwissPairing:
    """Pair one Swiss round. ``entries`` must be in ranking order, best first."""
    _validate(entries, pairing, bye)
    bye_index = choose_bye(entries, bye)
    chosen: SwissBye | None = None
    rest: list[SwissEntry] = list(entries)
    if bye_index is not None:
        chosen = SwissBye(entries[bye_index].id, entries[bye_index].byes)
        del rest[bye_index]
    notes: list[str] = []
    window = 0
    if pairing == "adjacent":
        constrained = avoid_rematches or any(e.forbidden for e in rest)
        if constrained:
            found = _adjacent_search(rest, avoid_rematches)
            if found is None:
                notes.append("no rematch-free adjacent pairing found; used the fewest-rematch matching")
                index_pairs, window = match_all(rest, avoid_rematches, avoid_same_club)
            else:
                index_pairs = found
        else:
            index_pairs = [(i, i + 1) for i in range(0, len(rest), 2)]
    else:
        index_pairs, window = match_all(rest, avoid_rematches, avoid_same_club)
    pairs = []
    groups = score_groups(e.score for e in rest)
    for i, j in sorted(index_pairs):
        cost = pair_cost(rest[i], rest[j], i, j, avoid_rematches, avoid_same_club, groups)
        pairs.append(Pair(rest[i].id, rest[j].id, cost))
    forced = sum(1 for p in pairs if p.cost.forbidden)
    if forced:
        notes.append(f"{forced} forbidden pair(s) could not be avoided")
    return SwissPairing(
        pairs=pairs,
        bye=chosen,
        total_cost=sum(p.cost.total for p in pairs),
        rematches=sum(1 for p in pairs if p.cost.rematch),
        method=str(pairing),
        window=window,
        notes=notes,
    )


def _adjacent_search(
    rest: Sequence[SwissEntry], avoid_rematches: bool = True
) -> list[tuple[int, int]] | None:
    """Lexicographically first rematch-free (and forbidden-free) pairing going down the list
    (iterative backtracking)."""
    m = len(rest)
    if m == 0:
        return []
    met = [(e.opponents if avoid_rematches else frozenset()) | e.forbidden for e in rest]
    ids = [e.id for e in rest]
    used = [False] * m
    stack: list[tuple[int, int]] = []
    a, start, steps = 0, 1, 0
    while True:
        b = start
        while b < m and (used[b] or ids[b] in met[a] or ids[a] in met[b]):
            b += 1
        steps += b - start + 1
        if b < m:
            used[a] = used[b] = True
            stack.append((a, b))
            while a < m and used[a]:
                a += 1
            if a >= m:
                return stack
            start = a + 1
        else:
            if not stack or steps > SEARCH_BUDGET:
                return None
            a, b = stack.pop()
            used[a] = used[b] = False
            start = b + 1
