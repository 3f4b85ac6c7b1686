"""The standings cache (app/services/standings.py): a second read of unchanged standings is served
from this process's cache without computing them again; each kind of change of the event makes the
next read compute them afresh, equal to an uncached read; a change refused (rolled back) does not;
the cache keeps at most ``CACHED`` answers; the key does not travel with an exported event."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from app.db.session import read_only
from app.services import standings as standings_svc
from app.services.standings import event_standings as uncached
from app.services.transfer import export_event
from tests.support.api import (
    Api,
    add_entry,
    advance,
    assert_problem,
    bearer,
    pair,
    post_result,
    setup_event,
    start,
)


@pytest.fixture
def computed(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int | None, str | None]]:
    """Every computation of standings the cache asks for."""
    calls: list[tuple[str, int | None, str | None]] = []

    async def counting(
        session: Any, event_id: str, stage: int | None = None, group: str | None = None
    ) -> Any:
        calls.append((event_id, stage, group))
        return await uncached(session, event_id, stage, group)

    monkeypatch.setattr(standings_svc, "event_standings", counting)
    return calls


async def _read(api: Api, eid: str, calls: list[Any], *, fresh: bool, **params: Any) -> dict[str, Any]:
    """Read the standings twice: computed once when ``fresh`` (else served), then served; both equal
    to an uncached computation."""
    before = len(calls)
    r = await api.client.get(f"/v1/events/{eid}/standings", params=params)
    assert r.status_code == 200, r.text
    assert len(calls) - before == (1 if fresh else 0)
    again = await api.client.get(f"/v1/events/{eid}/standings", params=params)
    assert len(calls) - before == (1 if fresh else 0)  # the second read is served from the cache
    assert again.json() == r.json()
    async with api.app.state.sessionmaker() as session:
        view = await uncached(session, eid, params.get("stage"), params.get("group"))
    body: dict[str, Any] = r.json()
    assert (body["stage"], body["final"], body["tiebreaks"]) == (view.stage, view.final, list(view.tiebreaks))
    assert [(x["rank"], x["entry_id"], x["name"], x["points"], x["status"]) for x in body["rows"]] == [
        (v.rank, v.entry_id, v.name, v.points, v.status) for v in view.rows
    ]
    return body


def _winner_first(match: dict[str, Any]) -> dict[str, Any]:
    return {"seats": [{"entry_id": s["entry_id"], "place": p + 1} for p, s in enumerate(match["seats"])]}


async def test_standings_are_served_from_the_cache_until_the_event_changes(
    api: Api, computed: list[Any]
) -> None:
    names = ["Ada", "Barbara", "Claude", "Dijkstra", "Edsger"]
    eid, token, entries = await setup_event(
        api, names, settings={"stages": [{"format": "swiss", "rounds": 3}]}
    )
    org = bearer(token)
    await _read(api, eid, computed, fresh=True)

    # registration: a rename of the event, its settings, a new entry, a check-in
    async def patch(body: dict[str, Any]) -> None:
        version = (await api.client.get(f"/v1/events/{eid}")).json()["version"]
        r = await api.client.patch(
            f"/v1/events/{eid}", json=body, headers={**org, "If-Match": f'"{version}"'}
        )
        assert r.status_code == 200, r.text

    await patch({"name": "Spring Open II"})
    await _read(api, eid, computed, fresh=True)
    swiss = {"stages": [{"format": "swiss", "rounds": 3}]}
    await patch({"settings": {**swiss, "check_in": True}})
    await _read(api, eid, computed, fresh=True)
    entries["Fran"] = await add_entry(api, eid, token, "Fran")
    assert len((await _read(api, eid, computed, fresh=True))["rows"]) == 6
    r = await api.client.post(f"/v1/events/{eid}/entries/{entries['Ada']['id']}/check-in", headers=org)
    assert r.status_code == 200, r.text
    await _read(api, eid, computed, fresh=True)
    await patch({"settings": swiss})
    await _read(api, eid, computed, fresh=True)

    # the start, a player's claim, the other's that confirms it, the organizer's result, a correction
    rnd = (await start(api, eid, token))["round"]
    assert (await _read(api, eid, computed, fresh=True))["stage"] == 0
    tokens = {e["id"]: e["entry_token"] for e in entries.values()}
    first, second, third = rnd["matches"][:3]
    for n, seat in enumerate(first["seats"]):
        claimed = await post_result(api, tokens[seat["entry_id"]], first, _winner_first(first))
        assert claimed["status"] == ("reported" if n == 0 else "confirmed")
        await _read(api, eid, computed, fresh=True)
    await post_result(api, token, second, _winner_first(second))
    before = await _read(api, eid, computed, fresh=True)
    done = await post_result(api, token, third, _winner_first(third))
    await _read(api, eid, computed, fresh=True)
    flipped = {"seats": [{"entry_id": s["entry_id"], "place": 2 - p} for p, s in enumerate(third["seats"])]}
    r = await api.client.put(
        f"/v1/matches/{third['id']}/result", json=flipped, headers={**org, "If-Match": f'"{done["version"]}"'}
    )
    assert r.status_code == 200, r.text
    after = await _read(api, eid, computed, fresh=True)
    assert after["rows"] != before["rows"]

    # a drop; the next round paired, a swap, the round undone and paired again; forbidden pairs
    r = await api.client.delete(f"/v1/events/{eid}/entries/{entries['Edsger']['id']}", headers=org)
    assert r.status_code == 200, r.text
    await _read(api, eid, computed, fresh=True)
    rnd = await pair(api, eid, token)
    await _read(api, eid, computed, fresh=True)
    a, b = rnd["matches"][0]["seats"][0]["entry_id"], rnd["matches"][1]["seats"][0]["entry_id"]
    r = await api.client.post(f"/v1/events/{eid}/rounds/2/swap", json={"entries": [a, b]}, headers=org)
    assert r.status_code == 200, r.text
    await _read(api, eid, computed, fresh=True)
    r = await api.client.delete(f"/v1/events/{eid}/rounds/2", headers=org)
    assert r.status_code == 200, r.text
    await _read(api, eid, computed, fresh=True)
    rnd = await pair(api, eid, token)
    await _read(api, eid, computed, fresh=True)
    r = await api.client.put(f"/v1/events/{eid}/forbidden-pairs", json={"pairs": [[a, b]]}, headers=org)
    assert r.status_code == 200, r.text
    await _read(api, eid, computed, fresh=True)

    # a change refused is rolled back with its mark: the cached answer stands
    assert_problem(await api.client.delete(f"/v1/events/{eid}/rounds/1", headers=org), 409)
    await _read(api, eid, computed, fresh=False)

    # another stage or group is another answer; the stage closed makes them final
    await _read(api, eid, computed, fresh=True, stage=0)
    await _read(api, eid, computed, fresh=True, group="A")
    for number in (2, 3):
        for m in rnd["matches"]:
            if m["status"] != "bye":
                await post_result(api, token, m, _winner_first(m))
        await _read(api, eid, computed, fresh=True)
        if number == 2:
            rnd = await pair(api, eid, token)
    await advance(api, eid, token)
    assert (await _read(api, eid, computed, fresh=True))["final"] is True

    # the mark stays in this database: an exported event carries none
    async with api.app.state.sessionmaker() as session:
        doc = await export_event(session, eid)
    assert "standings_mark" not in doc["tables"]["events"][0]


async def test_a_deleted_event_is_not_found_and_the_cache_is_bounded(api: Api, computed: list[Any]) -> None:
    eid, token, _ = await setup_event(api, ["Ada", "Barbara"])
    await _read(api, eid, computed, fresh=True)
    r = await api.client.delete(f"/v1/events/{eid}", headers=bearer(token))
    assert r.status_code == 204, r.text
    assert_problem(await api.client.get(f"/v1/events/{eid}/standings"), 404)

    eid, token, _ = await setup_event(api, ["Ada", "Barbara"])
    for g in range(standings_svc.CACHED + 1):
        await _read(api, eid, computed, fresh=True, group=f"g{g}")
    assert len(standings_svc._cache) == standings_svc.CACHED
    await _read(api, eid, computed, fresh=True, group="g0")  # the least recently served went first
    await _read(api, eid, computed, fresh=False, group=f"g{standings_svc.CACHED}")


async def test_the_cache_is_bounded_by_rows(
    api: Api, computed: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(standings_svc._cache, "most_rows", 5)
    events = [(await setup_event(api, ["Ada", "Barbara"]))[0] for _ in range(3)]
    for eid in events:
        await _read(api, eid, computed, fresh=True)
    assert standings_svc._cache.rows == sum(len(v.rows) for v in standings_svc._cache.answers.values()) <= 5
    await _read(api, events[2], computed, fresh=False)
    await _read(api, events[0], computed, fresh=True)  # the least recently served went first


async def test_requests_that_miss_at_once_share_one_computation(api: Api, computed: list[Any]) -> None:
    """A round's last result makes every screen ask at once: one computation answers them all, the
    same as an uncached read; a request left by its client does not fail the others waiting."""
    names = [f"P{i:02d}" for i in range(24)]
    eid, token, _ = await setup_event(api, names, settings={"stages": [{"format": "swiss", "rounds": 3}]})
    rnd = (await start(api, eid, token))["round"]
    await post_result(api, token, rnd["matches"][0], _winner_first(rnd["matches"][0]))
    before = len(computed)
    answers = await asyncio.gather(*[api.client.get(f"/v1/events/{eid}/standings") for _ in range(12)])
    assert [r.status_code for r in answers] == [200] * 12
    assert len(computed) - before == 1
    assert all(r.json() == answers[0].json() for r in answers)
    async with api.app.state.sessionmaker() as session:
        view = await uncached(session, eid)
    assert [x["entry_id"] for x in answers[0].json()["rows"]] == [v.entry_id for v in view.rows]


async def test_a_computation_whose_request_is_cancelled_leaves_the_waiting_one_to_compute(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    eid, token, _ = await setup_event(api, ["Ada", "Barbara", "Claude", "Dijkstra"])
    await start(api, eid, token)
    gate, started, calls = asyncio.Event(), asyncio.Event(), []

    async def slow_first(
        session: Any, event_id: str, stage: int | None = None, group: str | None = None
    ) -> Any:
        calls.append(event_id)
        started.set()
        if len(calls) == 1:
            await gate.wait()  # the first computation hangs until its request is cancelled
        return await uncached(session, event_id, stage, group)

    monkeypatch.setattr(standings_svc, "event_standings", slow_first)
    sessions = api.app.state.sessionmaker

    async def read() -> Any:
        async with sessions() as session:
            await read_only(session)  # as a GET's
            return await standings_svc.cached_standings(session, eid)

    first = asyncio.ensure_future(read())
    await started.wait()
    second = asyncio.ensure_future(read())
    for _ in range(100):  # time for the second to read the mark and wait for the first
        await asyncio.sleep(0.01)
    assert not second.done() and len(calls) == 1  # it waits for the one computation
    first.cancel()
    view = await asyncio.wait_for(second, 10)
    assert len(calls) == 2 and [r.entry_id for r in view.rows]
    async with sessions() as session:
        assert [r.entry_id for r in view.rows] == [r.entry_id for r in (await uncached(session, eid)).rows]
