"""The edge, attacked: who a client is (the socket, unless a trusted proxy speaks for it), limits
shared by every process through Redis (and kept when Redis is away), failed tokens throttled per
client, and the headers every answer carries."""

from __future__ import annotations

import asyncio
import logging
import re
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.api.limits import LocalCounters, client_key
from app.api.middleware import client_address
from app.main import create_app
from app.settings import Settings
from tests.support.api import ADMIN_TOKEN, assert_problem, bearer
from tests.support.processes import env, finish, free_port, spawn, wait_http
from tests.support.services import redis_url

HEAVY = "/v1/adjudicate/strategic-titan"  # a heavy tool: limited per client; an empty body is a 422


def settings(database_url: str, **extra: Any) -> Settings:
    values: dict[str, Any] = {
        "database_url": database_url,
        "redis_url": None,
        "arbiter_admin_token": ADMIN_TOKEN,
        "arbiter_sweep_seconds": 3600,
        **extra,
    }
    return Settings(**values)


@asynccontextmanager
async def started(s: Settings) -> AsyncIterator[Any]:
    app = create_app(s)
    async with app.router.lifespan_context(app):
        yield app


def client(app: Any, peer: str = "127.0.0.1") -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(peer, 40000))
    return httpx.AsyncClient(transport=transport, base_url="http://arbiter.test")


async def heavy_codes(c: httpx.AsyncClient, n: int, forwarded: list[str] | None = None) -> list[int]:
    codes = []
    for i in range(n):
        headers = {"X-Forwarded-For": forwarded[i]} if forwarded else {}
        codes.append((await c.post(HEAVY, json={}, headers=headers)).status_code)
    return codes


# --------------------------------------------------------------------------- who the client is


def test_the_client_is_the_right_most_address_no_trusted_proxy_added() -> None:
    proxies = Settings(arbiter_trusted_proxies="10.0.0.0/8, 192.0.2.7").trusted_proxies
    # no trusted proxy: the socket says who it is, whatever the header claims
    assert client_address("203.0.113.9", ["1.2.3.4"], ()) == "203.0.113.9"
    assert client_address("203.0.113.9", ["1.2.3.4"], proxies) == "203.0.113.9"
    # through the proxy: the address it appended, never what the client wrote left of it
    assert client_address("10.1.2.3", ["9.9.9.9, 198.51.100.4"], proxies) == "198.51.100.4"
    assert client_address("10.1.2.3", ["9.9.9.9", "198.51.100.4, 192.0.2.7"], proxies) == "198.51.100.4"
    assert client_address("10.1.2.3", ["[2001:db8::1]:5000"], proxies) == "2001:db8::1"
    assert client_address("10.1.2.3", ["198.51.100.4:5000"], proxies) == "198.51.100.4"
    # every hop trusted: the left-most; garbage before a trusted hop: that hop; no header: the proxy
    assert client_address("10.1.2.3", ["10.9.9.9, 10.0.0.2"], proxies) == "10.9.9.9"
    assert client_address("10.1.2.3", ["not-an-ip, 10.0.0.2"], proxies) == "10.0.0.2"
    assert client_address("10.1.2.3", [], proxies) == "10.1.2.3"
    assert client_address("testclient", ["1.2.3.4"], proxies) == "testclient"


def test_trusted_proxies_must_be_addresses_or_networks() -> None:
    with pytest.raises(ValueError, match="'proxy.internal' is not an IP address or network"):
        Settings(arbiter_trusted_proxies="10.0.0.1, proxy.internal")
    assert len(Settings(arbiter_trusted_proxies="::1,127.0.0.1,10.0.0.0/8").trusted_proxies) == 3


def test_an_ipv6_client_counts_by_its_64_and_the_counter_refills() -> None:
    assert client_key("2001:db8:1:2:aaaa::1") == client_key("2001:db8:1:2:bbbb::2") == "2001:db8:1:2::/64"
    assert client_key("::ffff:198.51.100.4") == "198.51.100.4"
    from app.api.limits import Allowance

    counters, rate = LocalCounters(), Allowance("t", 2, 10.0)
    assert [counters.check(rate, "a", True, now=100.0) for _ in range(3)] == [0.0, 0.0, 10.0]
    assert counters.check(rate, "a", False, now=105.0) == 5.0  # looking takes nothing
    assert counters.check(rate, "b", True, now=105.0) == 0.0  # another client has its own
    assert counters.check(rate, "a", True, now=110.0) == 0.0  # one came back after one interval


