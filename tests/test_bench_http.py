"""The HTTP benchmark's smoke run: both servers come up, every figure is printed, nothing fails."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.support.processes import ROOT, env


def test_http_bench_quick_run_prints_every_figure_without_errors() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "bench.http", "--quick", "--only", "sqlite"],
        cwd=ROOT,
        env=env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    out = run.stdout
    for label in ("GET one-row read", "POST one-row update", "POST result", "GET standings", "POST rounds"):
        assert label in out, out
    errors = [int(n) for n in re.findall(r"errors (\d+)", out)]
    assert len(errors) >= 8 and not any(errors), out
    assert "of the bare rate" in out
    # the write path's two throughput targets, each printed as a ratio with its target
    for ratio in (
        "one event's results / the bare one-row update",
        "10 events at once: 2 processes / 1 process",
    ):
        assert re.search(re.escape(ratio) + r": [\d.]+/s against [\d.]+/s = [\d.]+x   \(target >= ", out), out
