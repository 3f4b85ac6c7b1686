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

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import rustworkx as rx

from app.core import rng
from app.core.errors import InvalidInput, Problem
from app.core.pairing.seats import seat_need

GAP_WEIGHT = 100
RANK_WEIGHT = 1
REMATCH_PENALTY = 10**12
FORBIDDEN_PENALTY = 10**14
CLUB_PENALTY = 60
SEAT_WEIGHT = 120
SEAT_WINDOW = 12
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
    """Both entries must have the same seat (an absolute preference each): one of them cannot."""
    if a.seats is None or b.seats is None:
        return False
    need = seat_need(a.seats)
    return need is not None and need == seat_need(b.seats)


def pair_cost(
    a: SwissEntry,
    b: SwissEntry,
    rank_a: int,
    rank_b: int,
    avoid_rematches: bool = True,
    avoid_same_club: bool = False,
) -> PairCost:
    """The cost of pairing ``a`` (at rank ``rank_a``) with ``b`` (at ``rank_b``)."""
    gap = abs(a.score - b.score)
    gap_cost = round(GAP_WEIGHT * gap * gap)
    dist = abs(rank_a - rank_b) * RANK_WEIGHT
    rematch = b.id in a.opponents or a.id in b.opponents
    penalty = REMATCH_PENALTY if (rematch and avoid_rematches) else 0
    forbidden = is_forbidden(a, b)
    forbidden_penalty = FORBIDDEN_PENALTY if forbidden else 0
    club = same_club(a, b)
    club_cost = CLUB_PENALTY if (club and avoid_same_club) else 0
    clash = seat_clash(a, b)
    seat_cost = SEAT_WEIGHT if clash else 0
    total = gap_cost + dist + penalty + forbidden_penalty + club_cost + seat_cost
    return PairCost(
        gap,
        gap_cost,
        dist,
        rematch,
        penalty,
        total,
        forbidden,
        forbidden_penalty,
        club,
        club_cost,
        clash,
        seat_cost,
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
                index_pairs, window = _match_all(rest, avoid_rematches, avoid_same_club)
            else:
                index_pairs = found
        else:
            index_pairs = [(i, i + 1) for i in range(0, len(rest), 2)]
    else:
        index_pairs, window = _match_all(rest, avoid_rematches, avoid_same_club)
    pairs = []
    for i, j in sorted(index_pairs):
        cost = pair_cost(rest[i], rest[j], i, j, avoid_rematches, avoid_same_club)
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


def _match_all(
    rest: Sequence[SwissEntry], avoid: bool, avoid_club: bool = False
) -> tuple[list[tuple[int, int]], int]:
    blocks = _blocks(len(rest))
    solved: dict[tuple[int, int], tuple[list[tuple[int, int]], int]] = {}
    i = 0
    while i < len(blocks):
        lo, hi = blocks[i]
        pairs, rematches, k = _match_block(rest, lo, hi, avoid, avoid_club)
        if rematches and len(blocks) > 1:
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
    rest: Sequence[SwissEntry], lo: int, hi: int, avoid: bool, avoid_club: bool = False
) -> tuple[list[tuple[int, int]], int, int]:
    """Min-cost perfect matching of ranks lo..hi-1, widening the window until it is good enough.

    With ``avoid`` the window counts eligible partners only: each entry is joined to its k nearest
    not-yet-met entries above and below it, so an entry that has met all its neighbours reaches
    further without making the whole graph denser. If even every eligible edge admits no perfect
    matching, a rematch is unavoidable in this block: the complete graph with the rematch penalty
    gives the fewest rematches.

    What each entry brings is read once per block (its met and banned partners as sets of ranks);
    each window's graph is then built from ranks alone, in rank order.
    """
    n = hi - lo
    if n == 0:
        return [], 0, 0
    block = rest[lo:hi]
    scores = [e.score for e in block]
    clubs = [e.club if avoid_club else None for e in block]
    needs = [seat_need(e.seats) if e.seats is not None else None for e in block]
    rematched, banned = _conflicts(block, avoid)
    barred = [r | b for r, b in zip(rematched, banned, strict=True)]
    constrained = avoid or any(e.forbidden for e in block)
    band = not constrained and not any(clubs) and all(x is None for x in needs)

    k = min(SEAT_WINDOW if any(x is not None for x in needs) else INITIAL_WINDOW, n - 1)
    fallback = False
    while True:
        if fallback:
            adjacency = [list(range(a + 1, n)) for a in range(n)]
        elif band:
            adjacency = [list(range(a + 1, min(n, a + k + 1))) for a in range(n)]
        else:
            adjacency = _window(barred, clubs, needs, k)
        firsts, seconds, costs = _edge_costs(
            adjacency, scores, clubs, needs, (rematched, banned) if fallback else None
        )
        pairs: list[tuple[int, int]] = []
        if costs:
            big = max(costs) + 1
            graph = rx.PyGraph(multigraph=True)
            graph.add_nodes_from(range(n))
            graph.add_edges_from(list(zip(firsts, seconds, [big - c for c in costs], strict=True)))
            matching = rx.max_weight_matching(graph, max_cardinality=True, weight_fn=int)
            pairs = [(min(a, b), max(a, b)) for a, b in matching]
        if 2 * len(pairs) == n:
            rematches = sum(1 for a, b in pairs if b in barred[a])
            return [(a + lo, b + lo) for a, b in pairs], rematches, (n - 1 if fallback else k)
        if fallback:  # cannot happen: a complete graph on an even count has a perfect matching
            raise AssertionError("no perfect matching on a complete graph")
        if k >= n - 1:
            fallback = True
        k = min(2 * k, n - 1)


