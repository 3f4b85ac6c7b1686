"""Retries under load (Postgres and SQLite): 50 clients register 200 entries and report a round of 100
matches, every request sent three times with one Idempotency-Key — the first copy abandoned in flight
(its answer never read, as a phone that lost its signal), the other two sent together while it runs.
Nothing is lost or duplicated, every copy gets the one answer (all but one replayed), and the
standings equal a clean count of the results sent."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from typing import Any

import httpx

from tests.support.api import Api, bearer, make_event, start

ENTRIES = 200
CLIENTS = 50


async def _three_copies(
    api: Api, url: str, body: dict[str, Any], headers: dict[str, str], rng: random.Random
) -> tuple[asyncio.Task[httpx.Response], list[httpx.Response]]:
    abandoned = asyncio.ensure_future(api.client.post(url, json=body, headers=headers))
    await asyncio.sleep(rng.random() * 0.005)
    copies = await asyncio.gather(*[api.client.post(url, json=body, headers=headers) for _ in range(2)])
    return abandoned, list(copies)


async def _run(
    api: Api, jobs: list[tuple[str, dict[str, Any], dict[str, str]]]
) -> tuple[list[list[httpx.Response]], int]:
    """Send every job's three copies from ``CLIENTS`` clients; returns each job's copies as read (the
    abandoned first one included once it finished) and how many copies came back replayed."""
    queue: asyncio.Queue[int] = asyncio.Queue()
    for i in range(len(jobs)):
        queue.put_nowait(i)
    out: list[list[httpx.Response]] = [[] for _ in jobs]
    abandoned: list[tuple[int, asyncio.Task[httpx.Response]]] = []

    async def client(n: int) -> None:
        rng = random.Random(n)
        while not queue.empty():
            i = queue.get_nowait()
            url, body, headers = jobs[i]
            first, copies = await _three_copies(api, url, body, headers, rng)
            abandoned.append((i, first))
            out[i].extend(copies)

    await asyncio.gather(*[client(n) for n in range(CLIENTS)])
    for i, task in abandoned:
        out[i].append(await task)
    replayed = sum(r.headers.get("idempotent-replayed") == "true" for rs in out for r in rs)
    return out, replayed


def _one_answer(copies: list[httpx.Response], status: int) -> dict[str, Any]:
    assert [r.status_code for r in copies] == [status] * 3, [r.text for r in copies]
    bodies = [r.json() for r in copies]
    assert bodies[0] == bodies[1] == bodies[2]
    assert sum(r.headers.get("idempotent-replayed") == "true" for r in copies) == 2
    return bodies[0]


async def test_fifty_clients_three_copies_each(api: Api) -> None:
    event, token = await make_event(api, name="Load Open")
    eid = event["id"]
    org = bearer(token)
    registrations = [
        (f"/v1/events/{eid}/entries", {"name": f"Player {n:03d}"}, {**org, "Idempotency-Key": f"reg-{n}"})
        for n in range(ENTRIES)
    ]
    answers, replayed_entries = await _run(api, registrations)
    entries = [_one_answer(copies, 201) for copies in answers]
    assert len({e["id"] for e in entries}) == ENTRIES
    assert all(e["entry_token"] for e in entries)  # every phone gets its token, first answer lost or not
    listed = (await api.client.get(f"/v1/events/{eid}/entries", params={"limit": 500})).json()["items"]
    assert sorted(e["name"] for e in listed) == sorted(f"Player {n:03d}" for n in range(ENTRIES))

    first_round = (await start(api, eid, token))["round"]
    matches = [m for m in first_round["matches"] if m["status"] != "bye"]
    assert len(matches) == ENTRIES // 2
    reports = []
    winners: Counter[str] = Counter()
    for m in matches:
        seats = sorted(m["seats"], key=lambda s: s["name"])
        winners[seats[0]["entry_id"]] += 1
        body = {"seats": [{"entry_id": s["entry_id"], "place": 1 if s is seats[0] else 2} for s in seats]}
        reports.append((f"/v1/matches/{m['id']}/result", body, {**org, "Idempotency-Key": f"res-{m['id']}"}))
    answers, replayed_results = await _run(api, reports)
    for copies in answers:
        assert _one_answer(copies, 200)["status"] in ("reported", "confirmed")
    replayed = replayed_entries + replayed_results
    print(
        f"[{api.backend}] {3 * (len(registrations) + len(reports))} copies, {replayed} replayed "
        f"({len(registrations) + len(reports)} requests run once)"
    )
    assert replayed == 2 * (len(registrations) + len(reports))

    # the standings equal a clean count of the results sent: one game each, a win for each winner
    rows = (await api.client.get(f"/v1/events/{eid}/standings")).json()["rows"]
    assert len(rows) == ENTRIES
    assert {row["entry_id"]: (row["games"], row["wins"]) for row in rows} == {
        e["id"]: (1, winners[e["id"]]) for e in entries
    }
    # and the event's own audit finds nothing wrong
    r = await api.client.post(f"/v1/events/{eid}/integrity-check", headers=org)
    await api.drain_jobs()
    job = (await api.client.get(r.headers["location"])).json()
    assert job["status"] == "done" and job["result"]["ok"] is True, job
