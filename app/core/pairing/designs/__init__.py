"""Round robin with N seats: combinatorial designs (formats.md "Round robin, N seats";
bga-round-robin.md "Schedule"; api.md "Stateless tools", ``POST /v1/schedules/round-robin``).

A schedule is a set of tables (blocks) of ``table_size`` seats, seats numbered from 0, optionally split
into rounds (everyone at most once a round). Exact designs are built by construction where one is known
(Steiner systems: round robin for pairs, Bose/Skolem triple systems, projective and affine geometries over
GF(q), a radical difference family for S(2,4,q), the Hermitian unital for 28 players in fours, a Kirkman
resolution for 15); everything else comes from a seeded greedy covering improved by simulated annealing.
Every construction is checked by :func:`check_design` before it is returned.

Rulings where the specs are silent:

- Every table has exactly ``table_size`` seats. Identical tables are not forbidden (they are needed when
  ``table_size == players`` or games_per_player is large); the pair-meeting objective keeps them rare.
- A design with every pair exactly once "exists" in the warnings' sense when the divisibility conditions
  (k−1 | N−1, k(k−1) | N(N−1)) hold, which is sufficient for k = 3 and 4 (Kirkman; Hanani).
- ``complete`` mode puts, in order: every pair meets at least once; as few tables as possible; games per
  player within one (equal when the table count allows it); pair meetings as even as possible
  (no pair three times where twice suffices). So equal games never cost an extra table; unequal games
  carry the seed's warning instead.
- ``games`` mode: every player plays exactly ``games_per_player`` games; pair meetings are kept within
  ``floor(λ)..ceil(λ)`` where λ = gpp·(k−1)/(N−1) is the average, as far as the search gets.
- ``exact`` is true when every player has the same number of games and every pair meets the same number of
  times, at least once (a 2-design; in ``complete`` mode this is "every pair exactly once", a Steiner system).
- ``games_per_player`` is an error in ``complete`` mode and required in ``games`` mode; ``players`` is at most
  ``MAX_PLAYERS`` and the design at most ``MAX_TABLES`` tables (resource limits, 422; in ``complete`` mode
  judged by the Schönheim bound).
- Known covering numbers (the yardstick for "as few tables as possible"): C(v,3,2) is the Schönheim bound
  for every v (Fort–Hedlund; the "+1 when v ≡ 5 mod 6" exception belongs to packings, not coverings —
  e.g. C(5,3,2) = 4 = L); C(v,4,2) per Mills (see :func:`known_covering_number`). When the search
  stops above the known number, or above Schönheim where nothing is known, the report says so.
- The only "impossible" check on ``games_per_player`` is divisibility (players·gpp by table_size); large
  values are possible with repeated meetings, so no upper bound beyond ``MAX_TABLES``.
- Rounds come after the design: a design is never made worse (more tables, uneven games, more uneven
  pair meetings) to save rounds. Rounds are a colouring of the tables (tables sharing a player conflict),
  then a search with the round structure built in, at the same table count, tries to reach the lower
  bound max(games per player, ceil(tables / floor(N/k))); it is kept only if the design is no worse.
  Constructions keep their own resolution (AG(n,q) parallel classes, Kirkman 15, the circle method for
  pairs). In projective planes any two tables share a player, so they need one round per table.
- In ``games`` mode with rounds, a round-structured search runs first and is kept when its pair meetings
  are within one; otherwise the free search wins if its pair meetings are more even.
- When rounds are asked for, tables are listed round by round (round 0's tables first) and ``rounds``
  holds table indices.
- In ``games`` mode, when an exact design S(2,k,N) is known and games_per_player is a multiple of its
  (N−1)/(k−1) games, the design is repeated (every pair meets equally often, ``exact``).
- The time budget is the caller's ``should_stop`` callback (no clock reads here). Without one, the search
  runs a fixed effort and stops. When ``should_stop`` ends the search early, the best design found so far
  is returned with the warning "search stopped at its time budget; …". A design always exists: a greedy
  covering (complete) or a cyclic seat fill (games) is built before any improvement.
- The seed's warning (bga-round-robin.md, ranking by average points, tie-break A "among players who won
  every game, more games ranks higher"): whenever games per player differ, the report says that a player
  who wins all of their (fewer) games ranks below an undefeated player with more games. Two players can both
  win every game only if they never share a table (or, when they do, a third player's violation scores
  the shared table +1 for both); the warning says which case applies. When some pairs never meet and games
  are equal, two undefeated players can exist and share first place (tie-break B has no head-to-head game
  and scores both 0.5); the report says so too.
- Uneven pair meetings in ``complete`` mode (max − min ≥ 1) and a table count above the lower bound
  (known covering number, else Schönheim) are reported as warnings; in ``games`` mode a pair-meeting spread
  above one is reported.
- The histogram in ``as_dict()`` has string keys (JSON object keys), ascending, including 0 when a pair
  never meets.
- Randomness only from ``rng.stream(seed, "designs:…")``: the same inputs and seed give the same design
  (unless ``should_stop`` cuts the search at a different point).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from app.core import rng
from app.core.pairing.designs.budget import ProgressFn, StopFn, Stopper
from app.core.pairing.designs.checks import (
    check_design,
    check_rounds,
    complete_key,
    games_key,
    known_covering_number,
    pair_counts,
    schonheim_bound,
)
from app.core.pairing.designs.constructions import steiner_system
from app.core.pairing.designs.model import Design, DesignReport, GamesRange, PairMeetings
from app.core.pairing.designs.validation import MAX_PLAYERS, MAX_TABLES, MODES, validate_request

__all__ = [
    "MAX_PLAYERS",
    "MAX_TABLES",
    "MODES",
    "Design",
    "DesignReport",
    "GamesRange",
    "PairMeetings",
    "ProgressFn",
    "StopFn",
    "check_design",
    "check_rounds",
    "known_covering_number",
    "rounds_lower_bound",
    "schonheim_bound",
    "search_design",
    "steiner_system",
    "validate_request",
]


# --------------------------------------------------------------------------------------------------
# Local search
# --------------------------------------------------------------------------------------------------


class _Anneal:
    """Simulated annealing over T tables of k seats.

    Cost = w_def·Σ(deficit of pair meetings below plo) + w_sur·Σ(surplus above phi)
         + w_deg·Σ(distance of a player's games from dlo..dhi).
    Moves: swap two players between tables (games fixed), or, when ``replace`` is on, seat another player
    in place of one (games change). Targeted moves repair a random deficient or surplus pair.
    """

    def __init__(
        self,
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
        hard: Callable[[_Anneal], bool],
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


def _greedy_cover(n: int, k: int, rand: Any) -> list[list[int]]:
    """A covering of all pairs by k-sets, built greedily with balanced games."""
    cov = [[False] * n for _ in range(n)]
    deg = [0] * n
    left = n * (n - 1) // 2
    blocks: list[list[int]] = []
    noise = [rand.random() for _ in range(n)]
    unc = [n - 1] * n  # uncovered partners of each player
    while left > 0:
        a = min((p for p in range(n) if unc[p] > 0), key=lambda p: (deg[p], noise[p]))
        b = min(
            (p for p in range(n) if p != a and not cov[min(a, p)][max(a, p)]),
            key=lambda p: (deg[p], noise[p]),
        )
        block = [a, b]
        while len(block) < k:
            cand = None
            ckey: tuple[int, int, float] | None = None
            for z in range(n):
                if z in block:
                    continue
                gain = sum(1 for x in block if not cov[min(x, z)][max(x, z)])
                key = (-gain, deg[z], rand.random())
                if ckey is None or key < ckey:
                    ckey, cand = key, z
            assert cand is not None
            block.append(cand)
        for a, b in combinations(block, 2):
            a, b = min(a, b), max(a, b)
            if not cov[a][b]:
                cov[a][b] = True
                left -= 1
                unc[a] -= 1
                unc[b] -= 1
        for x in block:
            deg[x] += 1
        blocks.append(sorted(block))
    return blocks


def _cyclic_fill(n: int, k: int, gpp: int) -> list[list[int]]:
    """T = n·gpp/k tables filled from the sequence 0..n−1, 0..n−1, …; distinct seats since k ≤ n."""
    seq = [i % n for i in range(n * gpp)]
    return [sorted(seq[i : i + k]) for i in range(0, len(seq), k)]


# --------------------------------------------------------------------------------------------------
# Rounds
# --------------------------------------------------------------------------------------------------


def rounds_lower_bound(tables: Sequence[Sequence[int]], players: int) -> int:
    if not tables:
        return 0
    k = len(tables[0])
    games = [0] * players
    for t in tables:
        for p in t:
            games[p] += 1
    return max(max(games), -(-len(tables) // max(1, players // k)))


def _color_tables(
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


def _order_by_rounds(
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


# --------------------------------------------------------------------------------------------------
# The search
# --------------------------------------------------------------------------------------------------


@dataclass
class _Best:
    tables: list[list[int]]
    key: tuple[int, ...]


def _search_complete(
    n: int, k: int, seed: str, stop: Stopper, progress: ProgressFn | None
) -> list[list[int]]:
    g = rng.stream(seed, f"designs:complete:{n}:{k}:greedy")
    best = _Best(_greedy_cover(n, k, g), (0,))
    best.key = complete_key(best.tables, n)
    lb = known_covering_number(n, k) or schonheim_bound(n, k)
    npairs = n * (n - 1) // 2
    first_T = len(best.tables)

    def report(frac: float) -> None:
        if progress is not None:
            progress(min(0.95, max(0.0, frac)))

    def attempt(T: int, effort: int, tag: str) -> list[list[int]] | None:
        rand = rng.stream(seed, f"designs:complete:{n}:{k}:{T}:{tag}")
        # start from the best design trimmed / padded to T tables
        blocks = [list(b) for b in best.tables]
        rand.shuffle(blocks)
        while len(blocks) > T:
            blocks.pop()
        while len(blocks) < T:
            blocks.append(sorted(rand.sample(range(n), k)))
        slots = T * k * (k - 1) // 2
        phi = 2 if slots > npairs else 1
        dlo, dhi = (T * k) // n, -(-(T * k) // n)
        sa = _Anneal(n, blocks, 1, phi, dlo, dhi, 4, 1, 4, True, rand)

        ok = sa.run(effort, stop, lambda s: s.n_def == 0 and s.n_deg == 0)
        return [sorted(b) for b in sa.blocks] if ok else None

    def consider(tables: list[list[int]]) -> bool:
        key = complete_key(tables, n)
        if key < best.key:
            best.tables, best.key = tables, key
            return True
        return False

    effort = 4000 + 400 * first_T
    passes = 0
    max_passes = 3 if stop.fn is None else 10**9
    polished = 0
    while not stop() and passes < max_passes:
        passes += 1
        if best.key[1] == 0 and best.key[2] == lb and (best.key[3] == 0 or polished >= 2):
            break  # optimal size; pair meetings as even as two polishing attempts get them
        # 1) the lower bound itself
        if best.key[2] > lb or best.key[1] > 0:
            found = attempt(lb, effort, f"lb:{passes}")
            if found is not None:
                consider(found)
                report(1.0)
                continue
        # 2) one table fewer than the best, repeatedly (or balance the best first)
        while not stop():
            size = best.key[2] - 1 if best.key[1] == 0 else best.key[2]
            if size <= lb:
                break
            found = attempt(size, effort, f"down:{passes}")
            if found is None or not consider(found):
                break
            report(1.0 - (best.key[2] - lb) / max(1, first_T - lb + 1))
        # 3) polish pair meetings at the current size
        if best.key[3] > 0 and best.key[1] == 0 and not stop():
            found = attempt(best.key[2], effort, f"polish:{passes}")
            if found is None or not consider(found):
                polished += 1
        effort *= 2
    return best.tables


def _search_games(
    n: int, k: int, gpp: int, resolvable: bool, seed: str, stop: Stopper, progress: ProgressFn | None
) -> tuple[list[list[int]], list[list[int]] | None]:
    T = n * gpp // k
    total = T * k * (k - 1) // 2
    npairs = n * (n - 1) // 2
    plo, phi = total // npairs, -(-total // npairs)
    if resolvable:
        per = n // k
        R = max(gpp, -(-T // per))
        found = _search_rounds(n, k, T, R, plo, phi, gpp, gpp, False, seed, stop, 20000 + 3000 * T)
        if found is not None and games_key(found[0], n, plo, phi)[0] == 0:
            return found
        # pair meetings come first: search without the round structure; rounds are split afterwards
        free, _ = _search_games(n, k, gpp, False, seed, stop, progress)
        if found is None or games_key(free, n, plo, phi) < games_key(found[0], n, plo, phi):
            return free, None
        return found
    best_tables = _cyclic_fill(n, k, gpp)
    best_key = games_key(best_tables, n, plo, phi)
    effort = 5000 + 500 * T
    passes = 0
    max_passes = 3 if stop.fn is None else 10**9
    while best_key[0] > 0 and not stop() and passes < max_passes:
        passes += 1
        rand = rng.stream(seed, f"designs:games:{n}:{k}:{gpp}:{passes}")
        sa = _Anneal(n, best_tables, plo, phi, gpp, gpp, 1, 1, 0, False, rand)
        sa.run(effort, stop, lambda s: True)
        cand = [sorted(b) for b in sa.blocks]
        key = games_key(cand, n, plo, phi)
        if key < best_key:
            best_tables, best_key = cand, key
        if progress is not None:
            progress(min(0.9, passes / 6))
        effort *= 2
    return best_tables, None


def _round_sizes(T: int, R: int) -> list[int]:
    """T tables spread over R rounds as evenly as possible (bigger rounds first)."""
    return [T // R + (1 if r < T % R else 0) for r in range(R)]


def _search_rounds(
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
    label = list(range(n))
    rand.shuffle(label)
    perms: list[list[int]] = []
    cursor = 0
    for c in sizes:
        seated = [label[(cursor + i) % n] for i in range(c * k)]
        rand.shuffle(seated)
        cursor += c * k
        rest = [p for p in label if p not in set(seated)]
        perms.append(seated + rest)
    pos = [[0] * n for _ in range(R)]
    for r, perm in enumerate(perms):
        for i, p in enumerate(perm):
            pos[r][p] = i
    cnt = [0] * (n * n)
    deg = [0] * n
    for r, perm in enumerate(perms):
        for t in range(sizes[r]):
            block = perm[t * k : (t + 1) * k]
            for p in block:
                deg[p] += 1
            for x, y in combinations(block, 2):
                cnt[x * n + y if x < y else y * n + x] += 1
    w_def = 4 if need_cover else 1
    w_deg = 4

    def pc(v: int) -> int:
        return w_def * (plo - v) if v < plo else (v - phi if v > phi else 0)

    def dc(d: int) -> int:
        return w_deg * (dlo - d if d < dlo else (d - dhi if d > dhi else 0))

    cost = sum(pc(cnt[x * n + y]) for x in range(n) for y in range(x + 1, n)) + sum(dc(d) for d in deg)
    deficit = [x * n + y for x in range(n) for y in range(x + 1, n) if cnt[x * n + y] < plo]

    def hard() -> bool:
        return all(dlo <= d <= dhi for d in deg) and (
            not need_cover or all(cnt[x * n + y] > 0 for x in range(n) for y in range(x + 1, n))
        )

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
                deficit = [x * n + y for x in range(n) for y in range(x + 1, n) if cnt[x * n + y] < plo]
        if deficit and rand.random() < 0.4:
            pair = deficit[rand.randrange(len(deficit))]
            a, c = divmod(pair, n)
            if rand.random() < 0.5:
                a, c = c, a
            r = rand.randrange(R)
            i = pos[r][a]
            if i >= sizes[r] * k:
                continue
            j = (i // k) * k + rand.randrange(k)
            if j == i:
                continue
            i = pos[r][c]
        else:
            r = rand.randrange(R)
            i, j = rand.randrange(n), rand.randrange(n)
        seats = sizes[r] * k
        if (i // k if i < seats else -1) == (j // k if j < seats else -1):
            continue
        moves = [(r, i, j)]
        if (i < seats) != (j < seats) and dlo == dhi:
            # a player leaves the tables and another joins: undo that in another round, games stay fixed
            out_p, in_p = (perms[r][i], perms[r][j]) if i < seats else (perms[r][j], perms[r][i])
            others = [
                q
                for q in range(R)
                if q != r and pos[q][in_p] < sizes[q] * k and pos[q][out_p] >= sizes[q] * k
            ]
            if not others:
                continue
            q = others[rand.randrange(len(others))]
            moves.append((q, pos[q][in_p], pos[q][out_p]))
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
    if best is None:
        return None
    tables: list[list[int]] = []
    rounds: list[list[int]] = []
    for r, perm in enumerate(best):
        rnd = []
        for t in range(sizes[r]):
            rnd.append(len(tables))
            tables.append(sorted(perm[t * k : (t + 1) * k]))
        rounds.append(rnd)
    return tables, rounds


def _improve_rounds(
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
        found = _search_rounds(
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


def _warnings(
    tables: list[list[int]], n: int, k: int, mode: str, rep: DesignReport, stopped: bool
) -> list[str]:
    out: list[str] = []
    ntab = len(tables)
    if stopped:
        out.append(f"search stopped at its time budget; this is the best design found so far ({ntab} tables)")
    games = [0] * n
    for t in tables:
        for p in t:
            games[p] += 1
    gmin, gmax = rep.games_per_player.min, rep.games_per_player.max
    cnt = pair_counts(tables, n)
    if gmin < gmax:
        fewer = [p for p in range(n) if games[p] < gmax]
        more = [p for p in range(n) if games[p] == gmax]
        counts = ", ".join(
            f"{c} games: {sum(1 for g in games if g == c)} players" for c in sorted(set(games))
        )
        unmet = sum(1 for a in fewer for b in more if cnt[a * n + b if a < b else b * n + a] == 0)
        if unmet:
            how = (
                f"{unmet} such pairs of a player with fewer games and a player with {gmax} games never meet, "
                "so both can win every game"
            )
        else:
            how = (
                "every player with fewer games meets every player with the most games, so both can score full "
                "points in every game only when a third player's violation scores a shared table +1 for both"
            )
        out.append(
            f"a player who wins every game can miss first place: games per player differ ({counts}); "
            f"ranked by average points, every undefeated player averages 1, and tie-break A (among players "
            f"who won every game, more games ranks higher) puts an undefeated player with fewer games below "
            f"one with more ({how}); players with fewer than {gmax} games: {fewer}"
        )
    elif rep.pair_meetings.min == 0 and ntab > 0:
        out.append(
            "some pairs never meet, so two players can both win every game; with equal games they tie on "
            "average and on tie-break A, tie-break B has no head-to-head game (both score 0.5), and they "
            "share first place"
        )
    hist = rep.pair_meetings.histogram
    if mode == "complete":
        if rep.pair_meetings.max > rep.pair_meetings.min:
            parts = ", ".join(f"{c} pairs meet {m}×" for m, c in sorted(hist.items()))
            if (n - 1) % (k - 1) or (n * (n - 1)) % (k * (k - 1)):
                why = f"no design with every pair exactly once exists for {n} players in tables of {k}"
            else:
                why = "no design with every pair exactly once was found"
            out.append(f"pair meetings are uneven ({parts}): {why}")
        lb = known_covering_number(n, k)
        bound = schonheim_bound(n, k)
        if lb is not None and ntab > lb:
            out.append(f"{ntab} tables; the fewest possible is {lb} (known covering number C({n},{k},2))")
        elif lb is None and ntab > bound:
            out.append(
                f"{ntab} tables; the Schönheim lower bound is {bound}, so fewer tables may be possible"
            )
    elif rep.pair_meetings.max - rep.pair_meetings.min > 1:
        parts = ", ".join(f"{c} pairs meet {m}×" for m, c in sorted(hist.items()))
        out.append(f"pair meetings differ by more than one ({parts})")
    return out


class _Monotone:
    """Passes progress on only when it grows, so the caller sees 0..1 never going back."""

    def __init__(self, fn: ProgressFn) -> None:
        self.fn = fn
        self.last = -1.0

    def __call__(self, value: float) -> None:
        value = min(1.0, max(0.0, value))
        if value > self.last:
            self.last = value
            self.fn(value)


def search_design(
    players: int,
    table_size: int,
    mode: str,
    games_per_player: int | None = None,
    rounds: bool = False,
    seed: str = "",
    should_stop: StopFn | None = None,
    progress: ProgressFn | None = None,
) -> Design:
    """A round-robin design for ``players`` seats in tables of ``table_size`` (see the module docstring)."""
    validate_request(players, table_size, mode, games_per_player)
    n, k = players, table_size
    stop = Stopper(should_stop)
    if progress is not None:
        progress = _Monotone(progress)
    tables: list[list[int]]
    rnds: list[list[int]] | None = None
    steiner = steiner_system(n, k)
    if mode == "complete":
        if steiner is not None:
            tables, rnds = steiner
        else:
            tables = _search_complete(n, k, seed, stop, progress)
    else:
        assert games_per_player is not None
        gpp = games_per_player
        r = (n - 1) // (k - 1)
        if steiner is not None and (n - 1) % (k - 1) == 0 and gpp % r == 0:
            base, base_rounds = steiner
            reps = gpp // r
            tables = [list(t) for _ in range(reps) for t in base]
            if base_rounds is not None:
                rnds = [[ti + i * len(base) for ti in rr] for i in range(reps) for rr in base_rounds]
        else:
            resolvable = rounds
            tables, rnds = _search_games(n, k, gpp, resolvable, seed, stop, progress)
    tables = [sorted(t) for t in tables]
    out_rounds: list[list[int]] | None = None
    if rounds:
        if rnds is None or not check_rounds(tables, rnds):
            rand = rng.stream(seed, f"designs:rounds:{n}:{k}:{mode}:{games_per_player}")
            rnds = _color_tables(tables, n, rand, stop, 2000 + 50 * len(tables))
            tables, rnds = _improve_rounds(tables, rnds, n, k, mode, seed, stop)
        tables, out_rounds = _order_by_rounds(tables, rnds)
    rep = check_design(tables, n)
    rep.warnings = _warnings(tables, n, k, mode, rep, stop.stopped)
    if progress is not None:
        progress(1.0)
    return Design(tables=tables, rounds=out_rounds, report=rep)
