"""Writing a round (app/services/rounds.py ``write_round``): its matches and seats go by COPY on
Postgres and by one INSERT of many rows on SQLite (app/db/bulk.py). Either way the same rows are
stored, the same answer is sent and the same ``round.paired`` row is written; and a match cannot
name another event than its round's (migration 0012). Both backends."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from app.core.vocabulary import LiveEventType
from app.db import bulk
from app.db.base import new_id, utcnow
from app.db.models import Match, OutboxEvent, Round, Seat
from app.services import lifecycle, rounds
from tests.support.api import Api, pair, play_round, setup_event, start

NAMES = [f"P{i:02d}" for i in range(9)]  # odd: each round has a bye


async def _played(api: Api) -> tuple[Any, ...]:
    """An event of ``NAMES`` on one seed, round 1 played and round 2 made of the same tables: the
    round's answer, its rows and its outbox row, entries named by name and nothing by a fresh id."""
    eid, token, entries = await setup_event(
        api, NAMES, seed="one seed for both", settings={"stages": [{"format": "swiss", "rounds": 3}]}
    )
    await play_round(api, token, (await start(api, eid, token))["round"])
    # the organizer's tables: a generated round would follow the tie-break values, drawn from the ids
    tables = [[entries[n]["id"] for n in NAMES[i : i + 2]] for i in range(0, len(NAMES), 2)]
    answer = await pair(api, eid, token, tables)
    read = await api.client.get(f"/v1/events/{eid}/rounds/2")
    assert read.status_code == 200 and read.json() == answer  # the answer is the round as read
    name = {e["id"]: n for n, e in entries.items()}

    def plain(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items() if k not in ("id", "match_id", "event_id")}
        if isinstance(value, list):
            return [plain(v) for v in value]
        if isinstance(value, str):
            return name.get(value, value)
        return value

    async with api.app.state.sessionmaker() as session:
        rnd = (
            await session.execute(select(Round).where(Round.event_id == eid, Round.number == 2))
        ).scalar_one()
        matches = (
            await session.execute(select(Match).where(Match.round_id == rnd.id).order_by(Match.table))
        ).scalars()
        skip = ("id", "round_id", "event_id", "created_at", "reported_at")
        match_rows = [
            {c.key: getattr(m, c.key) for c in Match.__table__.columns if c.key not in skip}
            | {"reported": m.reported_at is not None}
            for m in matches
        ]
        seats = await session.execute(
            select(Match.table, Seat).join(Seat, Seat.match_id == Match.id).where(Match.round_id == rnd.id)
        )
        seat_rows = sorted(
            (
                t,
                s.seat,
                name[s.entry_id],
                s.first_token,
                s.place,
                s.score,
                s.body_points,
                s.character,
                s.violation,
            )
            for t, s in seats
        )
        paired = (
            await session.execute(
                select(OutboxEvent.data)
                .where(OutboxEvent.event_id == eid, OutboxEvent.type == str(LiveEventType.ROUND_PAIRED))
                .order_by(OutboxEvent.id.desc())
                .limit(1)
            )
        ).scalar_one()
    return plain(answer), plain(match_rows), seat_rows, plain(paired)


async def test_a_round_is_the_same_written_by_copy_or_by_insert(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    copied = await _played(api)
    monkeypatch.setattr(bulk, "copies", lambda session: False)
    inserted = await _played(api)
    assert copied == inserted, _diff(copied, inserted)[:5]
    answer, match_rows, seat_rows, paired = copied
    assert [m["table"] for m in answer["matches"]] == [1, 2, 3, 4, 5]
    assert (
        match_rows[-1]["status"] == "bye" and match_rows[-1]["reported"] and match_rows[-1]["details"] == {}
    )
    assert len(seat_rows) == len(NAMES) and len(paired["tables"]) == 5


async def test_a_match_names_its_rounds_event(api: Api) -> None:
    eid, token, _ = await setup_event(api, NAMES[:4])
    other, _, _ = await setup_event(api, NAMES[:4])
    await start(api, eid, token)
    async with api.app.state.sessionmaker() as session:
        rnd = (await session.execute(select(Round).where(Round.event_id == eid))).scalar_one()
        values = {
            "id": new_id(),
            "round_id": rnd.id,
            "table": 99,
            "status": "pending",
            "best_of": 1,
            "version": 1,
            "details": {},
            "created_at": utcnow(),
        }
        await session.execute(Match.__table__.insert().values(event_id=eid, **values))
        await session.rollback()
        with pytest.raises(IntegrityError):
            await session.execute(Match.__table__.insert().values(event_id=other, **values))


def _columns(obj: Any) -> dict[str, Any]:
    return {c.key: getattr(obj, c.key) for c in type(obj).__table__.columns}


async def test_the_matches_a_pairing_goes_on_with_are_its_rows_as_loaded(api: Api) -> None:
    """The matches ``write_round`` hands on (to the answer, the outbox, the dropped entries' games)
    are made from the values it wrote, not read back: each is in the session with nothing to flush,
    and every column and seat is what a later read of the stored rows gives."""
    eid, token, _ = await setup_event(api, NAMES, settings={"stages": [{"format": "swiss", "rounds": 3}]})
    await play_round(api, token, (await start(api, eid, token))["round"])
    async with api.app.state.sessionmaker() as session:
        view = await lifecycle.pair(session, eid, None)
        assert len(view.matches) == 5 and view.matches[-1].status == "bye"
        assert all(m in session and s in session for m in view.matches for s in m.seats)
        assert not session.dirty and not session.new  # nothing for the commit's flush to write
        # a later read in the same transaction finds the very objects, untouched
        again = await rounds.round_matches(session, view.round)
        assert [id(m) for m in again] == [id(m) for m in view.matches] and not session.dirty
        made = [(_columns(m), [_columns(s) for s in m.seats]) for m in view.matches]
        await session.commit()
    async with api.app.state.sessionmaker() as session:
        rnd = (
            await session.execute(select(Round).where(Round.event_id == eid, Round.number == 2))
        ).scalar_one()
        stored = [
            (_columns(m), [_columns(s) for s in m.seats]) for m in await rounds.round_matches(session, rnd)
        ]
    assert made == stored, _diff(made, stored)[:5]


def _diff(a: Any, b: Any, path: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in set(a) | set(b) for d in _diff(a.get(k), b.get(k), f"{path}.{k}")]
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in _diff(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]
