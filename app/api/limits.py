"""The per-client allowances (api.md "Limits"): the heavy tools' rate and the failed tokens.

Each allowance is a **GCRA** (the token bucket as one number per client): ``burst`` at once, one
more every ``interval`` seconds. A client's state is the time its allowance is next full (its
"theoretical arrival time"); a request is refused when taking one more would push that time past
``burst`` intervals ahead, and the wait is how far past.

- **Shared when Redis is configured** (``REDIS_URL``): the state is one Redis key per client and
  allowance, read and written by one Lua script (atomic, on Redis's own clock), expiring when the
  allowance is full again; every API process counts the same.
- **In the process otherwise** (the embedded default).
- **Ruling: Redis unreachable, the process counts for itself.** A Redis error (or a reply slower
  than 0.25 s) logs one warning per 30 s and the process falls back to its own counters for 5 s
  before it asks Redis again. Why: a limit must never turn a Redis outage into failed requests
  (no 500, no wait), and falling back to per-process counting keeps a limit, looser by the number
  of processes, rather than none.

An IPv6 client counts by its /64: one host holds a whole /64, and would otherwise get a fresh
allowance from each of its addresses.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import logging
import math
import time
from dataclasses import dataclass
from typing import Any

from app.core.errors import DomainError
from app.settings import Settings

log = logging.getLogger("arbiter.limits")

REDIS_TIMEOUT = 0.25  # seconds a limit waits for Redis before counting in the process
REDIS_PAUSE = 5.0  # seconds the process counts for itself after a Redis failure
WARN_EVERY = 30.0  # seconds between two warnings that Redis is unreachable
LOCAL_MAX = 10_000  # clients one process remembers before it forgets the ones whose allowance is full

# KEYS[1]: the client's key; ARGV: interval (ms), burst, 1 to take / 0 to look.
# Answers 0 (allowed, and taken when asked) or the milliseconds to wait.
_GCRA = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local after = tat + interval
local wait = after - now - burst * interval
if wait > 0 then return math.ceil(wait) end
if ARGV[3] == '1' then redis.call('SET', KEYS[1], after, 'PX', math.max(1, math.ceil(after - now))) end
return 0
"""


@dataclass(frozen=True)
class Allowance:
    """``burst`` at once, one more back every ``interval`` seconds."""

    name: str
    burst: int
    interval: float


class TooManyFailures(DomainError):
    """A client that sent too many unknown tokens: no token of it is looked at for a while (429)."""

    status = 429
    title = "Too many requests"

    def __init__(self, wait: float) -> None:
        seconds = max(1, math.ceil(wait))
        super().__init__(
            f"this client sent too many unknown tokens: no token from it is checked for the next "
            f"{seconds} s (Retry-After)"
        )
        self.retry_after = seconds


@functools.lru_cache(maxsize=4096)  # parsed once per address, not at every token looked up
def client_key(client: str) -> str:
    """The name a client's allowance goes by: its address, or its /64 for IPv6."""
    try:
        address = ipaddress.ip_address(client)
    except ValueError:
        return client
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


class LocalCounters:
    """The allowances of one process: the time each client's allowance is next full."""

    def __init__(self) -> None:
        self._full_at: dict[tuple[str, str], float] = {}

    def check(self, allowance: Allowance, client: str, take: bool, now: float | None = None) -> float:
        now = time.monotonic() if now is None else now
        key = (allowance.name, client)
        tat = max(self._full_at.get(key, now), now)
        after = tat + allowance.interval
        wait = after - now - allowance.burst * allowance.interval
        if wait > 0:
            return wait
        if take:
            self._full_at[key] = after
            if len(self._full_at) > LOCAL_MAX:
                self._full_at = {k: v for k, v in self._full_at.items() if v > now}
        return 0.0


class Limits:
    """The process's allowances, counted in Redis when it is configured, else here."""

    def __init__(self, settings: Settings) -> None:
        self.heavy = Allowance(
            "heavy", settings.arbiter_heavy_burst, 60.0 / settings.arbiter_heavy_per_minute
        )
        self.auth = Allowance(
            "auth",
            settings.arbiter_auth_failures,
            settings.arbiter_auth_failure_window / settings.arbiter_auth_failures,
        )
        self.local = LocalCounters()
        self._prefix = f"{settings.arbiter_queue_name}:limit"
        self._redis: Any = None
        self._script: Any = None
        if settings.redis_url:
            from redis.asyncio import Redis

            self._redis = Redis.from_url(
                settings.redis_url,
                socket_connect_timeout=REDIS_TIMEOUT,
                socket_timeout=REDIS_TIMEOUT,
            )
            self._script = self._redis.register_script(_GCRA)
        self._paused_until = 0.0
        self._warned_at = -math.inf

    @property
    def shared(self) -> bool:
        return self._redis is not None

    async def take(self, allowance: Allowance, client: str) -> float:
        """Take one of ``client``'s allowance: 0 when it may go, else the seconds until it could."""
        return await self._check(allowance, client, take=True)

    async def wait(self, allowance: Allowance, client: str) -> float:
        """The seconds until ``client`` could take one (0: now), taking nothing."""
        return await self._check(allowance, client, take=False)

    async def _check(self, allowance: Allowance, client: str, take: bool) -> float:
        key = client_key(client)
        if self._redis is not None and time.monotonic() >= self._paused_until:
            try:
                async with asyncio.timeout(REDIS_TIMEOUT * 2):
                    ms = await self._script(
                        keys=[f"{self._prefix}:{allowance.name}:{key}"],
                        args=[max(1, round(allowance.interval * 1000)), allowance.burst, int(take)],
                    )
                return int(ms) / 1000.0
            except Exception as exc:  # any Redis failure: count here for a while, never fail the request
                self._unreachable(exc)
        return self.local.check(allowance, key, take)

    def _unreachable(self, exc: BaseException) -> None:
        now = time.monotonic()
        self._paused_until = now + REDIS_PAUSE
        if now - self._warned_at >= WARN_EVERY:
            self._warned_at = now
            log.warning(
                "rate limits are counted per process: Redis did not answer (%s)",
                str(exc).strip() or type(exc).__name__,
            )

    async def close(self) -> None:
        if self._redis is not None:
            await self._redis.aclose()
            self._redis = None


def limits_of(app: Any) -> Limits:
    """The app's allowances (made at start-up; made here for an app started without its lifespan)."""
    limits: Limits | None = getattr(app.state, "limits", None)
    if limits is None:
        limits = Limits(app.state.settings)
        app.state.limits = limits
    return limits


def client_of(scope: Any) -> str:
    """The request's client address, as the request log middleware resolved it."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


async def before_token(app: Any, scope: Any) -> None:
    """Refuse to look at a token from a client past its allowance of failed ones (429)."""
    limits = limits_of(app)
    wait = await limits.wait(limits.auth, client_of(scope))
    if wait > 0:
        raise TooManyFailures(wait)


async def token_failed(app: Any, scope: Any) -> None:
    """Count one unknown token against its client."""
    limits = limits_of(app)
    await limits.take(limits.auth, client_of(scope))
