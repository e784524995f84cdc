# Each target sets up what it needs in .venv: `make run` only what running needs, `make test`
# and `make lint` the dev tools too. Afterwards `quizbot` is .venv/bin/quizbot (or run
# `source .venv/bin/activate` once per shell).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
HASH := $(shell cksum < pyproject.toml | cut -d' ' -f1)
RUN_STAMP := $(VENV)/.run-$(HASH)
DEV_STAMP := $(VENV)/.dev-$(HASH)
# -qq: only errors; pip's own notices are not what a newcomer came to read.
PIP := $(BIN)/pip install -qq --disable-pip-version-check

.PHONY: run test unit contract platform reliability lint bench bench-full clean

$(BIN)/python:
	@$(PY) -c 'import sys; sys.exit("quizbot needs Python 3.11 or newer") if sys.version_info < (3, 11) else None'
	@echo "Creating $(VENV) ..."
	@$(PY) -m venv $(VENV)

# The package, editable (so edits to bot/ and questions/ apply), without the dev tools.
$(RUN_STAMP): pyproject.toml | $(BIN)/python
	@echo "Installing quizbot into $(VENV) ..."
	@$(PIP) -e .
	@rm -f $(VENV)/.run-*
	@touch $@

$(DEV_STAMP): $(RUN_STAMP)
	@echo "Installing the dev tools (pytest, ruff, mypy) into $(VENV) ..."
	@$(PIP) -e '.[dev]'
	@rm -f $(VENV)/.dev-*
	@touch $@

# The bot when any platform secret is set (tokens alone enable it: docs/configuration.md; one
# missing its partner is named by `quizbot run`), else the terminal quiz on SQLite.
run: $(RUN_STAMP)
	@if [ -n "$$SLACK_BOT_TOKEN$$SLACK_APP_TOKEN$$SLACK_SIGNING_SECRET$$SLACK_CLIENT_ID$$SLACK_CLIENT_SECRET$$DISCORD_TOKEN" ]; then \
		$(BIN)/quizbot run; \
	else \
		$(BIN)/quizbot play; \
	fi

lint: $(DEV_STAMP)
	$(BIN)/ruff check
	$(BIN)/mypy
	$(BIN)/lint-imports

# The tests start hundreds of Python processes (four workers, the bot, the CLI): bytecode is
# cached (in __pycache__, which git ignores) even where PYTHONDONTWRITEBYTECODE is set, so each
# process starts without compiling quizbot and the test files again. Not PYTHONPYCACHEPREFIX:
# it would hide the bytecode pip wrote for the libraries and compile them all once more.
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(BIN)/pytest

# Every test (SQLite and PostgreSQL, the docs' links), plus ruff and mypy; four pytest-xdist
# workers on two cores, as much of the time a worker waits on sockets, child processes and a
# platform's Retry-After; an idle worker takes tests queued on a busy one (tests/README.md).
test: lint
	$(PYTEST) -q -n 4 --dist worksteal

# One level of the test pyramid (tests/README.md): unit, seconds, no database server;
# contract, each store on SQLite and PostgreSQL; platform, the real bolt and discord.py
# against the test servers; reliability, processes, crashes and faults. No lint; two workers.
unit contract platform reliability: $(DEV_STAMP)
	$(PYTEST) -q -n 2 tests/$@

bench: $(DEV_STAMP)
	$(BIN)/python -m bench --quick

bench-full: $(DEV_STAMP)
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
