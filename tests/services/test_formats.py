"""Each of the eight stage formats as a service, on Postgres and on SQLite: what ``start`` creates,
what ``next_tables`` draws (a typed ``Drawn`` round) or why it refuses, what ``incomplete`` says
until the stage can close, and whom ``entrants`` takes; and what every format declares on its class
(formats.md "Pairing and scheduling", "Default tie-breaks"), used by the standings, the pages and the
exports, with a format missing a declaration refused as it is defined."""

from __future__ import annotations

import re
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from app.core.errors import Conflict
from app.core.event_settings import StageSettings
from app.core.lifecycle import RankedEntry
from app.core.vocabulary import StageFormatName
from app.db.models import Event, Job, Round, Stage
from app.services import events as event_svc
from app.services import lifecycle, results
from app.services.formats.base import DECLARED, Display, StageFormat
from app.services.formats.double_elimination import DoubleElimination
from app.services.formats.free_for_all import FreeForAll
from app.services.formats.heats import Heats
from app.services.formats.playoff import Playoff
from app.services.formats.registry import FORMATS
from app.services.formats.round_robin import RoundRobin
from app.services.formats.series import Series
from app.services.formats.single_elimination import SingleElimination
from app.services.formats.swiss import Swiss
from app.services.reads import details_of, stage_matches, stage_rounds
from app.services.rounds import Drawn
from app.services.standings import event_standings

DOCS = Path(__file__).resolve().parents[2] / "docs"


async def _started(session: Any, stage: dict[str, Any], names: list[str]) -> tuple[Event, Stage, Any]:
    """A generic event of one stage with these entries, started through the lifecycle service."""
    ev = await event_svc.create_event(
        session, "Formats", "generic", None, {"stages": [stage]}, "seed-for-formats", uuid.uuid4().hex
    )
    for name in names:
        await event_svc.add_entry(session, ev.id, event_svc.EntrySpec(name=name), uuid.uuid4().hex)
    progress = await lifecycle.start(session, ev.id)
    event = await session.get(Event, ev.id)
    first = (
        await session.execute(select(Stage).where(Stage.event_id == ev.id, Stage.index == 0))
    ).scalar_one()
    return event, first, progress.round


async def _report_first_wins(
    session: Any, event: Event, stage: Stage, winners: set[str] | None = None
) -> None:
    """Every open match of the stage reported: a winner in ``winners`` if one is seated, else seat 0."""
    organizer = results.organizer_of(event)
    for _, match in await stage_matches(session, stage):
        if match.status != "pending":
            continue
        seats = sorted(match.seats, key=lambda s: s.seat)
        order = sorted(seats, key=lambda s: (s.entry_id not in (winners or set()), s.seat))
        body = {"seats": [{"entry_id": s.entry_id, "place": p + 1} for p, s in enumerate(order)]}
        await results.report(session, match.id, organizer, body)


async def _rounds(session: Any, stage: Stage) -> list[Round]:
    return await stage_rounds(session, stage)


async def _incomplete(fmt: StageFormat, session: Any, event: Event, stage: Stage) -> str | None:
    return await fmt.incomplete(
        session, event, stage, await _rounds(session, stage), await stage_matches(session, stage)
    )


def _pairs(tables: list[list[str]]) -> set[frozenset[str]]:
    return {frozenset(t) for t in tables if len(t) == 2}


