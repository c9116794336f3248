# Two entry points: `make demo` and `make test`. Both work on a fresh machine.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
export LITELLM_LOCAL_MODEL_COST_MAP := True
export RAY_USAGE_STATS_ENABLED := 0
# Let Python keep byte-compiled modules: where the shell sets PYTHONDONTWRITEBYTECODE, every
# process a run or the tests start (each CLI call, worker and backend) compiles vwt again.
unexport PYTHONDONTWRITEBYTECODE

# pytest-xdist workers for `make test` / `make pytest`: most tests wait on subprocesses
# (servers, Ray, Docker), so more workers than cores pay; docs/development.md has the figures.
PYTEST_WORKERS ?= 4
PYTEST_PARALLEL := -n $(PYTEST_WORKERS) --dist loadscope --durations=30

.PHONY: demo test lint typecheck pytest sandbox browser frameworks bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Reinstall when the project metadata changes.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@ $(VENV)/.installed

demo: $(VENV)/.installed
	$(BIN)/vwt demo --force

# The Docker engine and the locally built sandbox image (no registry pulls needed).
sandbox: $(VENV)/.installed
	VWT_PIP_PYTHON=$(BIN)/python bash scripts/sandbox-setup.sh

# Debian's chromium for the HTML report's browser tests (no browser download).
browser:
	bash scripts/browser-setup.sh

# The agent frameworks run as harnesses, each pinned release in an environment of its own
# (.frameworks/, or $VWT_FRAMEWORKS): docs/harnesses.md.
frameworks:
	bash scripts/frameworks-setup.sh

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(VENV)/.installed-dev
	$(BIN)/mypy

pytest: $(VENV)/.installed-dev
	$(BIN)/pytest $(PYTEST_PARALLEL)

test: $(VENV)/.installed-dev
	-VWT_PIP_PYTHON=$(BIN)/python bash scripts/sandbox-setup.sh
	-bash scripts/browser-setup.sh
	-bash scripts/mcp-servers-setup.sh
	-bash scripts/frameworks-setup.sh
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/pytest $(PYTEST_PARALLEL)

$(VENV)/.installed-bench: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	touch $@ $(VENV)/.installed

bench: $(VENV)/.installed-bench
	@for f in bench/[!_]*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) .vwt .frameworks .mypy_cache .ruff_cache .pytest_cache .hypothesis
