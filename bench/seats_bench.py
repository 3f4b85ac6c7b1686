"""Seat balance in 2-seat Swiss (not a test): ``python -m bench.seats_bench [--quick]``.

For 100, 1,000 and 10,000 entries, 8 rounds of seeded random results (the stronger entry wins more
often; one game in ten is drawn), paired by ``pair_swiss`` and seated two ways in the same run:

* **baseline** — the higher-ranked entry always on the first seat (and no seat term in the pairing);
* **balanced** — seats allocated by history (``app/core/pairing/seats.py``), the pairing told each
  entry's seat history (``seat_balance``).

Printed: players with |first seats − second seats| > 1, and with three equal seats in a row, after
8 rounds, for each; and the ratio of the two.
"""

from __future__ import annotations

import argparse
import random
import time

from app.core.pairing.seats import allocate
from app.core.pairing.swiss import SwissEntry, first_round_order, pair_swiss

ROUNDS = 8


def simulate(n: int, balanced: bool, seed: str = "seats") -> tuple[int, int, float]:
    """(players with |diff| > 1, players with three equal seats in a row, seconds) after ROUNDS."""
    ids = [f"e{i:05d}" for i in range(n)]
    strength = {i: random.Random(f"{seed}:{i}").gauss(0, 1) for i in ids}
    score = dict.fromkeys(ids, 0.0)
    opp: dict[str, set[str]] = {i: set() for i in ids}
    byes = dict.fromkeys(ids, 0)
    seats: dict[str, list[int]] = {i: [] for i in ids}
    results = random.Random(f"{seed}:results")
    t0 = time.perf_counter()
    order = first_round_order(ids, seed)
    for rnd in range(ROUNDS):
        if rnd:
            order = sorted(ids, key=lambda i: (-score[i], i))
        entries = [
            SwissEntry(
                id=i,
                score=score[i],
                opponents=frozenset(opp[i]),
                byes=byes[i],
                seats=tuple(seats[i]) if balanced else None,
            )
            for i in order
        ]
        p = pair_swiss(entries)
        for t, pr in enumerate(p.pairs, start=1):
            if balanced:
                a = allocate(pr.first, pr.second, seats[pr.first], seats[pr.second], t)
                first, second = a.first, a.second
            else:
                first, second = pr.first, pr.second
            seats[first].append(0)
            seats[second].append(1)
            opp[first].add(second)
            opp[second].add(first)
            roll = results.random()
            if roll < 0.1:
                score[first] += 0.5
                score[second] += 0.5
            else:
                edge = 1 / (1 + 10 ** ((strength[second] - strength[first]) / 2))
                score[first if results.random() < edge else second] += 1.0
        if p.bye is not None:
            score[p.bye.entry] += 1.0
            byes[p.bye.entry] += 1
    elapsed = time.perf_counter() - t0
    wide = sum(1 for s in seats.values() if abs(s.count(0) - s.count(1)) > 1)
    runs = sum(1 for s in seats.values() if any(s[k] == s[k + 1] == s[k + 2] for k in range(len(s) - 2)))
    return wide, runs, elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="100 and 1,000 entries only")
    args = parser.parse_args()
    sizes = [100, 1000] if args.quick else [100, 1000, 10_000]
    print(f"after {ROUNDS} rounds: players with |first - second| > 1, and with three equal seats in a row")
    print(
        f"{'entries':>8} | {'baseline >1':>12} {'3 in a row':>11} | {'balanced >1':>12} {'3 in a row':>11} | time ratio"
    )
    for n in sizes:
        bw, br, bt = simulate(n, balanced=False)
        aw, ar, at = simulate(n, balanced=True)
        print(
            f"{n:>8} | {bw:>5} {100 * bw / n:>5.1f}% {br:>4} {100 * br / n:>5.1f}% |"
            f" {aw:>5} {100 * aw / n:>5.1f}% {ar:>4} {100 * ar / n:>5.1f}% | {at / bt:.2f}x",
            flush=True,
        )


if __name__ == "__main__":
    main()
