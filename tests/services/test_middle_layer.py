"""The middle layer on its own: the registry, the authorization policy, the typed settings and
stage details, the lifecycle called as services, and the request boundary that owns the commit."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import event as sa_event
from sqlalchemy import select

from app.api.deps import SessionDep
from app.api.problems import install as install_problems
from app.core.access import Access, Principal, authorize
from app.core.errors import Conflict, Forbidden, Unauthorized
from app.core.event_settings import EventSettings, StageSettings
from app.core.presets import PRESETS
from app.core.stage_details import BracketDetails, RoundRobinDetails, StageDetails, parse_details
from app.core.vocabulary import EventStatus, JobKindName, Role, StageFormatName, StageStatus
from app.db.models import Entry, Event, Player, Round, Stage
from app.services import events as event_svc
from app.services import lifecycle
from app.services.reads import details_of, stage_standings
from app.services.registry import registry_of
from app.wiring import build_registry


# --------------------------------------------------------------------------- the registry
def test_the_registry_has_every_format_and_job_kind() -> None:
    registry = build_registry()
    assert set(registry.formats) == set(StageFormatName)
    assert all(f.name == name for name, f in registry.formats.items())
    assert set(registry.job_kinds) == set(JobKindName)
    assert set(registry.rules) <= set(PRESETS)


def test_a_session_without_the_registry_says_so() -> None:
    class Bare:
        info: dict[str, Any] = {}

    with pytest.raises(RuntimeError, match="registry"):
        registry_of(Bare())  # type: ignore[arg-type]


# --------------------------------------------------------------------------- who may do what
ADMIN = Principal(Role.ADMIN)
ORG_A = Principal(Role.ORGANIZER, event_id="A")
ORG_B = Principal(Role.ORGANIZER, event_id="B")
ENTRY_A1 = Principal(Role.ENTRY, event_id="A", entry_id="a1")
ENTRY_B1 = Principal(Role.ENTRY, event_id="B", entry_id="b1")
MONITOR = Principal(Role.MONITOR)


@pytest.mark.parametrize(
    ("access", "who", "allowed"),
    [
        (Access.ADMIN, ADMIN, True),
        (Access.ADMIN, ORG_A, False),
        (Access.ANY_ORGANIZER, ORG_B, True),
        (Access.ANY_ORGANIZER, ENTRY_A1, False),
        (Access.ORGANIZER, ADMIN, True),
        (Access.ORGANIZER, ORG_A, True),
        (Access.ORGANIZER, ORG_B, False),
        (Access.ORGANIZER, ENTRY_A1, False),
        (Access.ORGANIZER_OR_OWN_ENTRY, ENTRY_A1, True),
        (Access.ORGANIZER_OR_OWN_ENTRY, Principal(Role.ENTRY, event_id="A", entry_id="a2"), False),
        (Access.ORGANIZER_OR_OWN_ENTRY, ENTRY_B1, False),
        (Access.ORGANIZER_OR_EVENT_ENTRY, ENTRY_A1, True),
        (Access.ORGANIZER_OR_EVENT_ENTRY, ENTRY_B1, False),
        (Access.ORGANIZER_OR_SEATED, ENTRY_A1, True),
        (Access.ORGANIZER_OR_SEATED, Principal(Role.ENTRY, event_id="A", entry_id="a3"), False),
        (Access.ORGANIZER_OR_SEATED, ORG_B, False),
        (Access.METRICS, ADMIN, True),
        (Access.METRICS, MONITOR, True),
        (Access.METRICS, ORG_A, False),
        (Access.METRICS, ENTRY_A1, False),
        (Access.ADMIN, MONITOR, False),
        (Access.ANY_ORGANIZER, MONITOR, False),
        (Access.ORGANIZER, MONITOR, False),
        (Access.ORGANIZER_OR_EVENT_ENTRY, MONITOR, False),
        (Access.ORGANIZER_OR_SEATED, MONITOR, False),
    ],
)
def test_the_policy_table(access: Access, who: Principal, allowed: bool) -> None:
    kwargs = {"event_id": "A", "entry_id": "a1", "seated": {"a1", "a2"}}
    if access in (Access.ADMIN, Access.ANY_ORGANIZER, Access.METRICS):
        kwargs = {}
    if allowed:
        assert authorize(who, access, **kwargs) is who  # type: ignore[arg-type]
    else:
        with pytest.raises(Forbidden):
            authorize(who, access, **kwargs)  # type: ignore[arg-type]


def test_no_token_is_unauthorized_whatever_the_rule() -> None:
    for access in Access:
        with pytest.raises(Unauthorized):
            authorize(None, access, event_id="A")


def test_the_actor_names_the_principal_in_the_history() -> None:
    assert [p.actor for p in (ADMIN, ORG_A, ENTRY_A1)] == ["admin", "organizer", "entry:a1"]


# --------------------------------------------------------------------------- typed settings and details
def test_stage_settings_have_one_set_of_defaults() -> None:
    swiss = StageSettings.parse({"format": "swiss"})
    assert (swiss.table_size, swiss.best_of, swiss.block, swiss.pairing, swiss.avoid_rematches) == (
        2,
        1,
        1,
        "matching",
        True,
    )
    series = StageSettings.parse({"format": "series"})
    assert series.best_of == 3 and series.games_per_match == 1  # a series' games are one game each
    elimination = StageSettings.parse({"format": "single_elimination", "best_of": 3})
    assert elimination.games_per_match == 3
    own = StageSettings.parse({"format": "heats", "tiebreaks": ["wins"], "advance": {"top": 4}})
    assert own.standings == {"tiebreaks": ["wins"]} and own.advance is not None and own.advance.top == 4


def test_event_settings_parse_once_with_their_defaults() -> None:
    s = EventSettings.parse({"stages": [{"format": "swiss"}], "sanctioned": True, "min_entries": 3})
    assert s.entries_needed == 8 and s.capacity is None and not s.rated
    assert EventSettings.parse({"stages": [{"format": "swiss"}]}).entries_needed == 2
    doc = s.standings_document(StageSettings.parse({"format": "swiss", "tiebreaks": ["buchholz"]}))
    assert doc["tiebreaks"] == ["buchholz"]


ids = st.lists(st.text("abcdef", min_size=1, max_size=4), unique=True, max_size=6)


@given(entries=ids, grouped=st.booleans(), note=st.none() | st.text(max_size=10), extra=st.integers())
def test_stage_details_round_trip(entries: list[str], grouped: bool, note: str | None, extra: int) -> None:
    groups = {e: "AB"[i % 2] for i, e in enumerate(entries)} if grouped else {}
    base = StageDetails(entries=tuple(entries), groups=groups, note=note, extra={"seeding": [extra]})
    for details in (
        base,
        RoundRobinDetails(**vars(base), schedule=((tuple(entries[:2]),),) if len(entries) > 1 else None),
        BracketDetails(**vars(base), bracket={"slots": entries, "rounds": 1}),
    ):
        stored = details.to_dict()
        fmt = {
            StageDetails: "swiss",
            RoundRobinDetails: "round_robin",
            BracketDetails: "single_elimination",
        }[type(details)]
        assert parse_details(fmt, stored) == details
        assert stored.get("seeding") == [extra]  # a preset's key stays where it was stored


def test_members_by_group_keeps_seed_order() -> None:
    d = StageDetails(entries=("c", "a", "b"), groups={"c": "B", "a": "A", "b": "B"})
    assert d.members_by_group() == {"B": ["c", "b"], "A": ["a"]}
    assert StageDetails(entries=("x", "y")).members_by_group() == {"A": ["x", "y"]}


# --------------------------------------------------------------------------- the lifecycle as services
async def _event(session: Any, stages: list[dict[str, Any]], names: list[str]) -> str:
    ev = await event_svc.create_event(
        session, "Services", "generic", None, {"stages": stages}, "seed-for-services", uuid.uuid4().hex
    )
    for name in names:
        await event_svc.add_entry(session, ev.id, event_svc.EntrySpec(name=name), uuid.uuid4().hex)
    return ev.id


async def test_a_swiss_then_a_playoff_run_as_services(api: Any) -> None:
    """Starting, pairing and advancing through the services alone; the playoff is skipped when
    nobody shares first place (its format says it is not needed)."""
    async with api.app.state.sessionmaker() as session:
        eid = await _event(session, [{"format": "swiss", "rounds": 1}, {"format": "playoff"}], ["A", "B"])
        progress = await lifecycle.start(session, eid)
        assert progress.stage is not None and progress.stage.format == StageFormatName.SWISS
        assert progress.round is not None and len(progress.round.matches) == 1
        with pytest.raises(Conflict, match="unreported"):
            await lifecycle.pair(session, eid, None)
        match = progress.round.matches[0]
        winner, loser = sorted(match.seats, key=lambda s: s.seat)
        from app.services import results

        organizer = results.organizer_of(progress.event)
        await results.report(
            session,
            match.id,
            organizer,
            {"seats": [{"entry_id": winner.entry_id, "place": 1}, {"entry_id": loser.entry_id, "place": 2}]},
        )
        with pytest.raises(Conflict, match="all 1 rounds"):
            await lifecycle.pair(session, eid, None)
        done = await lifecycle.close_stage(session, eid)
        assert done.stage is None and done.event.status == EventStatus.FINISHED
        stages = list((await session.execute(select(Stage).where(Stage.event_id == eid))).scalars())
        assert [s.status for s in sorted(stages, key=lambda s: s.index)] == [StageStatus.CLOSED] * 2
        playoff = next(s for s in stages if s.index == 1)
        assert details_of(playoff).entries == (winner.entry_id,)  # the sole leader, nobody to play
        rows = await stage_standings(session, done.event, next(s for s in stages if s.index == 0))
        assert [r.entry_id for r in rows] == [winner.entry_id, loser.entry_id]
        await session.rollback()


async def test_each_game_of_a_series_is_one_game(api: Any) -> None:
    async with api.app.state.sessionmaker() as session:
        eid = await _event(session, [{"format": "series", "best_of": 3}], ["A", "B"])
        progress = await lifecycle.start(session, eid)
        assert progress.round is not None
        assert [m.best_of for m in progress.round.matches] == [1]
        await session.rollback()


async def test_a_late_entry_joins_only_a_format_that_takes_one(api: Any) -> None:
    async with api.app.state.sessionmaker() as session:
        for fmt, takes in (("swiss", True), ("round_robin", False)):
            eid = await _event(session, [{"format": fmt}], ["A", "B", "C"])
            ev = await session.get(Event, eid)
            assert ev is not None
            ev.settings = {**ev.settings, "late_entries": True}
            await lifecycle.start(session, eid)
            late = event_svc.add_entry(
                session, eid, event_svc.EntrySpec(name=f"Late {fmt}"), uuid.uuid4().hex
            )
            if takes:
                entry = await late
                stage = (await session.execute(select(Stage).where(Stage.event_id == eid))).scalar_one()
                assert entry.id in details_of(stage).entries
            else:
                with pytest.raises(Conflict, match="cannot take a late entry"):
                    await late
        await session.rollback()


# --------------------------------------------------------------------------- the request boundary
def _probe_app(api: Any) -> FastAPI:
    """A tiny app on the same session factory and dispatcher, with one route of each kind."""
    app = FastAPI()
    app.state.sessionmaker = api.app.state.sessionmaker
    app.state.dispatcher = api.app.state.dispatcher
    install_problems(app)

    @app.post("/ok")
    async def ok(session: SessionDep) -> dict[str, str]:
        session.add(Player(name="Kept"))
        await session.flush()
        return {"status": "ok"}

    @app.post("/refused")
    async def refused(session: SessionDep) -> dict[str, str]:
        session.add(Player(name="Dropped"))
        await session.flush()
        raise Conflict("refused after writing")

    @app.post("/commit-fails")
    async def commit_fails(session: SessionDep) -> dict[str, str]:
        session.add(Player(name="Unlucky"))
        sa_event.listen(session.sync_session, "before_commit", _fail_commit, once=True)
        return {"status": "ok"}

    return app


def _fail_commit(session: Any) -> None:
    raise Conflict("the commit failed")


async def test_the_boundary_commits_what_a_route_returns_and_drops_what_it_refuses(api: Any) -> None:
    transport = httpx.ASGITransport(app=_probe_app(api))
    async with httpx.AsyncClient(transport=transport, base_url="http://probe") as client:
        assert (await client.post("/ok")).status_code == 200
        refused = await client.post("/refused")
        assert refused.status_code == 409
        failed = await client.post("/commit-fails")
        # the commit runs before the answer is sent: a failed commit is never a 2xx
        assert failed.status_code == 409 and failed.json()["detail"] == "the commit failed"
    async with api.app.state.sessionmaker() as session:
        names = set((await session.execute(select(Player.name))).scalars())
    assert "Kept" in names and "Dropped" not in names and "Unlucky" not in names


async def test_services_leave_the_commit_to_their_caller(api: Any) -> None:
    async with api.app.state.sessionmaker() as session:
        eid = await _event(session, [{"format": "swiss"}], ["A", "B"])
        await lifecycle.start(session, eid)
        assert session.in_transaction()
        await session.rollback()
    async with api.app.state.sessionmaker() as session:
        assert (await session.execute(select(Round))).first() is None
        assert (await session.execute(select(Entry))).first() is None
