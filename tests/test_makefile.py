"""The README's commands as make resolves them (``make -n``: printed, not run): ``make run``
installs only what serving needs, from the lock file with every hash checked; the test toolchain
(the dev extra) comes with ``make test``."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def planned(target: str, tmp_path: Path) -> str:
    """What ``make <target>`` would run from a fresh clone (no environment yet)."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    out = subprocess.run(
        ["make", "-n", "--no-print-directory", target, f"VENV={tmp_path / 'venv'}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout


def test_make_run_installs_only_the_locked_runtime(tmp_path: Path) -> None:
    plan = planned("run", tmp_path)
    assert "--require-hashes --no-deps -r requirements.lock" in plan
    assert "--no-deps --no-build-isolation -e ." in plan
    assert "[dev]" not in plan
    assert "arbiter serve" in plan


def test_make_test_installs_the_dev_extra_on_top(tmp_path: Path) -> None:
    plan = planned("test", tmp_path)
    assert "-r requirements.lock" in plan and "-e '.[dev]'" in plan
    assert plan.index("-r requirements.lock") < plan.index("'.[dev]'")
