"""What an operator sees of the API, on Postgres and SQLite: request ids, the line per request and per
job in JSON, GET /metrics and who may read it, the rating pools' lag, the start-up lines, and the
retention's pruning."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import select, update

from app.db.base import utcnow
from app.db.models import IdempotencyKey, Job, RatingPool
from app.jobs import create_job
from app.main import create_app
from app.observability import metrics
from app.observability.logs import ContextFilter, JsonFormatter
from app.services.operations import prune
from app.settings import Settings
from app.version import __version__
from tests.support.api import Api, assert_problem, bearer, play_round, setup_event, start


class Lines:
    """The JSON log lines written while a test runs, parsed."""

    def __init__(self, stream: io.StringIO) -> None:
        self.stream = stream

    def all(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.stream.getvalue().splitlines() if line.strip()]

    def of(self, logger: str) -> list[dict[str, Any]]:
        return [line for line in self.all() if line["logger"] == logger]


@pytest.fixture
def log_lines() -> Iterator[Lines]:
    """Arbiter's JSON formatter and context filter on a handler of the test's own."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(ContextFilter())
    root, arbiter = logging.getLogger(), logging.getLogger("arbiter")
    level = arbiter.level
    root.addHandler(handler)
    arbiter.setLevel(logging.INFO)
    try:
        yield Lines(stream)
    finally:
        root.removeHandler(handler)
        arbiter.setLevel(level)


