"""A short fuzz run on every `make test`: schemathesis over the served OpenAPI document with the admin
token, failing on any server error (5xx), on Postgres — whose driver types what a path or a query
names, where a random id would first fail; the embedded default meets the same operations with
real ids in tests/contract/test_conformance.py. `make fuzz` runs the long one on both backends with
every check and stateful links (tests/support/fuzz.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.fuzz import fuzz


@pytest.mark.parametrize("backend", ["postgres"])
def test_a_short_fuzz_run_meets_no_server_error(backend: str, tmp_path: Path) -> None:
    run = fuzz(
        backend,
        checks="not_a_server_error",
        max_examples=5,
        phases="examples,fuzzing",
        workdir=tmp_path,
    )
    print(run.line())
    assert run.requests > 300, run.output[-3000:]
    assert run.server_errors == 0, f"{run.line()}\n{run.output[-6000:]}"
    assert run.exit_code == 0, run.output[-6000:]