# --------------------------------------------------------------------------- the eight formats
async def test_swiss_pairs_by_the_standings_and_says_why(api: Any) -> None:
    fmt = Swiss()
    async with api.app.state.sessionmaker() as session:
        event, stage, first = await _started(session, {"format": "swiss", "rounds": 2}, ["A", "B", "C", "D"])
        assert first is not None and len(first.matches) == 2
        assert await _incomplete(fmt, session, event, stage) == "1 of 2 Swiss rounds are paired"
        winners = {first.matches[0].seats[0].entry_id, first.matches[1].seats[0].entry_id}
        await _report_first_wins(session, event, stage, winners)
        drawn = await fmt.next_tables(session, event, stage, await _rounds(session, stage))
        assert isinstance(drawn, Drawn) and len(drawn.tables) == 2
        assert drawn.pairing is not None and drawn.pairing["pairs"]  # each pair's cost parts
        assert drawn.seat_balance is drawn.pairing["seat_balance"]  # the typed answer agrees with why
        assert frozenset(winners) in _pairs(drawn.tables)  # the two winners meet
        assert not _pairs(drawn.tables) & _pairs([[s.entry_id for s in m.seats] for m in first.matches])
        await lifecycle.pair(session, event.id, None)
        assert await _incomplete(fmt, session, event, stage) is None
        with pytest.raises(Conflict, match="all 2 rounds of this Swiss stage are paired"):
            await fmt.next_tables(session, event, stage, await _rounds(session, stage))
        await session.rollback()


async def test_a_round_robin_draws_its_schedule_and_releases_it_round_by_round(api: Any) -> None:
    fmt = RoundRobin()
    async with api.app.state.sessionmaker() as session:
        event, stage, first = await _started(session, {"format": "round_robin"}, ["A", "B", "C", "D"])
        schedule = details_of(stage).schedule  # type: ignore[attr-defined]
        assert first is not None and len(schedule) == 3
        met = Counter(p for rnd in schedule for p in _pairs([list(t) for t in rnd]))
        assert len(met) == 6 and set(met.values()) == {1}  # every pair meets once
        assert await _incomplete(fmt, session, event, stage) == "1 of 3 rounds are paired"
        drawn = await fmt.next_tables(session, event, stage, await _rounds(session, stage))
        assert drawn.tables == [list(t) for t in schedule[1]] and drawn.pairing is None
        for _ in range(2):
            await _report_first_wins(session, event, stage)
            await lifecycle.pair(session, event.id, None)
        assert await _incomplete(fmt, session, event, stage) is None
        with pytest.raises(Conflict, match="every round of the round robin is paired"):
            await fmt.next_tables(session, event, stage, await _rounds(session, stage))
        await session.rollback()


async def test_a_single_elimination_pairs_the_winners_until_the_final(api: Any) -> None:
    fmt = SingleElimination()
    async with api.app.state.sessionmaker() as session:
        event, stage, first = await _started(session, {"format": "single_elimination"}, ["A", "B", "C", "D"])
        assert first is not None and len(first.matches) == 2
        assert await _incomplete(fmt, session, event, stage) == "the bracket is not decided yet"
        await _report_first_wins(session, event, stage)
        winners = [sorted(m.seats, key=lambda s: s.seat)[0].entry_id for m in first.matches]
        drawn = await fmt.next_tables(session, event, stage, await _rounds(session, stage))
        assert drawn == Drawn([winners])
        await lifecycle.pair(session, event.id, None)
        assert await _incomplete(fmt, session, event, stage) is None  # the final exists
        await _report_first_wins(session, event, stage)
        with pytest.raises(Conflict, match="the bracket is decided"):
            await fmt.next_tables(session, event, stage, await _rounds(session, stage))
        await session.rollback()


async def test_a_double_elimination_plays_what_its_bracket_has_ready(api: Any) -> None:
    fmt = DoubleElimination()
    async with api.app.state.sessionmaker() as session:
        event, stage, first = await _started(session, {"format": "double_elimination"}, ["A", "B", "C", "D"])
        assert first is not None and len(first.matches) == 2
        assert details_of(stage).bracket is not None  # type: ignore[attr-defined]
        assert await _incomplete(fmt, session, event, stage) == "the bracket is not decided yet"
        await _report_first_wins(session, event, stage)
        drawn = await fmt.next_tables(session, event, stage, await _rounds(session, stage))
        assert drawn.pairing is not None and drawn.pairing["method"] == "double_elimination"
        assert len(drawn.tables) == len(drawn.pairing["matches"]) == 2  # winners' and losers' side
        winners = {sorted(m.seats, key=lambda s: s.seat)[0].entry_id for m in first.matches}
        assert frozenset(winners) in _pairs(drawn.tables)
        assert not drawn.seat_balance
        assert await _incomplete(fmt, session, event, stage) == "the bracket is not decided yet"
        await session.rollback()


