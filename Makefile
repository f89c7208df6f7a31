# The two commands: `make run` starts the bot, `make test` runs lint, types and tests.
# Both create .venv on first use and (re)install when pyproject.toml or setup.py change.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench chaos lock clean

$(STAMP): pyproject.toml requirements.lock $(wildcard setup.py) $(wildcard rules/arbitar/*.c)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c requirements.lock -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/sudija run

# The console club linked to the reference game server: a live table, pauses, korekcija (docs/game-server.md).
.PHONY: demo
demo: $(STAMP)
	$(BIN)/sudija gameserver --demo

# The code compiled once before the tests: every bot process the tests start (and each worker) loads it as bytecode
# rather than compiling it again (pytest compiles the test modules itself, with their asserts rewritten). The run
# saves what it compiles as Python does by default, also where PYTHONDONTWRITEBYTECODE is set: pytest rewrites the
# test modules and its plugins' packages (hypothesis, anyio) in every process that imports them, unless a process
# before it saved them.
#
# The tests on every core (pytest-xdist; docs/testing.md): a worker takes another's waiting tests when it is done.
# Their temporary files (databases, PostgreSQL's cluster) go to a folder of their own on the memory filesystem when
# it has a GiB free, open to all as /tmp is (PostgreSQL runs as its own user) and removed after the run: a commit's
# fsync costs nothing there, and a kill -9 test proves as much as on a disk (the page cache outlives the killed
# process). Elsewhere they stay in $TMPDIR.
SHM_FREE_KB = $$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $$4 }')
test: export PYTHONDONTWRITEBYTECODE =
test: $(STAMP)
	@command -v npm >/dev/null 2>&1 && $(MAKE) --no-print-directory browser \
	  || echo "npm is missing or failed: the browser tests (tests/test_web_browser.py) will skip"
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python -m compileall -q -x '/(test_[^/]*|conftest)\.py$$' bot rules storage bench tests >/dev/null
	@tmp=""; if [ "$(SHM_FREE_KB)" -gt 1048576 ] 2>/dev/null; then tmp=$$(mktemp -d /dev/shm/sudija-tests.XXXXXX) && chmod 1777 "$$tmp"; fi; \
	  echo "TMPDIR=$${tmp:-$${TMPDIR:-/tmp}} $(BIN)/pytest -n auto --dist worksteal"; \
	  TMPDIR=$${tmp:-$${TMPDIR:-/tmp}} $(BIN)/pytest -n auto --dist worksteal; status=$$?; \
	  if [ -n "$$tmp" ]; then rm -rf "$$tmp"; fi; exit $$status

# What the web's browser tests inject into each page (axe-core, from the npm registry, as tests/browser pins it).
AXE := tests/browser/node_modules/axe-core/axe.min.js
.PHONY: browser
browser: $(AXE)
$(AXE): tests/browser/package.json tests/browser/package-lock.json
	npm ci --prefix tests/browser --no-audit --no-fund --silent
	touch $(AXE)

# The long chaos run: a console bot SIGKILLed at 200 seeded random points (`make test` runs a few).
chaos: $(STAMP)
	CHAOS_KILLS=$${CHAOS_KILLS:-200} $(BIN)/pytest tests/chaos

# The full cross-process run on PostgreSQL: three bot processes, 1,000 calls, 50 referees pressing each, one process
# SIGKILLed midway; it prints the deadlines' lateness and the gateway's takeover time against their bound
# (`make test` runs a short form: tests/test_cross_process.py).
.PHONY: cross
cross: $(STAMP)
	$(BIN)/python bench/cross_process.py --calls $${SUDIJA_CROSS_CALLS:-1000} --referees $${SUDIJA_CROSS_REFEREES:-50}

# `make bench AGAINST=PATH`: the solver and the Arbitar also from another checkout, alternately (bench/run_all.py).
bench: $(STAMP)
	$(BIN)/python bench/run_all.py $(if $(AGAINST),--against $(AGAINST))

# Refresh requirements.lock: the newest versions pyproject.toml allows, installed into a fresh venv and pinned.
lock:
	rm -rf .lock-venv && $(PYTHON) -m venv .lock-venv
	.lock-venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	{ echo "# Every package the tests ran with, pinned: \`make\` installs within these (pip -c)."; \
	  echo "# Refresh after changing pyproject.toml's dependencies: make lock"; \
	  .lock-venv/bin/python -m pip freeze --exclude-editable | grep -v '^sudija'; } > requirements.lock
	rm -rf .lock-venv

clean:
	rm -rf $(VENV) build *.egg-info
