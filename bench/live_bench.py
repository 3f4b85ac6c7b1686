"""What a reported result pays for live updates (not a test): ``python -m bench.live_bench [--quick]``.

The real app on a migrated SQLite file (the embedded default) answers through an in-memory ASGI
transport: an organizer reports every match of a round of 64 entries. Side by side in the same
run, rounds alternate between the app as shipped — each report writes its outbox rows
(``match.confirmed``, ``standings.changed``), looks for webhooks and wakes the streams at commit —
and the same app with the outbox's writes left out. The best round of each is kept; the figures are
the ratio of their times per report and the overhead in microseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from typing import Any

import httpx

from app.cli import migrate
from app.main import create_app
from app.services import outbox
from app.settings import Settings

TOKEN = "bench"
ENTRIES = 64


async def _round(client: httpx.AsyncClient) -> tuple[float, int]:
    """A new event of 64 entries, started; its first round reported. Seconds per report."""
    admin = {"Authorization": f"Bearer {TOKEN}"}
    r = await client.post(
        "/v1/events",
        json={"name": "Bench", "game": "generic", "settings": {"stages": [{"format": "swiss", "rounds": 3}]}},
        headers=admin,
    )
    org = {"Authorization": f"Bearer {r.json()['organizer_token']}"}
    eid = r.json()["id"]
    rows = [{"name": f"P{i}"} for i in range(ENTRIES)]
    assert (await client.post(f"/v1/events/{eid}/entries", json=rows, headers=org)).status_code == 201
    matches = (await client.post(f"/v1/events/{eid}/start", headers=org)).json()["round"]["matches"]
    t0 = time.perf_counter()
    for m in matches:
        body = {"seats": [{"entry_id": s["entry_id"], "place": i + 1} for i, s in enumerate(m["seats"])]}
        r = await client.post(f"/v1/matches/{m['id']}/result", json=body, headers=org)
        assert r.status_code == 200, r.text
    return (time.perf_counter() - t0) / len(matches), len(matches)


async def _silent(*_: Any, **__: Any) -> None:
    return None


async def run(args: argparse.Namespace) -> None:
    rounds = 3 if args.quick else 8
    shipped = outbox.emit
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite+aiosqlite:///{tmp}/bench.db"
        await asyncio.to_thread(migrate, url)
        app = create_app(
            Settings(
                database_url=url,
                arbiter_admin_token=TOKEN,
                arbiter_sweep_seconds=3600,
                arbiter_log_level="WARNING",
            )
        )
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
                best = {"outbox": float("inf"), "bare": float("inf")}
                reports = 0
                for _ in range(rounds):
                    outbox.emit = _silent  # type: ignore[assignment]
                    try:
                        seconds, reports = await _round(client)
                        best["bare"] = min(best["bare"], seconds)
                    finally:
                        outbox.emit = shipped  # type: ignore[assignment]
                    seconds, reports = await _round(client)
                    best["outbox"] = min(best["outbox"], seconds)
    ratio = best["outbox"] / best["bare"]
    extra = (best["outbox"] - best["bare"]) * 1e6
    print(
        f"POST /v1/matches/{{id}}/result (organizer), {reports} reports x {rounds} rounds, SQLite, best round:"
    )
    print(f"  without the outbox's writes          {best['bare'] * 1e6:8.1f} us/report  (baseline)")
    print(
        f"  with them (2 rows, hooks, wake-up)   {best['outbox'] * 1e6:8.1f} us/report  x{ratio:.2f}  (+{extra:.1f} us)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="3 rounds instead of 8")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
