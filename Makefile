# Two entry points a newcomer needs: `make run` and `make test`. Both are idempotent.
PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-all setup lint installers platforms clean

run: $(STAMP)
	$(BIN)/workbench

# The workbench's own modules and pytest's rewritten test files are compiled on first import:
# let the tests keep them (.pyc) whatever the environment says, or each process compiles them.
PYTEST := env -u PYTHONDONTWRITEBYTECODE QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest \
	-n 2 --dist loadgroup -q --durations=15

# What CI runs: all but the tests marked slow (the real window and the real backend's window
# tests, DDP, crash points); `make test-all` runs every test.
test: $(STAMP)
	$(PYTEST) -m "not slow"
	$(BIN)/ruff check workbench tests benchmarks packaging

test-all: $(STAMP)
	$(PYTEST)
	$(BIN)/ruff check workbench tests benchmarks packaging

setup: $(STAMP)

$(STAMP): pyproject.toml setup.py constraints.txt scripts/setup_venv.sh
	bash scripts/setup_venv.sh $(PYTHON) $(VENV) dev
	touch $(STAMP)

# mypy checks the typed seam (settings in pyproject.toml [tool.mypy]); not in `make test`
lint: $(STAMP)
	$(BIN)/ruff check workbench tests benchmarks packaging
	$(BIN)/lint-imports
	$(BIN)/python -m mypy workbench/qt workbench/app workbench/core/api.py

# Which platforms the wheel's dependencies install on (uv; reports, and does not fail, offline)
platforms: $(STAMP)
	$(BIN)/python -m pip install -q uv || echo "uv could not be installed: the script says so"
	$(BIN)/python packaging/resolve_platforms.py

installers:
	bash packaging/build_linux.sh

clean:
	rm -rf $(VENV) build dist *.egg-info