def scrape(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a Prometheus text exposition, by name and sorted labels."""
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def sample(samples: dict[Any, float], name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


async def read_metrics(api: Api) -> dict[Any, float]:
    r = await api.client.get("/metrics", headers=api.admin())
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain")
    return scrape(r.text)


# --------------------------------------------------------------------------- request ids and log lines


async def test_a_request_id_is_kept_made_or_replaced(api: Api) -> None:
    r = await api.client.get("/healthz", headers={"X-Request-ID": "phone-42:retry-1"})
    assert r.headers["x-request-id"] == "phone-42:retry-1"
    made = (await api.client.get("/healthz")).headers["x-request-id"]
    assert len(made) == 32 and int(made, 16) >= 0
    for unusable in ("has a space", "x" * 201, ""):
        r = await api.client.get("/healthz", headers={"X-Request-ID": unusable})
        assert r.headers["x-request-id"] != unusable and len(r.headers["x-request-id"]) == 32
    # an error answer carries it too
    r = await api.client.get("/v1/events/no-such-event", headers={"X-Request-ID": "lost-1"})
    assert r.status_code == 404 and r.headers["x-request-id"] == "lost-1"


async def test_one_json_line_per_request_with_the_route_template(api: Api, log_lines: Lines) -> None:
    await api.client.get("/v1/events/no-such-event", headers={"X-Request-ID": "req-a"})
    await api.client.get("/no/such/path", headers={"X-Request-ID": "req-b"})
    lines = {line["request_id"]: line for line in log_lines.of("arbiter.http")}
    a = lines["req-a"]
    assert a["method"] == "GET" and a["route"] == "/v1/events/{event_id}" and a["status"] == 404
    assert a["path"] == "/v1/events/no-such-event" and a["duration_ms"] > 0 and a["level"] == "INFO"
    assert lines["req-b"]["route"] == metrics.UNMATCHED_ROUTE and lines["req-b"]["status"] == 404
    assert len([line for line in log_lines.of("arbiter.http") if line["request_id"] == "req-a"]) == 1


async def test_the_request_id_is_carried_into_the_jobs_it_enqueues(api: Api, log_lines: Lines) -> None:
    eid, token, _ = await setup_event(api, ["Ada", "Grace"], name="Audit")
    r = await api.client.post(
        f"/v1/events/{eid}/integrity-check", headers={**bearer(token), "X-Request-ID": "audit-7"}
    )
    assert r.status_code == 202, r.text
    job_id = r.json()["job_id"]
    await api.drain_jobs()
    job = (await api.client.get(f"/v1/jobs/{job_id}")).json()
    assert job["status"] == "done" and job["request_id"] == "audit-7"
    (line,) = [line for line in log_lines.of("arbiter.jobs") if line.get("job_id") == job_id]
    assert line["request_id"] == "audit-7" and line["kind"] == "integrity_check"
    assert line["attempt"] == 1 and line["outcome"] == "done" and line["duration_ms"] >= 0


# --------------------------------------------------------------------------- GET /metrics


async def test_metrics_need_the_admin_or_the_metrics_token(api: Api) -> None:
    assert_problem(await api.client.get("/metrics"), 401)
    _, token, entries = await setup_event(api, ["Ada"], name="M")
    assert_problem(await api.client.get("/metrics", headers=bearer(token)), 403)
    assert_problem(await api.client.get("/metrics", headers=bearer(entries["Ada"]["entry_token"])), 403)
    assert (await api.client.get("/metrics", headers=api.admin())).status_code == 200
    assert_problem(await api.client.get("/metrics", headers=bearer("scraper-secret")), 401)
    settings = api.app.state.settings
    api.app.state.settings = settings.model_copy(update={"arbiter_metrics_token": "scraper-secret"})
    try:
        r = await api.client.get("/metrics", headers=bearer("scraper-secret"))
        assert r.status_code == 200 and "arbiter_build_info" in r.text
        # the metrics token reads the metrics and nothing else
        r = await api.client.post(
            "/v1/events", json={"name": "x", "game": "generic"}, headers=bearer("scraper-secret")
        )
        assert_problem(r, 403)
    finally:
        api.app.state.settings = settings
    assert "/metrics" not in api.app.openapi()["paths"]


async def test_requests_are_counted_by_route_template_and_status(api: Api) -> None:
    before = await read_metrics(api)
    for _ in range(3):
        await api.client.get("/v1/events/nope-1")
    await api.client.get("/v1/events/nope-2")
    await api.client.get("/totally/unknown")
    after = await read_metrics(api)
    labels = {"method": "GET", "route": "/v1/events/{event_id}", "status": "404"}
    count = "arbiter_http_requests_total"
    assert sample(after, count, **labels) - sample(before, count, **labels) == 4
    hist = "arbiter_http_request_duration_seconds_count"
    assert sample(after, hist, **labels) - sample(before, hist, **labels) == 4
    unmatched = {"method": "GET", "route": "unmatched", "status": "404"}
    assert sample(after, count, **unmatched) - sample(before, count, **unmatched) == 1
    assert not any("nope-1" in str(key) for key in after)  # raw paths never become labels


async def test_jobs_by_kind_and_status_and_the_oldest_queued(api: Api) -> None:
    eid, token, _ = await setup_event(api, ["Ada", "Grace"], name="J")
    for _ in range(2):  # one after the other: an unfinished check is shared, not repeated
        await api.client.post(f"/v1/events/{eid}/integrity-check", headers=bearer(token))
        await api.drain_jobs()
    async with api.app.state.sessionmaker() as s:
        waiting = await create_job(s, "integrity_check", {"event_id": eid})  # committed, never dispatched
        await s.flush()
        waiting.created_at = utcnow() - timedelta(minutes=5)
        await s.commit()
    m = await read_metrics(api)
    assert sample(m, "arbiter_jobs", kind="integrity_check", status="done") == 2
    assert sample(m, "arbiter_jobs", kind="integrity_check", status="queued") == 1
    assert ("arbiter_jobs", (("kind", "ratings_recompute"), ("status", "failed"))) in m  # zero, but there
    assert 300 <= sample(m, "arbiter_jobs_oldest_queued_seconds", kind="integrity_check") < 400
    assert sample(m, "arbiter_jobs_oldest_queued_seconds", kind="ratings_update") == 0
    info = sample(
        m,
        "arbiter_build_info",
        version=__version__,
        database=api.app.state.engine.dialect.name,
        queue="in-process",
    )
    assert info == 1
    # attempts run in this process (the embedded default runs its jobs itself)
    assert sample(m, "arbiter_job_runs_total", kind="integrity_check", outcome="done") >= 2
    assert sample(m, "arbiter_job_duration_seconds_count", kind="integrity_check", outcome="done") >= 2


async def test_rating_pools_lag_behind_their_confirmed_matches(api: Api) -> None:
    settings = {"rated": True, "stages": [{"format": "swiss", "rounds": 2}]}
    eid, token, _ = await setup_event(api, ["Ada", "Bob", "Cy", "Dee"], name="Rated", settings=settings)
    await play_round(api, token, (await start(api, eid, token))["round"])
    await api.drain_jobs()
    m = await read_metrics(api)
    assert sample(m, "arbiter_rating_pool_lag_matches", pool="generic") == 0  # the jobs caught up
    assert sample(m, "arbiter_rating_pool_lag_seconds", pool="generic") == 0

    async with api.app.state.sessionmaker() as s:
        pool = await s.get(RatingPool, "generic")
        assert pool is not None and pool.last_match_id is not None
        last = pool.last_match_id
        # as if no ratings job had run yet: both confirmed matches are owed
        await s.execute(update(RatingPool).values(last_seq=None, last_match_id=None))
        await s.commit()
    m = await read_metrics(api)
    assert sample(m, "arbiter_rating_pool_lag_matches", pool="generic") == 2
    assert sample(m, "arbiter_rating_pool_lag_seconds", pool="generic") > 0

    # the mark on the first-rated match: one match is owed
    matches = (await api.client.get(f"/v1/events/{eid}/rounds/1")).json()["matches"]
    other = next(x["id"] for x in matches if x["id"] != last)
    async with api.app.state.sessionmaker() as s:
        await s.execute(update(RatingPool).values(last_seq=1, last_match_id=other))
        await s.commit()
    m = await read_metrics(api)
    assert sample(m, "arbiter_rating_pool_lag_matches", pool="generic") == 1


async def test_the_hooks_for_live_updates_and_webhooks_count_from_zero(api: Api) -> None:
    m = await read_metrics(api)
    assert ("arbiter_sse_subscribers", ()) in m
    assert ("arbiter_webhook_delivery_failures_total", ()) in m
    subscribers, failures = (
        m[("arbiter_sse_subscribers", ())],
        m[("arbiter_webhook_delivery_failures_total", ())],
    )
    with metrics.sse_subscriber(), metrics.sse_subscriber():
        metrics.webhook_delivery_failed()
        during = await read_metrics(api)
    assert during[("arbiter_sse_subscribers", ())] == subscribers + 2
    assert during[("arbiter_webhook_delivery_failures_total", ())] == failures + 1
    assert (await read_metrics(api))[("arbiter_sse_subscribers", ())] == subscribers


# --------------------------------------------------------------------------- start-up


async def test_startup_says_what_it_runs_with_and_warns_without_an_admin(
    api: Api, log_lines: Lines, sqlite_url: str
) -> None:
    app = create_app(
        Settings(
            database_url=sqlite_url, redis_url=None, arbiter_admin_token=None, arbiter_sweep_seconds=3600
        )
    )
    async with app.router.lifespan_context(app):
        pass
    lines = log_lines.of("arbiter")
    (hello,) = [line for line in lines if line["msg"].startswith("arbiter ")]
    assert (
        hello["version"] == __version__ and hello["database"] == "sqlite" and hello["queue"] == "in-process"
    )
    assert any(line["level"] == "WARNING" and "ARBITER_ADMIN_TOKEN" in line["msg"] for line in lines)
    with_admin = create_app(
        Settings(database_url=sqlite_url, arbiter_admin_token="t", arbiter_sweep_seconds=3600)
    )
    async with with_admin.router.lifespan_context(with_admin):
        pass
    assert sum("ARBITER_ADMIN_TOKEN" in line["msg"] for line in log_lines.of("arbiter")) == 1


# --------------------------------------------------------------------------- retention


async def test_pruning_removes_only_what_outlived_its_retention(api: Api) -> None:
    now = utcnow()
    async with api.app.state.sessionmaker() as s:
        for key, age in (("old", timedelta(hours=30)), ("fresh", timedelta(hours=1))):
            s.add(IdempotencyKey(key_hash=key, request_hash="0" * 64, sealed=b"", created_at=now - age))
        for status, age in (("done", 9), ("failed", 9), ("done", 1), ("queued", 30), ("running", 30)):
            job = await create_job(s, "integrity_check", {"event_id": "x"})
            job.status = status
            job.created_at = now - timedelta(days=age)
            job.finished_at = now - timedelta(days=age) if status in ("done", "failed") else None
        await s.commit()
    retention = {"idempotency_keys": timedelta(hours=24), "jobs": timedelta(days=7)}
    async with api.app.state.sessionmaker() as s:
        assert await prune(s, {"idempotency_keys": None, "jobs": None}, now) == {}  # kept forever
        assert await prune(s, retention, now) == {"idempotency_keys": 1, "jobs": 2}
        await s.commit()
    async with api.app.state.sessionmaker() as s:
        assert set((await s.execute(select(IdempotencyKey.key_hash))).scalars()) == {"fresh"}
        left = sorted((await s.execute(select(Job.status))).scalars())
        assert left == ["done", "queued", "running"]  # unfinished jobs stay, however old
        assert await prune(s, retention, now) == {"idempotency_keys": 0, "jobs": 0}
