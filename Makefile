# Each target sets up what it needs: a .venv with the package and its dev tools.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: run test lint bench bench-full clean

$(STAMP): pyproject.toml
	@$(PY) -c 'import sys; sys.exit("quizbot needs Python 3.11 or newer") if sys.version_info < (3, 11) else None'
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	@rm -f $(VENV)/.installed-*
	@touch $(STAMP)

# The bot when a platform token is set, else the terminal quiz on the built-in SQLite default.
run: $(STAMP)
	@if [ -n "$$SLACK_BOT_TOKEN$$SLACK_CLIENT_ID$$DISCORD_TOKEN" ]; then \
		$(BIN)/quizbot run; \
	else \
		$(BIN)/quizbot play; \
	fi

lint: $(STAMP)
	$(BIN)/ruff check
	$(BIN)/mypy
	$(BIN)/lint-imports

# Every test (SQLite and PostgreSQL), plus ruff and mypy.
test: lint
	$(BIN)/pytest -q

bench: $(STAMP)
	$(BIN)/python -m bench --quick

bench-full: $(STAMP)
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
