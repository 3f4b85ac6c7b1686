"""Heats (formats.md "Pairing and scheduling" — Heats; titan-arena.md "The event: HMW-P").

Open games that entries join as they like: the stage creates nothing by itself; the organizer opens
each heat as an explicit table (``POST …/rounds {tables}``), several may run at once, and late
entries may join while the heats run.
"""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from app.core.errors import Conflict
from app.core.vocabulary import StageFormatName
from app.db.models import Event, Job, Round, Stage
from app.services.formats.base import Display, StageFormat
from app.services.rounds import Drawn


class Heats(StageFormat):
    name = StageFormatName.HEATS
    tiebreaks = ("wins",)
    display = Display.BRACKET
    trf = None
    label = "stage_heats"
    late_entries = True
    concurrent_tables = True
    sized_tables = False

    def cannot_undo(self, stage: Stage, rounds: list[Round]) -> str | None:
        return None  # heats are the organizer's explicit tables

    async def start(self, session: AsyncSession, event: Event, stage: Stage) -> Round | Job | None:
        return None

    async def next_tables(
        self, session: AsyncSession, event: Event, stage: Stage, rounds: list[Round]
    ) -> Drawn:
        raise Conflict("heats are created with explicit tables: POST {tables: [[entry_id, …], …]}")
