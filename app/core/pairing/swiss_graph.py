"""The matching behind ``swiss.pair_swiss``: a minimum-cost perfect matching (rustworkx
``max_weight_matching``, blossom, ``max_cardinality=True``) on a sparse graph over the ranks of a
block of the field (formats.md "Swiss, 2 seats"; the costs are ``swiss_cost``).

Each entry is joined to its ``k`` nearest ranks above and below that *count*: not met before (with
``avoid_rematches``), not forbidden, of another club (when clubs are avoided) and not preferring the
same seat (with seat balance). The window starts at ``INITIAL_WINDOW`` (``SEAT_WINDOW`` with seat
balance) and doubles while no perfect matching exists, until it spans the block; if even then none
exists a rematch is unavoidable and the complete graph, rematches and forbidden pairs priced, gives
the fewest. With seat balance each entry is also joined, inside its score group, to the entries
preferring the other seat whose place among them is within ``SEAT_REACH`` of its own place among
those preferring its seat (``seat_edges``): a run of one preference in the ranking can then still
be paired against the other, as far as the group's split allows.

Large fields are cut into blocks of about ``BLOCK_SIZE`` (500) ranks, only at even rank counts,
between score groups where one falls near the size, else where the group's seat preferences above
the cut balance; each block is matched on its own (blossom is about cubic), and a block that still
forces a rematch is merged with its neighbour and solved again. A cut is not proven free: a
rematch detour or a seat pairing across it is lost; ``bench/swiss_quality_bench.py`` compares the
floats with the exact minimum at 1,000 entries (two blocks).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Protocol

import rustworkx as rx

from app.core.pairing.seats import preference
from app.core.pairing.swiss_cost import (
    CLUB_PENALTY,
    FORBIDDEN_PENALTY,
    RANK_WEIGHT,
    REMATCH_PENALTY,
    SeatPref,
    class_cost,
    score_groups,
)


class SwissEntry(Protocol):
    """What the matching reads of an entry (``swiss.SwissEntry`` is one)."""

    @property
    def id(self) -> str: ...
    @property
    def score(self) -> float: ...
    @property
    def opponents(self) -> frozenset[str]: ...
    @property
    def forbidden(self) -> frozenset[str]: ...
    @property
    def club(self) -> str | None: ...
    @property
    def seats(self) -> tuple[int, ...] | None: ...


INITIAL_WINDOW = 4
SEAT_WINDOW = 4
SEAT_REACH = 4
BLOCK_SIZE = 500


def seat_pref(history: tuple[int, ...] | None) -> SeatPref:
    """The seat an entry prefers and how strongly, or None (no seat balance, or no history)."""
    if history is None:
        return None
    return _pref(history)


@lru_cache(maxsize=4096)
def _pref(history: tuple[int, ...]) -> SeatPref:
    p = preference(history)
    return None if p.seat is None else (p.seat, p.strength)


def blocks(scores: Sequence[float], needs: Sequence[int | None] = ()) -> list[tuple[int, int]]:
    """Cut ranks 0..m into blocks of about BLOCK_SIZE (from half to one and a half of it), each of
    even length. A cut falls between two score groups where one lies in that span (the one
    nearest BLOCK_SIZE), else inside a score group where the group's entries above it prefer the
    two seats equally often (as nearly as the span allows): a cut then splits no float and as few
    seat preferences as it can."""
    m = len(scores)
    out: list[tuple[int, int]] = []
    pos = 0
    while m - pos > BLOCK_SIZE + BLOCK_SIZE // 2:
        target = pos + BLOCK_SIZE
        span = range(pos + BLOCK_SIZE // 2 + (BLOCK_SIZE // 2) % 2, pos + BLOCK_SIZE + BLOCK_SIZE // 2 + 1, 2)
        edges = [c for c in span if scores[c - 1] != scores[c]]
        if edges:
            cut = min(edges, key=lambda c: (abs(c - target), c))
        else:
            cut = _balanced_cut(scores, needs, span, target)
        out.append((pos, cut))
        pos = cut
    if pos < m:
        out.append((pos, m))
    return out


def _balanced_cut(scores: Sequence[float], needs: Sequence[int | None], span: range, target: int) -> int:
    """The even cut in ``span`` (all inside one score group) where the group's entries above it
    are split most evenly between the two seats, nearest ``target`` among equals."""
    if not needs:
        return target - target % 2
    start = span.start
    while start > 0 and scores[start - 1] == scores[span.start]:
        start -= 1
    balance = 0
    for a in range(start, span.start):
        balance += 0 if needs[a] is None else (1 if needs[a] == 0 else -1)
    best: tuple[int, int, int] | None = None
    a = span.start
    for c in span:
        while a < c:
            balance += 0 if needs[a] is None else (1 if needs[a] == 0 else -1)
            a += 1
        key = (abs(balance), abs(c - target), c)
        if best is None or key < best:
            best = key
    assert best is not None
    return best[2]


def match_all(
    rest: Sequence[SwissEntry], avoid: bool, avoid_club: bool = False
) -> tuple[list[tuple[int, int]], int]:
    """The pairs (as ranks into ``rest``) and the widest window used."""
    groups = score_groups(e.score for e in rest)
    cut = blocks([e.score for e in rest], [None if (p := seat_pref(e.seats)) is None else p[0] for e in rest])
    solved: dict[tuple[int, int], tuple[list[tuple[int, int]], int]] = {}
    i = 0
    while i < len(cut):
        lo, hi = cut[i]
        pairs, rematches, k = match_block(rest, lo, hi, avoid, avoid_club, groups)
        if rematches and len(cut) > 1:
            # The block's complete graph forces a rematch: merge with a neighbour and solve again.
            if i + 1 < len(cut):
                cut[i : i + 2] = [(lo, cut[i + 1][1])]
            else:
                cut[i - 1 : i + 1] = [(cut[i - 1][0], hi)]
                i -= 1
            continue
        solved[(lo, hi)] = (pairs, k)
        i += 1
    out: list[tuple[int, int]] = []
    window = 0
    for b in cut:
        pairs, k = solved[b]
        out.extend(pairs)
        window = max(window, k)
    return out, window


def match_block(
    rest: Sequence[SwissEntry],
    lo: int,
    hi: int,
    avoid: bool,
    avoid_club: bool,
    groups: Mapping[float, int],
) -> tuple[list[tuple[int, int]], int, int]:
    """Min-cost perfect matching of ranks lo..hi-1, widening the window until one exists.

    What each entry brings is read once per block (its met and banned partners as sets of ranks,
    its seat preference); each window's graph is then built from ranks alone, in rank order.
    """
    n = hi - lo
    if n == 0:
        return [], 0, 0
    block = rest[lo:hi]
    scores = [e.score for e in block]
    clubs = [e.club if avoid_club else None for e in block]
    prefs = [seat_pref(e.seats) for e in block]
    needs = [None if p is None else p[0] for p in prefs]
    rematched, banned = conflicts(block, avoid)
    barred = [r | b for r, b in zip(rematched, banned, strict=True)]
    constrained = avoid or any(e.forbidden for e in block)
    seated = any(x is not None for x in needs)
    band = not constrained and not any(clubs) and not seated

    k = min(SEAT_WINDOW if seated else INITIAL_WINDOW, n - 1)
    fallback = False
    while True:
        if fallback:
            adjacency = [list(range(a + 1, n)) for a in range(n)]
        elif band:
            adjacency = [list(range(a + 1, min(n, a + k + 1))) for a in range(n)]
        else:
            adjacency = window(barred, clubs, needs, k)
            if seated:
                adjacency = _with_seat_edges(adjacency, scores, needs, barred, SEAT_REACH)
        firsts, seconds, costs = edge_costs(
            adjacency, scores, clubs, prefs, groups, (rematched, banned) if fallback else None
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


def conflicts(block: Sequence[SwissEntry], avoid: bool) -> tuple[list[set[int]], list[set[int]]]:
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


def window(
    barred: list[set[int]], clubs: list[str | None], needs: list[int | None], k: int
) -> list[list[int]]:
    """The sparse graph of window ``k``, as each rank's partners below it (ascending).

    Each entry is joined to every eligible entry (not ``barred``) from its rank down to its k-th
    eligible partner that *counts* — of another club when clubs are avoided, not preferring the
    same seat — and likewise up; an edge is in the graph when either end's scan reaches the other.
    An entry's scan is its reach (the last rank it looks at): the edges are the eligible ranks within."""
    n = len(barred)
    down, up = reaches(barred, clubs, needs, k)
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


