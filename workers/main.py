"""arq worker: ``arq workers.main.WorkerSettings`` (or ``python -m workers.main``).

The engine and the registry are built on start-up, each job opens its own session, jobs get ids
not objects, and a cron sweep re-dispatches jobs stuck queued or running past their deadline.
Every limit comes from the job's kind (app/services/job_kinds.py): ``run_job`` stops an attempt at
its kind's timeout, so arq's own timeout only backs it up, and arq never retries by itself — the
sweep does, counting the kind's attempts.
"""

from __future__ import annotations

from typing import Any

from arq import cron, func, run_worker
from arq.connections import RedisSettings

from app.db.session import make_engine, make_sessionmaker
from app.jobs import ArqDispatcher, run_job, sweep
from app.services.job_kinds import KINDS
from app.services.registry import Registry
from app.settings import get_settings
from app.wiring import build_registry

settings = get_settings()

# arq's limit on one run of ``run_job``: past the longest kind's own timeout, so that one fires first.
ARQ_TIMEOUT = max(kind.timeout for kind in KINDS.values()) + 60


async def startup(ctx: dict[str, Any]) -> None:
    s = get_settings()
    if not s.redis_url:
        raise RuntimeError("REDIS_URL must be set to run a worker")
    registry: Registry = ctx.setdefault("registry", build_registry())
    ctx["engine"] = make_engine(s.database_url)
    ctx["sessionmaker"] = make_sessionmaker(ctx["engine"], registry.session_info())
    ctx["dispatcher"] = ArqDispatcher(s.redis_url, s.arbiter_queue_name)


async def shutdown(ctx: dict[str, Any]) -> None:
    await ctx["dispatcher"].close()
    await ctx["engine"].dispose()


async def run_job_task(ctx: dict[str, Any], job_id: str) -> str:
    return await run_job(ctx["sessionmaker"], job_id, ctx["registry"].job_kinds)


async def sweep_task(ctx: dict[str, Any]) -> int:
    ids = await sweep(
        ctx["sessionmaker"],
        ctx["dispatcher"],
        ctx["registry"].job_kinds,
        stale_queued_seconds=get_settings().arbiter_job_stale_queued,
    )
    return len(ids)


class WorkerSettings:
    functions = [func(run_job_task, name="run_job", timeout=ARQ_TIMEOUT, max_tries=1)]
    cron_jobs = [
        cron(
            sweep_task,
            name="sweep",
            second=set(range(0, 60, max(1, settings.arbiter_sweep_seconds))),
            run_at_startup=True,
            unique=True,
            timeout=60,
        )
    ]
    on_startup = startup
    on_shutdown = shutdown
    redis_settings = RedisSettings.from_dsn(settings.redis_url or "redis://127.0.0.1:6379/0")
    queue_name = settings.arbiter_queue_name
    max_jobs = 10
    keep_result = 60
    health_check_interval = 5


def main() -> None:
    run_worker(WorkerSettings)  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
