# The two commands: `make run` starts the bot, `make test` runs lint, types and tests.
# Both create .venv on first use and (re)install when pyproject.toml or setup.py change.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench clean

$(STAMP): pyproject.toml $(wildcard setup.py) $(wildcard rules/arbitar/*.c)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/sudija run

# The console club linked to the reference game server: a live table, pauses, korekcija (docs/game-server.md).
.PHONY: demo
demo: $(STAMP)
	$(BIN)/sudija gameserver --demo

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/pytest

bench: $(STAMP)
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) build *.egg-info
