"""Builds the stored resolvable coverings (app/core/pairing/designs/data/resolvable_covers.json).

Run once: ``.venv/bin/python -m bench.resolvable_build [--sizes 3:24,4:52] [--seconds S]``. Not a test.

Players are Z_g × {0..c−1} plus e fixed players (c = k − 1, N = c·g + e). A base round (a partition of
all N players into tables of k) is shifted by every t in Z_g, which gives g rounds; a pair of players
meets in the shifts when its orbit under Z_g (its copies and difference) is met at a table of the base
round. The search (simulated annealing over the base round, moves swapping two players' seats) makes
the base round meet as many orbits as it can; the pairs of the orbits it misses are then met in a few
further rounds found by a second annealing. The fewest rounds over the choices of e are stored; each is
checked (every pair meets, every round a partition into tables of k) before it is written.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from typing import Any

from app.core.pairing.designs.budget import Stopper
from app.core.pairing.designs.checks import check_design, check_rounds
from app.core.pairing.designs.cyclic import DATA, expand
from app.core.pairing.designs.resolvable import fewest_resolvable_rounds

Orbits = tuple[list[list[int]], list[int]]


def orbit_table(g: int, c: int, e: int) -> Orbits:
    """The orbit number of every pair of players, and the number of pairs in each orbit."""
    n = c * g + e
    ids: dict[tuple[int, ...], int] = {}
    sizes: list[int] = []
    table = [[-1] * n for _ in range(n)]

    def key(p: int, q: int) -> tuple[int, ...]:
        if p > q:
            p, q = q, p
        if q >= c * g:
            if p >= c * g:
                return (3, p, q)
            return (2, q, p // g)
        i, x = divmod(p, g)
        j, y = divmod(q, g)
        if i == j:
            d = (y - x) % g
            return (0, i, min(d, g - d))
        return (1, i, j, (y - x) % g)

    for p in range(n):
        for q in range(p + 1, n):
            kk = key(p, q)
            if kk not in ids:
                ids[kk] = len(ids)
                sizes.append(0)
            table[p][q] = table[q][p] = ids[kk]
    for kk, o in ids.items():
        if kk[0] == 0:
            sizes[o] = g // 2 if 2 * kk[2] == g else g
        elif kk[0] == 3:
            sizes[o] = 1
        else:
            sizes[o] = g
    return table, sizes


def anneal_base(g: int, c: int, e: int, k: int, rand: random.Random, seconds: float) -> list[list[int]]:
    n = c * g + e
    orb, size = orbit_table(g, c, e)
    players = list(range(n))
    rand.shuffle(players)
    blocks = [players[i : i + k] for i in range(0, n, k)]
    where = [0] * n
    for bi, b in enumerate(blocks):
        for p in b:
            where[p] = bi
    cov = [0] * len(size)
    for b in blocks:
        for a in range(k):
            for d in range(a + 1, k):
                cov[orb[b[a]][b[d]]] += 1
    cost = sum(size[o] for o in range(len(size)) if cov[o] == 0)
    best, best_blocks = cost, [list(b) for b in blocks]
    end = time.monotonic() + seconds
    temp = 2.0 * g
    it = 0
    nb = len(blocks)
    while cost > 0:
        it += 1
        if it & 1023 == 0:
            now = time.monotonic()
            if now >= end:
                break
            frac = 1 - (end - now) / seconds
            temp = max(0.3, 2.0 * g * (0.002 / 2.0) ** frac)
        b1 = rand.randrange(nb)
        b2 = rand.randrange(nb - 1)
        if b2 >= b1:
            b2 += 1
        s1, s2 = rand.randrange(k), rand.randrange(k)
        B1, B2 = blocks[b1], blocks[b2]
        p, q = B1[s1], B2[s2]
        delta = 0
        touched = []
        # p leaves B1 for B2 and q the other way: each table's other players lose the one and meet the other
        for block, out, inn in ((B1, p, q), (B2, q, p)):
            for r in block:
                if r != out:
                    o = orb[out][r]
                    cov[o] -= 1
                    if cov[o] == 0:
                        delta += size[o]
                    o = orb[inn][r]
                    if cov[o] == 0:
                        delta -= size[o]
                    cov[o] += 1
                    touched.append((out, inn, r))
        if delta <= 0 or rand.random() < math.exp(-delta / temp):
            B1[s1], B2[s2] = q, p
            where[p], where[q] = b2, b1
            cost += delta
            if cost < best:
                best, best_blocks = cost, [list(b) for b in blocks]
        else:
            for out, inn, r in touched:
                cov[orb[inn][r]] -= 1
                cov[orb[out][r]] += 1
    return best_blocks


def leftover(base: list[list[int]], g: int, c: int, e: int) -> list[tuple[int, int]]:
    """The pairs the shifts of the base round never seat together."""
    n = c * g + e
    rounds = expand({"g": g, "c": c, "e": e, "base": base, "extra": []})
    met = [[False] * n for _ in range(n)]
    for rnd in rounds:
        for t in rnd:
            for a in t:
                for b in t:
                    met[a][b] = True
    return [(a, b) for a in range(n) for b in range(a + 1, n) if not met[a][b]]


def anneal_extra(
    n: int, k: int, pairs: list[tuple[int, int]], f: int, rand: random.Random, seconds: float
) -> list[list[list[int]]] | None:
    """f rounds in which every pair of ``pairs`` meets, or None."""
    if not pairs:
        return []
    want = [[0] * n for _ in range(n)]
    for a, b in pairs:
        want[a][b] = want[b][a] = 1
    rounds = []
    for _ in range(f):
        ps = list(range(n))
        rand.shuffle(ps)
        rounds.append([ps[i : i + k] for i in range(0, n, k)])
    cnt = [[0] * n for _ in range(n)]
    for rnd in rounds:
        for b in rnd:
            for x in b:
                for y in b:
                    if x != y:
                        cnt[x][y] += 1
    cost = sum(1 for a, b in pairs if cnt[a][b] == 0)
    where = [[0] * n for _ in range(f)]
    for r, rnd in enumerate(rounds):
        for bi, b in enumerate(rnd):
            for x in b:
                where[r][x] = bi
    end = time.monotonic() + seconds
    temp = 1.0
    it = 0
    nb = n // k
    while cost > 0:
        it += 1
        if it & 1023 == 0:
            now = time.monotonic()
            if now >= end:
                return None
            temp = max(0.05, 1.0 * (1 - (1 - (end - now) / seconds)))
        r = rand.randrange(f)
        rnd = rounds[r]
        if rand.random() < 0.5:
            a, b = pairs[rand.randrange(len(pairs))]
            if cnt[a][b]:
                continue
            if rand.random() < 0.5:
                a, b = b, a
            b1 = where[r][a]
            b2 = where[r][b]
            s1 = rand.randrange(k)
            if rnd[b1][s1] == a:
                continue
            s2 = rnd[b2].index(b)
        else:
            b1 = rand.randrange(nb)
            b2 = rand.randrange(nb - 1)
            if b2 >= b1:
                b2 += 1
            s1, s2 = rand.randrange(k), rand.randrange(k)
        B1, B2 = rnd[b1], rnd[b2]
        p, q = B1[s1], B2[s2]
        delta = 0
        for r2 in B1:
            if r2 != p:
                if want[p][r2] and cnt[p][r2] == 1:
                    delta += 1
                if want[q][r2] and cnt[q][r2] == 0:
                    delta -= 1
        for r2 in B2:
            if r2 != q:
                if want[q][r2] and cnt[q][r2] == 1:
                    delta += 1
                if want[p][r2] and cnt[p][r2] == 0:
                    delta -= 1
        if delta <= 0 or rand.random() < math.exp(-delta / temp):
            for r2 in B1:
                if r2 != p:
                    cnt[p][r2] -= 1
                    cnt[r2][p] -= 1
                    cnt[q][r2] += 1
                    cnt[r2][q] += 1
            for r2 in B2:
                if r2 != q:
                    cnt[q][r2] -= 1
                    cnt[r2][q] -= 1
                    cnt[p][r2] += 1
                    cnt[r2][p] += 1
            B1[s1], B2[s2] = q, p
            where[r][p], where[r][q] = b2, b1
            cost += delta
    return [[sorted(b) for b in rnd] for rnd in rounds]


def build(n: int, k: int, seconds: float, seed: int, tries: int) -> dict[str, Any] | None:
    c = k - 1
    best: dict[str, Any] | None = None
    best_rounds = 10**9
    tried = 0
    for e in range(0, 3 * k + 1):
        if (n - e) % c or (n - e) // c < 3 or tried >= tries:
            continue
        tried += 1
        g = (n - e) // c
        if g >= best_rounds:
            continue
        rand = random.Random(f"{seed}:{n}:{k}:{e}")
        base = anneal_base(g, c, e, k, rand, seconds)
        left = leftover(base, g, c, e)
        deg = [0] * n
        for a, b in left:
            deg[a] += 1
            deg[b] += 1
        f = -(-max(deg) // (k - 1)) if left else 0
        while g + f < best_rounds:
            extra = anneal_extra(n, k, left, f, rand, seconds / 2)
            if extra is not None:
                entry: dict[str, Any] = {
                    "g": g,
                    "c": c,
                    "e": e,
                    "base": [sorted(b) for b in base],
                    "extra": extra,
                }
                rounds = expand(entry)
                tables = [t for r in rounds for t in r]
                rep = check_design(tables, n)
                idx, start = [], 0
                for r in rounds:
                    idx.append(list(range(start, start + len(r))))
                    start += len(r)
                assert rep.pair_meetings.min >= 1 and check_rounds(tables, idx)
                best, best_rounds = entry, g + f
                break
            f += 1
        print(f"  N={n} k={k} e={e} g={g} left={len(left)} -> {g + f} rounds", flush=True)
    return best


def explicit(n: int, k: int, below: int, seconds: float, seed: int) -> dict[str, Any] | None:
    """Fewer than ``below`` rounds by the round-structured search of the schedule tool, given longer;
    stored as its rounds (no shifts)."""
    end = time.monotonic() + seconds
    found = fewest_resolvable_rounds(n, k, below, f"build{seed}", Stopper(lambda: time.monotonic() >= end))
    if found is None:
        return None
    tables, rounds = found
    return {"g": 0, "c": 0, "e": n, "base": [], "extra": [[sorted(tables[i]) for i in r] for r in rounds]}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", required=True, help="k:N,k:N,...")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--explicit", action="store_true", help="the schedule tool's own search, given longer")
    ap.add_argument("--tries", type=int, default=2, help="choices of e tried per size")
    args = ap.parse_args(argv)
    for item in args.sizes.split(","):
        k, n = (int(x) for x in item.split(":"))
        key = f"{n}:{k}"
        old = load().get(key)
        if args.explicit:
            below = rounds_of(old) if old else n
            found = explicit(n, k, below, args.seconds, args.seed)
        else:
            found = build(n, k, args.seconds, args.seed, args.tries)
        if found is None:
            continue
        data = load()  # read again: another build may have stored sizes meanwhile
        old = data.get(key)
        if old is None or rounds_of(found) < rounds_of(old):
            data[key] = found
            print(f"N={n} k={k}: {rounds_of(found)} rounds (stored)", flush=True)
            write(data)


def load() -> dict[str, dict[str, Any]]:
    return json.loads(DATA.read_text()) if DATA.exists() else {}


def rounds_of(entry: dict[str, Any]) -> int:
    return int(entry["g"]) + len(entry["extra"])


def write(data: dict[str, dict[str, Any]]) -> None:
    """One line per size, ordered by table size then players."""

    def order(key: str) -> tuple[int, int]:
        n, k = (int(x) for x in key.split(":"))
        return k, n

    lines = [
        f"{json.dumps(key)}: {json.dumps(data[key], separators=(',', ':'))}"
        for key in sorted(data, key=order)
    ]
    tmp = DATA.with_suffix(".tmp")
    tmp.write_text("{\n" + ",\n".join(lines) + "\n}\n")
    tmp.replace(DATA)


if __name__ == "__main__":
    main()
