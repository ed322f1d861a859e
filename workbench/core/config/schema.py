"""Validation by schema of config tables (recipes, checkpoint metadata), derived from the config
dataclasses themselves: a new model, task or training field is covered without a hand check.

`validated(config_type, data, where)` builds (once per type) a pydantic model from the
dataclass fields: the field's type, strictly (a string is not a number, a boolean not a whole
number), its `param` range and choices, and no unknown keys. A failure is a `UserFacingError`
naming the table and key, what it must be, and for an unknown key the nearest known one
("did you mean 'hidden_size'?"). Cross-field checks stay in each config's `problems()`.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import math
import typing
from collections.abc import Iterable, Mapping
from typing import Any, Literal

import pydantic
from pydantic.fields import FieldInfo

from workbench.core.jobs import UserFacingError


class SchemaError(UserFacingError):
    """A table whose keys or values do not fit its schema; the message lists each problem."""


def validated(config_type: type, data: Mapping[str, Any], where: str,
              ignore: Iterable[str] = ()) -> Any:
    """An instance of `config_type` from `data`, or `SchemaError`. Keys in `ignore` (a
    model's 'arch', a task's 'name': chosen before the type is known) are left out."""
    if not isinstance(data, Mapping):
        raise SchemaError(f"{where} must be a table of settings, not {_shown(data)}.")
    skipped = set(ignore)
    values = {k: v for k, v in data.items() if k not in skipped}
    hints = _hints(config_type)
    for name, value in values.items():  # TOML and JSON have lists where a field has tuples
        if isinstance(value, list) and typing.get_origin(hints.get(name)) is tuple:
            values[name] = tuple(value)
    try:
        checked = _schema(config_type).model_validate(values)
    except pydantic.ValidationError as exc:
        problems = [_explain(config_type, error) for error in exc.errors()]
        raise SchemaError(f"{where}: " + " ".join(problems)) from None
    return config_type(**{name: getattr(checked, name) for name in values})


def _hints(config_type: type) -> dict[str, Any]:
    return typing.get_type_hints(config_type)


@functools.cache
def _schema(config_type: type) -> type[pydantic.BaseModel]:
    hints = _hints(config_type)
    fields = {}
    for spec in dataclasses.fields(config_type):
        meta = spec.metadata
        kind = hints[spec.name]
        if meta.get("choices"):
            kind = Literal[tuple(meta["choices"])]
        limits = {"ge": meta.get("min"), "le": meta.get("max")}
        if kind is float:
            limits["allow_inf_nan"] = False
        default = (spec.default if spec.default is not dataclasses.MISSING
                   else pydantic.Field(default_factory=spec.default_factory))
        if isinstance(default, FieldInfo):
            fields[spec.name] = (kind, default)
        else:
            fields[spec.name] = (kind, pydantic.Field(
                default, **{k: v for k, v in limits.items() if v is not None}))
    config = pydantic.ConfigDict(extra="forbid", strict=True)
    return pydantic.create_model(f"{config_type.__name__}Schema", __config__=config, **fields)


def _explain(config_type: type, error: dict) -> str:
    key = str(error["loc"][0]) if error["loc"] else "?"
    known = [f.name for f in dataclasses.fields(config_type)]
    if error["type"] == "extra_forbidden":
        near = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
        hint = f" (did you mean '{near[0]}'?)" if near else ""
        return f"unknown key '{key}'{hint}. Known keys: {', '.join(known)}."
    return f"'{key}' must be {expected(config_type, key)}, not {_shown(error.get('input'))}."


def expected(config_type: type, key: str) -> str:
    """What a field accepts, in words ('a whole number from 1 to 10,000,000')."""
    spec = next(f for f in dataclasses.fields(config_type) if f.name == key)
    meta, kind = spec.metadata, _hints(config_type)[key]
    if meta.get("choices"):
        return "one of " + ", ".join(repr(c) for c in meta["choices"])
    words = {int: "a whole number", float: "a number", bool: "true or false",
             str: "text"}.get(kind, str(kind))
    low, high = meta.get("min"), meta.get("max")
    if low is not None and high is not None:
        return f"{words} from {_number(low)} to {_number(high)}"
    if low is not None:
        return f"{words} of at least {_number(low)}"
    return words


def _number(value: float) -> str:
    if isinstance(value, float) and not value.is_integer():
        return f"{value:g}"
    return f"{int(value):,}"


def _shown(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    kind = {str: "text", bool: "true/false", int: "a whole number", float: "a number",
            list: "a list", dict: "a table"}.get(type(value), type(value).__name__)
    text = repr(value)
    return f"{text[:40]}{'…' if len(text) > 40 else ''} ({kind})"


def chosen(kind: str, value: Any, known: Iterable[str], where: str) -> str:
    """A name that picks a type (a model's arch, a task's name), or `SchemaError` with the
    nearest known one."""
    names = list(known)
    if isinstance(value, str) and value in names:
        return value
    near = difflib.get_close_matches(str(value), names, n=1, cutoff=0.5)
    hint = f" Did you mean '{near[0]}'?" if near else ""
    raise SchemaError(f"{where}: unknown {kind} {_shown(value)}.{hint} Known: "
                      f"{', '.join(names)}.")


def known_keys(data: Mapping[str, Any], allowed: Iterable[str], where: str) -> None:
    """`SchemaError` for a key outside `allowed` (with the nearest allowed one)."""
    names = list(allowed)
    for key in data:
        if key not in names:
            near = difflib.get_close_matches(str(key), names, n=1, cutoff=0.6)
            hint = f" (did you mean '{near[0]}'?)" if near else ""
            raise SchemaError(f"{where}: unknown key '{key}'{hint}. Known keys: "
                              f"{', '.join(names)}.")
