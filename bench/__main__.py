"""`make bench`: every benchmark, each printing its figures as ratios against a baseline run beside it."""

from __future__ import annotations

import importlib
import sys
import time

BENCHES = [
    "bench.standings_bench",
    "bench.pairing_bench",
    "bench.seats_bench",
    "bench.swiss_quality_bench",
    "bench.designs_bench",
    "bench.ratings_bench",
    "bench.observability_bench",
    "bench.live_bench",
    "bench.registration_bench",
    "bench.http",
]


def main() -> None:
    args = sys.argv[1:]
    for name in BENCHES:
        module = importlib.import_module(name)
        print(f"== {name} ==", flush=True)
        t0 = time.perf_counter()
        sys.argv = [name, *args]
        module.main()
        print(f"({time.perf_counter() - t0:.1f} s)\n", flush=True)


if __name__ == "__main__":
    main()
