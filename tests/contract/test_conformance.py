"""The committed OpenAPI document against a real server: schemathesis' conformance checks report no
failure (every status, content type and body answered is the one documented) and no answer is a
server error (5xx), and the types openapi-typescript generates from it accept the README's own
request bodies under `tsc --strict`.

The one schemathesis run per backend here carries the suite's fuzzing too: its coverage phase on
the embedded default (the schema-valid boundaries of every field, but an event's body's, whose
every setting of every stage format `make fuzz` meets) is judged by every check at once, rather
than generated twice, once for conformance and once for server errors; Postgres meets every
operation in the examples and fuzzing phases. The schema-invalid cases (every bound crossed, every type
wrong: two thirds of the coverage phase, refused by the request's validation before any database is
touched) are `make fuzz`'s, on both backends, with every check; tests/test_fuzz.py adds the phases
that vary what this run fixes (random ids in the paths, a token of its own, invalid cases drawn at
random)."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy.engine import make_url

from tests.support.processes import ROOT, env, free_port, spawn, stop, wait_http
from tests.support.services import admin_execute, in_thread, server_url

ADMIN = "conformance-admin-token"
CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"
# Bounded so the suite stays quick: a few generated examples per operation, every phase but the
# stateful one (whose chains would need more), one seed so a run is repeatable.
EXAMPLES = "5"
SEED = "1"


# The coverage phase of an event's body (every boundary of every setting of every stage format, and
# which preset goes with which game: about half of all the cases) is left to `make fuzz`, which meets
# it on both backends; here both operations meet their examples and fuzzing phases, as every
# operation does.
_EVENT_BODY = [
    "[[operations]]",
    'include-operation-id = ["create_event", "update_event"]',
    "phases.coverage.enabled = false",
]
_WHOLE_ONCE = {"postgres": _EVENT_BODY, "sqlite": _EVENT_BODY}


def _seed(base: str) -> dict[str, str]:
    """A running Swiss event with its first round paired, so paths name things that exist: the
    examples reach past 404 into the answers of real resources."""
    admin = {"Authorization": f"Bearer {ADMIN}"}
    with httpx.Client(base_url=base, timeout=30) as c:
        made = c.post("/v1/events", headers=admin, json={"name": "Conformance", "game": "generic"})
        assert made.status_code == 201, made.text
        event = made.json()
        org = {"Authorization": f"Bearer {event['organizer_token']}"}
        entries = c.post(
            f"/v1/events/{event['id']}/entries",
            headers=org,
            json=[{"name": n} for n in ("Ada", "Bob", "Cy", "Di")],
        )
        assert entries.status_code == 201, entries.text
        started = c.post(f"/v1/events/{event['id']}/start", headers=org)
        assert started.status_code == 200, started.text
        match = started.json()["round"]["matches"][0]
        first = entries.json()[0]
        job = c.post(f"/v1/events/{event['id']}/integrity-check", headers=org)
        assert job.status_code == 202, job.text
        return {
            "path.job_id": job.json()["job_id"],
            "path.event_id": event["id"],
            "path.entry_id": first["id"],
            "path.player_id": first["player_id"],
            "path.match_id": match["id"],
            "path.number": "1",
            "path.pool": "generic",
        }


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Path]]:
    """An `arbiter serve` on the embedded default (SQLite, in-process jobs) and on Postgres (a
    database of its own, jobs in-process), one event in it, and a schemathesis configuration naming
    that event's ids."""
    tmp = tmp_path_factory.mktemp("conformance")
    if request.param == "sqlite":
        url = f"sqlite+aiosqlite:///{tmp / 'arbiter.db'}"
    else:
        server = server_url()
        name = f"arbiter_conf_{uuid.uuid4().hex[:10]}"
        in_thread(asyncio.run, admin_execute(server, f'CREATE DATABASE "{name}"'))
        request.addfinalizer(
            lambda: in_thread(
                asyncio.run, admin_execute(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            )
        )
        url = make_url(server).set(database=name).render_as_string(hide_password=False)
    environ = env(
        DATABASE_URL=url,
        ARBITER_ADMIN_TOKEN=ADMIN,
        ARBITER_HEAVY_BURST="1000000",  # one client sending everything: the heavy routes answer, not 429
    )
    migrated = subprocess.run(
        [sys.executable, "-m", "app.cli", "migrate"], cwd=ROOT, env=environ, capture_output=True, text=True
    )
    assert migrated.returncode == 0, migrated.stderr
    port = free_port()
    proc = spawn("serve", "--host", "127.0.0.1", "--port", str(port), environ=environ, log=tmp / "server.log")
    try:
        base = f"http://127.0.0.1:{port}"
        wait_http(f"{base}/healthz", proc)
        config = tmp / "schemathesis.toml"
        lines = ["[parameters]", *(f'"{k}" = "{v}"' for k, v in _seed(base).items())]
        lines += _WHOLE_ONCE[request.param]
        config.write_text("\n".join(lines) + "\n")
        yield base, config
    finally:
        stop(proc)


def test_the_server_answers_as_its_document_says(
    server: tuple[str, Path], request: pytest.FixtureRequest
) -> None:
    base, config = server
    st = Path(sys.executable).with_name("schemathesis")
    # the schema-valid cases, which reach the database, where the backends differ (the invalid ones
    # are `make fuzz`'s: the module's docstring)
    mode = "positive"
    # the coverage phase's boundaries once, on the embedded default (the server most laptops run);
    # Postgres meets every operation in the examples and fuzzing phases
    phases = "examples,coverage,fuzzing" if "sqlite" in request.node.callspec.id else "examples,fuzzing"
    run = subprocess.run(
        [
            str(st),
            "--config-file",
            str(config),
            "run",
            str(ROOT / "openapi" / "openapi.json"),
            "--url",
            base,
            "--checks",
            CHECKS,
            "--max-examples",
            EXAMPLES,
            "--seed",
            SEED,
            "--phases",
            phases,
            "--mode",
            mode,
            "--continue-on-failure",
            "--header",
            f"Authorization: Bearer {ADMIN}",
            "--output-truncate",
            "true",
            # a live stream answers for as long as the client listens: each case would wait out the
            # client's 10 s timeout (a minute a run); the stream's answers have tests of their own
            # (tests/workers/test_live_streams.py, tests/workers/test_stream_fanout.py)
            "--exclude-path-regex",
            "/stream$",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1200,  # a bound for a hung run, far above a run's time on a loaded 2-core machine
        env={**os.environ, "SCHEMATHESIS_TELEMETRY": "false", "NO_COLOR": "1"},
    )
    summary = run.stdout[run.stdout.find("SUMMARY") :] if "SUMMARY" in run.stdout else run.stdout[-3000:]
    print(summary)
    assert re.search(r"Tested: \d+", run.stdout), run.stdout[-3000:] + run.stderr[-2000:]
    assert run.returncode == 0, run.stdout[-20000:]
