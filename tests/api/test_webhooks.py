"""Webhooks through HTTP with a real receiver (an HTTP server of the test's own on the loopback), on
Postgres and on SQLite: registration and its refusals, signed deliveries checked by the Standard
Webhooks library, retries with backoff, an endpoint disabled after a day of failures, the delivery
log, the secrets kept encrypted, retention."""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
import standardwebhooks
from sqlalchemy import select, update

from app.core import webhooks as core
from app.db.base import utcnow
from app.db.models import OutboxEvent, Webhook, WebhookDelivery
from app.main import create_app
from app.services import operations, webhooks
from app.services.webhooks import SecretBox, WebhookPolicy
from app.settings import Settings
from tests.support.api import ADMIN_TOKEN, Api, api_client, assert_problem, bearer, report, setup_event, start
from tests.support.hostile import hostile, rss_bytes
from tests.support.live import receiver
from tests.support.services import clean


async def hook(api: Api, event_id: str, token: str, url: str, **body: Any) -> dict[str, Any]:
    r = await api.client.post(
        f"/v1/events/{event_id}/webhooks", json={"url": url, **body}, headers=bearer(token)
    )
    assert r.status_code == 201, r.text
    assert r.headers["location"] == f"/v1/events/{event_id}/webhooks/{r.json()['id']}"
    return r.json()


async def running(api: Api) -> tuple[str, str, dict[str, Any]]:
    eid, token, _ = await setup_event(
        api, ["Ada", "Bob"], settings={"stages": [{"format": "swiss", "rounds": 1}]}
    )
    return eid, token, (await start(api, eid, token))["round"]["matches"][0]


async def deliveries(api: Api, eid: str, token: str, hook_id: str) -> list[dict[str, Any]]:
    r = await api.client.get(f"/v1/events/{eid}/webhooks/{hook_id}/deliveries", headers=bearer(token))
    assert r.status_code == 200, r.text
    items: list[dict[str, Any]] = r.json()["items"]
    return items


async def redeliver(api: Api, later: timedelta) -> list[str]:
    """The sweep's turn as if ``later`` had passed: due deliveries handed to jobs, which run."""
    async with api.app.state.sessionmaker() as s:
        jobs = await webhooks.redeliver(s, now=utcnow() + later)
        await s.commit()
    await api.app.state.dispatcher.dispatch(jobs)
    await api.drain_jobs()
    return jobs


async def test_a_reported_result_reaches_the_receiver_signed(api: Api) -> None:
    async with receiver() as rec:
        eid, token, match = await running(api)
        created = await hook(api, eid, token, rec.url, events=["match.confirmed"])
        secret = created["secret"]
        assert (
            secret.startswith("whsec_")
            and created["status"] == "active"
            and created["events"] == ["match.confirmed"]
        )
        listed = (await api.client.get(f"/v1/events/{eid}/webhooks", headers=bearer(token))).json()["items"]
        assert [h["id"] for h in listed] == [created["id"]] and "secret" not in listed[0]  # shown once

        await report(api, token, match, [1, 2])
        got = (await rec.wait_for(1, within=2.0))[0]  # a reported result reaches the receiver in 2 s
        body = got.json
        assert body["type"] == "match.confirmed" and body["event_id"] == eid
        assert body["data"]["match_id"] == match["id"] and body["data"]["result"]["seats"][0]["place"] == 1
        assert got.headers["webhook-id"] == str(body["id"])
        assert got.headers["content-type"] == "application/json"
        # the Standard Webhooks library verifies it, and Arbiter's own reference agrees
        standardwebhooks.Webhook(secret).verify(got.body, got.headers)
        assert core.verify(secret, got.headers, got.body, int(time.time()))
        assert not core.verify(secret, got.headers, got.body + b" ", int(time.time()))
        with pytest.raises(standardwebhooks.WebhookVerificationError):
            standardwebhooks.Webhook(core.SECRET_PREFIX + "c2VjcmV0LW9mLWFub3RoZXI=").verify(
                got.body, got.headers
            )

        await api.drain_jobs()
        log = await deliveries(api, eid, token, created["id"])
        assert [(d["type"], d["status"], d["attempts"], d["last_status_code"]) for d in log] == [
            ("match.confirmed", "delivered", 1, 204)
        ]
        assert log[0]["event_id"] == body["id"] and log[0]["next_attempt_at"] is None
        assert len(rec.received) == 1  # standings.changed was not asked for