def _conflicts(block: Sequence[SwissEntry], avoid: bool) -> tuple[list[set[int]], list[set[int]]]:
    """Each rank's met partners (with ``avoid``; none without) and banned partners, as ranks within
    the block, both ways: a pair is a rematch when either lists the other, and so is a ban."""
    rank = {e.id: i for i, e in enumerate(block)}
    rematched: list[set[int]] = [set() for _ in block]
    banned: list[set[int]] = [set() for _ in block]
    for a, e in enumerate(block):
        for sets, others in ((rematched, e.opponents if avoid else ()), (banned, e.forbidden)):
            for other in others:
                b = rank.get(other)
                if b is not None and b != a:
                    sets[a].add(b)
                    sets[b].add(a)
    return rematched, banned


def _window(
    barred: list[set[int]], clubs: list[str | None], needs: list[int | None], k: int
) -> list[list[int]]:
    """The sparse graph of window ``k``, as each rank's partners below it (ascending).

    Each entry is joined to every eligible entry (not ``barred``) from its rank down to its k-th
    eligible partner that *counts* — of another club when clubs are avoided, not needing the same
    seat — and likewise up; an edge is in the graph when either end's scan reaches the other. An
    entry's scan is its reach (the last rank it looks at): the edges are the eligible ranks within."""
    n = len(barred)
    down, up = _reaches(barred, clubs, needs, k)
    adjacency = [
        [b for b in range(a + 1, down[a] + 1) if b not in barred[a]]
        if barred[a]
        else list(range(a + 1, down[a] + 1))
        for a in range(n)
    ]
    # the partners below ``a`` that only their own upward scan reaches: past a's reach, while some
    # rank at or after b still reaches up to a
    lowest_up = up[:]
    for b in range(n - 2, -1, -1):
        lowest_up[b] = min(lowest_up[b], lowest_up[b + 1])
    for a in range(n):
        bar, b = barred[a], down[a] + 1
        while b < n and lowest_up[b] <= a:
            if up[b] <= a and b not in bar:
                adjacency[a].append(b)
            b += 1
    return adjacency


