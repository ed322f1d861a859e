"""Find the files that ship with the app, the same way from a checkout, a wheel or a frozen app.

- a frozen app (PyInstaller) unpacks `resources/` under `sys._MEIPASS`;
- an installed wheel carries it as the package data `workbench/_resources` (pyproject maps the
  top-level `resources/` folder there);
- a source checkout has it beside the `workbench` package.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent.parent


def resources_root() -> Path:
    candidates = []
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        candidates.append(Path(frozen) / "resources")
    candidates.append(_PACKAGE_DIR / "_resources")
    candidates.append(_PACKAGE_DIR.parent / "resources")
    for candidate in candidates:
        if (candidate / "corpora").is_dir():
            return candidate
    raise FileNotFoundError(
        "The app's resources folder was not found (looked in: "
        + ", ".join(str(c) for c in candidates)
        + "). Reinstall the app or run it from a full source checkout."
    )


def resource_path(*parts: str) -> Path:
    return resources_root().joinpath(*parts)


def default_corpus_path() -> Path:
    """The corpus the app opens on first start: about 1 MB of Shakespeare, eight plays."""
    return resource_path("corpora", "shakespeare-small")


def full_corpus_path() -> Path:
    """All 42 works (5 MB), for word-level models."""
    return resource_path("corpora", "shakespeare-full")


def dataset_path(*parts: str) -> Path:
    """A labelled data set that ships with the app (see resources/datasets/PROVENANCE.md)."""
    return resource_path("datasets", *parts)


MODELS_ENV = "WORKBENCH_MODELS_DIR"


def user_models_dir() -> Path:
    """Where a classroom copies pretrained model folders (a lesson's `pretrained = "gpt2"` is
    the folder `gpt2` here): `$WORKBENCH_MODELS_DIR`, else the app's data folder's models/."""
    given = os.environ.get(MODELS_ENV, "").strip()
    if given:
        return Path(given).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("sequence-workbench")) / "models"


def user_model_folder(name: str) -> Path:
    return user_models_dir() / name
