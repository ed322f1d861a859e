"""Architecture name -> builder. Each model family registers itself; nothing else branches."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from workbench.core.config.models import settings_problems
from workbench.core.jobs import UserFacingError
from workbench.core.models.base import SequenceModel

_BUILDERS: dict[str, Callable[[Any], SequenceModel]] = {}


def register_builder(arch: str) -> Callable:
    """Decorator for a model class (or factory) that builds the architecture `arch`."""

    def decorate(builder: Callable[[Any], SequenceModel]) -> Callable[[Any], SequenceModel]:
        _BUILDERS[arch] = builder
        return builder

    return decorate


def build_model(config: Any) -> SequenceModel:
    """Build the model a config describes; invalid settings raise a readable error."""
    problems = settings_problems(config)
    if problems:
        raise UserFacingError("Invalid model settings: " + " ".join(problems))
    if config.arch not in _BUILDERS:
        raise UserFacingError(f"No model is registered for the architecture '{config.arch}'.")
    return _BUILDERS[config.arch](config)


def registered() -> list[str]:
    return list(_BUILDERS)