async def test_forwarded_for_from_an_untrusted_client_changes_no_bucket(sqlite_url: str) -> None:
    async with (
        started(settings(sqlite_url, arbiter_heavy_burst=3, arbiter_heavy_per_minute=1)) as app,
        client(app) as c,
    ):
        spoofed = [f"198.51.100.{i}" for i in range(5)]
        assert await heavy_codes(c, 5, spoofed) == [422, 422, 422, 429, 429]
        r = await c.post(HEAVY, json={}, headers={"X-Forwarded-For": "203.0.113.77"})
        assert_problem(r, 429)
        assert int(r.headers["retry-after"]) >= 1
        async with client(app, "192.0.2.50") as other:  # another socket is another client
            assert await heavy_codes(other, 1) == [422]


async def test_through_a_trusted_proxy_each_forwarded_client_has_its_bucket(
    sqlite_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    s = settings(
        sqlite_url, arbiter_heavy_burst=2, arbiter_heavy_per_minute=1, arbiter_trusted_proxies="10.0.0.0/8"
    )
    async with started(s) as app, client(app, "10.0.0.9") as proxy:
        # the proxy appends the address it was reached from; the client's own claim is left of it
        ann = ["1.1.1.1, 198.51.100.1", "2.2.2.2, 198.51.100.1", "3.3.3.3, 198.51.100.1"]
        assert await heavy_codes(proxy, 3, ann) == [422, 422, 429]
        assert await heavy_codes(proxy, 2, ["198.51.100.2", "198.51.100.2"]) == [422, 422]
        with caplog.at_level(logging.INFO, logger="arbiter.http"):
            r = await proxy.get(
                "/healthz", headers={"X-Forwarded-For": "198.51.100.3", "X-Forwarded-Proto": "https"}
            )
        assert r.status_code == 200
        lines = [
            rec.fields for rec in caplog.records if getattr(rec, "fields", {}).get("route") == "/healthz"
        ]
        assert lines and lines[-1]["client"] == "198.51.100.3"
        # the console's cookie is Secure when the proxy says the client came over HTTPS
        made = await proxy.post(
            "/console/events",
            data={
                "admin_token": ADMIN_TOKEN,
                "name": "Via the proxy",
                "game": "generic",
                "preset": "generic",
            },
            headers={
                "X-Forwarded-For": "198.51.100.3",
                "X-Forwarded-Proto": "https",
                "Origin": "https://arbiter.test",
            },
        )
        assert made.status_code == 200, made.text
        assert "secure" in made.headers["set-cookie"].lower()
    # a peer outside the trusted networks is its own client, whatever it forwards
    async with started(s) as app, client(app, "203.0.113.5") as direct:
        assert await heavy_codes(direct, 3, ["198.51.100.1", "198.51.100.2", "198.51.100.3"]) == [
            422,
            422,
            429,
        ]


# --------------------------------------------------------------------------- shared through Redis


async def test_two_app_instances_on_one_redis_share_one_limit(sqlite_url: str) -> None:
    queue = f"arbiter:test-edge:{uuid.uuid4().hex[:8]}"
    s = settings(
        sqlite_url,
        redis_url=redis_url(),
        arbiter_queue_name=queue,
        arbiter_heavy_burst=4,
        arbiter_heavy_per_minute=1,
        arbiter_auth_failures=3,
        arbiter_auth_failure_window=30,
    )
    async with started(s) as one, started(s) as two, client(one) as a, client(two) as b:
        assert one.state.limits.shared and two.state.limits.shared
        codes = [await heavy_codes(x, 1) for x in (a, b, a, b, a, b)]
        assert sum(codes, []) == [422, 422, 422, 422, 429, 429]
        # the failed tokens too: two in one process, one in the other, then neither looks at one
        for x in (a, a, b):
            assert_problem(await x.get("/v1/events/e1/entries/x", headers=bearer("guess")), 401)
        for x in (a, b):
            r = await x.get("/metrics", headers=bearer(ADMIN_TOKEN))
            assert_problem(r, 429)
            assert 1 <= int(r.headers["retry-after"]) <= 10


async def test_redis_away_the_process_counts_for_itself_and_nothing_fails(
    sqlite_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    s = settings(
        sqlite_url,
        redis_url=f"redis://127.0.0.1:{free_port()}/0",
        arbiter_heavy_burst=3,
        arbiter_heavy_per_minute=1,
    )
    async with started(s) as app, client(app) as c:
        with caplog.at_level(logging.WARNING, logger="arbiter.limits"):
            t0 = time.perf_counter()
            assert await heavy_codes(c, 5) == [422, 422, 422, 429, 429]
            elapsed = time.perf_counter() - t0
            r = await c.get("/v1/events", headers=bearer(ADMIN_TOKEN))
            assert r.status_code == 200
        warnings = [rec.getMessage() for rec in caplog.records if rec.name == "arbiter.limits"]
        assert len(warnings) == 1 and "counted per process" in warnings[0]
        print(f"5 limited requests with Redis unreachable: {elapsed * 1000:.1f} ms")


# --------------------------------------------------------------------------- failed tokens


async def test_failed_tokens_are_throttled_per_client_then_recover(backend_url: str) -> None:
    s = settings(backend_url, arbiter_auth_failures=3, arbiter_auth_failure_window=6)  # one back every 2 s
    async with started(s) as app, client(app) as c, client(app, "192.0.2.60") as other:
        made = await c.post(
            "/v1/events", json={"name": "Guarded", "game": "generic"}, headers=bearer(ADMIN_TOKEN)
        )
        assert made.status_code == 201
        event_id, organizer = made.json()["id"], made.json()["organizer_token"]
        entries = f"/v1/events/{event_id}/entries"
        # three guesses: a read, a body (the guard looks at the token before the body), a page
        assert_problem(await c.get(f"/v1/events/{event_id}/staff", headers=bearer("guess-1")), 401)
        assert_problem(await c.post(entries, json={"name": "X"}, headers=bearer("guess-2")), 401)
        r = await c.get(f"/e/{event_id}/me/view", headers=bearer("guess-3"))
        assert r.status_code == 401
        # the fourth is refused before its token is looked at, a good one too
        for token in ("guess-4", organizer):
            r = await c.post(entries, json={"name": "Y"}, headers=bearer(token))
            body = assert_problem(r, 429)
            assert body["type"] == "/problems/TooManyFailures" and "Retry-After" in body["detail"]
            assert 1 <= int(r.headers["retry-after"]) <= 2
        r = await c.get(f"/v1/events/{event_id}/staff", headers=bearer(organizer))
        assert_problem(r, 429)
        wait = int(r.headers["retry-after"])
        # what needs no token still answers; another client's good token is not affected
        assert (await c.get(f"/v1/events/{event_id}")).status_code == 200
        assert (await other.post(entries, json={"name": "Ann"}, headers=bearer(organizer))).status_code == 201
        assert_problem(await other.get(f"/v1/events/{event_id}/staff", headers=bearer("guess")), 401)
        # the console's sign-in counts the same failures, and answers the same refusal
        r = await c.post("/console/sign-in", data={"token": organizer})
        assert r.status_code == 429 and re.search(r"for the next \d s \(Retry-After\)", r.text)
        # after the interval one more try is back; after the window, the whole allowance
        await asyncio.sleep(wait + 0.1)
        assert (await c.post(entries, json={"name": "Bob"}, headers=bearer(organizer))).status_code == 201
        await asyncio.sleep(6.1)
        for n in range(3):
            r = await c.post("/console/sign-in", data={"token": f"wrong-{n}"})
            assert r.status_code == 303  # refused, and shown by the page it redirects to
        assert (await c.post("/console/sign-in", data={"token": organizer})).status_code == 429
        assert (await other.get(f"/v1/events/{event_id}/staff", headers=bearer(organizer))).status_code == 200


# --------------------------------------------------------------------------- headers


async def test_every_answer_says_nosniff_and_pages_carry_their_policy(sqlite_url: str) -> None:
    async with started(settings(sqlite_url)) as app, client(app) as c:
        for path in ("/v1/events", "/healthz", "/v1/events/nope", "/openapi.json", "/static/web/live.js"):
            r = await c.get(path)
            assert r.headers["x-content-type-options"] == "nosniff", path
            assert "content-security-policy" not in r.headers, path
        made = await c.post(
            "/v1/events", json={"name": "Framed", "game": "generic"}, headers=bearer(ADMIN_TOKEN)
        )
        eid = made.json()["id"]
        for path, framed in (
            ("/", True),
            (f"/e/{eid}", True),
            (f"/e/{eid}/projector", True),
            (f"/e/{eid}/print/pairings", True),
            ("/console", False),
            (f"/e/{eid}/me", False),
            ("/docs", False),
        ):
            r = await c.get(path, headers={"Accept": "text/html"})
            assert r.status_code == 200, path
            csp = r.headers["content-security-policy"]
            assert "script-src 'self';" in csp and "style-src 'self';" in csp and "object-src 'none'" in csp
            assert "unsafe-inline" not in csp and r.headers["x-content-type-options"] == "nosniff"
            assert (
                r.headers["referrer-policy"] == "same-origin"
                and "camera=()" in r.headers["permissions-policy"]
            )
            assert ("frame-ancestors 'none'" in csp) is not framed, path
            assert r.headers.get("x-frame-options") == (None if framed else "DENY"), path
            assert "<script>" not in r.text and " onclick=" not in r.text and "<style" not in r.text, path


# --------------------------------------------------------------------------- real processes


def _serve(where: Path, name: str, **values: str) -> tuple[Any, Path, str]:
    environ = env(
        DATABASE_URL=f"sqlite+aiosqlite:///{where / 'arbiter.db'}",
        ARBITER_ADMIN_TOKEN=ADMIN_TOKEN,
        ARBITER_LOG_FORMAT="json",
        ARBITER_SWEEP_SECONDS="3600",
        FORWARDED_ALLOW_IPS=None,
        **values,
    )
    port, log = free_port(), where / f"{name}.log"
    proc = spawn("serve", "--host", "127.0.0.1", "--port", str(port), environ=environ, log=log)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_http(f"{base}/healthz", proc)
    except BaseException:
        finish(proc, log)
        raise
    return proc, log, base


def _codes(base: str, forwarded: list[str]) -> list[int]:
    with httpx.Client(base_url=base, timeout=30) as c:
        return [c.post(HEAVY, json={}, headers={"X-Forwarded-For": f}).status_code for f in forwarded]


def test_arbiter_serve_trusts_no_forwarded_for_but_its_proxies_and_shares_limits(tmp_path: Path) -> None:
    """Real `arbiter serve` processes on the loopback (which uvicorn trusts by default): a spoofed
    X-Forwarded-For changes nothing, two processes on one Redis share the limit, and with
    ARBITER_TRUSTED_PROXIES naming the loopback the header names the client."""
    from app.cli import migrate

    migrate(f"sqlite+aiosqlite:///{tmp_path / 'arbiter.db'}")
    shared = {
        "REDIS_URL": redis_url(),
        "ARBITER_QUEUE_NAME": f"arbiter:test-edge:{uuid.uuid4().hex[:8]}",
        "ARBITER_HEAVY_BURST": "3",
        "ARBITER_HEAVY_PER_MINUTE": "1",
    }
    one = _serve(tmp_path, "one", **shared)
    try:
        two = _serve(tmp_path, "two", **shared)
        try:
            assert _codes(one[2], ["198.51.100.1", "198.51.100.2"]) == [422, 422]
            assert _codes(two[2], ["198.51.100.3", "198.51.100.4"]) == [422, 429]
            assert _codes(one[2], ["198.51.100.5"]) == [429]
        finally:
            lines = finish(*two[:2])
        assert {line.get("client") for line in lines if line.get("route") == HEAVY} == {"127.0.0.1"}
    finally:
        finish(*one[:2])
    trusting = _serve(
        tmp_path,
        "trusting",
        ARBITER_TRUSTED_PROXIES="127.0.0.1,::1",
        ARBITER_HEAVY_BURST="2",
        ARBITER_HEAVY_PER_MINUTE="1",
    )
    try:
        assert _codes(trusting[2], ["198.51.100.1", "198.51.100.2", "198.51.100.1", "198.51.100.1"]) == [
            422,
            422,
            422,
            429,
        ]
    finally:
        lines = finish(*trusting[:2])
    assert {line.get("client") for line in lines if line.get("route") == HEAVY} == {
        "198.51.100.1",
        "198.51.100.2",
    }
