"""The fuzz run: schemathesis over the OpenAPI document a real ``arbiter serve`` serves, with the admin
token, on a fresh database of each backend; the server's own log lines count the requests it answered
and the server errors among them.

    python -m tests.support.fuzz                       # `make fuzz`: every check, stateful links
    python -m tests.support.fuzz --backend sqlite --max-examples 3 --checks not_a_server_error

``make fuzz`` fails on a server error (5xx) and reports the other checks' findings; the short run in
the test suite (tests/test_fuzz.py) gates on server errors alone.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url

from app.cli import migrate
from tests.support.processes import env, free_port, spawn, stop, wait_http

BACKENDS = ("postgres", "sqlite")


@dataclass
class FuzzRun:
    backend: str
    requests: int
    server_errors: int
    exit_code: int
    seconds: float
    errors_by_route: Counter[str] = field(default_factory=Counter)
    output: str = ""

    def line(self) -> str:
        where = ", ".join(f"{route} {n}" for route, n in self.errors_by_route.most_common(10))
        return (
            f"fuzz {self.backend}: {self.requests} requests, {self.server_errors} server errors (5xx)"
            f"{' — ' + where if where else ''}; schemathesis exit {self.exit_code}; {self.seconds:.0f} s"
        )


def _lines(log: Path) -> list[dict[str, Any]]:
    """The server's JSON lines (split on newlines only: a fuzzed path may hold U+2028 and kin, which
    str.splitlines would split on)."""
    out = []
    for line in log.read_text().split("\n"):
        if line.strip():
            out.append(json.loads(line))
    return out


def _postgres_database() -> tuple[str, str, str]:
    from tests.support.services import admin_execute

    server = os.environ.get("TEST_DATABASE_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres")
    name = f"arbiter_fuzz_{uuid.uuid4().hex[:10]}"
    asyncio.run(admin_execute(server, f'CREATE DATABASE "{name}"'))
    return server, name, make_url(server).set(database=name).render_as_string(hide_password=False)


# schemathesis runs its cases on two threads, and hypothesis describes its lambdas with ast.parse; on
# CPython 3.11 the AST converter's recursion counter is shared by the interpreter's threads, so two
# parses at once can fail with "SystemError: AST constructor recursion depth mismatch" — the fuzzer's
# crash, not the server's. The CLI is started with ast.parse behind one lock.
_SERIAL_AST = """
import ast, runpy, sys, threading
_lock, _parse = threading.Lock(), ast.parse
def _serial(*args, **kwargs):
    with _lock:
        return _parse(*args, **kwargs)
ast.parse = _serial
sys.argv = ["schemathesis", *sys.argv[1:]]
runpy.run_module("schemathesis.cli", run_name="__main__", alter_sys=True)
"""


def fuzz(
    backend: str,
    *,
    checks: str = "not_a_server_error",
    max_examples: int = 5,
    max_time: int | None = None,
    phases: str = "examples,coverage,fuzzing,stateful",
    seed: int = 1,
    workdir: Path | None = None,
) -> FuzzRun:
    """One run against a fresh database of ``backend``; the server's log counts what it answered."""
    work = workdir or Path(tempfile.mkdtemp(prefix=f"arbiter-fuzz-{backend}-"))
    work.mkdir(parents=True, exist_ok=True)
    dropped: tuple[str, str] | None = None
    if backend == "sqlite":
        url = f"sqlite+aiosqlite:///{work / 'arbiter.db'}"
    else:
        server, name, url = _postgres_database()
        dropped = (server, name)
    token = secrets.token_urlsafe(24)
    port = free_port()
    log = work / "server.log"
    started = time.monotonic()
    try:
        migrate(url)
        environ = env(
            DATABASE_URL=url,
            ARBITER_ADMIN_TOKEN=token,
            ARBITER_LOG_FORMAT="json",
            ARBITER_HEAVY_BURST="1000000",  # the fuzzer is one client sending everything
            ARBITER_AUTH_FAILURES="1000000",  # and every unknown token the checks try
            ARBITER_SWEEP_SECONDS="5",
        )
        proc = spawn("serve", "--host", "127.0.0.1", "--port", str(port), environ=environ, log=log)
        try:
            base = f"http://127.0.0.1:{port}"
            wait_http(f"{base}/healthz", proc)
            args = [
                sys.executable,
                "-c",
                _SERIAL_AST,
                "run",
                f"{base}/openapi.json",
                "-H",
                f"Authorization: Bearer {token}",
                "--checks",
                checks,
                "--phases",
                phases,
                "--max-examples",
                str(max_examples),
                "--seed",
                str(seed),
                "--workers",
                "2",
                "--request-timeout",
                "30",
                "--suppress-health-check",
                "all",
                "--no-shrink",
                "--warnings",
                "off",
                # a live stream answers for as long as the client listens: no fuzzing case ends it
                "--exclude-path-regex",
                "/stream$",
            ]
            if max_time is not None:
                args += ["--max-time", str(max_time)]
            done = subprocess.run(
                args, cwd=work, env={**os.environ, "NO_COLOR": "1"}, capture_output=True, text=True
            )
        finally:
            try:
                stop(proc, within=30)
            except AssertionError:
                proc.kill()  # the run is judged by the log it wrote; a slow stop is no finding
                proc.wait()
    finally:
        if dropped is not None:
            from tests.support.services import admin_execute

            asyncio.run(admin_execute(dropped[0], f'DROP DATABASE IF EXISTS "{dropped[1]}" WITH (FORCE)'))
    answered = [line for line in _lines(log) if line.get("logger") == "arbiter.http" and "status" in line]
    failures = [line for line in answered if int(line["status"]) >= 500]
    return FuzzRun(
        backend=backend,
        requests=len(answered),
        server_errors=len(failures),
        exit_code=done.returncode,
        seconds=time.monotonic() - started,
        errors_by_route=Counter(f"{line.get('method')} {line.get('route')}" for line in failures),
        output=done.stdout[-20000:] + done.stderr[-5000:],
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--backend", choices=[*BACKENDS, "both"], default="both")
    parser.add_argument("--checks", default="all")
    parser.add_argument("--max-examples", type=int, default=20)
    parser.add_argument("--max-time", type=int, default=None, help="seconds per backend")
    parser.add_argument("--phases", default="examples,coverage,fuzzing,stateful")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("fuzz-report"))
    opts = parser.parse_args()
    runs = []
    for backend in BACKENDS if opts.backend == "both" else (opts.backend,):
        run = fuzz(
            backend,
            checks=opts.checks,
            max_examples=opts.max_examples,
            max_time=opts.max_time,
            phases=opts.phases,
            seed=opts.seed,
            workdir=opts.out / backend,
        )
        (opts.out / backend / "schemathesis.txt").write_text(run.output)
        runs.append(run)
        print(run.line(), flush=True)
    print(f"schemathesis' own findings: {opts.out}/<backend>/schemathesis.txt")
    return 1 if any(run.server_errors for run in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
