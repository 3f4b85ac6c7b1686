"""Checker and bounds (formats.md "Round robin, N seats"): the quality figures of any set of tables, the
Schönheim bound, the known covering numbers, and the keys the searches rank candidate designs by.

``exact`` is true when every player has the same number of games and every pair meets the same number of
times, at least once. Known covering numbers are cited from the literature (Fort–Hedlund for k = 3, Mills
for k = 4). ``complete`` mode ranks by pairs that never meet, then games per player more than one apart,
then tables, then meetings beyond two; ``games`` mode by the pair meetings' distance from floor(λ)..ceil(λ).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from app.core.errors import InvalidInput, Problem
from app.core.pairing.designs.model import DesignReport, GamesRange, PairMeetings


def schonheim_bound(v: int, k: int, t: int = 2) -> int:
    """Schönheim lower bound L(v,k,t) for coverings; for t=2: ceil(v/k · ceil((v−1)/(k−1)))."""
    if t <= 0:
        return 1
    if k > v:
        raise ValueError("k must not exceed v")
    if t > k:
        raise ValueError("t must not exceed k")
    inner = schonheim_bound(v - 1, k - 1, t - 1) if t > 1 else 1
    return -(-v * inner // k)


def known_covering_number(v: int, k: int) -> int | None:
    """The covering number C(v,k,2) where the literature settles it (k ≤ 4), else None.

    k=2: all pairs. k=3: Fort–Hedlund (1958), C(v,3,2) equals the Schönheim bound for every v.
    k=4: Mills (1979, 1984), C(v,4,2) = L(v,4,2) + ε with ε = 1 for v ∈ {7, 9, 10} and
    v ≡ 7, 10 (mod 12), ε = 2 for v = 19 (C(19,4,2) = 31). (Cited from the literature, not re-derived.)
    """
    if k > v or k < 2:
        return None
    if k == v:
        return 1
    if k == 2:
        return v * (v - 1) // 2
    if k == 3:
        return schonheim_bound(v, 3)
    if k == 4:
        base = schonheim_bound(v, 4)
        if v == 19:
            return base + 2
        if v in (7, 9, 10) or v % 12 in (7, 10):
            return base + 1
        return base
    return None


def fewest_rounds_bound(v: int, k: int) -> int:
    """A lower bound on the rounds of a schedule of v players in tables of k (k divides v) in which every
    round seats everyone and every pair meets: each player meets at most k − 1 others a round, so
    ceil((v − 1)/(k − 1)); and, when a table of k players cannot be spread over the m = v/k tables of
    another round without two of them meeting again (k > m), the repeats it forces.

    The repeats: any other round splits each table of a given round over its m tables, so it seats
    again at least h pairs of that table, h the fewest pairs of a split of k into m parts; over R rounds
    those repeats number at least (R − 1)·m·h, and they cannot exceed the meetings beyond one a pair,
    R·m·C(k, 2) − C(v, 2). So
    R·m·(C(k, 2) − h) ≥ C(v, 2) − m·h. (6 players in tables of 3: 4 rounds, not 3; 12 in tables of 4:
    5, not 4.)"""
    m = v // k
    naive = -(-(v - 1) // (k - 1))
    q, s = divmod(k, m)
    h = s * (q + 1) * q // 2 + (m - s) * q * (q - 1) // 2
    pairs, per_table = v * (v - 1) // 2, k * (k - 1) // 2
    if h == 0 or per_table == h:
        return naive
    return max(naive, -(-(pairs - m * h) // (m * (per_table - h))))


def pair_counts(tables: Sequence[Sequence[int]], players: int) -> list[int]:
    cnt = [0] * (players * players)
    for t in tables:
        for a, b in combinations(sorted(t), 2):
            cnt[a * players + b] += 1
    return cnt


def check_design(tables: Sequence[Sequence[int]], players: int) -> DesignReport:
    """Quality figures of a set of tables on ``players`` seats (0..players-1); no warnings.

    Raises InvalidInput when a seat is out of range or repeated at a table.
    """
    problems: list[Problem] = []
    games = [0] * players
    for i, t in enumerate(tables):
        if len(set(t)) != len(t):
            problems.append(Problem(("tables", i), "a seat appears twice at this table"))
        for s in t:
            if not isinstance(s, int) or isinstance(s, bool) or not 0 <= s < players:
                problems.append(Problem(("tables", i), f"seat {s!r} is not in 0..{players - 1}"))
            else:
                games[s] += 1
    if problems:
        raise InvalidInput("the tables are not a valid schedule", problems)
    cnt = pair_counts(tables, players)
    hist: dict[int, int] = {}
    for a in range(players):
        for b in range(a + 1, players):
            c = cnt[a * players + b]
            hist[c] = hist.get(c, 0) + 1
    if not hist:
        hist = {0: 0}
    pmin, pmax = min(hist), max(hist)
    gmin, gmax = (min(games), max(games)) if games else (0, 0)
    exact = gmin == gmax and pmin == pmax and pmin >= 1
    return DesignReport(
        games_per_player=GamesRange(gmin, gmax),
        pair_meetings=PairMeetings(pmin, pmax, dict(sorted(hist.items()))),
        exact=exact,
    )


def check_rounds(tables: Sequence[Sequence[int]], rounds: Sequence[Sequence[int]]) -> bool:
    """True when every table is in exactly one round and no player sits twice in a round."""
    seen: list[int] = []
    for r in rounds:
        players: set[int] = set()
        for ti in r:
            if not 0 <= ti < len(tables):
                return False
            seen.append(ti)
            for p in tables[ti]:
                if p in players:
                    return False
                players.add(p)
    return sorted(seen) == list(range(len(tables)))


def complete_key(tables: list[list[int]], n: int) -> tuple[int, ...]:
    rep = check_design(tables, n)
    hist = rep.pair_meetings.histogram
    uncovered = hist.get(0, 0)
    spread = max(0, rep.games_per_player.max - rep.games_per_player.min - 1)
    over = sum((m - 2) * c for m, c in hist.items() if m > 2)
    return (uncovered, spread, len(tables), over)


def games_key(tables: list[list[int]], n: int, plo: int, phi: int) -> tuple[int, ...]:
    rep = check_design(tables, n)
    hist = rep.pair_meetings.histogram
    dev = sum(c * (plo - m if m < plo else m - phi if m > phi else 0) for m, c in hist.items())
    return (dev,)
