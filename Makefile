# Arbiter — the README's commands. `make run` serves the embedded default; `make test` runs everything.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
# what serving needs (requirements.lock) and, for the tests and tools, the dev extra on top
RUNTIME := $(VENV)/.runtime-$(shell cat pyproject.toml requirements.lock | sha1sum | cut -c1-12)
STAMP   := $(VENV)/.installed-$(shell cat pyproject.toml requirements.lock | sha1sum | cut -c1-12)
HOST   ?= 127.0.0.1
PORT   ?= 8000
# the embedded default on a laptop: a fixed local admin token unless one is set
export ARBITER_ADMIN_TOKEN ?= change-me-local

.PHONY: runtime venv run migrate worker test lint typecheck bench bench-quick openapi lock clean fuzz

# Serving installs only the locked runtime (every hash checked, as the image does) and Arbiter itself,
# editable, built by the locked setuptools; the test toolchain comes with `make test` (the dev extra).
# Quiet installs, so that a failure stands out (setuptools' notice on an editable install is muted).
PIP := PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONWARNINGS='ignore:Editable installation' $(BIN)/python -m pip
$(RUNTIME): pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --require-hashes --no-deps -r requirements.lock
	$(PIP) install -q --no-deps --no-build-isolation -e .
	rm -f $(VENV)/.runtime-*
	touch $@

$(STAMP): $(RUNTIME)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -e '.[dev]'
	rm -f $(VENV)/.installed-*
	touch $@

runtime: $(RUNTIME)

venv: $(STAMP)

migrate: runtime
	$(BIN)/arbiter migrate

run: migrate
	$(BIN)/arbiter serve --host $(HOST) --port $(PORT)

worker: runtime
	$(BIN)/arbiter worker

lint: venv
	$(BIN)/ruff check app workers migrations tests bench
	$(BIN)/ruff format --check app workers tests

typecheck: venv
	$(BIN)/mypy app

# the suite on every core (pytest-xdist, TEST_WORKERS processes: one more than the cores, as a third of
# the suite's time is spent waiting on a server, a browser or a subprocess): each worker has its own
# databases and names its own queues; the slowest files start first (tests/conftest.py SLOWEST_FIRST),
# and the 20 slowest tests are printed at the end
TEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
test: venv
	bash tests/services.sh .test-env
	$(MAKE) --no-print-directory lint typecheck
	. ./.test-env && $(BIN)/python -m pytest -q -p no:cacheprovider \
		-n $(TEST_WORKERS) --dist load --durations=20

# schemathesis over the served OpenAPI (admin token, every check, stateful links) on Postgres and
# SQLite; fails on any server error, reports the other checks' findings under fuzz-report/
FUZZ_EXAMPLES ?= 20
FUZZ_SECONDS  ?= 300
fuzz: venv
	bash tests/services.sh .test-env
	. ./.test-env && $(BIN)/python -m tests.support.fuzz --backend both --checks all \
		--max-examples $(FUZZ_EXAMPLES) --max-time $(FUZZ_SECONDS) --out fuzz-report

# the services the benchmarks run on (Postgres for the ratings and the HTTP bench), as for the tests
bench: venv
	bash tests/services.sh .test-env
	. ./.test-env && $(BIN)/python -m bench

bench-quick: venv
	bash tests/services.sh .test-env
	. ./.test-env && $(BIN)/python -m bench --quick

openapi: venv
	$(BIN)/arbiter openapi --out openapi/openapi.json

# requirements.lock, which the Dockerfile installs from: every runtime dependency and the build
# backend, pinned with their hashes, for Python 3.11 on Linux (a test fails when pyproject.toml
# asks for something the lock does not hold)
lock: venv
	$(BIN)/python -m pip install -q 'uv>=0.5'
	printf 'setuptools>=77\n' | $(BIN)/uv pip compile --quiet pyproject.toml - \
		--python-version 3.11 --python-platform linux --generate-hashes \
		--custom-compile-command 'make lock' --output-file requirements.lock

clean:
	rm -rf $(VENV) .test-env arbiter.db arbiter.db-wal arbiter.db-shm arbiter.db.key .mypy_cache .ruff_cache
