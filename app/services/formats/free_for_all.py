"""Free-for-all (formats.md "Pairing and scheduling" — Free-for-all): one table of every entry, in a
turn order shuffled by the event seed (the first seat holds the token first)."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from app.core import rng
from app.core.vocabulary import StageFormatName
from app.db.models import Event, Job, Match, Round, Stage
from app.services.formats.base import Display, StageFormat, one_table_incomplete
from app.services.reads import details_of
from app.services.rounds import create_round


class FreeForAll(StageFormat):
    name = StageFormatName.FREE_FOR_ALL
    tiebreaks = ()
    display = Display.TABLES
    trf = None
    label = "stage_free_for_all"
    sized_tables = False

    async def start(self, session: AsyncSession, event: Event, stage: Stage) -> Round | Job | None:
        order = sorted(details_of(stage).entries)
        rng.stream(event.seed, f"stage:{stage.index}:turn_order").shuffle(order)
        return await create_round(session, event, stage, [order])

    async def incomplete(
        self,
        session: AsyncSession,
        event: Event,
        stage: Stage,
        rounds: list[Round],
        matches: list[tuple[Round, Match]],
    ) -> str | None:
        return one_table_incomplete(stage, rounds)
