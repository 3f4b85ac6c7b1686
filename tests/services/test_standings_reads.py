"""The standings read (``reads.stage_standings``: a stage's games as columns in one statement) equals
a clean recompute from the rows loaded one by one through the ORM, after every change of a randomly
played Swiss event — draws, a drop, a correction, a round paired — on Postgres and on SQLite."""

from __future__ import annotations

import random
from typing import Any

from sqlalchemy import select

from app.core.standings import EntryInfo, StandingRow, compute_standings
from app.db.models import Event, Stage
from app.services.reads import (
    details_of,
    entries_by_id,
    game_result,
    stage_config,
    stage_matches,
    stage_played,
    stage_standings,
)
from tests.support.api import bearer, pair, post_result, setup_event, start


async def _clean_recompute(session: Any, event: Event, stage: Stage) -> list[StandingRow]:
    entries = await entries_by_id(session, event.id)
    ids = list(details_of(stage).entries)
    games = [g for rnd, m in await stage_matches(session, stage) if (g := game_result(rnd, m)) is not None]
    infos = [EntryInfo(e, entries[e].name, entries[e].tiebreak_value, entries[e].status) for e in ids]
    return compute_standings(infos, games, stage_config(event, stage), seed=event.seed)


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
        loaded = await stage_matches(session, stage)
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


async def test_the_standings_read_equals_a_clean_recompute_after_every_change(api: Any) -> None:
    for seed in range(3):
        rng = random.Random(seed)
        names = [f"P{i:02d}" for i in range(rng.choice((7, 8, 11)))]
        eid, token, entries = await setup_event(
            api, names, settings={"stages": [{"format": "swiss", "rounds": 4}]}
        )
        rnd = (await start(api, eid, token))["round"]
        confirmed: list[dict[str, Any]] = []
        for number in range(1, 5):
            for m in rnd["matches"]:
                if m["status"] == "bye":
                    continue
                confirmed.append(await post_result(api, token, m, _body(rng, m)))
                if rng.random() < 0.3:
                    await _compare(api, eid)
            await _compare(api, eid)
            if number == 2:
                dropped = entries[rng.choice(names)]["id"]
                r = await api.client.delete(f"/v1/events/{eid}/entries/{dropped}", headers=bearer(token))
                assert r.status_code == 200, r.text
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
