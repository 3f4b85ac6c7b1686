"""Prometheus metrics of this process, and the hooks the code that moves them calls.

Counted here, in memory (or in ``PROMETHEUS_MULTIPROC_DIR`` when ``arbiter serve --workers N`` runs
several processes, so a scrape of any of them sums all): requests by method, route template and
status, with their latency; job attempts by kind and outcome, with their duration; live-update
subscribers; failed webhook deliveries. What the database knows — jobs by status, the oldest queued
job, rating pools' lag — is read at scrape time by the service behind ``GET /metrics`` and handed to
``render()`` as a ``Snapshot``, so every API process answers the same.

Hooks for code that is not written yet (docs/operations.md "Metrics"):
``sse_subscriber()`` around a live-updates stream, and ``webhook_delivery_failed()`` for each failed
delivery attempt. Both series are exported now, at zero.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

CONTENT_TYPE = CONTENT_TYPE_LATEST
MULTIPROCESS_ENV = "PROMETHEUS_MULTIPROC_DIR"

HTTP_REQUESTS = Counter(
    "arbiter_http_requests_total",
    "HTTP requests answered, by method, route template and status",
    ["method", "route", "status"],
)
HTTP_DURATION = Histogram(
    "arbiter_http_request_duration_seconds",
    "Time to answer an HTTP request, by method, route template and status",
    ["method", "route", "status"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0),
)
JOB_RUNS = Counter(
    "arbiter_job_runs_total",
    "Job attempts this process ran, by kind and outcome (done, failed, timed out, handed back)",
    ["kind", "outcome"],
)
JOB_DURATION = Histogram(
    "arbiter_job_duration_seconds",
    "Time one job attempt ran, by kind and outcome",
    ["kind", "outcome"],
    buckets=(0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 900.0),
)
SSE_SUBSCRIBERS = Gauge(
    "arbiter_sse_subscribers",
    "Clients connected to a live-updates stream",
    multiprocess_mode="livesum",
)
WEBHOOK_FAILURES = Counter(
    "arbiter_webhook_delivery_failures_total",
    "Webhook delivery attempts that failed",
)

UNMATCHED_ROUTE = "unmatched"  # a path no route serves (a 404 scan must not mint new series)


def observe_request(method: str, route: str, status: int, seconds: float) -> None:
    labels = (method, route, str(status))
    HTTP_REQUESTS.labels(*labels).inc()
    HTTP_DURATION.labels(*labels).observe(seconds)


def observe_job(kind: str, outcome: str, seconds: float) -> None:
    JOB_RUNS.labels(kind, outcome).inc()
    JOB_DURATION.labels(kind, outcome).observe(seconds)


@contextmanager
def sse_subscriber() -> Iterator[None]:
    """Wrap the life of one live-updates subscriber: counted while it stays connected."""
    SSE_SUBSCRIBERS.inc()
    try:
        yield
    finally:
        SSE_SUBSCRIBERS.dec()


def webhook_delivery_failed() -> None:
    """Count one failed webhook delivery attempt."""
    WEBHOOK_FAILURES.inc()


# --------------------------------------------------------------------------- what the database knows


@dataclass(frozen=True)
class JobCount:
    kind: str
    status: str
    count: int


@dataclass(frozen=True)
class PoolLag:
    """A rating pool's confirmed matches not yet in its ratings, and the age of the oldest."""

    pool: str
    matches: int
    seconds: float


@dataclass(frozen=True)
class Snapshot:
    version: str
    database: str
    queue: str
    jobs: Sequence[JobCount] = ()
    oldest_queued: dict[str, float] = field(default_factory=dict)  # kind → seconds
    pools: Sequence[PoolLag] = ()


class _SnapshotCollector(Collector):
    def __init__(self, snap: Snapshot) -> None:
        self.snap = snap

    def collect(self) -> Iterator[GaugeMetricFamily]:
        s = self.snap
        info = GaugeMetricFamily(
            "arbiter_build_info",
            "The running version, database kind and queue",
            labels=["version", "database", "queue"],
        )
        info.add_metric([s.version, s.database, s.queue], 1)
        yield info
        jobs = GaugeMetricFamily(
            "arbiter_jobs", "Jobs in the database, by kind and status", labels=["kind", "status"]
        )
        for j in s.jobs:
            jobs.add_metric([j.kind, j.status], j.count)
        yield jobs
        oldest = GaugeMetricFamily(
            "arbiter_jobs_oldest_queued_seconds",
            "Age of the oldest queued job, by kind (0: none)",
            labels=["kind"],
        )
        for kind, seconds in sorted(s.oldest_queued.items()):
            oldest.add_metric([kind], seconds)
        yield oldest
        lag = GaugeMetricFamily(
            "arbiter_rating_pool_lag_matches", "Confirmed matches not yet rated, by pool", labels=["pool"]
        )
        age = GaugeMetricFamily(
            "arbiter_rating_pool_lag_seconds",
            "Age of the oldest confirmed match not yet rated, by pool (0: none)",
            labels=["pool"],
        )
        for p in s.pools:
            lag.add_metric([p.pool], p.matches)
            age.add_metric([p.pool], p.seconds)
        yield lag
        yield age


def _process_registry() -> CollectorRegistry:
    path = os.environ.get(MULTIPROCESS_ENV)
    if not path:
        return REGISTRY
    from prometheus_client import multiprocess

    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=path)
    return registry


def render(snapshot: Snapshot | None = None) -> bytes:
    """The text exposition format: this process's (or every API process's) counters, then the snapshot."""
    out = generate_latest(_process_registry())
    if snapshot is not None:
        registry = CollectorRegistry(auto_describe=False)
        registry.register(_SnapshotCollector(snapshot))
        out += generate_latest(registry)
    return out


def serve(port: int, host: str) -> None:
    """Serve this process's metrics on their own port (a worker: docs/operations.md "Metrics")."""
    from prometheus_client import start_http_server

    start_http_server(port, addr=host)
