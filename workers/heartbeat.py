"""A worker's own heartbeat, for a health check of that worker (``arbiter worker --check``).

arq's ``--check`` reads one key the whole queue shares: a stopped or stuck replica stays healthy as
long as another one runs. Each worker instead writes its own file (``ARBITER_WORKER_HEARTBEAT_PATH``,
one per container) every ``ARBITER_WORKER_HEARTBEAT_SECONDS``, and only after Redis answered it: a
worker that cannot reach Redis, or whose event loop is stuck, stops beating. The check is healthy
while the last beat is younger than ``BEATS_MISSED`` intervals and the process that wrote it runs;
a worker that stops removes its file (docs/operations.md "Health").
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
from pathlib import Path
from typing import Any

log = logging.getLogger("arbiter.worker")

# Beats a worker may miss before its check fails.
BEATS_MISSED = 3


class Unhealthy(Exception):
    """Why this worker's check fails, in one line."""


def bound(interval: float) -> float:
    """Seconds after the last beat that the check still passes."""
    return BEATS_MISSED * interval


def beat(path: Path, interval: float, queue: str) -> None:
    """Write one heartbeat (replacing the file whole: a check never reads half of one)."""
    doc = {"pid": os.getpid(), "at": time.time(), "interval": interval, "queue": queue}
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    partial.write_text(json.dumps(doc))
    os.replace(partial, path)


async def keep_beating(redis: Any, path: Path, interval: float, queue: str) -> None:
    """Beat every ``interval`` seconds for as long as Redis answers (the worker's task until it stops)."""
    silent = False
    while True:
        try:
            await asyncio.wait_for(redis.ping(), timeout=bound(interval))
        except Exception as exc:  # noqa: BLE001 (any failure of Redis: no beat, one line)
            if not silent:
                log.warning("Redis does not answer (%s): no heartbeat until it does", type(exc).__name__)
                silent = True
        else:
            if silent:
                log.info("Redis answers again: heartbeats resume")
                silent = False
            try:
                beat(path, interval, queue)
            except OSError as exc:
                log.warning("cannot write the heartbeat to %s: %s", path, exc.strerror or exc)
        await asyncio.sleep(interval)


def clear(path: Path) -> None:
    """Remove this process's heartbeat (a stopped worker is unhealthy at once)."""
    try:
        if json.loads(path.read_text()).get("pid") == os.getpid():
            path.unlink()
    except (OSError, ValueError):
        pass


def check(path: Path, interval: float) -> str:
    """This worker's health in one line; ``Unhealthy`` when its heartbeat is missing or stale."""
    try:
        doc = json.loads(path.read_text())
        pid, at = int(doc["pid"]), float(doc["at"])
    except FileNotFoundError:
        raise Unhealthy(f"no heartbeat at {path}: the worker is not running (or has not started)") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise Unhealthy(f"cannot read the heartbeat at {path}: {exc}") from None
    age = time.time() - at
    if not _running(pid):
        raise Unhealthy(f"the worker (pid {pid}) that wrote {path} is not running")
    if age > bound(interval):
        raise Unhealthy(
            f"the worker's last heartbeat is {age:.0f} s old (past {bound(interval):g} s): "
            "it is stuck or cannot reach Redis"
        )
    return f"worker {pid} healthy: last heartbeat {max(age, 0):.1f} s ago"


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