async def test_the_admin_s_webhook_covers_every_event(api: Api) -> None:
    async with receiver() as rec:
        r = await api.client.post("/v1/webhooks", json={"url": rec.url}, headers=api.admin())
        assert r.status_code == 201, r.text
        admin_hook = r.json()
        assert admin_hook["event_id"] is None and admin_hook["events"] is None
        first, token, _ = await setup_event(api, ["Ada"])
        second, other_token, _ = await setup_event(api, ["Bob"])
        got = await rec.wait_for(2)
        assert {d.json["event_id"] for d in got} == {first, second}
        assert {d.json["type"] for d in got} == {"entry.registered"}
        # an organizer neither registers nor reads every event's endpoints
        r = await api.client.post("/v1/webhooks", json={"url": rec.url}, headers=bearer(token))
        assert_problem(r, 403)
        assert_problem(await api.client.get("/v1/webhooks", headers=bearer(token)), 403)
        assert_problem(await api.client.get(f"/v1/events/{first}/webhooks", headers=bearer(other_token)), 403)
        listed = (await api.client.get("/v1/webhooks", headers=api.admin())).json()["items"]
        assert [h["id"] for h in listed] == [admin_hook["id"]]
        await api.drain_jobs()
        log = (
            await api.client.get(f"/v1/webhooks/{admin_hook['id']}/deliveries", headers=api.admin())
        ).json()
        assert len(log["items"]) == 2 and {d["status"] for d in log["items"]} == {"delivered"}
        r = await api.client.delete(f"/v1/webhooks/{admin_hook['id']}", headers=api.admin())
        assert r.status_code == 204
        assert_problem(await api.client.get(f"/v1/webhooks/{admin_hook['id']}", headers=api.admin()), 404)


async def test_a_failing_receiver_is_retried_with_backoff_until_it_answers(api: Api) -> None:
    failures = await _failures(api)
    async with receiver(fail_first=2) as rec:
        eid, token, match = await running(api)
        created = await hook(api, eid, token, rec.url, events=["match.confirmed"])
        await report(api, token, match, [1, 2])
        await rec.wait_for(1)
        await api.drain_jobs()
        [d] = await deliveries(api, eid, token, created["id"])
        assert (d["status"], d["attempts"], d["last_status_code"]) == ("pending", 1, 500)
        assert d["last_error"].startswith("HTTP 500")
        wait = (_at(d["next_attempt_at"]) - _at(d["last_attempt_at"])).total_seconds()
        assert wait == pytest.approx(core.retry_delay(1), abs=1)

        assert await redeliver(api, timedelta(seconds=1)) == []  # not due yet: nothing is sent
        assert len(rec.received) == 1
        assert len(await redeliver(api, timedelta(seconds=core.retry_delay(1) + 1))) == 1
        [d] = await deliveries(api, eid, token, created["id"])
        assert (d["status"], d["attempts"]) == ("pending", 2)
        wait = (_at(d["next_attempt_at"]) - _at(d["last_attempt_at"])).total_seconds()
        assert wait == pytest.approx(core.retry_delay(2), abs=1)  # the delay doubles

        await redeliver(api, timedelta(hours=1))
        [d] = await deliveries(api, eid, token, created["id"])
        assert (d["status"], d["attempts"], d["last_error"]) == ("delivered", 3, None)
        assert await _failures(api) == failures + 2  # each failed attempt counted
        ids = {r.headers["webhook-id"] for r in rec.received}
        assert len(rec.received) == 3 and len(ids) == 1  # one event id, for the receiver to de-duplicate
        for r in rec.received:
            standardwebhooks.Webhook(created["secret"]).verify(r.body, r.headers)
        assert (
            await api.client.get(f"/v1/events/{eid}/webhooks/{created['id']}", headers=bearer(token))
        ).json()["failing_since"] is None


