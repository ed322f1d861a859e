"""Map methods an install lacks (the classroom installers leave UMAP out) are named with the
reason, and a map job for one is refused with it instead of failing inside the job."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from workbench.core.embeddings import maps
from workbench.core.jobs import UserFacingError


class FewVectors:
    vectors = np.random.default_rng(0).normal(size=(10, 4)).astype(np.float32)

    def __len__(self) -> int:
        return len(self.vectors)


def test_umap_is_unavailable_exactly_when_it_is_not_installed(monkeypatch):
    installed = importlib.util.find_spec("umap") is not None
    assert ("umap" in maps.unavailable_methods()) is not installed
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "umap" else real_find_spec(name, *a))
    reasons = maps.unavailable_methods()
    assert list(reasons) == ["umap"]
    assert "PCA and t-SNE" in reasons["umap"]
    with pytest.raises(UserFacingError, match="not part of this installer"):
        maps.map_job(FewVectors(), "umap")
    assert maps.map_job(FewVectors(), "pca").title.startswith("PCA")
