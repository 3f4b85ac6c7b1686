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
* In every pair ``first`` is the higher-ranked entry; seat/colour allocation is left to the caller.
* First round: ``first_round_order`` shuffles with ``rng.stream(seed, purpose)``; by rating, the caller
  sorts instead. Either way the list then goes to ``pair_swiss`` (all scores equal → 1–2, 3–4, …).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import rustworkx as rx

from app.core import rng
from app.core.errors import InvalidInput, Problem

GAP_WEIGHT = 100
RANK_WEIGHT = 1
REMATCH_PENALTY = 10**12
INITIAL_WINDOW = 4
BLOCK_SIZE = 1000
SEARCH_BUDGET = 200_000

PairingMethod = Literal["matching", "adjacent"]
ByeRule = Literal["fewest_byes", "lowest_score"]
BYE_RULES = ("fewest_byes", "lowest_score")


@dataclass(frozen=True)
class SwissEntry:
    """One entry as the pairing sees it; a list of these is given in ranking order (best first)."""

    id: str
    score: float = 0.0
    opponents: frozenset[str] = frozenset()
    byes: int = 0
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


def pair_cost(
    a: SwissEntry, b: SwissEntry, rank_a: int, rank_b: int, avoid_rematches: bool = True
) -> PairCost:
    """The cost of pairing ``a`` (at rank ``rank_a``) with ``b`` (at ``rank_b``)."""
    gap = abs(a.score - b.score)
    gap_cost = round(GAP_WEIGHT * gap * gap)
    dist = abs(rank_a - rank_b) * RANK_WEIGHT
    rematch = b.id in a.opponents or a.id in b.opponents
    penalty = REMATCH_PENALTY if (rematch and avoid_rematches) else 0
    return PairCost(gap, gap_cost, dist, rematch, penalty, gap_cost + dist + penalty)


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
        if avoid_rematches:
            found = _adjacent_search(rest)
            if found is None:
                notes.append("no rematch-free adjacent pairing found; used the fewest-rematch matching")
                index_pairs, window = _match_all(rest, True)
            else:
                index_pairs = found
        else:
            index_pairs = [(i, i + 1) for i in range(0, len(rest), 2)]
    else:
        index_pairs, window = _match_all(rest, avoid_rematches)
    pairs = []
    for i, j in sorted(index_pairs):
        cost = pair_cost(rest[i], rest[j], i, j, avoid_rematches)
        pairs.append(Pair(rest[i].id, rest[j].id, cost))
    return SwissPairing(
        pairs=pairs,
        bye=chosen,
        total_cost=sum(p.cost.total for p in pairs),
        rematches=sum(1 for p in pairs if p.cost.rematch),
        method=str(pairing),
        window=window,
        notes=notes,
    )


def _adjacent_search(rest: Sequence[SwissEntry]) -> list[tuple[int, int]] | None:
    """Lexicographically first rematch-free pairing going down the list (iterative backtracking)."""
    m = len(rest)
    if m == 0:
        return []
    met = [e.opponents for e in rest]
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


def _blocks(m: int) -> list[tuple[int, int]]:
    """Cut ranks 0..m into blocks of about BLOCK_SIZE, each of even length."""
    if m <= BLOCK_SIZE + BLOCK_SIZE // 2:
        return [(0, m)] if m else []
    cuts = list(range(0, m, BLOCK_SIZE))
    out = [(s, min(s + BLOCK_SIZE, m)) for s in cuts]
    if out[-1][1] - out[-1][0] < BLOCK_SIZE // 2 and len(out) > 1:
        last = out.pop()
        out[-1] = (out[-1][0], last[1])
    return out


def _match_all(rest: Sequence[SwissEntry], avoid: bool) -> tuple[list[tuple[int, int]], int]:
    blocks = _blocks(len(rest))
    solved: dict[tuple[int, int], tuple[list[tuple[int, int]], int]] = {}
    i = 0
    while i < len(blocks):
        lo, hi = blocks[i]
        pairs, rematches, k = _match_block(rest, lo, hi, avoid)
        if rematches and avoid and len(blocks) > 1:
            # The block's complete graph forces a rematch: merge with a neighbour and solve again.
            if i + 1 < len(blocks):
                blocks[i : i + 2] = [(lo, blocks[i + 1][1])]
            else:
                blocks[i - 1 : i + 1] = [(blocks[i - 1][0], hi)]
                i -= 1
            continue
        solved[(lo, hi)] = (pairs, k)
        i += 1
    out: list[tuple[int, int]] = []
    window = 0
    for b in blocks:
        pairs, k = solved[b]
        out.extend(pairs)
        window = max(window, k)
    return out, window


def _match_block(
    rest: Sequence[SwissEntry], lo: int, hi: int, avoid: bool
) -> tuple[list[tuple[int, int]], int, int]:
    """Min-cost perfect matching of ranks lo..hi-1, widening the window until it is good enough.

    With ``avoid`` the window counts eligible partners only: each entry is joined to its k nearest
    not-yet-met entries above and below it, so an entry that has met all its neighbours reaches
    further without making the whole graph denser. If even every eligible edge admits no perfect
    matching, a rematch is unavoidable in this block: the complete graph with the rematch penalty
    gives the fewest rematches.
    """
    n = hi - lo
    if n == 0:
        return [], 0, 0
    scores = [e.score for e in rest[lo:hi]]
    ids = [e.id for e in rest[lo:hi]]
    met = [e.opponents for e in rest[lo:hi]]

    def eligible(a: int, b: int) -> bool:
        return not avoid or not (ids[b] in met[a] or ids[a] in met[b])

    k = min(INITIAL_WINDOW, n - 1)
    fallback = False
    while True:
        chosen: set[tuple[int, int]] = set()
        if fallback:
            chosen = {(a, b) for a in range(n) for b in range(a + 1, n)}
        elif not avoid:
            chosen = {(a, b) for a in range(n) for b in range(a + 1, min(n, a + k + 1))}
        else:
            for a in range(n):
                found, b = 0, a + 1
                while b < n and found < k:
                    if eligible(a, b):
                        chosen.add((a, b))
                        found += 1
                    b += 1
                found, b = 0, a - 1
                while b >= 0 and found < k:
                    if eligible(b, a):
                        chosen.add((b, a))
                        found += 1
                    b -= 1
        edges: list[tuple[int, int, int]] = []
        append = edges.append
        for a, b in sorted(chosen):
            gap = scores[a] - scores[b]
            cost = round(GAP_WEIGHT * gap * gap) + (b - a) * RANK_WEIGHT
            if not eligible(a, b):
                cost += REMATCH_PENALTY
            append((a, b, cost))
        pairs: list[tuple[int, int]] = []
        if edges:
            big = max(c for _, _, c in edges) + 1
            graph = rx.PyGraph(multigraph=False)
            graph.add_nodes_from(range(n))
            graph.add_edges_from([(a, b, big - c) for a, b, c in edges])
            matching = rx.max_weight_matching(graph, max_cardinality=True, weight_fn=_identity)
            pairs = [(min(a, b), max(a, b)) for a, b in matching]
        if 2 * len(pairs) == n:
            rematches = sum(1 for a, b in pairs if not eligible(a, b))
            return [(a + lo, b + lo) for a, b in pairs], rematches, (n - 1 if fallback else k)
        if fallback:  # cannot happen: a complete graph on an even count has a perfect matching
            raise AssertionError("no perfect matching on a complete graph")
        if k >= n - 1:
            fallback = True
        k = min(2 * k, n - 1)


def _identity(w: int) -> int:
    return w
