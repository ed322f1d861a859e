"""The end-to-end tests: the real window, real training, the CLI in subprocesses.

They are all `slow`: `make test` (what CI runs on a 2-core machine) leaves them out and
`make test-all` runs them. On such a machine the whole suite took more than an hour (stop 37)."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "/tests/e2e/" in str(item.path).replace("\\", "/"):
            item.add_marker(pytest.mark.slow)
