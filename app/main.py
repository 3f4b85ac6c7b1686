"""create_app(): the FastAPI application, its lifespan (engine, queue, sweep, pruning) and routers."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime

from fastapi import FastAPI

from app.api import ROUTERS, contract, problems
from app.api.cors import Cors
from app.api.guard import RequestGuardMiddleware
from app.api.limits import Limits
from app.api.middleware import RequestLogMiddleware
from app.db.session import make_engine, make_sessionmaker, read_only, write_gate, write_turn
from app.jobs import ArqDispatcher, Dispatcher, InProcessDispatcher, commit_and_dispatch, sweep
from app.observability import logs
from app.runtime import (
    describe,
    live_limits,
    load_keys,
    prune_once,
    redeliver_once,
    session_info,
    warn_without_admin,
)
from app.services import hall as hall_svc
from app.services import offload
from app.services.live import Hub
from app.services.outbox import HUB_KEY
from app.services.registry import Registry
from app.settings import Settings, get_settings
from app.version import __version__
from app.web import assets, checkin, console, console_formats, embeds, league, public
from app.wiring import build_registry

log = logging.getLogger("arbiter")

DESCRIPTION = """Arbiter: tournament service for board and card games — pairings, schedules, results,
standings with the reason behind every tie-break, and Elo ratings.

Errors are `application/problem+json`. Authenticate with `Authorization: Bearer <token>`."""


async def _sweep_loop(app: FastAPI, settings: Settings) -> None:
    """In-process mode: resume jobs left queued or running by a previous process, then keep sweeping;
    prune what outlived its retention every ``ARBITER_PRUNE_SECONDS``."""
    next_prune = time.monotonic()
    while True:
        try:
            await sweep(
                app.state.sessionmaker,
                app.state.dispatcher,
                app.state.registry.job_kinds,
                stale_queued_seconds=settings.arbiter_job_stale_queued,
            )
        except Exception:
            log.exception("sweep failed")
        try:
            await redeliver_once(app.state.sessionmaker, app.state.dispatcher)
        except Exception:
            log.exception("webhook redelivery failed")
        if time.monotonic() >= next_prune:
            next_prune = time.monotonic() + settings.arbiter_prune_seconds
            try:
                await prune_once(app.state.sessionmaker, settings)
            except Exception:
                log.exception("pruning failed")
        await asyncio.sleep(settings.arbiter_sweep_seconds)


async def _clock_loop(app: FastAPI) -> None:
    """Say when a round's time is up (app/services/hall.py): about once a second, read when the first
    running clock ends; when it has, end it and announce it (every process does; one succeeds)."""
    while True:
        wait = 1.0
        try:
            async with app.state.sessionmaker() as session:
                await read_only(session)  # on SQLite: a reader, never the write lock
                due = await hall_svc.next_due(session)
            now = datetime.now(UTC)
            if due is not None and due <= now:
                async with write_turn(app.state.sessionmaker), app.state.sessionmaker() as session:
                    await hall_svc.expire_due(session)
                    await commit_and_dispatch(session, app.state.dispatcher)
                wait = 0.05
            elif due is not None:
                wait = min(wait, max(0.05, (due - now).total_seconds()))
        except Exception:
            log.exception("the round clock's check failed")
        await asyncio.sleep(wait)


_frozen = False


def _freeze_startup_objects() -> None:
    """Move what start-up built (modules, the app, its registry and mappers) out of the garbage
    collector's sight, once per process: every full collection would otherwise walk those hundreds
    of thousands of objects again, and a request's own garbage triggers many (docs/operations.md
    "Scale")."""
    global _frozen
    if not _frozen:
        _frozen = True
        gc.collect()
        gc.freeze()


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    settings: Settings = app.state.settings
    registry: Registry = app.state.registry
    engine = make_engine(settings.database_url)
    app.state.engine = engine
    hub = Hub(engine, live_limits(settings))
    app.state.hub = hub
    # SQLite has one writer: this process's writing requests queue here for their turn instead of
    # polling the file's lock (app/api/deps.py); other processes still wait on busy_timeout
    app.state.write_gate = write_gate(engine)
    info = session_info(settings)
    app.state.sessionmaker = make_sessionmaker(engine, {**registry.session_info(), **info, HUB_KEY: hub})
    await load_keys(info, app.state.sessionmaker)
    await hub.start(app.state.sessionmaker)
    dispatcher: Dispatcher
    sweeper: asyncio.Task[None] | None = None
    if settings.redis_url:
        dispatcher = ArqDispatcher(settings.redis_url, settings.arbiter_queue_name)
    else:
        dispatcher = InProcessDispatcher(
            app.state.sessionmaker, registry.job_kinds, settings.arbiter_job_lease
        )
    app.state.dispatcher = dispatcher
    app.state.limits = Limits(settings)  # shared through Redis when it is configured
    facts = describe(settings, engine.dialect.name)
    logs.event(
        log,
        logging.INFO,
        f"arbiter {__version__} serving: database {facts['database']}, queue {facts['queue']}",
        **facts,
    )
    warn_without_admin(settings)
    if not settings.redis_url:
        sweeper = asyncio.create_task(_sweep_loop(app, settings))
    clock = asyncio.create_task(_clock_loop(app))
    _freeze_startup_objects()
    try:
        yield
    finally:
        clock.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await clock
        await hub.close()
        if sweeper is not None:
            sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sweeper
        await dispatcher.close()
        await app.state.limits.close()
        await engine.dispose()


def create_app(settings: Settings | None = None, registry: Registry | None = None) -> FastAPI:
    """The API. ``registry`` (formats, presets' rules, job kinds) defaults to the full one."""
    settings = settings or get_settings()
    # a process whose logging nobody set up (uvicorn started by hand) gets Arbiter's
    logs.configure(settings.arbiter_log_format, settings.arbiter_log_level, force=False)
    app = FastAPI(
        title="Arbiter",
        version=__version__,
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,  # served by app.web.assets from the Swagger UI package: no CDN
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.registry = registry or build_registry()
    offload.configure(settings.arbiter_cpu_seconds)
    if settings.cors_origins:
        app.add_middleware(Cors, origins=settings.cors_origins)  # listed origins; `*`: public reads
    app.add_middleware(RequestGuardMiddleware)  # sizes, token before body, NUL, the heavy tools' rate
    app.add_middleware(RequestLogMiddleware)  # outermost: every answer gets its id and its line
    problems.install(app)
    contract.install(app)
    for router in (
        *ROUTERS,
        public.router,
        league.router,
        embeds.router,
        checkin.router,
        console.router,
        console_formats.router,
    ):
        app.include_router(router)
    assets.install(app)
    return app
