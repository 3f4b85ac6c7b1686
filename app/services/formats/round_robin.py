"""Round robins (formats.md "Pairing and scheduling" — Round robin, 2 seats and N seats; "Groups").

2 seats: each group's circle schedule is drawn when the stage opens (its order shuffled by the event
seed; ``double`` for two cycles). Round k of every group is one round: released one at a time (the
next once every game of the current one is reported), or, with ``release: all``, every round at
the start, so no game waits for another. An opponent who dropped leaves a bye (``on_drop: bye``)
or a game it resigns (``resign`` / ``violation``: the table stays, and the game is recorded as
lost as it is released). N seats: a design is searched by a job (``stage_schedule``,
app/services/schedules.py), which writes the schedule and releases the tables.
"""

from __future__ import annotations

from dataclasses import replace

from sqlalchemy.ext.asyncio import AsyncSession

from app.core import rng
from app.core.errors import Conflict
from app.core.event_settings import StageSettings
from app.core.pairing.round_robin import round_robin
from app.core.stage_details import RoundRobinDetails, StageDetails, Table
from app.core.vocabulary import EntryStatus, JobKindName, StageFormatName
from app.db.models import Event, Job, Match, Round, Stage
from app.jobs import create_job
from app.services.formats.base import Display, StageFormat
from app.services.reads import details_of, entries_by_id, stage_settings
from app.services.rounds import Drawn, create_round


def circle_schedule(
    event: Event, stage: Stage, details: StageDetails, double: bool
) -> tuple[tuple[Table, ...], ...]:
    """Every group's circle schedule, round k of every group played together."""
    per_group: list[list[list[Table]]] = []
    groups = details.members_by_group()
    for name in sorted(groups):
        order = sorted(groups[name])
        rng.stream(event.seed, f"stage:{stage.index}:group:{name}:order").shuffle(order)
        rounds = round_robin(order, double=double)
        per_group.append([[tuple(p) for p in r.pairs] + ([(r.bye,)] if r.bye else []) for r in rounds])
    total = max((len(g) for g in per_group), default=0)
    return tuple(tuple(t for g in per_group if k < len(g) for t in g[k]) for k in range(total))


def _details(stage: Stage) -> RoundRobinDetails:
    details = details_of(stage)
    assert isinstance(details, RoundRobinDetails)
    return details


class RoundRobin(StageFormat):
    name = StageFormatName.ROUND_ROBIN
    tiebreaks = ("head_to_head", "sonneborn_berger", "wins")
    display = Display.CROSS_TABLE
    trf = "Round Robin"
    label = "stage_round_robin"

    def prepare(
        self, event: Event, stage: Stage, settings: StageSettings, details: StageDetails
    ) -> StageDetails:
        assert isinstance(details, RoundRobinDetails)
        if settings.table_size == 2:
            return replace(details, schedule=circle_schedule(event, stage, details, settings.double))
        return details

    def cannot_undo(self, stage: Stage, rounds: list[Round]) -> str | None:
        if stage_settings(stage).table_size > 2:
            return "this round robin's tables were released at once from its design"
        return None  # the circle schedule gives the same round again

    async def start(self, session: AsyncSession, event: Event, stage: Stage) -> Round | Job | None:
        settings = stage_settings(stage)
        if settings.table_size == 2 and settings.releases_all:
            schedule = _details(stage).schedule or ()
            created = [await create_round(session, event, stage, [list(t) for t in rnd]) for rnd in schedule]
            return created[0] if created else None
        if settings.table_size == 2:
            return await self.first_round(session, event, stage)
        return await create_job(
            session,
            JobKindName.STAGE_SCHEDULE,
            {"event_id": event.id, "stage_id": stage.id},
            dedup_key=f"schedule:{stage.id}",
        )

    async def next_tables(
        self, session: AsyncSession, event: Event, stage: Stage, rounds: list[Round]
    ) -> Drawn:
        schedule = _details(stage).schedule
        if schedule is None:
            raise Conflict("the schedule of this stage is still being searched; see its job")
        if stage_settings(stage).table_size > 2:
            raise Conflict("this round robin's tables were all released at once; there is no next round")
        played = len(rounds)
        if played >= len(schedule):
            raise Conflict("every round of the round robin is paired; advance to close the stage")
        if stage_settings(stage).on_drop != "bye":
            return Drawn([list(t) for t in schedule[played]])  # a dropped entry's games are resigned
        entries = await entries_by_id(session, event.id)
        tables: list[list[str]] = []
        for table in schedule[played]:
            live = [e for e in table if entries[e].status == EntryStatus.ACTIVE]
            if live:
                tables.append(live)  # an opponent who dropped leaves a bye
        return Drawn(tables)

    def nothing_to_pair(self, stage: Stage) -> str | None:
        if not stage_settings(stage).releases_all:
            return None
        return (
            "every game of this round robin was released at once (release: all): there is no next "
            "round to pair; the stage closes (advance) once every game is reported"
        )

    async def incomplete(
        self,
        session: AsyncSession,
        event: Event,
        stage: Stage,
        rounds: list[Round],
        matches: list[tuple[Round, Match]],
    ) -> str | None:
        schedule = _details(stage).schedule
        if schedule is None:
            return "the schedule is still being searched"
        if stage_settings(stage).table_size == 2 and len(rounds) < len(schedule):
            return f"{len(rounds)} of {len(schedule)} rounds are paired"
        return None
