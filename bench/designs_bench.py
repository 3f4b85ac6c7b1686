"""Benchmark of N-seat round-robin designs (complete mode) against the Schönheim bound.

Run: ``.venv/bin/python -m bench.designs_bench [--quick] [--budget SECONDS] [--rounds-max N]``

For every N from 4 to 30 and tables of 3 and of 4: tables used, the Schönheim bound L(N,k,2), the ratio
tables / L (target ≤ 1.10), the known covering number C(N,k,2) where settled, games per player, the
largest number of meetings of one pair, and the search time. Then, where the table size divides N,
the same asked for in rounds: rounds used against the naive fewest, ceil((N − 1)/(k − 1)) (target ≤ 1.25),
the sharper lower bound where one is proved, and whether the schedule is optimal. Each search gets a time budget through a
``should_stop`` callback defined here (the core code reads no clock). Not a test.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from app.core.pairing.designs import (
    MAX_TABLES,
    fewest_rounds_bound,
    known_covering_number,
    schonheim_bound,
    search_design,
    steiner_system,
)
from app.core.pairing.designs.cyclic import stored_rounds

TARGET = 1.10


def budget(seconds: float) -> Callable[[], bool]:
    end = time.monotonic() + seconds
    return lambda: time.monotonic() >= end


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="a few N, small budget")
    ap.add_argument("--budget", type=float, default=None, help="seconds per search (default 20, quick 2)")
    ap.add_argument(
        "--rounds-max",
        type=int,
        default=None,
        help="the rounds table for every N up to this one (default: the N of the first table)",
    )
    args = ap.parse_args(argv)
    seconds = args.budget if args.budget is not None else (2.0 if args.quick else 20.0)
    ns = [5, 7, 8, 10, 11, 14, 17, 19, 22, 26] if args.quick else list(range(4, 31))

    header = (
        f"{'N':>3} {'k':>2} {'tables':>6} {'L':>4} {'ratio':>6} {'C(N,k,2)':>8} {'T/C':>5} "
        f"{'games':>6} {'pairmax':>7} {'exact':>5} {'time_s':>7}  note"
    )
    print(f"complete mode, budget {seconds:g} s per search, target tables/L <= {TARGET:.2f}")
    print(header)
    print("-" * len(header))
    worst = (0.0, 0, 0)
    worst_feasible = (0.0, 0, 0)
    slow = 0.0
    for k in (3, 4):
        for n in ns:
            if k > n:
                continue
            t0 = time.monotonic()
            d = search_design(n, k, "complete", seed="bench", should_stop=budget(seconds))
            dt = time.monotonic() - t0
            slow = max(slow, dt)
            T = len(d.tables)
            L = schonheim_bound(n, k)
            C = known_covering_number(n, k)
            ratio = T / L
            r = d.report
            notes = []
            if C is not None and C / L > TARGET:
                notes.append(f"target impossible: C({n},{k},2)={C} = {C / L:.3f}·L")
            elif ratio > TARGET:
                notes.append("ABOVE TARGET")
            if C is not None and T == C:
                notes.append("optimal")
            if any(w.startswith("search stopped") for w in r.warnings):
                notes.append("budget used")
            print(
                f"{n:>3} {k:>2} {T:>6} {L:>4} {ratio:>6.3f} {C if C is not None else '?':>8} "
                f"{(T / C if C else float('nan')):>5.2f} "
                f"{r.games_per_player.min:>3}-{r.games_per_player.max:<2} {r.pair_meetings.max:>7} "
                f"{'yes' if r.exact else 'no':>5} {dt:>7.2f}  {'; '.join(notes)}"
            )
            worst = max(worst, (ratio, n, k))
            if C is None or C / L <= TARGET:
                worst_feasible = max(worst_feasible, (ratio, n, k))
    print("-" * len(header))
    print(f"worst ratio tables/L: {worst[0]:.3f} (N={worst[1]}, k={worst[2]})")
    print(
        f"worst ratio where the 1.10 target is possible: {worst_feasible[0]:.3f} "
        f"(N={worst_feasible[1]}, k={worst_feasible[2]})"
    )
    print(f"slowest search: {slow:.2f} s")
    rounds_table(ns if args.rounds_max is None else list(range(4, args.rounds_max + 1)), seconds)


ROUNDS_TARGET = 1.25


def rounds_table(ns: list[int], seconds: float) -> None:
    """Schedules released by rounds where the table size divides the players: rounds used against the
    naive lower bound ceil((N − 1)/(k − 1)) (ratio 1.00 = that bound), the sharper lower bound of
    ``fewest_rounds_bound`` (R_low; "optimal" when the rounds reach it), where the schedule comes from
    (an exact construction, a stored covering, or the search), and tables against L."""
    print()
    print(
        f"released by rounds (k divides N), budget {seconds:g} s per search, target rounds/R_min <= {ROUNDS_TARGET}"
    )
    header = (
        f"{'N':>3} {'k':>2} {'rounds':>6} {'R_min':>5} {'ratio':>6} {'R_low':>5} {'optimal':>7} "
        f"{'source':>12} {'tables':>6} {'L':>4} {'time_s':>7}  note"
    )
    print(header)
    print("-" * len(header))
    worst = (0.0, 0, 0)
    worst_possible = (0.0, 0, 0)
    above: list[str] = []
    for k in (3, 4):
        for n in ns:
            if k > n or n % k or schonheim_bound(n, k) > MAX_TABLES:
                continue
            t0 = time.monotonic()
            d = search_design(n, k, "complete", rounds=True, seed="bench", should_stop=budget(seconds))
            dt = time.monotonic() - t0
            rounds = len(d.rounds or [])
            low = -(-(n - 1) // (k - 1))
            sharp = fewest_rounds_bound(n, k)
            ratio = rounds / low
            if stored_rounds(n, k) is not None:
                source = "stored"
            elif steiner_system(n, k) is not None:
                source = "construction"
            else:
                source = "search"
            note = ""
            if ratio > ROUNDS_TARGET + 1e-9:
                if rounds == sharp:
                    note = f"optimal: no schedule has fewer than {sharp} rounds (R_low)"
                else:
                    note = "ABOVE TARGET"
                above.append(f"N={n} k={k}: {rounds}/{low} = {ratio:.2f} — {note}")
            worst = max(worst, (ratio, n, k))
            if sharp / low <= ROUNDS_TARGET:
                worst_possible = max(worst_possible, (ratio, n, k))
            print(
                f"{n:>3} {k:>2} {rounds:>6} {low:>5} {ratio:>6.2f} {sharp:>5} "
                f"{'yes' if rounds == sharp else '?':>7} {source:>12} {len(d.tables):>6} "
                f"{schonheim_bound(n, k):>4} {dt:>7.2f}  {note}"
            )
    print("-" * len(header))
    print(f"worst ratio rounds/R_min: {worst[0]:.2f} (N={worst[1]}, k={worst[2]})")
    print(
        f"worst ratio where {ROUNDS_TARGET} is possible (R_low/R_min <= {ROUNDS_TARGET}): "
        f"{worst_possible[0]:.2f} (N={worst_possible[1]}, k={worst_possible[2]})"
    )
    for line in above:
        print(f"above {ROUNDS_TARGET}: {line}")


if __name__ == "__main__":
    main()
