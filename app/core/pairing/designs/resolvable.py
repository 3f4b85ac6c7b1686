"""Resolvable rounds: a search with the round structure built in (formats.md "Round robin, N seats";
bga-round-robin.md "Schedule").

When the table size does not divide the players, rounds come after the design: a design is never made
worse (more tables, uneven games, more uneven pair meetings) to save rounds. At the same table count,
the round-structured search tries for the lower bound of rounds and is kept only if the design is no
worse. When it divides them, a schedule released by rounds is resolvable — every round seats everyone —
in the fewest rounds found: ``games`` mode runs the round-structured search first and keeps it;
``complete`` mode takes an exact resolvable design where one is constructed, else the stored covering
(cyclic.py), else :func:`fewest_resolvable_rounds` (which may cost tables).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from itertools import combinations
from random import Random

from app.core import rng
from app.core.pairing.designs.budget import Stopper
from app.core.pairing.designs.checks import complete_key, games_key
from app.core.pairing.designs.rounds import rounds_lower_bound


def _round_sizes(T: int, R: int) -> list[int]:
    """T tables spread over R rounds as evenly as possible (bigger rounds first)."""
    return [T // R + (1 if r < T % R else 0) for r in range(R)]


def search_rounds(
    n: int,
    k: int,
    T: int,
    R: int,
    plo: int,
    phi: int,
    dlo: int,
    dhi: int,
    need_cover: bool,
    seed: str,
    stop: Stopper,
    effort: int,
) -> tuple[list[list[int]], list[list[int]]] | None:
    """Restarts of :func:`_anneal_rounds` (fresh random start each), best by pair-meeting deviation."""
    best: tuple[list[list[int]], list[list[int]]] | None = None
    best_key: tuple[int, ...] | None = None
    for attempt in range(4):
        found = _anneal_rounds(
            n, k, T, R, plo, phi, dlo, dhi, need_cover, f"{seed}\x1f{attempt}", stop, effort // 4
        )
        if found is not None:
            key = games_key(found[0], n, plo, phi)
            if best_key is None or key < best_key:
                best, best_key = found, key
            if key[0] == 0:
                break
        if stop():
            break
    return best


Tables = list[list[int]]
Move = tuple[int, int, int]


def _start_rounds(n: int, k: int, sizes: list[int], rand: Random) -> tuple[Tables, Tables]:
    """A random start: each round an order of all players (the first ``sizes[r]·k`` seated k by k,
    the rest sitting out), and every player's position in each round's order."""
    label = list(range(n))
    rand.shuffle(label)
    perms: Tables = []
    cursor = 0
    for c in sizes:
        seated = [label[(cursor + i) % n] for i in range(c * k)]
        rand.shuffle(seated)
        cursor += c * k
        rest = [p for p in label if p not in set(seated)]
        perms.append(seated + rest)
    pos = [[0] * n for _ in range(len(sizes))]
    for r, perm in enumerate(perms):
        for i, p in enumerate(perm):
            pos[r][p] = i
    return perms, pos


def _meetings(perms: Tables, sizes: list[int], n: int, k: int) -> tuple[list[int], list[int]]:
    """Pair meetings (``x·n + y``, x < y) and games per player of the rounds as they stand."""
    cnt = [0] * (n * n)
    deg = [0] * n
    for r, perm in enumerate(perms):
        for t in range(sizes[r]):
            block = perm[t * k : (t + 1) * k]
            for p in block:
                deg[p] += 1
            for x, y in combinations(block, 2):
                cnt[x * n + y if x < y else y * n + x] += 1
    return cnt, deg


def _penalties(
    plo: int, phi: int, dlo: int, dhi: int, need_cover: bool
) -> tuple[Callable[[int], int], Callable[[int], int]]:
    """The cost of a pair meeting count outside plo..phi (a missing meeting weighs 4 when every pair
    must meet) and of a game count outside dlo..dhi (weight 4)."""
    w_def = 4 if need_cover else 1
    w_deg = 4

    def pc(v: int) -> int:
        return w_def * (plo - v) if v < plo else (v - phi if v > phi else 0)

    def dc(d: int) -> int:
        return w_deg * (dlo - d if d < dlo else (d - dhi if d > dhi else 0))

    return pc, dc


def _swapper(
    perms: Tables,
    pos: Tables,
    cnt: list[int],
    deg: list[int],
    sizes: list[int],
    n: int,
    k: int,
    penalties: tuple[Callable[[int], int], Callable[[int], int]],
) -> Callable[[int, int, int], int]:
    pc, dc = penalties

    def swap(r: int, i: int, j: int) -> int:
        """Swap seats i and j of round r; returns the change in cost (swapping again undoes it)."""
        perm = perms[r]
        seats = sizes[r] * k
        gi = i // k if i < seats else -1
        gj = j // k if j < seats else -1
        x, y = perm[i], perm[j]
        delta = 0
        for g, skip, out_p, in_p in ((gi, i, x, y), (gj, j, y, x)):
            if g < 0:
                continue
            for m in range(g * k, g * k + k):
                if m == skip:
                    continue
                z = perm[m]
                c1 = out_p * n + z if out_p < z else z * n + out_p
                v = cnt[c1]
                cnt[c1] = v - 1
                delta += pc(v - 1) - pc(v)
                c2 = in_p * n + z if in_p < z else z * n + in_p
                v = cnt[c2]
                cnt[c2] = v + 1
                delta += pc(v + 1) - pc(v)
        if gi >= 0 > gj:
            delta += dc(deg[x] - 1) - dc(deg[x]) + dc(deg[y] + 1) - dc(deg[y])
            deg[x] -= 1
            deg[y] += 1
        elif gj >= 0 > gi:
            delta += dc(deg[y] - 1) - dc(deg[y]) + dc(deg[x] + 1) - dc(deg[x])
            deg[y] -= 1
            deg[x] += 1
        perm[i], perm[j] = y, x
        pos[r][x], pos[r][y] = j, i
        return delta

    return swap


def _proposer(
    rand: Random, perms: Tables, pos: Tables, sizes: list[int], n: int, k: int, fixed_games: bool
) -> Callable[[list[int]], list[Move] | None]:
    R = len(perms)

    def propose(deficit: list[int]) -> list[Move] | None:
        """One move: a swap inside a round — often one that seats a pair still short of meetings
        together — and, when games are fixed and a player leaves the tables for another, the swap
        that undoes that in another round. None when the draw gives no move."""
        if deficit and rand.random() < 0.4:
            pair = deficit[rand.randrange(len(deficit))]
            a, c = divmod(pair, n)
            if rand.random() < 0.5:
                a, c = c, a
            r = rand.randrange(R)
            i = pos[r][a]
            if i >= sizes[r] * k:
                return None
            j = (i // k) * k + rand.randrange(k)
            if j == i:
                return None
            i = pos[r][c]
        else:
            r = rand.randrange(R)
            i, j = rand.randrange(n), rand.randrange(n)
        seats = sizes[r] * k
        if (i // k if i < seats else -1) == (j // k if j < seats else -1):
            return None
        moves = [(r, i, j)]
        if (i < seats) != (j < seats) and fixed_games:
            # a player leaves the tables and another joins: undo that in another round, games stay fixed
            out_p, in_p = (perms[r][i], perms[r][j]) if i < seats else (perms[r][j], perms[r][i])
            others = [
                q
                for q in range(R)
                if q != r and pos[q][in_p] < sizes[q] * k and pos[q][out_p] >= sizes[q] * k
            ]
            if not others:
                return None
            q = others[rand.randrange(len(others))]
            moves.append((q, pos[q][in_p], pos[q][out_p]))
        return moves

    return propose


def _as_tables(best: Tables, sizes: list[int], k: int) -> tuple[Tables, Tables]:
    tables: Tables = []
    rounds: Tables = []
    for r, perm in enumerate(best):
        rnd = []
        for t in range(sizes[r]):
            rnd.append(len(tables))
            tables.append(sorted(perm[t * k : (t + 1) * k]))
        rounds.append(rnd)
    return tables, rounds


def _anneal_rounds(
    n: int,
    k: int,
    T: int,
    R: int,
    plo: int,
    phi: int,
    dlo: int,
    dhi: int,
    need_cover: bool,
    seed: str,
    stop: Stopper,
    effort: int,
) -> tuple[list[list[int]], list[list[int]]] | None:
    """T tables in R rounds found by annealing with the round structure built in: each round is an order
    of all players, the first (tables in that round)·k seated k by k, the rest sitting out. Moves swap two
    players inside one round. Cost: pair meetings outside plo..phi plus games outside dlo..dhi (weighted).
    Returns None unless games end inside dlo..dhi (and, with ``need_cover``, every pair meets)."""
    sizes = _round_sizes(T, R)
    if max(sizes) * k > n:
        return None
    rand = rng.stream(seed, f"designs:rounds-anneal:{n}:{k}:{T}:{R}:{plo}:{phi}")
    perms, pos = _start_rounds(n, k, sizes, rand)
    cnt, deg = _meetings(perms, sizes, n, k)
    pc, dc = penalties = _penalties(plo, phi, dlo, dhi, need_cover)
    swap = _swapper(perms, pos, cnt, deg, sizes, n, k, penalties)
    propose = _proposer(rand, perms, pos, sizes, n, k, dlo == dhi)
    pairs = [x * n + y for x in range(n) for y in range(x + 1, n)]
    cost = sum(pc(cnt[c]) for c in pairs) + sum(dc(d) for d in deg)
    deficit = [c for c in pairs if cnt[c] < plo]

    def hard() -> bool:
        return all(dlo <= d <= dhi for d in deg) and (not need_cover or all(cnt[c] > 0 for c in pairs))

    best_cost = cost if hard() else None
    best = [list(p) for p in perms] if best_cost is not None else None
    temp0, temp1 = 1.0, 0.04
    cycle = max(1, effort // 2)
    temp = temp0
    for it in range(effort):
        if cost == 0:
            break
        if it & 255 == 0:
            if stop():
                break
            temp = temp0 * (temp1 / temp0) ** ((it % cycle) / cycle)
            if it & 4095 == 0:
                deficit = [c for c in pairs if cnt[c] < plo]
        moves = propose(deficit)
        if moves is None:
            continue
        delta = 0
        for mv in moves:
            delta += swap(*mv)
        if delta <= 0 or rand.random() < math.exp(-delta / temp):
            cost += delta
            if (best_cost is None or cost < best_cost) and hard():
                best_cost = cost
                best = [list(p) for p in perms]
        else:
            for mv in reversed(moves):
                swap(*mv)
    return None if best is None else _as_tables(best, sizes, k)


def improve_rounds(
    tables: list[list[int]], rnds: list[list[int]], n: int, k: int, mode: str, seed: str, stop: Stopper
) -> tuple[list[list[int]], list[list[int]]]:
    """Fewer rounds by searching again with the round structure built in, for the same number of tables
    and a design no worse (pair meetings, games) than the one in hand."""
    T = len(tables)
    lb = rounds_lower_bound(tables, n)
    total = T * k * (k - 1) // 2
    npairs = n * (n - 1) // 2
    games = [0] * n
    for t in tables:
        for p in t:
            games[p] += 1
    dlo, dhi = min(games), max(games)
    if mode == "complete":
        plo, phi = 1, (2 if total > npairs else 1)
        current = complete_key(tables, n)

        def key(ts: list[list[int]]) -> tuple[int, ...]:
            return complete_key(ts, n)
    else:
        plo, phi = total // npairs, -(-total // npairs)
        current = games_key(tables, n, plo, phi)

        def key(ts: list[list[int]]) -> tuple[int, ...]:
            return games_key(ts, n, plo, phi)

    def attempt(R: int) -> tuple[list[list[int]], list[list[int]]] | None:
        found = search_rounds(
            n, k, T, R, plo, phi, dlo, dhi, mode == "complete", f"{seed}:rounds", stop, 20000 + 2000 * T
        )
        return found if found is not None and key(found[0]) <= current else None

    # the lower bound first; else one round fewer at a time, stopping at the first failure
    if len(rnds) <= lb or stop():
        return tables, rnds
    found = attempt(lb)
    if found is not None:
        return found
    best = (tables, rnds)
    for R in range(len(rnds) - 1, lb, -1):
        if stop():
            break
        found = attempt(R)
        if found is None:
            break
        best = found
    return best


def fewest_resolvable_rounds(
    n: int, k: int, below: int, seed: str, stop: Stopper
) -> tuple[list[list[int]], list[list[int]]] | None:
    """Every pair meeting in the fewest rounds that each seat everyone (k divides n), fewer than
    ``below``: ceil((n − 1)/(k − 1)) rounds first, then one more at a time; None when the search
    finds none in time. Each round is n/k tables, so more rounds mean more tables."""
    if n % k or k < 2:
        return None
    per = n // k
    npairs = n * (n - 1) // 2
    for R in range(-(-(n - 1) // (k - 1)), below):
        if stop():
            break
        T = R * per
        phi = max(1, -(-(T * k * (k - 1) // 2) // npairs))
        found = search_rounds(n, k, T, R, 1, phi, R, R, True, f"{seed}:resolvable", stop, 20000 + 2000 * T)
        if found is not None:
            return found
    return None
