# One entry point for people and CI. Every target bootstraps what it needs.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: serve test lint typecheck check bench synth deploy destroy bootstrap clean

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -c constraints.txt -e '.[dev]'
	touch $(STAMP)

bootstrap: $(STAMP)
	scripts/bootstrap-system

## Start both interfaces on 127.0.0.1 with the demo store (embedded DynamoDB).
serve: $(STAMP)
	$(VENV)/bin/webstore serve $(ARGS)

## The whole test suite: lint, types, unit, integration, infra, end-to-end (headless Chromium).
test: bootstrap
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(PY) -m pytest $(ARGS)

bench: $(STAMP)
	$(PY) scripts/bench_round_trips.py $(ARGS)

clean:
	rm -rf $(VENV) node_modules cdk.out
