"""What every entry point does (the API's lifespan, the worker, the command line): say what the
process runs with, warn when it runs without an admin, and prune on schedule as its own boundary."""

from __future__ import annotations

import logging
import os
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.observability import logs
from app.services import keyring, webhooks
from app.services.live import LiveLimits
from app.services.operations import prune, retention_of
from app.settings import Settings
from app.version import __version__

log = logging.getLogger("arbiter")


async def prune_once(sessionmaker: async_sessionmaker[AsyncSession], settings: Settings) -> dict[str, int]:
    """One pruning, committed (the worker's cron and the in-process loop call it)."""
    async with sessionmaker() as s:
        deleted = await prune(s, retention_of(settings))
        await s.commit()
    if any(deleted.values()):
        logs.event(
            log, logging.INFO, "pruned " + ", ".join(f"{n} {k}" for k, n in deleted.items()), **deleted
        )
    return deleted


async def redeliver_once(sessionmaker: async_sessionmaker[AsyncSession], dispatcher: Any) -> int:
    """Hand webhook deliveries whose next attempt is due to jobs (the sweep's turn), committed, then
    dispatched."""
    async with sessionmaker() as s:
        jobs = await webhooks.redeliver(s)
        await s.commit()
    if jobs:
        await dispatcher.dispatch(jobs)
    return len(jobs)


def webhook_policy(settings: Settings, box: webhooks.SecretBox) -> webhooks.WebhookPolicy:
    limits = webhooks.DeliveryLimits(
        connect_seconds=settings.arbiter_webhook_connect_timeout,
        first_byte_seconds=settings.arbiter_webhook_first_byte_timeout,
        total_seconds=settings.arbiter_webhook_timeout,
        max_concurrent=settings.arbiter_webhook_max_deliveries,
        max_per_receiver=settings.arbiter_webhook_max_per_receiver,
    )
    return webhooks.WebhookPolicy(
        allow_private=settings.arbiter_webhook_allow_private,
        box=box,
        limits=limits,
        courier=webhooks.Courier(limits),
    )


def session_info(settings: Settings) -> dict[str, Any]:
    """What every session of a process carries beside the registry: the server's keys
    (``keyring.Keyring``; a ``KeyProblem`` when there are none) and how webhooks are treated."""
    ring = keyring.Keyring.of(settings)
    return {
        keyring.KEYRING_KEY: ring,
        webhooks.POLICY_KEY: webhook_policy(settings, ring.webhook_secrets),
    }


def live_limits(settings: Settings) -> LiveLimits:
    return LiveLimits(
        heartbeat_seconds=settings.arbiter_sse_heartbeat_seconds,
        poll_seconds=settings.arbiter_sse_poll_seconds,
        max_streams=settings.arbiter_sse_max_streams,
        max_per_client=settings.arbiter_sse_max_per_client,
    )


def describe(settings: Settings, database: str) -> dict[str, Any]:
    """What a process runs with, for its start-up line (passwords hidden)."""
    queue = (
        f"redis {logs.redact(settings.redis_url)} {settings.arbiter_queue_name}"
        if settings.redis_url
        else "in-process"
    )
    return {
        "version": __version__,
        "database": database,
        "database_url": logs.redact(settings.database_url),
        "queue": queue,
        "pid": os.getpid(),
    }


def warn_without_admin(settings: Settings) -> None:
    if not settings.arbiter_admin_token:
        log.warning(
            "ARBITER_ADMIN_TOKEN is not set: nobody can create events or act as the admin "
            "(set it to a long random string)"
        )


async def load_keys(info: dict[str, Any], sessionmaker: async_sessionmaker[AsyncSession]) -> None:
    """Open the database's answers' key with the process's keys (``keyring.Keyring.load``) and say
    where the keys come from."""
    ring: keyring.Keyring = info[keyring.KEYRING_KEY]
    await ring.load(sessionmaker)
    logs.event(log, logging.INFO, f"server keys: {ring.source}", keys=len(ring.keys))
