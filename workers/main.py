"""arq worker: ``arbiter worker`` (or ``python -m workers.main``, or ``arq workers.main.WorkerSettings``).

The engine and the registry are built on start-up, each job opens its own session, jobs get ids
not objects, and a cron sweep re-dispatches jobs stuck queued or running past their deadline.
Every limit comes from the job's kind (app/services/job_kinds.py): ``run_job`` stops an attempt at
its kind's timeout, so arq's own timeout only backs it up, and arq never retries by itself — the
sweep does, counting the kind's attempts.

The worker says what it runs with when it starts, writes one line per job (``app/jobs.py``) and one
when it stops. On SIGTERM it takes no new job and lets the running ones finish for
``ARBITER_WORKER_SHUTDOWN_WAIT`` seconds; those still running then are handed back for another
worker. The sweep's cron also prunes, at most once per ``ARBITER_PRUNE_SECONDS`` across every
worker of the queue (docs/operations.md "Retention").
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from typing import Any

from arq import cron, func, run_worker
from arq.connections import RedisSettings

from app.db.session import make_engine, make_sessionmaker
from app.jobs import ArqDispatcher, run_job, sweep
from app.observability import logs, metrics
from app.runtime import describe, prune_once, redeliver_once, session_info
from app.services.job_kinds import KINDS
from app.services.registry import Registry
from app.settings import get_settings
from app.version import __version__
from app.wiring import build_registry
from workers import heartbeat

log = logging.getLogger("arbiter.worker")

settings = get_settings()

# arq's limit on one run of ``run_job``: past the longest kind's own timeout, so that one fires first.
ARQ_TIMEOUT = max(kind.timeout for kind in KINDS.values()) + 60


async def startup(ctx: dict[str, Any]) -> None:
    s = get_settings()
    logs.configure(s.arbiter_log_format, s.arbiter_log_level)
    if not s.redis_url:
        raise RuntimeError("REDIS_URL must be set to run a worker")
    registry: Registry = ctx.setdefault("registry", build_registry())
    ctx["engine"] = make_engine(s.database_url)
    ctx["sessionmaker"] = make_sessionmaker(ctx["engine"], {**registry.session_info(), **session_info(s)})
    ctx["dispatcher"] = ArqDispatcher(s.redis_url, s.arbiter_queue_name)
    ctx["outcomes"] = Counter()
    metrics_port = _serve_metrics(s.arbiter_worker_metrics_port, s.arbiter_worker_metrics_host)
    ctx["heartbeat"] = asyncio.create_task(
        heartbeat.keep_beating(
            ctx["redis"], s.heartbeat_path, s.arbiter_worker_heartbeat_seconds, s.arbiter_queue_name
        )
    )
    facts = describe(s, ctx["engine"].dialect.name)
    logs.event(
        log,
        logging.INFO,
        f"arbiter worker {__version__} started: database {facts['database']}, queue {facts['queue']}, "
        f"{s.arbiter_worker_concurrency} at a time",
        **facts,
        concurrency=s.arbiter_worker_concurrency,
        kinds=sorted(registry.job_kinds),
        metrics_port=metrics_port,
        heartbeat_path=str(s.heartbeat_path),
    )


def _serve_metrics(port: int, host: str) -> int | None:
    """Serve the worker's metrics; a port that is taken leaves the worker running without them."""
    if not port:
        return None
    try:
        metrics.serve(port, host)
    except OSError as exc:
        logs.event(
            log,
            logging.WARNING,
            f"cannot serve metrics on {host}:{port} ({exc.strerror or exc}): this worker runs without them",
            metrics_port=port,
        )
        return None
    return port


async def shutdown(ctx: dict[str, Any]) -> None:
    outcomes: Counter[str] = ctx.get("outcomes", Counter())
    ran = ", ".join(f"{n} {outcome}" for outcome, n in sorted(outcomes.items())) or "no job"
    logs.event(
        log, logging.INFO, f"arbiter worker stopped: ran {ran}", **{str(k): v for k, v in outcomes.items()}
    )
    beating: asyncio.Task[None] | None = ctx.get("heartbeat")
    if beating is not None:
        beating.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await beating
        heartbeat.clear(get_settings().heartbeat_path)
    await ctx["dispatcher"].close()
    await ctx["engine"].dispose()


async def run_job_task(ctx: dict[str, Any], job_id: str) -> str:
    outcome = "handed back"
    try:
        outcome = await run_job(
            ctx["sessionmaker"],
            job_id,
            ctx["registry"].job_kinds,
            lease=get_settings().arbiter_job_lease,
            dispatcher=ctx["dispatcher"],
        )
        return outcome
    finally:
        ctx["outcomes"][str(outcome)] += 1


async def sweep_task(ctx: dict[str, Any]) -> int:
    s = get_settings()
    ids = await sweep(
        ctx["sessionmaker"],
        ctx["dispatcher"],
        ctx["registry"].job_kinds,
        stale_queued_seconds=s.arbiter_job_stale_queued,
    )
    await redeliver_once(ctx["sessionmaker"], ctx["dispatcher"])  # webhook retries now due
    # One worker of the queue prunes per interval: the first to take the key until it expires.
    if await ctx["redis"].set(
        f"{s.arbiter_queue_name}:prune", __version__, nx=True, ex=s.arbiter_prune_seconds
    ):
        await prune_once(ctx["sessionmaker"], s)
    return len(ids)


class WorkerSettings:
    functions = [func(run_job_task, name="run_job", timeout=ARQ_TIMEOUT, max_tries=1)]
    cron_jobs = [
        cron(
            sweep_task,
            # the cron's job id names the queue: workers of other queues on the same Redis never
            # take this one's tick
            name=f"sweep:{settings.arbiter_queue_name}",
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
    max_jobs = settings.arbiter_worker_concurrency
    job_completion_wait = settings.arbiter_worker_shutdown_wait
    keep_result = 60
    health_check_interval = 5


def main() -> None:
    run_worker(WorkerSettings)  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
