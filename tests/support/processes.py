"""Arbiter's own commands as real processes: ``arbiter …`` with an environment of the test's own, a
free port for an API, waiting for it to answer, and its log lines read back as JSON."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]

# What a test's processes must not inherit from the machine or the suite's own environment.
_SCRUB = (
    "DATABASE_URL",
    "REDIS_URL",
    "ARBITER_ADMIN_TOKEN",
    "ARBITER_METRICS_TOKEN",
    "PROMETHEUS_MULTIPROC_DIR",
)


def env(**values: str | None) -> dict[str, str]:
    """The suite's environment without Arbiter's settings, plus ``values`` (None removes one)."""
    out = {k: v for k, v in os.environ.items() if k not in _SCRUB}
    for k, v in values.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = v
    return out


def arbiter(
    *args: str, environ: dict[str, str], timeout: float = 120, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``arbiter args…`` to its end."""
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        cwd=cwd or ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def spawn(*args: str, environ: dict[str, str], log: Path, cwd: Path | None = None) -> subprocess.Popen[str]:
    """Start ``arbiter args…``, its log lines going to the file ``log`` (read by :func:`log_lines`; a
    pipe nobody reads while it runs would stall a process that writes a line per request)."""
    with log.open("a") as err:
        return subprocess.Popen(
            [sys.executable, "-m", "app.cli", *args],
            cwd=cwd or ROOT,
            env=environ,
            stdout=subprocess.DEVNULL,
            stderr=err,
            text=True,
        )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_http(url: str, proc: subprocess.Popen[str], within: float = 60) -> None:
    """Until ``url`` answers 200; fail when the process dies or it takes too long."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"the process ended ({proc.returncode}) before {url} answered")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"{url} did not answer within {within} s")


def stop(proc: subprocess.Popen[str], sig: int = signal.SIGTERM, within: float = 60) -> int:
    """Signal the process and wait for it to end (killed if it takes longer than ``within``)."""
    if proc.poll() is None:
        proc.send_signal(sig)
    try:
        return proc.wait(timeout=within)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise AssertionError(f"the process did not stop within {within} s") from None


def log_lines(log: Path) -> list[dict[str, Any]]:
    """The log file's lines, each parsed as JSON (a line that is not one JSON object fails the test)."""
    lines = []
    for line in log.read_text().splitlines():
        if line.strip():
            try:
                lines.append(json.loads(line))
            except json.JSONDecodeError:
                raise AssertionError(f"{log}: not a JSON line: {line!r}") from None
    return lines


def finish(proc: subprocess.Popen[str], log: Path, sig: int = signal.SIGTERM) -> list[dict[str, Any]]:
    """Stop the process and return its log lines."""
    stop(proc, sig)
    return log_lines(log)