def seat_edges(
    scores: list[float], needs: list[int | None], barred: list[set[int]], k: int
) -> list[tuple[int, int]]:
    """Edges between the entries of one score group that prefer opposite seats, by their place
    among those preferring their seat: the i-th of the group preferring the first seat is joined to
    the (i − k)-th … (i + k)-th preferring the second (not met). Pairing the i-th with the i-th
    serves every preference the group's split allows, however long a run of one preference in the
    ranking is, which a window of nearest ranks cannot reach."""
    firsts: dict[float, list[int]] = {}
    seconds: dict[float, list[int]] = {}
    for a, (score, need) in enumerate(zip(scores, needs, strict=True)):
        if need is not None:
            (firsts if need == 0 else seconds).setdefault(score, []).append(a)
    out: list[tuple[int, int]] = []
    for score, zs in firsts.items():
        os_ = seconds.get(score, [])
        for i, a in enumerate(zs):
            for b in os_[max(0, i - k) : i + k + 1]:
                if b not in barred[a]:
                    out.append((a, b) if a < b else (b, a))
    return out


def _with_seat_edges(
    adjacency: list[list[int]], scores: list[float], needs: list[int | None], barred: list[set[int]], k: int
) -> list[list[int]]:
    extra: dict[int, set[int]] = {}
    for a, b in seat_edges(scores, needs, barred, k):
        extra.setdefault(a, set()).add(b)
    if not extra:
        return adjacency
    out = []
    for a, partners in enumerate(adjacency):
        more = extra.get(a)
        out.append(sorted(more.union(partners)) if more else partners)
    return out


