"""A worker for the ratings durability test: besides the real jobs it runs ``slow_ratings_recompute``,
which on its first attempt does the whole recompute inside its transaction and then stalls before
committing (so the test can SIGKILL the worker mid-recompute); later attempts run it normally."""

from __future__ import annotations

import asyncio
from typing import Any

from arq import run_worker
from sqlalchemy.ext.asyncio import AsyncSession

from app.jobs import JobContext, JobKind
from app.services.job_kinds import KINDS
from app.services.ratings import recompute_pool
from app.wiring import build_registry
from workers.main import WorkerSettings, startup


async def slow_recompute(session: AsyncSession, ctx: JobContext) -> dict[str, Any]:
    result = await recompute_pool(session, ctx.args["pool"], ctx)
    if ctx.attempt == 1:
        await ctx.progress(0.99)  # written, not committed: the test kills the worker now
        await asyncio.sleep(3600)
    return result


SLOW_KINDS = {
    **KINDS,
    "slow_ratings_recompute": JobKind(fn=slow_recompute, timeout=2, max_attempts=6),
}


async def slow_startup(ctx: dict[str, Any]) -> None:
    ctx["registry"] = build_registry().with_job_kinds(SLOW_KINDS)
    await startup(ctx)


if __name__ == "__main__":
    run_worker(WorkerSettings, on_startup=slow_startup)  # type: ignore[arg-type]
