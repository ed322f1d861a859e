"""The lines of a run's logs: each event of metrics.jsonl and each sample of samples.jsonl,
as written (`event_to_json`) and as read back (`parse_event_line`, `parse_sample_line`).

The one reader of those lines: opening a run (`runs.read_run`) and following one still being
written (`run_tail.RunTail`) both parse through here, so a line means the same to both.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, fields
from typing import Any

from workbench.core.events import (
    CheckpointSaved,
    DivergenceHandled,
    EvalLogged,
    Event,
    SampleGenerated,
    StepLogged,
    TestLogged,
)

EVENT_NAMES: dict[type, str] = {StepLogged: "step", EvalLogged: "eval",
                                DivergenceHandled: "divergence", CheckpointSaved: "checkpoint",
                                TestLogged: "test"}
EVENT_TYPES = {name: cls for cls, name in EVENT_NAMES.items()}


def event_to_json(event: Event) -> str | None:
    name = EVENT_NAMES.get(type(event))
    if name is None:
        return None
    return json.dumps({"event": name, **asdict(event)}, allow_nan=True, default=_plain)


def _plain(value: Any) -> Any:
    """numpy values in a task's structured results, as JSON keeps them (arrays as lists)."""
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} cannot be written to metrics.jsonl")


def parse_event_line(line: str | bytes) -> Event:
    """One line of metrics.jsonl as its event; `ValueError` when the line is damaged.

    The one parser of metrics lines: opening a run (`read_run`) and following one that is still
    being written (`run_tail.RunTail`) both read through it. Besides broken JSON it refuses
    values of the wrong type (a string step) and numbers no run writes (an infinite or NaN
    loss, a negative step), so one damaged line cannot blank or break the curves."""
    try:
        text = line.decode("utf-8") if isinstance(line, bytes) else line
        data = json.loads(text)
        cls = EVENT_TYPES[data.pop("event")]
        _check_fields(cls, data)
        return cls(**data)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"damaged metrics line: {exc}") from None


def _check_fields(cls: type, data: dict) -> None:
    """Types and ranges of a logged event's fields (TypeError/ValueError when wrong)."""
    for spec in fields(cls):
        if spec.name not in data:
            continue
        value, kind = data[spec.name], str(spec.type)
        if kind == "int" and (not isinstance(value, int) or isinstance(value, bool)
                              or value < 0):
            raise ValueError(f"{spec.name} should be a whole number ≥ 0, not {value!r}")
        if kind == "float":
            optional = isinstance(spec.default, float) and math.isnan(spec.default)
            _check_number(spec.name, value, allow_missing=optional)
        if kind in ("str", "bool") and type(value).__name__ != kind:
            raise ValueError(f"{spec.name} should be a {kind}, not {value!r}")
        if kind.startswith("dict") and not isinstance(value, dict):
            raise ValueError(f"{spec.name} should be a table, not {value!r}")
    for name, value in (data.get("metrics") or {}).items():
        _check_number(f"metrics.{name}", value, allow_missing=True)


def _check_number(name: str, value: Any, allow_missing: bool) -> None:
    """A number; NaN ('not measured') and +inf (an overflowing perplexity) only where a
    metric may be missing; never -inf."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise ValueError(f"{name} should be a number, not {value!r}")
    if value == -math.inf or (not allow_missing and not math.isfinite(value)):
        raise ValueError(f"{name} is {value}, which no run writes")


def parse_sample_line(line: str | bytes) -> SampleGenerated:
    """One line of samples.jsonl; `ValueError` when the line is damaged."""
    try:
        text = line.decode("utf-8") if isinstance(line, bytes) else line
        data = json.loads(text)
        step, sample = data["step"], data["text"]
        if not isinstance(step, int) or isinstance(step, bool) or step < 0:
            raise ValueError(f"step should be a whole number ≥ 0, not {step!r}")
        if not isinstance(sample, str):
            raise ValueError(f"text should be a string, not {sample!r}")
        return SampleGenerated(step, sample)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"damaged sample line: {exc}") from None
