"""The service path through HTTP (not a test): ``python -m bench.http [--quick] [--only sqlite|postgres]
[--parts events,big,start|none]``.

Arbiter is served by uvicorn in a process of its own (``arbiter serve``), on Postgres and on the
embedded SQLite default; beside it, in the same run and served the same way, a bare FastAPI app on
the same stack (``bench/http_bare.py``: one single-query read, one single-row update, and a result's
floor — the statements a reported result writes, at their fewest, hand-written — which the result
lines are compared with too: what the stack and this machine allow a result at all; and the same
without the event's serialization, what the commit-ordered outbox costs). The load comes
from several client processes, each holding keep-alive connections of a small HTTP/1.1 client of its
own (32 requests in flight in all), so that the load generator costs a fraction of what it measures.

On each database: a Swiss event of 512 entries played for 5 rounds — every result posted at 32
concurrent, each next round paired alone — then its standings read alone and 128 times at 32
concurrent, and its last round the same way (its size as sent gzipped and as JSON, with and without
``?explain=true``; target p50 under 5 ms alone); ten events of 64 entries taking their results at
once, then the same on a server of the other process count (one beside two) on the same database;
an event of 10,000 entries started (``--parts start``: only that), its first round's results
posted, its second round paired and its standings read. The write path's two throughput targets
are printed as ratios: one event's results at 32 concurrent against the bare one-row update's rate
(at least 0.5), ten events at once on two processes against one (at least 1.6). Each figure (p50 /
p99 / throughput / errors) is printed with its ratio to the bare endpoint of its kind; each start
and pairing with the server's CPU it took (``/proc``, 10 ms ticks), which a busy machine does not
inflate, and each pairing beside its target in that CPU: at most 100 ms for a round of 512 entries,
1.5 s for starting the 10,000-entry event (its round 1 paired), 3 s for its round 2.
``--quick`` plays small events (the suite's smoke test).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "bench-admin"
CONCURRENCY = 32
CLIENT_PROCESSES = 4
TIMEOUT = 30.0
PG_ADMIN = os.environ.get("BENCH_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
# the pairing targets (seconds of the server's CPU): any round of the 512-entry event, and starting
# the 10,000-entry one (its round 1 paired); round 2 of the 10,000-entry one
PAIR_TARGET = 0.100
BIG_START_TARGET = 1.5
BIG_PAIR_TARGET = 3.0
ROUND_TARGET = 0.005  # GET a round of the 512-entry event, p50 (issue 28)

Request = tuple[str, str, bytes, str | None]  # method, path, body, bearer token


# --------------------------------------------------------------------------- the load generator
async def _exchange(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, host: str, req: Request
) -> tuple[int, bytes]:
    method, path, body, token = req
    head = f"{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Length: {len(body)}\r\n"
    if body:
        head += "Content-Type: application/json\r\n"
    if token:
        head += f"Authorization: Bearer {token}\r\n"
    head += "Accept-Encoding: gzip\r\n"  # as browsers and HTTP libraries ask
    writer.write(head.encode() + b"\r\n" + body)
    raw = await reader.readuntil(b"\r\n\r\n")
    lines = raw.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:] if ln)}
    if "content-length" in headers:
        data = await reader.readexactly(int(headers["content-length"]))
    elif headers.get("transfer-encoding") == "chunked":
        parts = []
        while True:
            size = int((await reader.readuntil(b"\r\n")).strip(), 16)
            parts.append(await reader.readexactly(size + 2))
            if size == 0:
                break
        data = b"".join(parts)
    else:
        data = b""
    if headers.get("connection") == "close":
        raise ConnectionResetError("closed by the server")
    return status, data


async def _drive(port: int, requests: list[Request], conns: int) -> list[tuple[float, int]]:
    """Send ``requests`` over ``conns`` keep-alive connections; (seconds, status) of each, status 0
    for a timeout or a broken connection."""
    out: list[tuple[float, int]] = []
    it = iter(requests)
    host = f"127.0.0.1:{port}"

    async def connection() -> None:
        stream: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        for req in it:
            t0 = time.perf_counter()
            try:
                if stream is None:
                    stream = await asyncio.open_connection("127.0.0.1", port)
                status, _ = await asyncio.wait_for(_exchange(*stream, host, req), TIMEOUT)
            except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError):
                status = 0
                if stream is not None:
                    stream[1].close()
                stream = None
            out.append((time.perf_counter() - t0, status))
        if stream is not None:
            stream[1].close()

    await asyncio.gather(*(connection() for _ in range(conns)))
    return out


def _client(port: int, requests: list[Request], conns: int, start: Any, results: Any) -> None:
    start.wait()
    t0 = time.time()
    got = asyncio.run(_drive(port, requests, conns))
    results.put((t0, time.time(), got))


@dataclass
class Figures:
    latencies: list[float] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    wall: float = 0.0
    cpu: float = 0.0  # the server's CPU seconds while these requests ran

    def add(self, other: Figures) -> None:
        self.latencies += other.latencies
        for k, v in other.statuses.items():
            self.statuses[k] = self.statuses.get(k, 0) + v
        self.wall += other.wall
        self.cpu += other.cpu

    @property
    def cpu_ms(self) -> float:
        """The server's CPU per request, ms: what a request costs, however loaded the machine."""
        return self.cpu / self.n * 1e3 if self.n else float("nan")

    @property
    def n(self) -> int:
        return len(self.latencies)

    @property
    def errors(self) -> int:
        return sum(v for k, v in self.statuses.items() if not 200 <= k < 300)

    def pct(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")

    @property
    def rate(self) -> float:
        return self.n / self.wall if self.wall else float("nan")


def load(server: Server, requests: list[Request], concurrency: int = CONCURRENCY) -> Figures:
    """The requests sent at ``concurrency`` in flight, from several client processes."""
    port = server.port
    cpu0 = server.cpu()
    procs = max(1, min(CLIENT_PROCESSES, len(requests), concurrency))
    ctx = mp.get_context("fork")
    start, results = ctx.Barrier(procs + 1), ctx.Queue()
    shares = [requests[i::procs] for i in range(procs)]
    conns = [concurrency // procs + (1 if i < concurrency % procs else 0) for i in range(procs)]
    workers = [
        ctx.Process(target=_client, args=(port, share, max(1, c), start, results))
        for share, c in zip(shares, conns, strict=True)
    ]
    for w in workers:
        w.start()
    start.wait()
    got = [results.get() for _ in workers]
    for w in workers:
        w.join()
    fig = Figures(wall=max(g[1] for g in got) - min(g[0] for g in got), cpu=server.cpu() - cpu0)
    for _, _, rows in got:
        for seconds, status in rows:
            fig.latencies.append(seconds)
            fig.statuses[status] = fig.statuses.get(status, 0) + 1
    return fig


# --------------------------------------------------------------------------- the servers
def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cpu_seconds(pid: int) -> float:
    """User + system CPU of a process and its children (uvicorn's workers), from /proc."""
    total = 0.0
    pids = [pid]
    while pids:
        p = pids.pop()
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            children = Path(f"/proc/{p}/task/{p}/children").read_text().split()
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        pids += [int(c) for c in children]
    return total


@dataclass
class Server:
    port: int
    pid: int

    def cpu(self) -> float:
        return _cpu_seconds(self.pid)


@contextmanager
def serve(argv: list[str], env: dict[str, str], log: Path, workers: int = 1) -> Iterator[Server]:
    """A uvicorn process (``workers`` processes sharing the port) answering on a free port, stopped
    at the end."""
    import httpx

    port = _free_port()
    with log.open("a") as err:
        proc = subprocess.Popen(
            [sys.executable, *argv, "--host", "127.0.0.1", "--port", str(port), "--workers", str(workers)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(
                    f"the server ended ({proc.returncode}); see {log}: {log.read_text()[-2000:]}"
                )
            try:
                if httpx.get(f"http://127.0.0.1:{port}/docs", timeout=1).status_code < 500:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"the server did not answer; see {log}")
            time.sleep(0.2)
        yield Server(port, proc.pid)
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _env(url: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "REDIS_URL", "ARBITER_METRICS_TOKEN", "PROMETHEUS_MULTIPROC_DIR")
    }
    env.update(
        DATABASE_URL=url,
        ARBITER_ADMIN_TOKEN=TOKEN,
        ARBITER_LOG_LEVEL="WARNING",
        ARBITER_SWEEP_SECONDS="3600",
        PYTHONPATH=str(ROOT),
    )
    # a Postgres deployment refuses to start without a key to seal with; a throwaway one serves here
    env.setdefault("ARBITER_SECRET_KEY", "bench-secret-key-" + "0" * 32)
    return env


@contextmanager
def database(kind: str, tmp: Path) -> Iterator[str]:
    """A fresh database of ``kind``, migrated; dropped afterwards."""
    from app.cli import migrate

    if kind == "sqlite":
        url = f"sqlite+aiosqlite:///{tmp}/bench-{uuid.uuid4().hex[:8]}.db"
        migrate(url)
        yield url
        return
    import asyncpg

    name = f"arbiter_bench_{uuid.uuid4().hex[:10]}"

    async def admin(sql: str) -> None:
        conn = await asyncpg.connect(PG_ADMIN)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(admin(f'CREATE DATABASE "{name}"'))
    parts = urlsplit(PG_ADMIN)
    url = f"postgresql+asyncpg://{parts.netloc}/{name}"
    try:
        migrate(url)
        yield url
    finally:
        asyncio.run(admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def postgres_reachable() -> bool:
    try:
        import asyncpg

        async def ping() -> None:
            conn = await asyncpg.connect(PG_ADMIN, timeout=3)
            await conn.close()

        asyncio.run(ping())
        return True
    except Exception:  # noqa: BLE001 - any failure means: no Postgres to measure on
        return False


# --------------------------------------------------------------------------- the event
class Api:
    """The organizer's calls that build an event, one at a time (timed where a figure needs it)."""

    def __init__(self, port: int) -> None:
        import httpx

        self.http = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=600)
        self.port = port
        self.started = (0.0, 0.0)  # the last start timed: wall seconds, server CPU seconds

    def call(self, method: str, path: str, token: str, body: Any = None, ok: int = 200) -> Any:
        r = self.http.request(method, path, json=body, headers={"Authorization": f"Bearer {token}"})
        if r.status_code != ok:
            raise RuntimeError(f"{method} {path}: {r.status_code} {r.text[:500]}")
        return r.json()

    def event(
        self, entries: int, rounds: int, server: Server | None = None
    ) -> tuple[str, str, list[dict[str, Any]]]:
        """A Swiss event of ``entries`` registered and started; with ``server``, the start's wall
        time and the server's CPU are kept in ``self.started``."""
        created = self.call(
            "POST",
            "/v1/events",
            TOKEN,
            {
                "name": f"Bench {entries}",
                "game": "generic",
                "settings": {"stages": [{"format": "swiss", "rounds": rounds}]},
            },
            ok=201,
        )
        eid, org = created["id"], created["organizer_token"]
        for lo in range(0, entries, 500):
            rows = [
                {"name": f"P{i}", "rating": 1000 + (i * 7919) % 1200}
                for i in range(lo, min(entries, lo + 500))
            ]
            self.call("POST", f"/v1/events/{eid}/entries", org, rows, ok=201)
        cpu0 = server.cpu() if server is not None else 0.0
        t0 = time.perf_counter()
        started = self.call("POST", f"/v1/events/{eid}/start", org)
        if server is not None:
            self.started = (time.perf_counter() - t0, server.cpu() - cpu0)
        return eid, org, started["round"]["matches"]

    def pair(self, eid: str, org: str) -> tuple[float, list[dict[str, Any]]]:
        t0 = time.perf_counter()
        rnd = self.call("POST", f"/v1/events/{eid}/rounds", org, ok=201)
        return time.perf_counter() - t0, rnd["matches"]


def result_requests(matches: list[dict[str, Any]], org: str, number: int) -> list[Request]:
    """The organizer's report of every open match: the higher seat wins, every third game a draw."""
    out: list[Request] = []
    for i, m in enumerate(matches):
        if m["status"] != "pending":
            continue
        seats = [s["entry_id"] for s in m["seats"]]
        if (i + number) % 3 == 0:
            body = {"outcome": "draw", "seats": [{"entry_id": e, "place": 1} for e in seats]}
        else:
            order = seats if (i + number) % 2 else seats[::-1]
            body = {"seats": [{"entry_id": e, "place": p + 1} for p, e in enumerate(order)]}
        out.append(("POST", f"/v1/matches/{m['id']}/result", json.dumps(body).encode(), org))
    return out


def floor_requests(count: int, *, unordered: bool = False) -> list[Request]:
    """Results for the bare app's floor of a result (``bench/http_bare.py``), a match after another;
    ``unordered``: without the event's serialization."""
    from bench.http_bare import ROWS
    from bench.http_bare import TOKEN as FLOOR_TOKEN

    out: list[Request] = []
    for i in range(count):
        m = i % ROWS
        body = {"seats": [{"entry_id": 2 * m, "place": 1}, {"entry_id": 2 * m + 1, "place": 2}]}
        query = "?unordered=true" if unordered else ""
        out.append(("POST", f"/bare/result/{m}{query}", json.dumps(body).encode(), FLOOR_TOKEN))
    return out


def standings_requests(eid: str, count: int) -> list[Request]:
    return [("GET", f"/v1/events/{eid}/standings", b"", None)] * count


def round_requests(eid: str, number: int, count: int) -> list[Request]:
    return [("GET", f"/v1/events/{eid}/rounds/{number}", b"", None)] * count


def sizes(api: Api, path: str) -> str:
    """What a read sends: its body as sent to a client asking for gzip, and its JSON."""
    import httpx

    sent = len(api.http.get(path, headers={"Accept-Encoding": "gzip"}).content)  # decoded by httpx
    raw = httpx.get(f"http://127.0.0.1:{api.port}{path}", headers={"Accept-Encoding": "gzip"})
    on_wire = int(raw.headers.get("content-length", sent))
    return f"{on_wire / 1024:.1f} KB sent ({sent / 1024:.1f} KB of JSON)"


def quiet(server: Server, req: Request, count: int) -> Figures:
    """``count`` requests one after the other (one client, nothing else in flight)."""
    return load(server, [req] * count, concurrency=1)


# --------------------------------------------------------------------------- one database
@dataclass
class Line:
    label: str
    fig: Figures
    base: Figures | None
    floor: Figures | None = None  # a result's floor (``/bare/result``): a second comparison

    def show(self) -> str:
        f = self.fig
        text = (
            f"  {self.label:<44} n={f.n:<5} p50 {f.pct(0.5) * 1e3:8.1f} ms  p99 {f.pct(0.99) * 1e3:8.1f} ms  "
            f"{f.rate:8.1f}/s  cpu {f.cpu_ms:6.2f} ms/req  errors {f.errors}"
        )
        if f.errors:
            text += f" {dict(sorted(f.statuses.items()))}"
        for name, base in (("bare", self.base), ("floor's", self.floor)):
            if base is not None and base.n:
                text += (
                    f"   x{f.pct(0.5) / base.pct(0.5):.1f} p50, "
                    f"x{f.pct(0.99) / base.pct(0.99):.1f} p99, "
                    f"{f.rate / base.rate:.2f} of the {name} rate, "
                    f"x{f.cpu_ms / base.cpu_ms:.1f} its cpu"
                )
        return text


def ratio_line(label: str, fig: Figures, base: Figures, target: float) -> str:
    """A throughput ratio, with its target."""
    ratio = fig.rate / base.rate if base.rate else float("nan")
    verdict = "met" if ratio >= target else "not met"
    return (
        f"  {label}: {fig.rate:.1f}/s against {base.rate:.1f}/s = {ratio:.2f}x"
        f"   (target >= {target}x: {verdict})"
    )


def ten_events(api: Api, server: Server, quick: bool) -> Figures:
    """Ten events of 64 entries (12 with ``quick``) taking their first round's results at once, the
    requests of the events interleaved."""
    events = [api.event(12 if quick else 64, 2) for _ in range(10)]
    spread = [r for e in events for r in result_requests(e[2], e[1], 1)]
    spread = [spread[i] for i in sorted(range(len(spread)), key=lambda i: (i * 7919) % len(spread))]
    return load(server, spread)


def _within(seconds: list[float], target: float) -> str:
    met = sum(1 for s in seconds if s <= target)
    return "met" if met == len(seconds) else f"{len(seconds) - met} of {len(seconds)} over"


def run_database(kind: str, args: argparse.Namespace, tmp: Path) -> list[str]:
    big, big_rounds = (24, 2) if args.quick else (10_000, 2)
    small, rounds = (24, 3) if args.quick else (512, 5)
    reads = 12 if args.quick else 128
    out: list[str] = []
    # served as docker-compose serves it: two API processes on Postgres; the embedded default is one
    workers = args.workers if args.workers else (2 if kind == "postgres" else 1)
    with database(kind, tmp) as url:
        env = _env(url)
        bare_argv = [
            "-m",
            "uvicorn",
            "bench.http_bare:create_app",
            "--factory",
            "--no-access-log",
            "--log-level",
            "warning",
        ]
        with serve(bare_argv, env, tmp / f"bare-{kind}.log", workers) as bare:
            n = 60 if args.quick else 2000
            bare_quiet = quiet(bare, ("GET", "/bare/read/1", b"", None), 50)
            bare_read = load(bare, [("GET", f"/bare/read/{i % 1000}", b"", None) for i in range(n)])
            bare_write = load(bare, [("POST", f"/bare/write/{i % 1000}", b"", None) for i in range(n)])
            floor = load(bare, floor_requests(n))
            unordered = load(bare, floor_requests(n, unordered=True))
        out.append(f"{kind}: the bare FastAPI app, same stack, {workers} process(es)")
        out.append(Line("GET one-row read, alone", bare_quiet, None).show())
        out.append(Line(f"GET one-row read, {CONCURRENCY} concurrent", bare_read, None).show())
        out.append(Line(f"POST one-row update, {CONCURRENCY} concurrent", bare_write, None).show())
        out.append(Line(f"POST a result's floor, {CONCURRENCY} concurrent", floor, bare_write).show())
        out.append(Line("  the same, the event not serialized", unordered, bare_write).show())

        with serve(["-m", "app.cli", "serve"], env, tmp / f"arbiter-{kind}.log", workers) as server:
            api = Api(server.port)
            out.append(f"{kind}: Arbiter, a Swiss event of {small} entries, {rounds} rounds")
            eid, org, matches = api.event(small, rounds, server)
            wall, cpu = api.started
            out.append(
                f"  POST start (pairs round 1)   {wall * 1e3:.0f} ms   (server CPU {cpu * 1e3:.0f} ms)"
            )
            posted = Figures()
            pairs: list[float] = []
            pair_cpu: list[float] = []
            for number in range(1, rounds + 1):
                posted.add(load(server, result_requests(matches, org, number)))
                if number < rounds:
                    cpu0 = server.cpu()
                    seconds, matches = api.pair(eid, org)
                    pairs.append(seconds)
                    pair_cpu.append(server.cpu() - cpu0)
            out.append(
                Line(f"POST result, {CONCURRENCY} concurrent, one event", posted, bare_write, floor).show()
            )
            out.append(
                f"  POST rounds (pair the next round), rounds 2..{rounds}: "
                + ", ".join(f"{s * 1e3:.0f} ms" for s in pairs)
                + "   (server CPU "
                + ", ".join(f"{c * 1e3:.0f}" for c in pair_cpu)
                + f" ms; target <= {PAIR_TARGET * 1e3:.0f} ms of CPU: {_within(pair_cpu, PAIR_TARGET)})"
            )
            alone = quiet(server, standings_requests(eid, 1)[0], 10)
            out.append(Line(f"GET standings after {rounds} rounds, alone", alone, bare_quiet).show())
            many = load(server, standings_requests(eid, reads))
            out.append(Line(f"GET standings, {reads} at {CONCURRENCY} concurrent", many, bare_read).show())
            last = f"/v1/events/{eid}/rounds/{rounds}"
            out.append(f"  GET round {rounds} (its {len(matches)} matches reported): {sizes(api, last)}")
            explained = sizes(api, f"{last}?explain=true")
            out.append(f"  GET round {rounds}?explain=true (with each pair's explanation): {explained}")
            alone = quiet(server, round_requests(eid, rounds, 1)[0], 20)
            out.append(
                Line(f"GET round, alone (target p50 < {ROUND_TARGET * 1e3:.0f} ms)", alone, bare_quiet).show()
            )
            many = load(server, round_requests(eid, rounds, reads))
            out.append(Line(f"GET round, {reads} at {CONCURRENCY} concurrent", many, bare_read).show())

            # the first throughput target: one event's results against the bare one-row update's rate
            out.append(ratio_line("one event's results / the bare one-row update", posted, bare_write, 0.5))

            if "events" in args.parts:
                ten = ten_events(api, server, args.quick)
                out.append(
                    Line(f"POST result, {CONCURRENCY} concurrent, 10 events", ten, bare_write, floor).show()
                )
                # the second throughput target: ten events at once on two API processes against one; the
                # other count is served on the same database while this server idles
                other = 1 if workers != 1 else 2
                log = tmp / f"arbiter-{kind}-{other}.log"
                with serve(["-m", "app.cli", "serve"], env, log, other) as second:
                    again = ten_events(Api(second.port), second, args.quick)
                label = f"POST result, {CONCURRENCY} concurrent, 10 events, {other} process(es)"
                out.append(Line(label, again, bare_write, floor).show())
                two, one = (ten, again) if workers == 2 else (again, ten)
                out.append(ratio_line("10 events at once: 2 processes / 1 process", two, one, 1.6))
            if not args.parts & {"big", "start"}:
                return out
            out.append(f"{kind}: Arbiter, a Swiss event of {big} entries")
            eid, org, matches = api.event(big, big_rounds, server)
            wall, cpu = api.started
            out.append(
                f"  POST start (pairs round 1)                     {wall:8.2f} s"
                f"   (server CPU {cpu:.2f} s; target <= {BIG_START_TARGET:g} s: "
                f"{_within([cpu], BIG_START_TARGET)})"
            )
            if "big" not in args.parts:
                return out
            first = load(server, result_requests(matches, org, 1))
            out.append(
                Line(f"POST result, round 1, {CONCURRENCY} concurrent", first, bare_write, floor).show()
            )
            cpu0 = server.cpu()
            seconds, _ = api.pair(eid, org)
            cpu = server.cpu() - cpu0
            out.append(
                f"  POST rounds (pair round 2)                     {seconds:8.2f} s"
                f"   (server CPU {cpu:.2f} s; target <= {BIG_PAIR_TARGET:.0f} s: "
                f"{_within([cpu], BIG_PAIR_TARGET)})"
            )
            out.append(
                Line(
                    "GET standings, alone", quiet(server, standings_requests(eid, 1)[0], 5), bare_quiet
                ).show()
            )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small events: a smoke run")
    parser.add_argument("--only", choices=("sqlite", "postgres"), help="one database")
    parser.add_argument(
        "--workers", type=int, default=0, help="API processes (default: 2 on Postgres, 1 on SQLite)"
    )
    parser.add_argument(
        "--parts",
        type=lambda v: set(v.split(",")),
        default={"events", "big"},
        help="after the 512-entry event, which of: events (ten at once), big (10,000 entries: started, "
        "round 1 played, round 2 paired), start (10,000 entries only started); default events,big, "
        "'none' for none",
    )
    args = parser.parse_args()
    kinds = [args.only] if args.only else ["postgres", "sqlite"]
    with tempfile.TemporaryDirectory() as tmp:
        for kind in kinds:
            if kind == "postgres" and not postgres_reachable():
                print(f"postgres: not reachable at {PG_ADMIN} (BENCH_POSTGRES_URL): skipped")
                continue
            t0 = time.perf_counter()
            for line in run_database(kind, args, Path(tmp)):
                print(line, flush=True)
            print(f"  ({time.perf_counter() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
