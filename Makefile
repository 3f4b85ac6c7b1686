# Arbiter — the README's commands. `make run` serves the embedded default; `make test` runs everything.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell sha1sum pyproject.toml | cut -c1-12)
HOST   ?= 127.0.0.1
PORT   ?= 8000
# the embedded default on a laptop: a fixed local admin token unless one is set
export ARBITER_ADMIN_TOKEN ?= change-me-local

.PHONY: venv run migrate worker test lint typecheck bench bench-quick openapi clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	rm -f $(VENV)/.installed-*
	touch $@

venv: $(STAMP)

migrate: venv
	$(BIN)/arbiter migrate

run: migrate
	$(BIN)/arbiter serve --host $(HOST) --port $(PORT)

worker: venv
	$(BIN)/arbiter worker

lint: venv
	$(BIN)/ruff check app workers migrations tests bench
	$(BIN)/ruff format --check app workers tests

typecheck: venv
	$(BIN)/mypy app

test: venv
	bash tests/services.sh .test-env
	$(MAKE) --no-print-directory lint typecheck
	. ./.test-env && $(BIN)/python -m pytest -q -p no:cacheprovider

bench: venv
	$(BIN)/python -m bench

bench-quick: venv
	$(BIN)/python -m bench --quick

openapi: venv
	$(BIN)/arbiter openapi --out openapi/openapi.json

clean:
	rm -rf $(VENV) .test-env arbiter.db arbiter.db-wal arbiter.db-shm .mypy_cache .ruff_cache
