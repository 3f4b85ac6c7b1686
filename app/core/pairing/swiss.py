"""Swiss pairing, 2 seats (formats.md "Pairing and scheduling" — Swiss, 2 seats; battlebooks.md Clash).

The caller sorts the entries by the ranking (standings) and passes them best first. Two methods:

* ``matching`` — a minimum-cost perfect matching (rustworkx ``max_weight_matching``, blossom, with
  ``max_cardinality=True``) on a SPARSE graph: each entry is joined to its k nearest ranks above and
  below (with ``avoid_rematches``: its k nearest entries it has NOT met, so rematch edges are left out).
  The window ``k`` starts at ``INITIAL_WINDOW`` (4) and doubles while no perfect matching exists, until
  it spans the whole block; if even then none exists a rematch is unavoidable and the complete graph
  with ``REMATCH_PENALTY`` on rematch edges gives the fewest rematches.
* ``adjacent`` — the literal BATTLEBOOKS procedure: 1–2, 3–4, … down the list, the last one gets the bye.

Rulings where the spec is silent:

* Cost of a pair (integer units): ``GAP_WEIGHT * gap²`` (gap = score difference, so one point of gap
  costs 100 and half a point 25) ``+ rank distance`` (1 per rank step, so ties are paired in ranking
  order: 1–2, 3–4, …) ``+ REMATCH_PENALTY`` (10¹², only when ``avoid_rematches`` and the two have met).
  Because the cost is convex in the score gap and linear in rank distance, with no rematch in the way
  the optimum is exactly the adjacent pairing; the matching only departs from it to avoid rematches.
* The bye is chosen BEFORE matching, as a hard rule, by one of two rules (``bye``):
  ``fewest_byes`` (the general engine's): the lowest-ranked entry among those with the fewest byes,
  so nobody gets a second bye while someone has none; ``lowest_score`` (BATTLEBOOKS: "the player
  with the lowest score will receive the buy"): among the entries lowest on score and then
  differential, the one with the fewest byes, the lowest-ranked of those; never an entry above the
  lowest score. Rematch avoidance comes after it.
* Large fields are cut into blocks of about ``BLOCK_SIZE`` ranks, only at even rank counts, and each
  block is matched on its own (blossom is ~cubic). Absent rematch constraints an optimal pairing never
  crosses such a cut (uncrossing two crossing pairs never raises a convex gap cost and strictly lowers
  the rank distance), so blocks lose optimality only when a rematch detour would cross a cut. A block
  whose complete graph still forces a rematch is merged with its neighbour and solved again, so a
  rematch is kept only when the whole field cannot avoid it.
* Optimality: the result is the exact minimum over the sparse graph. Tests compare it with brute force
  over every pairing (≤ 10 entries) and the benchmark with networkx over the complete graph; they agree,
  but a sparse window is not proven to hold the global optimum in every case.
* ``adjacent`` uses the same bye rules: under ``fewest_byes`` the last entry gets the bye unless it
  already had more byes than someone else, then the lowest-ranked entry with the fewest byes.
* ``adjacent`` with ``avoid_rematches``: each top unpaired entry takes the next entry down the list it
  has not met (depth-first, backtracking), i.e. the lexicographically first rematch-free pairing, which
  is the minimal departure from 1–2, 3–4, …. If none exists (or the search exceeds ``SEARCH_BUDGET``
  steps) the ``matching`` result (fewest rematches) is used and a note says so.
* Forbidden pairs (``forbidden``) are left out of the sparse graph like rematches and cost
  ``FORBIDDEN_PENALTY`` (10¹⁴, above any rematch) on the complete graph, so one is paired only when
  nothing else can be; a note then says so.
* Same club (``avoid_same_club``): a pair of one ``club`` costs ``CLUB_PENALTY`` (60): less than one
  point of score gap (100), more than the rank distance of swapping partners inside a score group,
  so clubmates meet only when avoiding them would cost a score float. Such edges do not fill an
  entry's window, so each entry still reaches ``k`` partners of other clubs.
* Seat balance (an entry's ``seats`` given): a pair whose two entries *need* the same seat
  (``seats.seat_need``: a seat difference of ±1 or more, or two equal seats in a row) costs
  ``SEAT_WEIGHT`` (120), and the window widens to ``SEAT_WINDOW`` (12) partners not needing the
  same seat. 120 is more than one point of score gap: the pairing floats an entry a point rather
  than leave someone two seats out of balance or on one seat three times in a row. Measured in
  ``bench/seats_bench.py`` (below 90 or with the narrow window, more than 5% of 1,000 entries end 8
  rounds two seats out of balance).
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
