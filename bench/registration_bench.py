"""Bulk registration through HTTP (not a test): ``python -m bench.registration_bench [--quick]
[--only sqlite|postgres] [--rows N]``.

Arbiter is served by uvicorn in a process of its own (``arbiter serve``, one process), on Postgres
and on the embedded SQLite default. On each database, in the same run:

- one POST of 5,000 rows (a JSON list) to a new event: every player new;
- the same 5,000 names as a CSV to a second event: every row matched to the player made by the
  first (identity matching by name key);
- beside them, the baseline: rows registered one by one (one POST per entry, 32 in flight), the
  way a client without the bulk form registers, scaled to 5,000 rows; the ratio is baseline/bulk.

While each runs, a prober sends ``GET /healthz`` every 10 ms on a connection of its own and its
latencies are printed (p50 / p99 / max): a long registration must not stall the process (issue 28:
5,000 rows under 3 s, ``/healthz`` p99 under 50 ms meanwhile). The server's CPU is read from /proc.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench.http import (
    CONCURRENCY,
    PG_ADMIN,
    TOKEN,
    Api,
    Figures,
    Server,
    _env,
    database,
    load,
    postgres_reachable,
    serve,
)

TARGET = 3.0  # seconds for 5,000 rows (issue 28)
HEALTH_TARGET = 0.050  # /healthz p99 while a registration runs


class Prober:
    """``GET /healthz`` every ``every`` seconds on its own keep-alive connection, in a thread."""

    def __init__(self, port: int, every: float = 0.010) -> None:
        import httpx

        self.http = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30)
        self.every = every
        self.latencies: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            t0 = time.perf_counter()
            r = self.http.get("/healthz")
            seconds = time.perf_counter() - t0
            if r.status_code == 200:
                self.latencies.append(seconds)
            self._stop.wait(max(0.0, self.every - seconds))

    def __enter__(self) -> Prober:
        self.http.get("/healthz")  # the connection opened before the measure
        self._thread.start()
        return self

    def __exit__(self, *_: Any) -> None:
        self._stop.set()
        self._thread.join()
        self.http.close()

    def show(self) -> str:
        ordered = sorted(self.latencies)
        if not ordered:
            return "/healthz: no answer"

        def pct(q: float) -> float:
            return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1e3

        p99 = pct(0.99)
        met = "met" if p99 < HEALTH_TARGET * 1e3 else "over"
        return (
            f"/healthz meanwhile: p50 {pct(0.5):.1f} ms, p99 {p99:.1f} ms, max {ordered[-1] * 1e3:.1f} ms"
            f" over {len(ordered)} probes (target p99 < {HEALTH_TARGET * 1e3:.0f} ms: {met})"
        )


def _event(api: Api, name: str) -> tuple[str, str]:
    created = api.call("POST", "/v1/events", TOKEN, {"name": name, "game": "generic", "settings": {}}, ok=201)
    return created["id"], created["organizer_token"]


def _rows(n: int) -> list[dict[str, Any]]:
    return [
        {"name": f"Player {i:05d}", "rating": 1000 + (i * 7919) % 1200, "club": f"Club {i % 97}"}
        for i in range(n)
    ]


def _csv(rows: list[dict[str, Any]]) -> bytes:
    lines = ["name,rating,club"] + [f"{r['name']},{r['rating']},{r['club']}" for r in rows]
    return ("\n".join(lines) + "\n").encode()


def _bulk(
    api: Api, server: Server, eid: str, org: str, body: bytes, kind: str, n: int
) -> tuple[float, float, list[dict[str, Any]], str]:
    """One POST of the rows: (wall seconds, server CPU seconds, the answer, the prober's line)."""
    headers = {"Authorization": f"Bearer {org}", "Content-Type": kind}
    cpu0 = server.cpu()
    with Prober(server.port) as probe:
        t0 = time.perf_counter()
        r = api.http.post(f"/v1/events/{eid}/entries", content=body, headers=headers)
        wall = time.perf_counter() - t0
        time.sleep(0.05)  # a few probes after the answer too
    cpu = server.cpu() - cpu0
    if r.status_code != 201:
        raise RuntimeError(f"bulk registration: {r.status_code} {r.text[:500]}")
    made = r.json()
    if len(made) != n:
        raise RuntimeError(f"bulk registration answered {len(made)} entries, not {n}")
    return wall, cpu, made, probe.show()


def run_database(kind: str, args: argparse.Namespace, tmp: Path) -> list[str]:
    n = 500 if args.quick else args.rows
    singles = 100 if args.quick else args.singles
    out: list[str] = [f"{kind}: Arbiter, one process; {n} rows registered in one POST"]
    with (
        database(kind, tmp) as url,
        serve(["-m", "app.cli", "serve"], _env(url), tmp / f"reg-{kind}.log") as server,
    ):
        api = Api(server.port)
        with Prober(server.port) as idle:
            time.sleep(1.0)
        out.append(f"  idle {idle.show().split(' (target')[0]}")

        # the baseline: one POST per entry, 32 in flight
        eid, org = _event(api, "Singles")
        requests = [
            ("POST", f"/v1/events/{eid}/entries", json.dumps(row).encode(), org) for row in _rows(singles)
        ]
        with Prober(server.port) as probe:
            one_by_one: Figures = load(server, requests, CONCURRENCY)
        per_row = one_by_one.wall / one_by_one.n
        failed = f", {one_by_one.errors} failed {one_by_one.statuses}" if one_by_one.errors else ""
        out.append(
            f"  baseline: {singles} single registrations at {CONCURRENCY} concurrent: "
            f"{one_by_one.wall:.2f} s, {per_row * 1e3:.2f} ms/row, server CPU "
            f"{one_by_one.cpu / one_by_one.n * 1e3:.2f} ms/row -> {per_row * n:.1f} s for {n} rows{failed}"
        )
        out.append(f"    {probe.show()}")

        rows = _rows(n)
        eid, org = _event(api, "Bulk JSON")
        wall, cpu, made, health = _bulk(
            api, server, eid, org, json.dumps(rows).encode(), "application/json", n
        )
        if [e["name"] for e in made] != [r["name"] for r in rows]:
            raise RuntimeError("the bulk answer is not in the rows' order")
        met = "met" if wall <= TARGET * n / 5000 else "over"
        out.append(
            f"  POST {n} rows (JSON, every player new): {wall:.2f} s, server CPU {cpu:.2f} s, "
            f"{per_row * n / wall:.1f}x the baseline (target {TARGET * n / 5000:.1f} s: {met})"
        )
        out.append(f"    {health}")

        eid2, org2 = _event(api, "Bulk CSV")
        wall, cpu, again, health = _bulk(api, server, eid2, org2, _csv(rows), "text/csv", n)
        if [e["player_id"] for e in again] != [e["player_id"] for e in made]:
            raise RuntimeError("the CSV rows did not find the players the JSON rows made")
        met = "met" if wall <= TARGET * n / 5000 else "over"
        out.append(
            f"  POST {n} rows (CSV, every player matched by name): {wall:.2f} s, server CPU {cpu:.2f} s, "
            f"{per_row * n / wall:.1f}x the baseline (target {TARGET * n / 5000:.1f} s: {met})"
        )
        out.append(f"    {health}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="500 rows: a smoke run")
    parser.add_argument("--only", choices=("sqlite", "postgres"), help="one database")
    parser.add_argument("--rows", type=int, default=5000, help="rows in the bulk POST (at most 5,000)")
    parser.add_argument("--singles", type=int, default=1000, help="single registrations of the baseline")
    args = parser.parse_args()
    kinds = [args.only] if args.only else ["postgres", "sqlite"]
    with tempfile.TemporaryDirectory() as tmp:
        for kind in kinds:
            if kind == "postgres" and not postgres_reachable():
                print(f"postgres: not reachable at {PG_ADMIN} (BENCH_POSTGRES_URL): skipped")
                continue
            t0 = time.perf_counter()
            for line in run_database(kind, args, Path(tmp)):
                print(line, flush=True)
            print(f"  ({time.perf_counter() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
