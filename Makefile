# Two entry points for a fresh machine with Python 3.11+:
#   make plan   set up .venv and print the offline plan of the dev stack
#   make test   set up .venv and run every check CI runs
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed

.PHONY: plan test lint bench

$(STAMP): requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $(STAMP)

plan: $(STAMP)
	$(VENV)/bin/python -m stacks plan dev

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy .

test: lint
	$(VENV)/bin/pytest

bench: $(STAMP)
	$(VENV)/bin/python bench/plan_wall.py
