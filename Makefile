# The two commands: `make run` starts the bot, `make test` runs lint, types and tests.
# Both create .venv on first use and (re)install when pyproject.toml or setup.py change.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench chaos clean

$(STAMP): pyproject.toml $(wildcard setup.py) $(wildcard rules/arbitar/*.c)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/sudija run

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/pytest

# The long chaos run: a console bot SIGKILLed at 200 seeded random points (`make test` runs a few).
chaos: $(STAMP)
	CHAOS_KILLS=$${CHAOS_KILLS:-200} $(BIN)/pytest tests/chaos

bench: $(STAMP)
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) build *.egg-info
