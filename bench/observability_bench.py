"""What a request pays for being observed (not a test): ``python -m bench.observability_bench [--quick]``.

The real app (``create_app``) answers through an in-memory ASGI transport with its request
middleware — the request id, one JSON log line (formatted and written to a buffer), the request
counter and latency histogram — and, side by side in the same run, the same app without that
middleware. Two routes: ``GET /healthz`` (no database: the worst case for the ratio) and
``GET /v1/games`` (a read of the migrated SQLite database, as most requests are). Rounds alternate
between the two apps and the best of each is kept; the figures are the ratio of their times per
request and the overhead in microseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import logging
import tempfile
import time
from typing import Any

import httpx

from app.api.middleware import RequestLogMiddleware
from app.cli import migrate
from app.main import create_app
from app.observability.logs import ContextFilter, JsonFormatter
from app.settings import Settings


def _app(observed: bool, database_url: str) -> Any:
    app = create_app(
        Settings(database_url=database_url, arbiter_admin_token="bench", arbiter_sweep_seconds=3600)
    )
    if not observed:
        app.user_middleware = [m for m in app.user_middleware if m.cls is not RequestLogMiddleware]
    return app


async def _round(app: Any, path: str, n: int) -> float:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
        await client.get(path)  # build the middleware stack outside the timing
        t0 = time.perf_counter()
        for _ in range(n):
            r = await client.get(path)
            assert r.status_code == 200
        return (time.perf_counter() - t0) / n


async def run(args: argparse.Namespace) -> None:
    n, rounds = (300, 3) if args.quick else (2000, 5)
    sink = io.StringIO()
    handler = logging.StreamHandler(sink)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(ContextFilter())
    logging.getLogger().addHandler(handler)
    logging.getLogger("arbiter").setLevel(logging.INFO)
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite+aiosqlite:///{tmp}/bench.db"
        await asyncio.to_thread(migrate, url)
        observed, bare = _app(True, url), _app(False, url)
        async with observed.router.lifespan_context(observed), bare.router.lifespan_context(bare):
            for path in ("/healthz", "/v1/games"):
                best = {"observed": float("inf"), "bare": float("inf")}
                for _ in range(rounds):
                    sink.seek(0)
                    sink.truncate()
                    best["bare"] = min(best["bare"], await _round(bare, path, n))
                    best["observed"] = min(best["observed"], await _round(observed, path, n))
                    lines = sum(1 for line in sink.getvalue().splitlines() if '"arbiter.http"' in line)
                    assert lines == n + 1, lines  # one line per observed request, none from the other
                ratio = best["observed"] / best["bare"]
                extra = (best["observed"] - best["bare"]) * 1e6
                print(f"GET {path}, {n} requests x {rounds} rounds, best round:")
                print(f"  without the request middleware   {best['bare'] * 1e6:8.1f} us/request  (baseline)")
                print(
                    f"  with it (id, JSON line, metrics) {best['observed'] * 1e6:8.1f} us/request  x{ratio:.2f}  (+{extra:.1f} us)"
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="300 requests a round instead of 2000")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
