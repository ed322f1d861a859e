"""Helpers to declare config fields with form metadata, and to read and write configs as dicts."""

from __future__ import annotations

import dataclasses
import math
from typing import Any


def param(
    default: Any,
    label: str,
    tooltip: str,
    *,
    min: float | None = None,  # noqa: A002 - the form's own words
    max: float | None = None,  # noqa: A002
    step: float | None = None,
    choices: tuple[Any, ...] | None = None,
    advanced: bool = False,
) -> Any:
    """A dataclass field with the metadata a generated form needs."""
    meta = {"label": label, "tooltip": tooltip, "min": min, "max": max, "step": step,
            "choices": choices, "advanced": advanced}
    return dataclasses.field(default=default, metadata=meta)


def form_fields(config_type: type) -> list[dataclasses.Field]:
    """The fields a form shows (those declared with `param`), in declaration order."""
    return [f for f in dataclasses.fields(config_type) if "label" in f.metadata]


def field_values(config: Any) -> dict[str, Any]:
    """A config dataclass's field values by name (shallow, unlike `dataclasses.asdict`)."""
    return {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}


def range_problems(config: Any) -> list[str]:
    """Messages for numeric fields outside their declared min/max or choices."""
    problems = []
    for f in form_fields(type(config)):
        value = getattr(config, f.name)
        meta = f.metadata
        if meta["choices"] is not None and value not in meta["choices"]:
            options = ", ".join(map(str, meta["choices"]))
            problems.append(f"{meta['label']} must be one of {options}.")
        if isinstance(value, float) and math.isnan(value):  # fails every comparison below
            problems.append(f"{meta['label']} must be a number (got nan).")
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            if meta["min"] is not None and value < meta["min"]:
                problems.append(f"{meta['label']} must be at least {meta['min']} (got {value}).")
            if meta["max"] is not None and value > meta["max"]:
                problems.append(f"{meta['label']} must be at most {meta['max']} (got {value}).")
    return problems


def to_dict(config: Any) -> dict[str, Any]:
    return dataclasses.asdict(config)


def from_dict(config_type: type, data: dict[str, Any]) -> Any:
    """Build a config from a dict, ignoring unknown keys and keeping defaults for missing ones."""
    names = {f.name for f in dataclasses.fields(config_type)}
    kwargs = {k: v for k, v in data.items() if k in names}
    for f in dataclasses.fields(config_type):  # TOML and JSON turn tuples into lists
        if f.name in kwargs and isinstance(kwargs[f.name], list) and isinstance(f.default, tuple):
            kwargs[f.name] = tuple(kwargs[f.name])
    return config_type(**kwargs)
