# Two entry points a newcomer needs: `make run` and `make test`. Both are idempotent.
PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test setup lint installers platforms clean

run: $(STAMP)
	$(BIN)/workbench

test: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -n 2 --dist loadgroup -q --durations=15
	$(BIN)/ruff check workbench tests benchmarks packaging

setup: $(STAMP)

$(STAMP): pyproject.toml setup.py constraints.txt
	@command -v $(PYTHON) >/dev/null || { echo "Python 3.11 is needed (set PYTHON=/path/to/python3.11)"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -c constraints.txt -e ".[dev]"
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
