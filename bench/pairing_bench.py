"""Pairing benchmarks (not a test): ``python -m bench.pairing_bench [--quick]``.

* Swiss, 2 seats: 7 rounds of seeded random results, then time the pairing of round 8 (1,000 and
  10,000 entries).
* Against the Tabbycat approach: networkx ``max_weight_matching`` over the COMPLETE graph with the same
  cost function (500 entries): both times, the ratio, both total costs and avoidable rematches.
* Swiss, 4 seats: 1,000 entries after 7 rounds, time of round 8.
* Peak memory (tracemalloc) of the 10,000-entry 2-seat pairing.
"""

from __future__ import annotations

import argparse
import random
import resource
import time
import tracemalloc

import networkx as nx

from app.core.pairing.swiss import SwissEntry, choose_bye, first_round_order, pair_cost, pair_swiss
from app.core.pairing.swiss_cost import score_groups
from app.core.pairing.tables import TableEntry, pair_tables


def swiss_field(n: int, rounds: int = 7, seed: str = "bench") -> list[SwissEntry]:
    """Entries in ranking order after ``rounds`` Swiss rounds with seeded random results."""
    ids = [f"e{i:05d}" for i in range(n)]
    score = dict.fromkeys(ids, 0.0)
    opp: dict[str, set[str]] = {i: set() for i in ids}
    byes = dict.fromkeys(ids, 0)
    results = random.Random(f"{seed}:results")
    order = first_round_order(ids, seed)
    for rnd in range(rounds):
        if rnd:
            order = sorted(ids, key=lambda i: (-score[i], i))
        p = pair_swiss(
            [SwissEntry(id=i, score=score[i], opponents=frozenset(opp[i]), byes=byes[i]) for i in order]
        )
        for pr in p.pairs:
            opp[pr.first].add(pr.second)
            opp[pr.second].add(pr.first)
            roll = results.random()
            if roll < 0.1:
                score[pr.first] += 0.5
                score[pr.second] += 0.5
            else:
                score[pr.first if roll < 0.55 else pr.second] += 1
        if p.bye:
            score[p.bye.entry] += 1
            byes[p.bye.entry] += 1
    order = sorted(ids, key=lambda i: (-score[i], i))
    return [SwissEntry(id=i, score=score[i], opponents=frozenset(opp[i]), byes=byes[i]) for i in order]


def networkx_complete(entries: list[SwissEntry]) -> tuple[list[tuple[int, int]], int]:
    """The Tabbycat approach: blossom over all pairs (same cost, same bye rule)."""
    rest = list(entries)
    b = choose_bye(rest)
    if b is not None:
        del rest[b]
    costs = {}
    groups = score_groups(e.score for e in rest)
    for i in range(len(rest)):
        for j in range(i + 1, len(rest)):
            costs[(i, j)] = pair_cost(rest[i], rest[j], i, j, groups=groups).total
    big = max(costs.values()) + 1
    g = nx.Graph()
    g.add_weighted_edges_from((i, j, big - c) for (i, j), c in costs.items())
    m = nx.max_weight_matching(g, maxcardinality=True)
    pairs = [(min(a, b), max(a, b)) for a, b in m]
    return pairs, sum(costs[p] for p in pairs)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="small sizes (smoke run)")
    args = ap.parse_args()
    sizes = (100, 400) if args.quick else (1000, 10000)
    cmp_n = 100 if args.quick else 500
    tables_n = 200 if args.quick else 1000

    for n in sizes:
        field = swiss_field(n)
        t = time.perf_counter()
        p = pair_swiss(field)
        dt = time.perf_counter() - t
        print(f"swiss-2 n={n}: round 8 paired in {dt:.3f} s (rematches {p.rematches}, window {p.window})")

    field = swiss_field(cmp_n)
    t = time.perf_counter()
    ours = pair_swiss(field)
    t_ours = time.perf_counter() - t
    t = time.perf_counter()
    nx_pairs, nx_cost = networkx_complete(field)
    t_nx = time.perf_counter() - t
    rest = [e for e in field if ours.bye is None or e.id != ours.bye.entry]
    nx_rematches = sum(1 for a, b in nx_pairs if rest[b].id in rest[a].opponents)
    avoidable = ours.rematches - nx_rematches if ours.rematches > nx_rematches else 0
    print(
        f"swiss-2 n={cmp_n} vs networkx complete graph: ours {t_ours:.3f} s, networkx {t_nx:.3f} s, "
        f"ratio {t_nx / t_ours:.0f}x; total cost ours {ours.total_cost}, networkx {nx_cost} "
        f"({'ours <=' if ours.total_cost <= nx_cost else 'OURS HIGHER'}); rematches ours {ours.rematches}, "
        f"networkx {nx_rematches}; avoidable rematches {avoidable}"
    )

    r = random.Random("bench:tables")
    ids = [f"t{i:05d}" for i in range(tables_n)]
    score = dict.fromkeys(ids, 0.0)
    met: dict[str, dict[str, int]] = {i: {} for i in ids}
    order = first_round_order(ids, "bench")
    elapsed = 0.0
    for rnd in range(8):
        if rnd:
            order = sorted(ids, key=lambda i: (-score[i], i))
        t = time.perf_counter()
        tp = pair_tables([TableEntry(i, score[i], dict(met[i])) for i in order], 4)
        elapsed = time.perf_counter() - t
        for tb in tp.tables:
            finish = list(tb.entries)
            r.shuffle(finish)
            for place, e in enumerate(finish):
                score[e] += len(finish) - 1 - place
            for a in tb.entries:
                for b in tb.entries:
                    if a != b:
                        met[a][b] = met[a].get(b, 0) + 1
    print(
        f"swiss-4 n={tables_n}: round 8 seated in {elapsed:.3f} s "
        f"(repeat cost {tp.total_repeat_cost}, swaps {tp.swaps}, passes {tp.passes})"
    )

    big = swiss_field(sizes[-1])
    tracemalloc.start()
    pair_swiss(big)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"swiss-2 n={sizes[-1]}: peak memory {peak / 2**20:.1f} MiB (tracemalloc, Python heap only); "
        f"process max RSS {rss:.0f} MiB (whole bench run, includes rustworkx)"
    )


if __name__ == "__main__":
    main()