async def test_heats_are_the_organizers_tables_and_take_late_entries(api: Any) -> None:
    fmt = Heats()
    async with api.app.state.sessionmaker() as session:
        event, stage, first = await _started(session, {"format": "heats", "table_size": 3}, ["A", "B", "C"])
        assert first is None  # the stage creates nothing by itself
        assert fmt.late_entries and fmt.concurrent_tables and not fmt.sized_tables
        with pytest.raises(Conflict, match="explicit tables"):
            await fmt.next_tables(session, event, stage, [])
        assert await _incomplete(fmt, session, event, stage) is None
        assert fmt.cannot_undo(stage, []) is None
        await session.rollback()


async def test_a_free_for_all_is_one_table_of_everyone(api: Any) -> None:
    fmt = FreeForAll()
    async with api.app.state.sessionmaker() as session:
        event, stage, first = await _started(
            session, {"format": "free_for_all", "table_size": 4}, ["A", "B", "C"]
        )
        assert first is not None and len(first.matches) == 1
        assert {s.entry_id for s in first.matches[0].seats} == set(details_of(stage).entries)
        assert await _incomplete(fmt, session, event, stage) is None
        with pytest.raises(Conflict, match="one table"):
            await fmt.next_tables(session, event, stage, await _rounds(session, stage))
        await session.rollback()


async def test_a_series_alternates_seats_until_it_is_decided(api: Any) -> None:
    fmt = Series()
    async with api.app.state.sessionmaker() as session:
        event, stage, first = await _started(session, {"format": "series", "best_of": 3}, ["A", "B"])
        assert first is not None
        a, b = details_of(stage).entries
        assert [s.entry_id for s in sorted(first.matches[0].seats, key=lambda s: s.seat)] == [a, b]
        assert await _incomplete(fmt, session, event, stage) == "the series is not decided yet"
        await _report_first_wins(session, event, stage, {a})
        assert await fmt.next_tables(session, event, stage, await _rounds(session, stage)) == Drawn([[b, a]])
        await lifecycle.pair(session, event.id, None)
        await _report_first_wins(session, event, stage, {a})
        assert await _incomplete(fmt, session, event, stage) is None  # 2 of 3 won
        with pytest.raises(Conflict, match="the series is decided"):
            await fmt.next_tables(session, event, stage, await _rounds(session, stage))
        assert await fmt.moot(session, event, stage) == []
        await session.rollback()


async def test_a_playoff_takes_the_entries_tied_for_first(api: Any) -> None:
    fmt = Playoff()
    ranked = [RankedEntry("a", 1, None, 0.5), RankedEntry("b", 1, None, 0.2), RankedEntry("c", 3, None, 0.9)]
    settings = StageSettings.parse({"format": "playoff"})
    assert fmt.entrants(ranked, settings) == ["a", "b"]
    assert fmt.needed(["a", "b"]) and not fmt.needed(["a"])
    async with api.app.state.sessionmaker() as session:
        event, stage, first = await _started(session, {"format": "playoff"}, ["A", "B"])
        assert first is not None and len(first.matches) == 1
        assert await _incomplete(fmt, session, event, stage) is None
        with pytest.raises(Conflict, match="a playoff is one table"):
            await fmt.next_tables(session, event, stage, await _rounds(session, stage))
        await session.rollback()