def _reaches(
    barred: list[set[int]], clubs: list[str | None], needs: list[int | None], k: int
) -> tuple[list[int], list[int]]:
    """How far each rank's downward and upward scans go: to its k-th counting partner that way, or
    to the end of the block. Without clubs, the ranks needing one's own seat (which never count) are
    stepped over at once."""
    n = len(barred)
    down = list(range(n))
    up = list(range(n))
    if any(c is not None for c in clubs):
        for a in range(n):
            bar, club, need = barred[a], clubs[a], needs[a]
            found, b = 0, a
            while found < k and b < n - 1:
                b += 1
                if b not in bar and (club is None or clubs[b] != club) and (need is None or needs[b] != need):
                    found += 1
            down[a] = b
            found, b = 0, a
            while found < k and b > 0:
                b -= 1
                if b not in bar and (club is None or clubs[b] != club) and (need is None or needs[b] != need):
                    found += 1
            up[a] = b
        return down, up
    # after[v][i]: the first rank from i on not needing seat v (n if none); before[v][i]: the last
    # rank up to i not needing it (-1 if none); without a need, every rank counts
    after: dict[int | None, list[int]] = {None: list(range(n + 1))}
    before: dict[int | None, list[int]] = {None: list(range(-1, n))}
    for v in {x for x in needs if x is not None}:
        nxt = [n] * (n + 1)
        for i in range(n - 1, -1, -1):
            nxt[i] = i if needs[i] != v else nxt[i + 1]
        prv = [-1] * (n + 1)  # prv[i + 1]: the last rank up to i
        for i in range(n):
            prv[i + 1] = i if needs[i] != v else prv[i]
        after[v], before[v] = nxt, prv
    for a in range(n):
        bar, need = barred[a], needs[a]
        nxt, prv = after[need], before[need]
        found, b = 0, nxt[a + 1]  # the first counting rank from a + 1 on
        while b < n:
            if b not in bar:
                found += 1
                if found == k:
                    break
            b = nxt[b + 1]
        down[a] = min(b, n - 1) if k > 0 else a
        found, b = 0, prv[a]  # the last counting rank up to a - 1
        while b >= 0:
            if b not in bar:
                found += 1
                if found == k:
                    break
            b = prv[b]
        up[a] = max(b, 0) if k > 0 else a
    return down, up


def _edge_costs(
    adjacency: list[list[int]],
    scores: list[float],
    clubs: list[str | None],
    needs: list[int | None],
    penalties: tuple[list[set[int]], list[set[int]]] | None = None,
) -> tuple[list[int], list[int], list[int]]:
    """The graph's edges in rank order — first ends, second ends, costs (as ``pair_cost`` adds them
    up). The score gap and seat clash of a pair depend only on the two entries' (score, seat need),
    so each such pair of classes is priced once. ``penalties`` (the rematched and banned ranks) are
    looked up only on the complete graph: a window never holds such an edge."""
    kinds: dict[tuple[float, int | None], int] = {}
    kind = [kinds.setdefault((s, x), len(kinds)) for s, x in zip(scores, needs, strict=True)]
    classes = list(kinds)
    tables: dict[int, list[int]] = {}
    with_clubs = any(c is not None for c in clubs)
    firsts: list[int] = []
    seconds: list[int] = []
    costs: list[int] = []
    for a, partners in enumerate(adjacency):
        if not partners:
            continue
        table = tables.get(kind[a])
        if table is None:
            sa, need = classes[kind[a]]
            table = tables[kind[a]] = [
                round(GAP_WEIGHT * (sa - sb) * (sa - sb))
                + (SEAT_WEIGHT if need is not None and nb == need else 0)
                for sb, nb in classes
            ]
        row = [table[kind[b]] + (b - a) * RANK_WEIGHT for b in partners]
        club = clubs[a]
        if with_clubs and club is not None:
            row = [c + (CLUB_PENALTY if clubs[b] == club else 0) for c, b in zip(row, partners, strict=True)]
        if penalties is not None:
            met, ban = penalties[0][a], penalties[1][a]
            if met or ban:
                row = [
                    c + (REMATCH_PENALTY if b in met else 0) + (FORBIDDEN_PENALTY if b in ban else 0)
                    for c, b in zip(row, partners, strict=True)
                ]
        firsts.extend([a] * len(partners))
        seconds.extend(partners)
        costs.extend(row)
    return firsts, seconds, costs
