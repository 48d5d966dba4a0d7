# Loop Lab — the two commands are `make serve` and `make test`; everything else is a part of them.
# Each step installs what it needs (a virtual environment, npm packages, pinned wheels), so a
# fresh clone needs nothing done by hand.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: test test-py test-pyodide test-e2e test-e2e-plain serve build venv node clean

test: llama-early lint test-py test-mutants test-pyodide test-e2e test-e2e-plain test-browsers test-real test-dist

venv: $(VENV)/.stamp
$(VENV)/.stamp: requirements-test.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-test.txt
	touch $@

node: node_modules/.stamp
node_modules/.stamp: package-lock.json package.json
	npm ci --no-audit --no-fund
	touch $@

# tests/site reads Pyodide's own files (its wasm heap limit and build id) from node_modules.
# Two workers (pytest-xdist), one a core; keep the folders in this order: each worker collects
# them so, and tests/site's `from conftest import NodeModule` needs its conftest imported last.
PYTEST_WORKERS ?= 2
test-py: venv node
	$(PY) -m pytest -n $(PYTEST_WORKERS) tests/unit tests/lessons tests/live tests/site

include mk/pyodide.mk
include mk/web.mk
include mk/browsers.mk
include mk/llama.mk
include mk/localmodel.mk
include mk/lint.mk
include mk/bench.mk
include mk/dist.mk
include mk/mutants.mk

clean:
	rm -rf web/dist build dist .cache
