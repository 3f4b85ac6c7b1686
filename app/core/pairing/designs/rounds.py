"""Rounds from a finished design (formats.md "Round robin, N seats"; bga-round-robin.md "Schedule"):
everyone at most once a round.

Rounds are a colouring of the tables (tables sharing a player conflict), aiming at the lower bound
max(games per player, ceil(tables / floor(N/k))). When rounds are asked for, tables are listed round by
round (round 0's tables first) and rounds hold table indices.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.core.pairing.designs.budget import Stopper


def rounds_lower_bound(tables: Sequence[Sequence[int]], players: int) -> int:
    if not tables:
        return 0
    k = len(tables[0])
    games = [0] * players
    for t in tables:
        for p in t:
            games[p] += 1
    return max(max(games), -(-len(tables) // max(1, players // k)))


def color_tables(
    tables: list[list[int]], players: int, rand: Any, stop: Stopper, effort: int
) -> list[list[int]]:
    """Split tables into as few rounds as the search finds (graph colouring: tables sharing a player
    conflict). DSatur with random ties, then tabu search for one round fewer until the lower bound."""
    T = len(tables)
    by_player: list[list[int]] = [[] for _ in range(players)]
    for ti, t in enumerate(tables):
        for p in t:
            by_player[p].append(ti)
    nbrs: list[list[int]] = []
    for ti, t in enumerate(tables):
        s: set[int] = set()
        for p in t:
            s.update(by_player[p])
        s.discard(ti)
        nbrs.append(sorted(s))
    lb = rounds_lower_bound(tables, players)

    def dsatur() -> list[int]:
        col = [-1] * T
        sat: list[set[int]] = [set() for _ in range(T)]
        noise = [rand.random() for _ in range(T)]
        for _ in range(T):
            v = max(
                (i for i in range(T) if col[i] < 0),
                key=lambda i: (len(sat[i]), len(nbrs[i]), noise[i]),
            )
            c = 0
            while c in sat[v]:
                c += 1
            col[v] = c
            for u in nbrs[v]:
                sat[u].add(c)
        return col

    def first_fit() -> list[int]:
        col = [-1] * T
        for v in sorted(range(T), key=lambda i: -len(nbrs[i])):
            used = {col[u] for u in nbrs[v]}
            c = 0
            while c in used:
                c += 1
            col[v] = c
        return col

    if T > 1500:  # DSatur is quadratic in the number of tables
        best = first_fit()
        effort = min(effort, 20000)
    else:
        best = dsatur()
    for _ in range(3 if T <= 1500 else 0):
        if max(best) + 1 <= lb or stop():
            break
        cand = dsatur()
        if max(cand) < max(best):
            best = cand

    def tabu(R: int, start: list[int], iters: int) -> list[int] | None:
        col = [c if c < R else rand.randrange(R) for c in start]
        M = [[0] * R for _ in range(T)]
        for v in range(T):
            for u in nbrs[v]:
                M[v][col[u]] += 1
        conf = sum(M[v][col[v]] for v in range(T)) // 2
        tabu_until: dict[tuple[int, int], int] = {}
        for it in range(iters):
            if conf == 0:
                return col
            if it & 255 == 0 and stop():
                return None
            bad = [v for v in range(T) if M[v][col[v]] > 0]
            best_move: tuple[int, int] | None = None
            best_d = None
            for v in rand.sample(bad, min(len(bad), 12)):
                for c in range(R):
                    if c == col[v]:
                        continue
                    d = M[v][c] - M[v][col[v]]
                    if tabu_until.get((v, c), -1) > it and conf + d > 0:
                        continue
                    if best_d is None or d < best_d or (d == best_d and rand.random() < 0.3):
                        best_d, best_move = d, (v, c)
            if best_move is None:
                continue
            v, c = best_move
            old = col[v]
            col[v] = c
            for u in nbrs[v]:
                M[u][old] -= 1
                M[u][c] += 1
            conf += best_d or 0
            tabu_until[(v, old)] = it + 7 + rand.randrange(10)
        return col if conf == 0 else None

    nr = max(best) + 1
    while nr > lb and not stop():
        found = tabu(nr - 1, best, effort)
        if found is None:
            break
        best = found
        nr -= 1
    rounds: list[list[int]] = [[] for _ in range(max(best) + 1)]
    for ti, c in enumerate(best):
        rounds[c].append(ti)
    return [r for r in rounds if r]


def order_by_rounds(
    tables: list[list[int]], rounds: list[list[int]]
) -> tuple[list[list[int]], list[list[int]]]:
    """Relist tables round by round; rounds become consecutive index ranges."""
    new_tables: list[list[int]] = []
    new_rounds: list[list[int]] = []
    for r in rounds:
        idx = []
        for ti in sorted(r, key=lambda i: tables[i]):
            idx.append(len(new_tables))
            new_tables.append(sorted(tables[ti]))
        new_rounds.append(idx)
    return new_tables, new_rounds
