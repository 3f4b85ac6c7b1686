"""The standings read (``reads.stage_standings``: a stage's games as columns in one statement) and the
cached one (``standings.cached_standings``, what ``GET …/standings`` serves) equal a clean recompute
from the rows loaded one by one through the ORM, after every change of a randomly played Swiss
event — results, draws, a drop, a late entry, a swap, a round undone and paired again, a correction,
a round paired, the stage closed — on Postgres and on SQLite. The cache holds the answer from before
each change when the change is made, so a stale answer would be seen."""

from __future__ import annotations

import random
from typing import Any

from sqlalchemy import select

from app.core.lifecycle import standings_final
from app.core.standings import EntryInfo, StandingRow, compute_standings
from app.db.models import Event, Stage
from app.db.session import read_only
from app.services.reads import (
    details_of,
    entries_by_id,
    game_result,
    stage_config,
    stage_matches,
    stage_played,
    stage_standings,
)
from app.services.standings import cached_standings
from tests.support.api import advance, bearer, pair, post_result, setup_event, start


async def _clean_recompute(session: Any, event: Event, stage: Stage) -> list[StandingRow]:
    entries = await entries_by_id(session, event.id)
    ids = list(details_of(stage).entries)
    games = [g for rnd, m in await stage_matches(session, stage) if (g := game_result(rnd, m)) is not None]
    infos = [EntryInfo(e, entries[e].name, entries[e].tiebreak_value, entries[e].status) for e in ids]
    return compute_standings(infos, games, stage_config(session, event, stage), seed=event.seed)


async def _compare(api: Any, event_id: str) -> list[StandingRow]:
    async with api.app.state.sessionmaker() as session:
        event = await session.get(Event, event_id)
        assert event is not None
        stage = (await session.execute(select(Stage).where(Stage.event_id == event_id))).scalar_one()
        fast = await stage_standings(session, event, stage)
        played = await stage_played(session, stage)
    async with api.app.state.sessionmaker() as session:  # a session of its own: nothing shared
        event = await session.get(Event, event_id)
        assert event is not None
        stage = (await session.execute(select(Stage).where(Stage.event_id == event_id))).scalar_one()
        clean = await _clean_recompute(session, event, stage)
        final = standings_final(stage.status, event.status)
        loaded = await stage_matches(session, stage)
    for _ in range(2):  # computed (or served) once, then served from the cache
        async with api.app.state.sessionmaker() as session:
            await read_only(session)  # as a GET's session begins
            cached = await cached_standings(session, event_id)
        assert list(cached.rows) == clean
        assert (cached.stage, cached.final) == (stage.index, final)
    r = await api.client.get(f"/v1/events/{event_id}/standings")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["final"] == final
    assert [(x["rank"], x["entry_id"], x["name"], x["points"], x["status"]) for x in body["rows"]] == [
        (c.rank, c.entry_id, c.name, c.points, c.status) for c in clean
    ]
    assert fast == clean
    assert [(p.id, p.round, p.status, p.outcome, [s.entry_id for s in p.seats]) for p in played] == [
        (m.id, r.number, m.status, m.outcome, [s.entry_id for s in m.seats]) for r, m in loaded
    ]
    return fast


def _body(rng: random.Random, match: dict[str, Any]) -> dict[str, Any]:
    seats = [s["entry_id"] for s in match["seats"]]
    roll = rng.random()
    if roll < 0.25:
        return {"outcome": "draw", "seats": [{"entry_id": e, "place": 1} for e in seats]}
    order = seats if roll < 0.6 else seats[::-1]
    return {"seats": [{"entry_id": e, "place": p + 1} for p, e in enumerate(order)]}


async def _swap_and_undo(api: Any, rng: random.Random, eid: str, token: str, rnd: dict[str, Any]) -> None:
    """Swap two entries of the new round (a bye among them moves a point), then undo the round."""
    seated = [s["entry_id"] for m in rnd["matches"] for s in m["seats"]]
    a, b = rng.sample(seated, 2)
    r = await api.client.post(
        f"/v1/events/{eid}/rounds/{rnd['number']}/swap", json={"entries": [a, b]}, headers=bearer(token)
    )
    assert r.status_code == 200, r.text
    await _compare(api, eid)
    r = await api.client.delete(f"/v1/events/{eid}/rounds/{rnd['number']}", headers=bearer(token))
    assert r.status_code == 200, r.text
    await _compare(api, eid)


async def test_the_standings_read_equals_a_clean_recompute_after_every_change(api: Any) -> None:
    for seed in range(3):
        rng = random.Random(seed)
        names = [f"P{i:02d}" for i in range(rng.choice((7, 8, 11)))]
        eid, token, entries = await setup_event(
            api, names, settings={"stages": [{"format": "swiss", "rounds": 4}]}
        )
        rnd = (await start(api, eid, token))["round"]
        await _compare(api, eid)
        confirmed: list[dict[str, Any]] = []
        for number in range(1, 5):
            for m in rnd["matches"]:
                if m["status"] == "bye":
                    continue
                confirmed.append(await post_result(api, token, m, _body(rng, m)))
                await _compare(api, eid)
            if number == 2:
                dropped = entries[rng.choice(names)]["id"]
                r = await api.client.delete(f"/v1/events/{eid}/entries/{dropped}", headers=bearer(token))
                assert r.status_code == 200, r.text
                await _compare(api, eid)
                late = await api.client.post(
                    f"/v1/events/{eid}/entries", json={"name": f"Late {seed}"}, headers=bearer(token)
                )
                if late.status_code == 201:  # the stage takes late entries
                    names.append(f"Late {seed}")
                await _compare(api, eid)
            # the organizer corrects an earlier result
            fix = rng.choice(confirmed)
            r = await api.client.put(
                f"/v1/matches/{fix['id']}/result",
                json=_body(rng, fix),
                headers={**bearer(token), "If-Match": f'"{fix["version"]}"'},
            )
            assert r.status_code == 200, r.text
            confirmed = [c for c in confirmed if c["id"] != fix["id"]] + [r.json()]
            rows = await _compare(api, eid)
            assert len(rows) == len(names)
            if number < 4:
                rnd = await pair(api, eid, token)
                await _compare(api, eid)
                if number == 1:
                    await _swap_and_undo(api, rng, eid, token, rnd)
                    rnd = await pair(api, eid, token)
                    await _compare(api, eid)
        await advance(api, eid, token)  # the stage closes: the same rows, final now
        await _compare(api, eid)
