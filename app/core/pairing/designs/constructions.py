"""Exact designs by construction: every pair exactly once, a Steiner system S(2,k,N) (formats.md "Round
robin, N seats").

Round robin for pairs (the circle method), Kirkman triple systems (kirkman.py) and Bose/Skolem triple
systems, projective and affine geometries over GF(q), a radical difference family for S(2,4,q), the
Hermitian unital for 28 players in fours, and a Kirkman resolution for 15. Every construction is checked by ``check_design`` before it is returned; one
that fails its check is never used. Constructions keep their own resolution into rounds where they have
one (AG(n,q) parallel classes, the Kirkman systems, the circle method).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from app.core.pairing.designs.checks import check_design, check_rounds
from app.core.pairing.designs.kirkman import cyclic_kirkman


def _prime_power(q: int) -> tuple[int, int] | None:
    if q < 2:
        return None
    for p in range(2, q + 1):
        if q % p == 0:
            n, r = 0, q
            while r % p == 0:
                r //= p
                n += 1
            return (p, n) if r == 1 else None
    return None


class _GF:
    """GF(p^n), elements 0..q-1 as base-p digit vectors of polynomial coefficients."""

    def __init__(self, q: int) -> None:
        pp = _prime_power(q)
        if pp is None:
            raise ValueError(f"{q} is not a prime power")
        p, n = pp
        self.q, self.p, self.n = q, p, n
        self.add = [[self._add(a, b) for b in range(q)] for a in range(q)]
        mod = self._irreducible()
        self.mul = [[self._mul(a, b, mod) for b in range(q)] for a in range(q)]
        self.neg = [next(b for b in range(q) if self.add[a][b] == 0) for a in range(q)]
        self.inv = [0] + [next(b for b in range(1, q) if self.mul[a][b] == 1) for a in range(1, q)]

    def _digits(self, a: int) -> list[int]:
        out = []
        for _ in range(self.n):
            out.append(a % self.p)
            a //= self.p
        return out

    def _num(self, d: Sequence[int]) -> int:
        return sum(c * self.p**i for i, c in enumerate(d))

    def _add(self, a: int, b: int) -> int:
        return self._num([(x + y) % self.p for x, y in zip(self._digits(a), self._digits(b), strict=True)])

    def _polymulmod(self, a: list[int], b: list[int], mod: list[int]) -> list[int]:
        p, n = self.p, self.n
        prod = [0] * (2 * n - 1)
        for i, x in enumerate(a):
            for j, y in enumerate(b):
                prod[i + j] = (prod[i + j] + x * y) % p
        for d in range(len(prod) - 1, n - 1, -1):  # mod is monic of degree n
            c = prod[d]
            if c:
                for i in range(n + 1):
                    prod[d - n + i] = (prod[d - n + i] - c * mod[i]) % p
        return prod[:n]

    def _irreducible(self) -> list[int]:
        p, n = self.p, self.n
        if n == 1:
            return [0, 1]
        for low in range(p**n):
            coeffs = [(low // p**i) % p for i in range(n)] + [1]
            if coeffs[0] == 0:
                continue
            # irreducible iff no root and no factor of degree 2..n//2; brute force by trial division
            if all(not self._divides(f, coeffs) for d in range(1, n // 2 + 1) for f in self._monics(d)):
                return coeffs
        raise ValueError("no irreducible polynomial")  # pragma: no cover

    def _monics(self, d: int) -> list[list[int]]:
        p = self.p
        return [[(low // p**i) % p for i in range(d)] + [1] for low in range(p**d)]

    def _divides(self, f: list[int], g: list[int]) -> bool:
        p = self.p
        r = list(g)
        df = len(f) - 1
        for d in range(len(r) - 1, df - 1, -1):
            c = r[d]
            if c:
                for i in range(df + 1):
                    r[d - df + i] = (r[d - df + i] - c * f[i]) % p
        return not any(r[:df])

    def _mul(self, a: int, b: int, mod: list[int]) -> int:
        return self._num(self._polymulmod(self._digits(a), self._digits(b), mod))

    def primitive(self) -> int:
        for g in range(2, self.q) if self.q > 2 else range(1, 2):
            x, order = g, 1
            while x != 1:
                x = self.mul[x][g]
                order += 1
            if order == self.q - 1:
                return g
        return 1


def _normalize(F: _GF, vec: tuple[int, ...]) -> tuple[int, ...]:
    lead = next(x for x in vec if x)
    inv = F.inv[lead]
    return tuple(F.mul[inv][x] for x in vec)


def _vectors(q: int, n: int) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = [()]
    for _ in range(n):
        out = [v + (x,) for v in out for x in range(q)]
    return out


def _affine_space(q: int, n: int) -> tuple[list[list[int]], list[list[int]]]:
    """Lines of AG(n,q): a resolvable S(2,q,q^n); rounds are the parallel classes (one per direction)."""
    F = _GF(q)
    vecs = _vectors(q, n)
    index = {v: i for i, v in enumerate(vecs)}
    directions = sorted({_normalize(F, v) for v in vecs if any(v)})
    tables: list[list[int]] = []
    rounds: list[list[int]] = []
    for d in directions:
        seen: set[int] = set()
        rnd: list[int] = []
        for v in vecs:
            if index[v] in seen:
                continue
            line = sorted(
                index[tuple(F.add[x][F.mul[c][y]] for x, y in zip(v, d, strict=True))] for c in range(q)
            )
            seen.update(line)
            rnd.append(len(tables))
            tables.append(line)
        rounds.append(rnd)
    return tables, rounds


def _projective_space(q: int, n: int) -> list[list[int]]:
    """Lines of PG(n,q): an S(2,q+1,(q^(n+1)−1)/(q−1))."""
    F = _GF(q)
    pts = sorted({_normalize(F, v) for v in _vectors(q, n + 1) if any(v)})
    index = {v: i for i, v in enumerate(pts)}
    lines: set[tuple[int, ...]] = set()
    for i, a in enumerate(pts):
        for b in pts[i + 1 :]:
            line = {index[a], index[b]}
            for c in range(1, q):
                w = tuple(F.add[x][F.mul[c][y]] for x, y in zip(a, b, strict=True))
                line.add(index[_normalize(F, w)])
            lines.add(tuple(sorted(line)))
    return [list(t) for t in sorted(lines)]


def _unital_28() -> list[list[int]]:
    """Hermitian unital in PG(2,9): 28 points x^4+y^4+z^4 = 0, blocks = secant lines (S(2,4,28))."""
    F = _GF(9)

    def norm(x: int) -> int:
        y = F.mul[x][x]
        return F.mul[y][y]

    pts = sorted({_normalize(F, v) for v in _vectors(9, 3) if any(v)})
    curve = [v for v in pts if F.add[F.add[norm(v[0])][norm(v[1])]][norm(v[2])] == 0]
    index = {v: i for i, v in enumerate(curve)}
    cset = set(curve)
    blocks: set[tuple[int, ...]] = set()
    for i, a in enumerate(curve):
        for b in curve[i + 1 :]:
            line = {index[a], index[b]}
            for c in range(1, 9):
                w = _normalize(F, tuple(F.add[x][F.mul[c][y]] for x, y in zip(a, b, strict=True)))
                if w in cset:
                    line.add(index[w])
            blocks.add(tuple(sorted(line)))
    return [list(t) for t in sorted(blocks)]


def _radical_s24(q: int) -> list[list[int]] | None:
    """S(2,4,q) for a prime power q ≡ 1 (mod 12) from a radical difference family in GF(q)."""
    F = _GF(q)
    w = F.primitive()
    powers = [1]
    for _ in range(q - 2):
        powers.append(F.mul[powers[-1]][w])
    eps = powers[(q - 1) // 3]
    eps2 = F.mul[eps][eps]
    t = (q - 1) // 12

    def diffs(a: int) -> frozenset[int]:
        block = [0, a, F.mul[a][eps], F.mul[a][eps2]]
        return frozenset(F.add[x][F.neg[y]] for x in block for y in block if x != y)

    cands = [(a, diffs(a)) for a in range(1, q)]
    cands = [(a, d) for a, d in cands if len(d) == 12]

    def rec(chosen: list[int], used: frozenset[int]) -> list[int] | None:
        if len(chosen) == t:
            return chosen
        missing = min(set(range(1, q)) - used)
        for a, d in cands:
            if missing in d and not (d & used):
                r = rec(chosen + [a], used | d)
                if r is not None:
                    return r
        return None

    base = rec([], frozenset())
    if base is None:
        return None
    blocks: set[tuple[int, ...]] = set()
    for a in base:
        block = [0, a, F.mul[a][eps], F.mul[a][eps2]]
        for g in range(q):
            blocks.add(tuple(sorted(F.add[x][g] for x in block)))
    return [list(b) for b in sorted(blocks)]


def _bose_sts(v: int) -> list[list[int]]:
    """Bose construction of an STS(v), v ≡ 3 (mod 6): points (x, i) ↦ x + n·i, n = v/3 odd."""
    n = v // 3
    half = (n + 1) // 2

    def op(a: int, b: int) -> int:
        return ((a + b) * half) % n

    blocks = [[x, x + n, x + 2 * n] for x in range(n)]
    for i in range(3):
        for x in range(n):
            for y in range(x + 1, n):
                blocks.append([x + n * i, y + n * i, op(x, y) + n * ((i + 1) % 3)])
    return blocks


def _skolem_sts(v: int) -> list[list[int]]:
    """Skolem construction of an STS(v), v ≡ 1 (mod 6): ∞ = v−1, points (x, i) ↦ x + 2n·i."""
    n = (v - 1) // 6
    m = 2 * n
    inf = v - 1

    def op(a: int, b: int) -> int:
        s = (a + b) % m
        return s // 2 if s % 2 == 0 else (s - 1) // 2 + n

    blocks = [[x, x + m, x + 2 * m] for x in range(n)]
    for i in range(3):
        for x in range(n):
            blocks.append([inf, x + n + m * i, x + m * ((i + 1) % 3)])
        for x in range(m):
            for y in range(x + 1, m):
                blocks.append([x + m * i, y + m * i, op(x, y) + m * ((i + 1) % 3)])
    return blocks


# A Kirkman resolution of the lines of PG(3,2) (points = nonzero vectors of GF(2)^4, minus one):
# 15 players in triples, 35 tables, 7 rounds (Kirkman's schoolgirl problem). Checked at use.
_KTS15: list[list[list[int]]] = [
    [[0, 1, 2], [3, 7, 11], [4, 9, 14], [5, 10, 12], [6, 8, 13]],
    [[0, 3, 4], [1, 7, 9], [2, 12, 13], [5, 8, 14], [6, 10, 11]],
    [[0, 5, 6], [1, 8, 10], [2, 11, 14], [3, 9, 13], [4, 7, 12]],
    [[0, 7, 8], [1, 11, 13], [2, 4, 5], [3, 10, 14], [6, 9, 12]],
    [[0, 9, 10], [1, 12, 14], [2, 3, 6], [4, 8, 11], [5, 7, 13]],
    [[0, 11, 12], [1, 3, 5], [2, 8, 9], [4, 10, 13], [6, 7, 14]],
    [[0, 13, 14], [1, 4, 6], [2, 7, 10], [3, 8, 12], [5, 9, 11]],
]


def _circle_method(v: int) -> tuple[list[list[int]], list[list[int]]]:
    """All pairs of v players, in v−1 rounds (v even) or v rounds (v odd, one bye a round)."""
    m = v if v % 2 == 0 else v + 1
    ring = list(range(m))
    tables: list[list[int]] = []
    rounds: list[list[int]] = []
    for _ in range(m - 1):
        rnd = []
        for i in range(m // 2):
            a, b = ring[i], ring[m - 1 - i]
            if a < v and b < v:
                rnd.append(len(tables))
                tables.append(sorted([a, b]))
        rounds.append(rnd)
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return tables, rounds


def _log(q: int, base: int) -> int | None:
    """n with base**n == q, else None."""
    n, x = 0, 1
    while x < q:
        x *= base
        n += 1
    return n if x == q else None


@lru_cache(maxsize=64)
def _steiner_cached(
    v: int, k: int
) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...] | None] | None:
    found = _steiner_raw(v, k)
    if found is None:
        return None
    tables, rounds = found
    rep = check_design(tables, v)
    if not (rep.exact and rep.pair_meetings.max == 1 and all(len(t) == k for t in tables)):
        return None  # a construction that fails its check is never used
    if rounds is not None and not check_rounds(tables, rounds):
        rounds = None
    return (
        tuple(tuple(sorted(t)) for t in tables),
        tuple(tuple(r) for r in rounds) if rounds is not None else None,
    )


def _steiner_raw(v: int, k: int) -> tuple[list[list[int]], list[list[int]] | None] | None:
    if k == v:
        return [list(range(v))], [[0]]
    if k == 2:
        return _circle_method(v)
    # affine spaces AG(n, q), q = k: resolvable
    pp = _prime_power(k)
    if pp is not None:
        n = _log(v, k)
        if n is not None and n >= 2:
            return _affine_space(k, n)
    # Kirkman triple systems by the cyclic construction, or as a product of two smaller ones:
    # resolvable, so they come before PG(n, 2)
    if k == 3 and v % 6 == 3:
        kirkman = cyclic_kirkman(v) or _kirkman_product(v)
        if kirkman is not None:
            return kirkman
    # projective spaces PG(n, q), q = k − 1
    q = k - 1
    if _prime_power(q) is not None:
        n, size = 1, q + 1
        while size < v:
            n += 1
            size = (q ** (n + 1) - 1) // (q - 1)
        if size == v and n >= 2:
            if v == 15 and k == 3:
                rounds_ = [list(range(5 * r, 5 * r + 5)) for r in range(7)]
                return [t for rnd in _KTS15 for t in rnd], rounds_
            return _projective_space(q, n), None
    if k == 3:
        if v % 6 == 3:
            return _bose_sts(v), None
        if v % 6 == 1:
            return _skolem_sts(v), None
    if k == 4:
        if v == 28:
            return _unital_28(), None
        if v % 12 == 1 and _prime_power(v) is not None and v <= 400:
            blocks = _radical_s24(v)
            if blocks is not None:
                return blocks, None
    return None


def _kirkman_product(v: int) -> tuple[list[list[int]], list[list[int]]] | None:
    """A KTS(a·b) from a KTS(a) and a KTS(b) (a = 3 gives the tripling KTS(b) → KTS(3b)).

    Players are (x, w), x in Z_a, w in 0..b−1, numbered w·a + x. Rounds: each round of the KTS(a)
    played in every copy w at once ((a − 1)/2 rounds); then for each round of the KTS(b) and each
    t in Z_a, every block {p, q, r} of that round gives the tables {(x, p), (x + t, q), (x + 2t, r)}
    for every x (a·(b − 1)/2 rounds). A pair in one copy meets in the first part; a pair (x, p),
    (y, q) of two copies meets once in the second, in the block of p and q, at the t that their
    positions and y − x fix (t, or half of it: a is odd). (a·b − 1)/2 rounds in all."""
    for a in range(3, v // 3 + 1, 6):
        b, rest = divmod(v, a)
        if rest or b % 6 != 3:
            continue
        small, big = steiner_system(a, 3), steiner_system(b, 3)
        if small is None or big is None:
            continue
        a_tables, a_rounds = small
        b_tables, b_rounds = big
        if a_rounds is None or b_rounds is None:
            continue
        played = [[[w * a + x for x in a_tables[i]] for w in range(b) for i in rnd] for rnd in a_rounds]
        for rnd in b_rounds:
            blocks = [sorted(b_tables[i]) for i in rnd]
            played += [
                [
                    [p * a + x, q * a + (x + t) % a, r * a + (x + 2 * t) % a]
                    for p, q, r in blocks
                    for x in range(a)
                ]
                for t in range(a)
            ]
        tables = [t for rnd_tables in played for t in rnd_tables]
        rounds, start = [], 0
        for rnd_tables in played:
            rounds.append(list(range(start, start + len(rnd_tables))))
            start += len(rnd_tables)
        return tables, rounds
    return None


def steiner_system(v: int, k: int) -> tuple[list[list[int]], list[list[int]] | None] | None:
    """An S(2,k,v) (every pair exactly once) by construction, with a resolution when one is known."""
    if not 2 <= k <= v:
        return None
    found = _steiner_cached(v, k)
    if found is None:
        return None
    tables, rounds = found
    return [list(t) for t in tables], ([list(r) for r in rounds] if rounds is not None else None)