async def test_an_endpoint_failing_for_a_day_is_disabled_and_says_so(api: Api) -> None:
    async with receiver(fail_first=1000) as rec:
        eid, token, match = await running(api)
        created = await hook(api, eid, token, rec.url)
        async with api.app.state.sessionmaker() as s:  # it has failed since yesterday
            await s.execute(
                update(Webhook)
                .where(Webhook.id == created["id"])
                .values(failing_since=utcnow() - timedelta(hours=25))
            )
            await s.commit()
        await report(api, token, match, [1, 2])
        await api.drain_jobs()
        read = (
            await api.client.get(f"/v1/events/{eid}/webhooks/{created['id']}", headers=bearer(token))
        ).json()
        assert read["status"] == "disabled"
        assert "failed for a day" in read["disabled_reason"] and "HTTP 500" in read["disabled_reason"]
        statuses = {d["status"] for d in await deliveries(api, eid, token, created["id"])}
        assert statuses == {"failed"}
        sent = len(rec.received)
        await api.client.post(f"/v1/events/{eid}/advance", headers=bearer(token))
        await api.drain_jobs()
        assert len(rec.received) == sent  # a disabled endpoint is sent nothing more


async def test_bad_urls_and_unknown_event_types_are_refused(api: Api) -> None:
    eid, token, _ = await setup_event(api, ["Ada"])
    for url, words in (
        ("ftp://example.org/x", "http and https"),
        ("https://user:pw@127.0.0.1/x", "credentials"),
        ("http:///nohost", "no host"),
        ("not a url", "http and https"),
    ):
        r = await api.client.post(f"/v1/events/{eid}/webhooks", json={"url": url}, headers=bearer(token))
        body = assert_problem(r, 422)
        assert body["errors"][0]["loc"] == ["url"] and words in body["errors"][0]["msg"], body
    r = await api.client.post(
        f"/v1/events/{eid}/webhooks",
        json={"url": "http://127.0.0.1:9/x", "events": ["match.won"]},
        headers=bearer(token),
    )
    assert assert_problem(r, 422)["errors"][0]["loc"][:2] == ["body", "events"]
    assert_problem(await api.client.post("/v1/events/nope/webhooks", json={"url": "http://127.0.0.1/"}), 401)
    r = await api.client.post(
        "/v1/events/nope/webhooks", json={"url": "http://127.0.0.1/"}, headers=api.admin()
    )
    assert_problem(r, 404)
    async with api.app.state.sessionmaker() as s:
        assert (await s.execute(select(Webhook))).first() is None  # nothing was registered


