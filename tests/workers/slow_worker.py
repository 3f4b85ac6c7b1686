"""A worker for the durability tests: besides the real jobs it runs ``slow_integrity_check`` (and
``stalling_integrity_check``, the same with a long time limit), which on its first attempt stalls
(so the test can kill or stop the worker mid-job) and on a later attempt runs the real integrity
check."""

from __future__ import annotations

import asyncio
from typing import Any

from arq import run_worker
from sqlalchemy.ext.asyncio import AsyncSession

from app.jobs import JobContext, JobKind
from app.services.integrity import check_event
from app.services.job_kinds import KINDS
from app.wiring import build_registry
from workers.main import WorkerSettings, startup


async def slow_integrity(session: AsyncSession, ctx: JobContext) -> dict[str, Any]:
    if ctx.attempt == 1:
        await ctx.progress(0.5)
        await asyncio.sleep(3600)
    return await check_event(session, ctx.args["event_id"], ctx)


SLOW_KINDS = {
    **KINDS,
    "slow_integrity_check": JobKind(fn=slow_integrity, timeout=2, max_attempts=3),
    # the same, with a kind's long time limit: only a hand-back lets another worker take it soon
    "stalling_integrity_check": JobKind(fn=slow_integrity, timeout=600, max_attempts=3),
}


async def slow_startup(ctx: dict[str, Any]) -> None:
    ctx["registry"] = build_registry().with_job_kinds(SLOW_KINDS)
    await startup(ctx)


if __name__ == "__main__":
    run_worker(WorkerSettings, on_startup=slow_startup)  # type: ignore[arg-type]
