"""Results of one event written side by side (app/services/reads.py, docs/architecture.md "The flow of one request").

A report holds its event and locks its own match; the event's row is taken for update only to
publish the change. So on Postgres a result does not wait for another match's result in flight, while
a change of the event's structure waits for it; and under a storm of results, pairing attempts and
entry changes, nothing answers a 5xx, every result is stored once, the outbox is read in commit order
(no row ever appears below one a reader has already seen) and the standings equal a clean
computation. Both backends; the blocking checks are Postgres's (SQLite has one writer at a time).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from app.core.errors import Conflict, NotFound
from app.core.vocabulary import MatchStatus
from app.services import lifecycle, outbox, results
from app.services.reads import get_event, lock_event
from app.services.standings import event_standings
from tests.support.api import Api, bearer, setup_event, start


def _won(match: dict[str, Any]) -> dict[str, Any]:
    return {"seats": [{"entry_id": s["entry_id"], "place": i + 1} for i, s in enumerate(match["seats"])]}


async def _event(api: Api, entries: int) -> tuple[str, str, list[dict[str, Any]]]:
    names = [f"P{i:02d}" for i in range(entries)]
    eid, token, _ = await setup_event(api, names, settings={"stages": [{"format": "swiss", "rounds": 3}]})
    started = await start(api, eid, token)
    return eid, token, started["round"]["matches"]


async def test_a_storm_of_results_and_structural_changes(api: Api) -> None:
    eid, token, matches = await _event(api, 64)
    seen: list[int] = []
    done = asyncio.Event()

    async def reader() -> None:
        """Poll the outbox as a stream does: every row read is above the last one read."""
        last = 0
        while True:
            async with api.app.state.sessionmaker() as session:
                rows = await outbox.since(session, eid, last, limit=10_000)
            for row in rows:
                assert row.id > last
                last = row.id
                seen.append(row.id)
            if done.is_set() and not rows:
                return
            await asyncio.sleep(0)

    async def post(m: dict[str, Any]) -> int:
        r = await api.client.post(f"/v1/matches/{m['id']}/result", json=_won(m), headers=bearer(token))
        return r.status_code

    async def pair() -> int:
        return (await api.client.post(f"/v1/events/{eid}/rounds", headers=bearer(token))).status_code

    watching = asyncio.ensure_future(reader())
    calls = [post(m) for m in matches] + [post(m) for m in matches[:8]] + [pair() for _ in range(6)]
    statuses = await asyncio.gather(*calls)
    # the jobs those requests started (in-process here) may write outbox rows of their own after
    # the answers: the reader stops only once they have run
    await api.drain_jobs()
    done.set()
    await watching

    firsts, again, pairs = statuses[:32], statuses[32:40], statuses[40:]
    assert firsts[8:] == [200] * 24
    for one, other in zip(firsts[:8], again, strict=True):  # sent twice: stored once
        assert sorted([one, other]) == [200, 409]
    assert set(pairs) <= {201, 409} and pairs.count(201) <= 1
    async with api.app.state.sessionmaker() as session:
        every = [r.id for r in await outbox.since(session, eid, 0, limit=10_000)]
        assert seen == every  # the reader missed no row: none committed below one it had read
        fresh = await event_standings(session, eid)
    for m in matches:
        stored = (await api.client.get(f"/v1/matches/{m['id']}")).json()
        assert stored["status"] == MatchStatus.CONFIRMED
        assert [h["action"] for h in stored["history"]] == ["report"]
    served = (await api.client.get(f"/v1/events/{eid}/standings")).json()
    assert [(x["entry_id"], x["points"], x["rank"]) for x in served["rows"]] == [
        (v.entry_id, v.points, v.rank) for v in fresh.rows
    ]


async def test_a_held_event_lets_other_results_through_and_holds_its_structure(api: Api) -> None:
    if api.backend != "postgres":
        pytest.skip("SQLite writes one transaction at a time by design (app/api/deps.py)")
    eid, token, matches = await _event(api, 8)
    a, b = matches[0], matches[1]
    sessions = api.app.state.sessionmaker
    async with sessions() as setup:
        organizer = results.organizer_of(await get_event(setup, eid))
    async with sessions() as first:
        await results.report(first, a["id"], organizer, _won(a))  # a result of match a, in flight

        async with sessions() as second:  # match b's result is written and committed meanwhile
            await asyncio.wait_for(results.report(second, b["id"], organizer, _won(b)), 10)
            await second.commit()

        async def undo() -> None:
            async with sessions() as third:
                await lifecycle.undo_round(third, eid, 1, organizer)
                await third.commit()

        structural = asyncio.ensure_future(undo())
        await asyncio.sleep(0.5)
        assert not structural.done()  # a change of the event's structure waits for the result
        await first.rollback()
    with pytest.raises(Conflict, match="cannot be undone"):  # then sees b's result, and refuses
        await asyncio.wait_for(structural, 10)


async def test_a_result_waits_for_a_change_of_the_structure_before_it_locks_its_match(api: Api) -> None:
    """The order of a result's locks: the event first, then the match. An undo that has the event
    and then deletes the round's matches never meets a result holding one of them (a deadlock,
    which Postgres would end by failing one of the two)."""
    if api.backend != "postgres":
        pytest.skip("SQLite writes one transaction at a time by design (app/api/deps.py)")
    eid, token, matches = await _event(api, 8)
    a = matches[0]
    sessions = api.app.state.sessionmaker
    async with sessions() as setup:
        organizer = results.organizer_of(await get_event(setup, eid))
    async with sessions() as undoing:
        await lock_event(undoing, eid)  # the undo has begun

        async def report() -> None:
            async with sessions() as session:
                await results.report(session, a["id"], organizer, _won(a))
                await session.commit()

        reporting = asyncio.ensure_future(report())
        await asyncio.sleep(0.5)
        assert not reporting.done()  # the result waits for the event
        await asyncio.wait_for(lifecycle.undo_round(undoing, eid, 1, organizer), 10)
        await undoing.commit()
    with pytest.raises(NotFound):  # its match went with the round
        await asyncio.wait_for(reporting, 10)