def reaches(
    barred: list[set[int]], clubs: list[str | None], needs: list[int | None], k: int
) -> tuple[list[int], list[int]]:
    """How far each rank's downward and upward scans go: to its k-th counting partner that way, or
    to the end of the block. Without clubs, the ranks preferring one's own seat (which never count)
    are stepped over at once."""
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
    # after[v][i]: the first rank from i on not preferring seat v (n if none); before[v][i]: the
    # last rank up to i not preferring it (-1 if none); without a preference, every rank counts
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


def edge_costs(
    adjacency: list[list[int]],
    scores: list[float],
    clubs: list[str | None],
    prefs: list[SeatPref],
    groups: Mapping[float, int],
    penalties: tuple[list[set[int]], list[set[int]]] | None = None,
) -> tuple[list[int], list[int], list[int]]:
    """The graph's edges in rank order — first ends, second ends, costs (as ``swiss.pair_cost``
    adds them up). A pair's float, gap and seat costs depend only on the two entries' (score, seat
    preference), so each such pair of classes is priced once. ``penalties`` (the rematched and
    banned ranks) are looked up only on the complete graph: a window never holds such an edge."""
    kinds: dict[tuple[float, SeatPref], int] = {}
    kind = [kinds.setdefault((s, p), len(kinds)) for s, p in zip(scores, prefs, strict=True)]
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
            sa, pa = classes[kind[a]]
            table = tables[kind[a]] = [sum(class_cost(sa, pa, sb, pb, groups)) for sb, pb in classes]
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
