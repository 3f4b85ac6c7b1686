"""Round-robin schedule searches as jobs (formats.md "Round robin, N seats"; api.md
``POST /v1/schedules/round-robin``).

The search is CPU work: it runs in a thread, outside any database transaction, with a time budget
(``should_stop``) and a progress callback that the job writes to its row every half second. A
search that runs out of time returns its best schedule with a warning, never nothing.
A stage's schedule is written, with its rounds and tables, in the job's one transaction; players
are assigned to seat numbers by the event seed.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from typing import Any, NotRequired

from sqlalchemy.ext.asyncio import AsyncSession
from typing_extensions import TypedDict

from app.core import rng
from app.core.errors import Conflict, NotFound
from app.core.pairing.designs import Design, search_design, validate_request
from app.core.pairing.designs.model import DesignDict, DesignReportDict
from app.core.stage_details import RoundRobinDetails, tables_of
from app.core.vocabulary import JobKindName, StageStatus
from app.db.models import Entry, Event, Job, Stage
from app.jobs import JobContext, create_job
from app.services.offload import cpu_slot
from app.services.reads import details_of, lock_event, set_details, stage_settings
from app.services.rounds import create_round

DEFAULT_BUDGET = 20.0


async def run_search(
    ctx: JobContext | None,
    *,
    players: int,
    table_size: int,
    mode: str,
    games_per_player: int | None,
    rounds: bool,
    seed: str,
    deadline: float,
) -> Design:
    """The search, ending by ``deadline`` (``time.monotonic()``): the time spent waiting for one of
    the process's search slots is part of the budget, so a queue of searches never runs past it."""
    async with cpu_slot():  # searches of this process take turns on its cores
        latest = [0.0]
        cancelled = [False]

        def stop() -> bool:
            return cancelled[0] or time.monotonic() > deadline

        def progress(p: float) -> None:
            latest[0] = p

        task = asyncio.ensure_future(
            asyncio.to_thread(
                search_design,
                players,
                table_size,
                mode,
                games_per_player,
                rounds,
                seed,
                should_stop=stop,
                progress=progress,
            )
        )
        try:
            while not task.done():
                await asyncio.wait({task}, timeout=0.5)
                if ctx is not None and not task.done():
                    await ctx.progress(min(latest[0], 0.99))
        except asyncio.CancelledError:
            cancelled[0] = True  # a stopping worker: the search thread ends at its next check
            raise
        return task.result()


async def request_search(session: AsyncSession, request: dict[str, Any]) -> Job:
    """The stateless tool: an impossible request is refused at once (422); the search is a job."""
    validate_request(request["players"], request["table_size"], request["mode"], request["games_per_player"])
    return await create_job(session, JobKindName.ROUND_ROBIN_SCHEDULE, request)


class GroupsReport(TypedDict):
    groups: dict[str, DesignReportDict]
    warnings: list[str]


class StageScheduleResult(TypedDict):
    """The ``stage_schedule`` job's answer: the stage's tables (by name) and the design's report, or
    ``already`` when another run released them first."""

    stage_id: str
    already: NotRequired[bool]
    tables: NotRequired[list[list[str]]]
    report: NotRequired[DesignReportDict | GroupsReport]


async def schedule_job(session: AsyncSession, ctx: JobContext) -> DesignDict:
    """The stateless tool: search a design and return it with its report."""
    a = ctx.args
    design = await run_search(
        ctx,
        players=int(a["players"]),
        table_size=int(a["table_size"]),
        mode=str(a["mode"]),
        games_per_player=a.get("games_per_player"),
        rounds=bool(a.get("rounds", False)),
        seed=str(a.get("seed", "")),
        deadline=time.monotonic() + float(a.get("time_budget", DEFAULT_BUDGET)),
    )
    return design.as_dict()


async def stage_schedule_job(session: AsyncSession, ctx: JobContext) -> StageScheduleResult:
    """Search an N-seat round robin for a stage — one design per group — then release its tables
    (all at once by default; ``release: rounds`` creates round k of every group together)."""
    event_id, stage_id = ctx.args["event_id"], ctx.args["stage_id"]
    async with ctx.sessionmaker() as peek:  # read the inputs without holding a transaction during the search
        event = await peek.get(Event, event_id)
        stage = await peek.get(Stage, stage_id)
        if event is None or stage is None:
            raise NotFound(f"stage {stage_id} of event {event_id} not found")
        details = details_of(stage)
        assert isinstance(details, RoundRobinDetails)
        if details.schedule is not None:
            return {"stage_id": stage_id, "already": True}
        ids = list(details.entries)
        groups = details.members_by_group()
        settings = stage_settings(stage)
        seed, stage_index = event.seed, stage.index
        await peek.commit()
    by_rounds = not settings.releases_all
    tables: list[list[str]] = []
    rounds: list[list[list[str]]] = []
    seat_numbers: dict[str, dict[str, int]] = {}
    reports: dict[str, DesignReportDict] = {}
    ends = time.monotonic() + float(settings.time_budget)  # the stage's budget, shared by its groups
    for i, (name, members) in enumerate(sorted(groups.items())):
        now = time.monotonic()
        design = await run_search(
            ctx,
            players=len(members),
            table_size=settings.table_size,
            mode=settings.mode,
            games_per_player=settings.games_per_player,
            rounds=by_rounds,
            seed=f"{seed}:stage:{stage_index}:group:{name}",
            deadline=now + max(0.0, ends - now) / (len(groups) - i),  # an equal share of what is left
        )
        numbered = sorted(members)
        rng.stream(seed, f"stage:{stage_index}:group:{name}:seat_numbers").shuffle(numbered)
        seat_numbers[name] = {e: i for i, e in enumerate(numbered)}
        group_tables = [[numbered[s] for s in t] for t in design.tables]
        tables += group_tables
        for k, indices in enumerate(design.rounds or [list(range(len(group_tables)))]):
            if k == len(rounds):
                rounds.append([])
            rounds[k] += [group_tables[t] for t in indices]
        reports[name] = design.report.as_dict()
    report: DesignReportDict | GroupsReport
    if len(groups) == 1:
        report = next(iter(reports.values()))
    else:
        warnings = [f"group {g}: {w}" for g, r in sorted(reports.items()) for w in r["warnings"]]
        report = {"groups": reports, "warnings": warnings}

    event = await lock_event(session, event_id)
    stage = await session.get(Stage, stage_id, populate_existing=True)
    assert stage is not None
    current = details_of(stage)
    assert isinstance(current, RoundRobinDetails)
    if current.schedule is not None:  # another run of this job got here first
        return {"stage_id": stage_id, "already": True}
    if stage.status != StageStatus.ACTIVE:
        raise Conflict("the stage is no longer active")
    set_details(
        stage,
        replace(current, schedule=(tables_of(tables),), seat_numbers=seat_numbers, report=report),
    )
    for released in rounds if by_rounds else [tables]:
        await create_round(session, event, stage, released)
    names = {e.id: e.name for e in [await session.get(Entry, i) for i in ids] if e is not None}
    return {"stage_id": stage_id, "tables": [[names.get(e, e) for e in t] for t in tables], "report": report}
