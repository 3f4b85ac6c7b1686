"""The seeded covering search's building blocks (formats.md "Round robin, N seats"): a starting design
that always exists, a greedy covering (``complete``) or a cyclic seat fill (``games``), improved by
simulated annealing over the tables.

The annealing's cost weighs pair meetings outside plo..phi and games outside dlo..dhi; its randomness is the
caller's seeded stream.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from itertools import combinations
from typing import Any

from app.core.pairing.designs.budget import Stopper


class Anneal:
    """Simulated annealing over T tables of k seats.

    Cost = w_def·Σ(deficit of pair meetings below plo) + w_sur·Σ(surplus above phi)
         + w_deg·Σ(distance of a player's games from dlo..dhi).
    Moves: swap two players between tables (games fixed), or, when ``replace`` is on, seat another player
    in place of one (games change). Targeted moves repair a random deficient or surplus pair.
    """

    def __init__(
        self,
        *,
        n: int,
        blocks: list[list[int]],
        plo: int,
        phi: int,
        dlo: int,
        dhi: int,
        w_def: int,
        w_sur: int,
        w_deg: int,
        replace: bool,
        rand: Any,
    ) -> None:
        self.n = n
        self.plo, self.phi, self.dlo, self.dhi = plo, phi, dlo, dhi
        self.w_def, self.w_sur, self.w_deg = w_def, w_sur, w_deg
        self.replace = replace
        self.rand = rand
        self._load(blocks)

    def _load(self, blocks: list[list[int]]) -> None:
        n, plo, phi = self.n, self.plo, self.phi
        self.blocks = [list(b) for b in blocks]
        self.cnt = [0] * (n * n)
        self.deg = [0] * n
        self.where: list[list[int]] = [[] for _ in range(n)]  # blocks containing each player
        self.deficit: list[int] = []
        self.dpos = [-1] * (n * n)
        self.surplus: list[int] = []
        self.spos = [-1] * (n * n)
        for bi, b in enumerate(self.blocks):
            for p in b:
                self.deg[p] += 1
                self.where[p].append(bi)
            for a, c in combinations(b, 2):
                self.cnt[self._idx(a, c)] += 1
        self.n_def = 0
        self.n_sur = 0
        for a in range(n):
            for c in range(a + 1, n):
                i = a * n + c
                v = self.cnt[i]
                if v < plo:
                    self._add(self.deficit, self.dpos, i)
                    self.n_def += plo - v
                if v > phi:
                    self._add(self.surplus, self.spos, i)
                    self.n_sur += v - phi
        self.n_deg = sum(self._dd(d) for d in self.deg)

    # ---- bookkeeping
    def _idx(self, a: int, b: int) -> int:
        return a * self.n + b if a < b else b * self.n + a

    @staticmethod
    def _add(lst: list[int], pos: list[int], i: int) -> None:
        pos[i] = len(lst)
        lst.append(i)

    @staticmethod
    def _remove(lst: list[int], pos: list[int], i: int) -> None:
        j = pos[i]
        last = lst.pop()
        if last != i:
            lst[j] = last
            pos[last] = j
        pos[i] = -1

    def _dd(self, d: int) -> int:
        return self.dlo - d if d < self.dlo else (d - self.dhi if d > self.dhi else 0)

    def cost(self) -> int:
        return self.w_def * self.n_def + self.w_sur * self.n_sur + self.w_deg * self.n_deg

    def _inc(self, a: int, b: int) -> None:
        i = self._idx(a, b)
        v = self.cnt[i]
        self.cnt[i] = v + 1
        if v < self.plo:
            self.n_def -= 1
            if v + 1 == self.plo:
                self._remove(self.deficit, self.dpos, i)
        if v + 1 > self.phi:
            self.n_sur += 1
            if v == self.phi:
                self._add(self.surplus, self.spos, i)

    def _dec(self, a: int, b: int) -> None:
        i = self._idx(a, b)
        v = self.cnt[i]
        self.cnt[i] = v - 1
        if v > self.phi:
            self.n_sur -= 1
            if v - 1 == self.phi:
                self._remove(self.surplus, self.spos, i)
        if v - 1 < self.plo:
            self.n_def += 1
            if v == self.plo:
                self._add(self.deficit, self.dpos, i)

    def _set_seat(self, bi: int, pos: int, new: int) -> None:
        """Seat ``new`` at block bi, position pos (``new`` must not be in the block)."""
        b = self.blocks[bi]
        old = b[pos]
        for j, x in enumerate(b):
            if j != pos:
                self._dec(old, x)
                self._inc(new, x)
        b[pos] = new
        self.n_deg -= self._dd(self.deg[old]) + self._dd(self.deg[new])
        self.deg[old] -= 1
        self.deg[new] += 1
        self.n_deg += self._dd(self.deg[old]) + self._dd(self.deg[new])
        self.where[old].remove(bi)
        self.where[new].append(bi)

    # ---- moves: each returns an undo list of (block, pos, previous player) or None
    def _swap(self, b1: int, p1: int, b2: int, p2: int) -> list[tuple[int, int, int]] | None:
        x, y = self.blocks[b1][p1], self.blocks[b2][p2]
        if b1 == b2 or x == y or y in self.blocks[b1] or x in self.blocks[b2]:
            return None
        self._set_seat(b1, p1, y)
        self._set_seat(b2, p2, x)
        return [(b2, p2, y), (b1, p1, x)]

    def _replace(self, b: int, p: int, y: int) -> list[tuple[int, int, int]] | None:
        if y in self.blocks[b]:
            return None
        x = self.blocks[b][p]
        self._set_seat(b, p, y)
        return [(b, p, x)]

    def _undo(self, undo: list[tuple[int, int, int]]) -> None:
        for b, p, x in undo:
            self._set_seat(b, p, x)

    def _propose(self) -> list[tuple[int, int, int]] | None:
        r = self.rand
        T = len(self.blocks)
        k = len(self.blocks[0])
        u = r.random()
        if u < 0.5 and (self.deficit or self.surplus):
            use_def = bool(self.deficit) and (not self.surplus or r.random() < 0.7)
            if use_def:
                i = self.deficit[r.randrange(len(self.deficit))]
                a, c = divmod(i, self.n)
                if r.random() < 0.5:
                    a, c = c, a
                # bring c to a table of a
                if not self.where[a]:
                    return None
                b1 = r.choice(self.where[a])
                opts = [j for j, x in enumerate(self.blocks[b1]) if x != a]
                p1 = r.choice(opts)
                if self.replace and r.random() < 0.5:
                    return self._replace(b1, p1, c)
                if not self.where[c]:
                    return None
                b2 = r.choice(self.where[c])
                return self._swap(b1, p1, b2, self.blocks[b2].index(c))
            i = self.surplus[r.randrange(len(self.surplus))]
            a, c = divmod(i, self.n)
            shared = [bi for bi in self.where[a] if c in self.blocks[bi]]
            if not shared:
                return None
            b1 = r.choice(shared)
            x = a if r.random() < 0.5 else c
            p1 = self.blocks[b1].index(x)
            if self.replace and r.random() < 0.5:
                return self._replace(b1, p1, r.randrange(self.n))
            b2 = r.randrange(T)
            return self._swap(b1, p1, b2, r.randrange(k))
        b1 = r.randrange(T)
        p1 = r.randrange(k)
        if self.replace and u < 0.75:
            return self._replace(b1, p1, r.randrange(self.n))
        return self._swap(b1, p1, r.randrange(T), r.randrange(k))

    def run(
        self,
        iters: int,
        stop: Stopper,
        hard: Callable[[Anneal], bool],
        temp0: float = 0.6,
        temp1: float = 0.04,
    ) -> bool:
        """Anneal for at most ``iters`` moves or until cost 0. Afterwards the state is the cheapest state
        meeting ``hard`` if any was seen (returns True), else the cheapest state seen (returns False)."""
        r = self.rand
        cur = self.cost()
        best, best_blocks = cur, [list(b) for b in self.blocks]
        feas = cur if hard(self) else None
        feas_blocks = best_blocks if feas is not None else None
        ratio = temp1 / temp0
        cycle = max(1, iters // 3)
        temp = temp0
        for it in range(iters):
            if cur == 0:
                break
            if it & 255 == 0:
                if stop():
                    break
                temp = temp0 * ratio ** ((it % cycle) / cycle)
            undo = self._propose()
            if undo is None:
                continue
            new = self.cost()
            delta = new - cur
            if delta <= 0 or r.random() < math.exp(-delta / temp):
                cur = new
                if cur < best:
                    best, best_blocks = cur, [list(b) for b in self.blocks]
                if (feas is None or cur < feas) and hard(self):
                    feas, feas_blocks = cur, [list(b) for b in self.blocks]
            else:
                self._undo(undo)
        if feas_blocks is not None:
            self._load(feas_blocks)
            return True
        self._load(best_blocks)
        return False


def greedy_cover(n: int, k: int, rand: Any) -> list[list[int]]:
    """A covering of all pairs by k-sets, built greedily with balanced games. Each seat added goes to
    the player covering the most new pairs with the table so far (fewest games, then chance, next);
    the new pairs of every player are counted as the table grows, not recounted for each seat."""
    cov = [[False] * n for _ in range(n)]  # symmetric: cov[a][b] is cov[b][a]
    deg = [0] * n
    left = n * (n - 1) // 2
    blocks: list[list[int]] = []
    noise = [rand.random() for _ in range(n)]
    unc = [n - 1] * n  # uncovered partners of each player
    while left > 0:
        a = min((p for p in range(n) if unc[p] > 0), key=lambda p: (deg[p], noise[p]))
        row_a = cov[a]
        b = min((p for p in range(n) if p != a and not row_a[p]), key=lambda p: (deg[p], noise[p]))
        block = [a, b]
        row_b = cov[b]
        gain = [2 - x - y for x, y in zip(row_a, row_b, strict=True)]  # new pairs with the table
        while len(block) < k:
            seated = set(block)
            cands = [z for z in range(n) if z not in seated]
            draws = [rand.random() for _ in cands]  # one draw a candidate, in order, as ever
            at = min(range(len(cands)), key=lambda i: (-gain[cands[i]], deg[cands[i]], draws[i]))
            cand = cands[at]
            block.append(cand)
            gain = [g + (not c) for g, c in zip(gain, cov[cand], strict=True)]
        for x, y in combinations(block, 2):
            if not cov[x][y]:
                cov[x][y] = cov[y][x] = True
                left -= 1
                unc[x] -= 1
                unc[y] -= 1
        for x in block:
            deg[x] += 1
        blocks.append(sorted(block))
    return blocks


def cyclic_fill(n: int, k: int, gpp: int) -> list[list[int]]:
    """T = n·gpp/k tables filled from the sequence 0..n−1, 0..n−1, …; distinct seats since k ≤ n."""
    seq = [i % n for i in range(n * gpp)]
    return [sorted(seq[i : i + k]) for i in range(0, len(seq), k)]
