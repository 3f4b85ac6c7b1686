"""arq worker: ``arq workers.main.WorkerSettings`` (or ``python -m workers.main``).

The engine is built on start-up, each job opens its own session, jobs get ids not
objects, and a cron sweep re-dispatches jobs stuck queued or running past their deadline.
"""

from __future__ import annotations

from typing import Any

from arq import cron, func, run_worker
from arq.connections import RedisSettings

from app.db.session import make_engine, make_sessionmaker
from app.jobs import ArqDispatcher, default_kinds, run_job, sweep
from app.settings import get_settings

settings = get_settings()


async def startup(ctx: dict[str, Any]) -> None:
    s = get_settings()
    if not s.redis_url:
        raise RuntimeError("REDIS_URL must be set to run a worker")
    ctx["engine"] = make_engine(s.database_url)
    ctx["sessionmaker"] = make_sessionmaker(ctx["engine"])
    ctx["dispatcher"] = ArqDispatcher(s.redis_url, s.arbiter_queue_name)
    ctx.setdefault("kinds", dict(default_kinds()))


async def shutdown(ctx: dict[str, Any]) -> None:
    await ctx["dispatcher"].close()
    await ctx["engine"].dispose()


async def run_job_task(ctx: dict[str, Any], job_id: str) -> str:
    return await run_job(ctx["sessionmaker"], job_id, ctx["kinds"])


async def sweep_task(ctx: dict[str, Any]) -> int:
    s = get_settings()
    ids = await sweep(
        ctx["sessionmaker"],
        ctx["dispatcher"],
        stale_queued_seconds=s.arbiter_job_stale_queued,
        max_attempts=s.arbiter_job_max_attempts,
    )
    return len(ids)


class WorkerSettings:
    functions = [func(run_job_task, name="run_job", timeout=settings.arbiter_job_timeout, max_tries=3)]
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