async def test_a_round_robin_of_more_seats_searches_its_design_in_a_job(api: Any) -> None:
    fmt = RoundRobin()
    async with api.app.state.sessionmaker() as session:
        ev = await event_svc.create_event(
            session,
            "Formats",
            "generic",
            None,
            {"stages": [{"format": "round_robin", "table_size": 3}]},
            "seed",
            uuid.uuid4().hex,
        )
        for name in "ABCDEF":
            await event_svc.add_entry(session, ev.id, event_svc.EntrySpec(name=name), uuid.uuid4().hex)
        event = await session.get(Event, ev.id)
        assert event is not None
        created = await lifecycle.start_event(session, event)
        assert isinstance(created, Job)
        stage = (await session.execute(select(Stage).where(Stage.event_id == ev.id))).scalar_one()
        assert await _incomplete(fmt, session, event, stage) == "the schedule is still being searched"
        with pytest.raises(Conflict, match="still being searched"):
            await fmt.next_tables(session, event, stage, [])
        await session.rollback()


# --------------------------------------------------------------------------- what each format declares
async def test_the_standings_rank_by_the_chain_the_format_declares(api: Any) -> None:
    """Without ``tiebreaks`` anywhere a stage ranks by its format's declared chain, and says so."""
    async with api.app.state.sessionmaker() as session:
        for name, stage in (("swiss", {"rounds": 1}), ("single_elimination", {}), ("free_for_all", {})):
            event, _, _ = await _started(session, {"format": name, **stage}, ["A", "B", "C", "D"])
            read = await event_standings(session, event.id)
            assert read.tiebreaks == FORMATS[StageFormatName(name)].tiebreaks
            assert read.tiebreaks_from == f"default:{name}"
        own, _, _ = await _started(
            session, {"format": "swiss", "rounds": 1, "tiebreaks": ["wins"]}, ["A", "B"]
        )
        assert (await event_standings(session, own.id)).tiebreaks == ("wins",)
        await session.rollback()


def test_the_documented_default_chains_are_the_declared_ones() -> None:
    """formats.md "Default tie-breaks" lists each format's chain: the table is the declarations'."""
    text = (DOCS / "formats.md").read_text(encoding="utf-8")
    section = text.split("### Default tie-breaks", 1)[1].split("\n#", 1)[0]
    documented: dict[str, tuple[str, ...]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("| `") else []
        if len(cells) == 2:
            chain = tuple(re.findall(r"`(\w+)`", cells[1]))
            documented.update({name: chain for name in re.findall(r"`(\w+)`", cells[0])})
    assert documented == {name.value: f.tiebreaks for name, f in FORMATS.items()}


def test_every_format_declares_everything_and_the_registry_has_them_all() -> None:
    assert set(FORMATS) == set(StageFormatName)
    for name, fmt in FORMATS.items():
        assert fmt.name == name and all(hasattr(type(fmt), d) for d in DECLARED)
        assert isinstance(fmt.display, Display) and fmt.label == f"stage_{name.value}"
    assert {n for n, f in FORMATS.items() if f.trf} == {StageFormatName.SWISS, StageFormatName.ROUND_ROBIN}
    assert {n for n, f in FORMATS.items() if f.display == Display.CROSS_TABLE} == {
        StageFormatName.ROUND_ROBIN
    }


def test_a_format_missing_a_declaration_is_refused_as_it_is_defined() -> None:
    with pytest.raises(TypeError, match="does not declare tiebreaks"):

        class NoChain(StageFormat):  # noqa: F841
            name = StageFormatName.SWISS
            display = Display.TABLES
            trf = None
            label = "stage_swiss"

    with pytest.raises(TypeError, match="is not a chain"):

        class BadChain(StageFormat):  # noqa: F841
            name = StageFormatName.SWISS
            tiebreaks = ("wins", "no_such_criterion")
            display = Display.TABLES
            trf = None
            label = "stage_swiss"

    class Complete(StageFormat):
        name = StageFormatName.SWISS
        tiebreaks = ("wins",)
        display = Display.TABLES
        trf = None
        label = "stage_swiss"

    assert Complete().tiebreaks == ("wins",)