@pytest.fixture(params=["postgres", "sqlite"])
async def strict_api(request: pytest.FixtureRequest) -> AsyncIterator[Api]:
    """The API as shipped: private targets refused; webhook secrets encrypted with a server key."""
    url = request.getfixturevalue("pg_url" if request.param == "postgres" else "sqlite_url")
    settings = Settings(
        database_url=url,
        redis_url=None,
        arbiter_admin_token=ADMIN_TOKEN,
        arbiter_sweep_seconds=3600,
        arbiter_webhook_allow_private=False,
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        await clean(app.state.engine)
        async with api_client(app, request.param) as client:
            yield client
        await client.drain_jobs()


async def test_private_loopback_and_link_local_targets_are_refused(strict_api: Api) -> None:
    api = strict_api
    eid, token, _ = await setup_event(api, ["Ada"])
    for url, word in (
        ("http://127.0.0.1:8080/hook", "loopback"),
        ("http://localhost/hook", "loopback"),
        ("http://[::1]/hook", "loopback"),
        ("http://10.1.2.3/hook", "private"),
        ("https://192.168.0.10/hook", "private"),
        ("http://169.254.169.254/latest/meta-data", "link-local"),
        ("http://[::ffff:127.0.0.1]/", "loopback"),
        ("http://0.0.0.0/", "unspecified"),
        ("http://[2002:7f00:1::]/", "6to4 address of 127.0.0.1"),
        ("http://[fec0::1]/", "site-local"),
        ("http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "Teredo"),
    ):
        r = await api.client.post(f"/v1/events/{eid}/webhooks", json={"url": url}, headers=bearer(token))
        body = assert_problem(r, 422)
        assert word in body["detail"] and "ARBITER_WEBHOOK_ALLOW_PRIVATE" in body["detail"], (url, body)
    r = await api.client.post("/v1/webhooks", json={"url": "http://127.0.0.2/"}, headers=api.admin())
    assert_problem(r, 422)


async def test_delivery_checks_the_address_again_after_resolving(api: Api) -> None:
    # registered while private targets were allowed; delivered where they are not: refused, unsent
    strict = WebhookPolicy(allow_private=False)
    async with receiver() as rec:
        attempt = webhooks._Attempt(f"http://localhost:{rec.port}/x", "whsec_c2VjcmV0", "1", b"{}")
        code, error = await webhooks.post(attempt, strict)
        assert code is None and error is not None and error.startswith("refused") and "loopback" in error
        assert rec.received == []
        code, error = await webhooks.post(attempt, WebhookPolicy(allow_private=True))
        assert (code, error) == (204, None) and len(rec.received) == 1
        assert (
            rec.received[0].headers["host"] == f"localhost:{rec.port}"
        )  # the name, though the address was used


async def test_secrets_are_kept_encrypted_and_survive_a_key_rotation(strict_api: Api) -> None:
    api = strict_api
    eid, token, _ = await setup_event(api, ["Ada"])
    box = SecretBox(("new-key", "old-key"))
    sealed = box.seal("whsec_c2VjcmV0")
    assert sealed.startswith("fernet:") and "c2VjcmV0" not in sealed
    assert box.open(sealed) == "whsec_c2VjcmV0"
    assert (
        SecretBox(("newer-key", "new-key")).open(sealed) == "whsec_c2VjcmV0"
    )  # rotated: old keys still open
    with pytest.raises(ValueError, match="no longer holds"):
        SecretBox(("another",)).open(sealed)
    with pytest.raises(ValueError, match="ARBITER_SECRET_KEY"):
        SecretBox().seal("whsec_x")  # never kept in clear
    with pytest.raises(ValueError, match="ARBITER_SECRET_KEY"):
        SecretBox().open(sealed)
    # through the API: the stored secret is not the one shown (a public address literal resolves
    # without a lookup; it only ever wants event.deleted, which this test never sends)
    r = await api.client.post(
        f"/v1/events/{eid}/webhooks",
        json={"url": "http://1.1.1.1/x", "events": ["event.deleted"]},
        headers=bearer(token),
    )
    assert r.status_code == 201, r.text
    shown = r.json()["secret"]
    async with api.app.state.sessionmaker() as s:
        stored = (await s.execute(select(Webhook.secret))).scalar_one()
        assert webhooks.policy_of(s).box.open(stored) == shown
    assert stored.startswith("fernet:") and shown not in stored and shown.removeprefix("whsec_") not in stored
    with pytest.raises(ValueError, match="no longer holds"):
        box.open(stored)  # sealed under the server's key, not these


async def test_old_deliveries_and_outbox_rows_are_pruned(api: Api) -> None:
    async with receiver() as rec:
        eid, token, match = await running(api)
        created = await hook(api, eid, token, rec.url)
        await report(api, token, match, [1, 2])
        await api.drain_jobs()
    async with api.app.state.sessionmaker() as s:
        later = utcnow() + timedelta(days=8)
        keep = {"webhook_deliveries": timedelta(days=7), "outbox": timedelta(days=7)}
        assert await operations.prune(s, keep, now=utcnow()) == {"webhook_deliveries": 0, "outbox": 0}
        deleted = await operations.prune(s, keep, now=later)
        await s.commit()
        assert deleted["webhook_deliveries"] >= 2 and deleted["outbox"] >= 4
        assert (await s.execute(select(OutboxEvent).where(OutboxEvent.event_id == eid))).first() is None
        assert (await s.execute(select(WebhookDelivery))).first() is None
    assert await deliveries(api, eid, token, created["id"]) == []


async def _failures(api: Api) -> float:
    """``arbiter_webhook_delivery_failures_total`` as ``GET /metrics`` says it."""
    text = (await api.client.get("/metrics", headers=api.admin())).text
    line = next(x for x in text.splitlines() if x.startswith("arbiter_webhook_delivery_failures_total "))
    return float(line.split()[1])


def _at(text: str) -> Any:
    from datetime import datetime

    return datetime.fromisoformat(text.replace("Z", "+00:00"))


# --------------------------------------------------------------------------- hostile receivers
BOUNDS = {"connect": 1.5, "first_byte": 1.0, "total": 3.5, "per_receiver": 2}  # connect + first byte < total


@pytest.fixture(params=["postgres", "sqlite"])
async def bounded_api(request: pytest.FixtureRequest) -> AsyncIterator[Api]:
    """The API with deliveries bounded tightly, so that a few seconds of dripping prove the deadlines."""
    url = request.getfixturevalue("pg_url" if request.param == "postgres" else "sqlite_url")
    settings = Settings(
        database_url=url,
        redis_url=None,
        arbiter_admin_token=ADMIN_TOKEN,
        arbiter_sweep_seconds=3600,
        arbiter_webhook_allow_private=True,
        arbiter_webhook_connect_timeout=BOUNDS["connect"],
        arbiter_webhook_first_byte_timeout=BOUNDS["first_byte"],
        arbiter_webhook_timeout=BOUNDS["total"],
        arbiter_webhook_max_per_receiver=BOUNDS["per_receiver"],
        arbiter_webhook_max_deliveries=16,
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        await clean(app.state.engine)
        async with api_client(app, request.param) as client:
            yield client
        await client.drain_jobs()


@dataclass
class Phase:
    """What one round of results cost while its event's receivers answered as they do."""

    results: list[float]
    probes: list[float]
    late: dict[str, float]
    grown: int
    event_id: str
    token: str
    hooks: dict[str, str]

    @property
    def p99(self) -> float:
        ordered = sorted(self.probes)
        return ordered[max(0, int(len(ordered) * 0.99) - 1)]

    def line(self, name: str) -> str:
        return (
            f"{name}: RSS +{self.grown / 2**20:.1f} MB, /healthz p99 {self.p99 * 1000:.1f} ms "
            f"({len(self.probes)} probes), results max {max(self.results) * 1000:.0f} ms "
            f"(median {statistics.median(self.results) * 1000:.0f} ms), healthy deliveries at most "
            f"{max(self.late.values()) * 1000:.0f} ms after their result"
        )


async def _phase(api: Api, urls: dict[str, str], healthy: Any, busy: list[Any]) -> Phase:
    """Sixteen entries, eight results, with webhooks to ``urls`` and to ``healthy``; /healthz probed
    all along, until no connection of ``busy`` is open any more (bounded by the total deadline)."""
    eid, token, _ = await setup_event(
        api, [f"P{i}" for i in range(16)], settings={"stages": [{"format": "swiss", "rounds": 1}]}
    )
    matches = (await start(api, eid, token))["round"]["matches"]
    hooks = {
        name: (await hook(api, eid, token, url, events=["match.confirmed"]))["id"]
        for name, url in urls.items()
    }
    await hook(api, eid, token, healthy.url, events=["match.confirmed"])
    seen = len(healthy.received)
    before = rss_bytes()
    probes: list[float] = []
    stop = asyncio.Event()

    async def probe() -> None:
        while not stop.is_set():
            t = time.perf_counter()
            r = await api.client.get("/healthz")
            probes.append(time.perf_counter() - t)
            assert r.status_code == 200
            await asyncio.sleep(0.01)

    prober = asyncio.create_task(probe())
    results: list[float] = []
    reported: dict[str, float] = {}
    for match in matches:
        t = time.perf_counter()
        await report(api, token, match, [1, 2])
        results.append(time.perf_counter() - t)
        reported[match["id"]] = time.monotonic()
    # a bound for a delivery that never comes, not the judgement: how late each came is compared
    # with the calm phase's by the test (in a parallel run on a loaded 2-core machine, one healthy
    # delivery came more than 5 s after its result)
    got = (await healthy.wait_for(seen + len(matches), within=30.0))[seen:]
    late = {d.json["data"]["match_id"]: d.at - reported[d.json["data"]["match_id"]] for d in got}
    ends = time.monotonic() + BOUNDS["total"] + 1.5  # every attempt ends within its total deadline
    while any(rec.open_now for rec in busy) and time.monotonic() < ends:  # noqa: ASYNC110 (threads)
        await asyncio.sleep(0.05)
    stop.set()
    await prober
    await api.drain_jobs()
    assert [rec.open_now for rec in busy] == [0] * len(busy)
    assert sorted(late) == sorted(m["id"] for m in matches)  # each once: no redirect was followed
    return Phase(results, probes, late, rss_bytes() - before, eid, token, hooks)


async def test_hostile_receivers_cost_their_own_slots_and_nothing_else(bounded_api: Api) -> None:
    """A receiver dripping its headers, one dripping its body, one streaming 300 MB and one
    redirecting, beside a healthy one: each attempt ends within its deadline, reads at most 64 KB,
    follows no redirect, takes at most its receiver's slots; memory stays flat, and /healthz, the
    results and the healthy receiver's deliveries are as fast as beside four healthy receivers (run
    first, side by side: the same deliveries' own work)."""
    api = bounded_api
    async with receiver() as healthy, receiver() as stand_in:
        calm = await _phase(api, {f"calm{i}": f"{stand_in.url}/{i}" for i in range(4)}, healthy, [])
        with (
            hostile("drip_head") as drip_head,
            hostile("drip_body") as drip_body,
            hostile("huge") as huge,
            hostile("redirect", location=healthy.url) as redirect,
        ):
            hostiles = {"drip_head": drip_head, "drip_body": drip_body, "huge": huge, "redirect": redirect}
            hurt = await _phase(
                api, {name: rec.url for name, rec in hostiles.items()}, healthy, list(hostiles.values())
            )
    print(f"\n[{api.backend}] " + calm.line("beside healthy receivers"))
    print(f"[{api.backend}] " + hurt.line("beside hostile receivers"))
    print(
        f"[{api.backend}] the 300 MB receiver got {huge.sent / 2**20:.1f} MB out; most connections open "
        f"at once per receiver {dict((n, r.most_open) for n, r in hostiles.items())}"
    )
    assert hurt.grown < 50 * 2**20
    # what hostile receivers did before their bounds: /healthz at 8.5 s, a result at 41 s. The suite
    # runs beside another worker (a fuzz run, a browser), whose own spikes reach the p99 of a few
    # hundred probes: the bounds are far below the stall and far above that noise (the printed lines
    # give the figures themselves)
    assert hurt.p99 < max(0.250, 4 * calm.p99)
    assert max(hurt.results) < max(1.0, 4 * max(calm.results))
    assert max(hurt.late.values()) < max(3.0, 3 * max(calm.late.values()))
    assert len(healthy.received) == 2 * len(hurt.late)
    assert huge.sent < 50 * 2**20  # never read through: the connection closed after 64 KB
    for name, rec in hostiles.items():
        assert 1 <= rec.most_open <= BOUNDS["per_receiver"], (name, rec.most_open)

    errors = {}
    for name, hook_id in hurt.hooks.items():
        log = await deliveries(api, hurt.event_id, hurt.token, hook_id)
        tried = [d for d in log if d["attempts"] == 1]
        # the receiver's slots were taken: the rest wait for the sweep, unattempted
        assert tried and all(d["status"] == "pending" for d in log)
        assert {d["attempts"] for d in log} <= {0, 1}
        errors[name] = {d["last_error"] for d in tried}
    assert errors["drip_head"] == {f"no answer within {BOUNDS['first_byte']:g} s"}, errors
    assert errors["drip_body"] == {f"no complete answer within {BOUNDS['total']:g} s"}, errors
    assert all(e.startswith("HTTP 500: ====") and len(e) < 300 for e in errors["huge"]), errors
    assert all("redirects are not followed" in e for e in errors["redirect"]), errors
