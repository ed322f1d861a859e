"""What a resume takes from a checkpoint besides the weights, checked against the live run.

A checkpoint's hash proves only that its files belong together: an edited file with its hash
recomputed passes it. Torch checks little of the rest, or late: empty optimizer
`param_groups` failed inside `load_state_dict` with a ValueError, a mis-shaped `exp_avg`
loaded and failed at the first step ("size of tensor a (3) must match..."), a float or short
`rng.torch` failed inside the generator. Each is named here, before the run continues, and
nothing in the run folder has been written yet, so nothing is lost.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from workbench.core.jobs import UserFacingError

# what torch keeps per parameter besides tensors shaped like it (a step count)
_SCALAR_STATE = ("step",)
# what AdamW keeps for every parameter it has updated: all of it, or nothing (a parameter
# that never had a gradient). With only some of it AdamW failed at the first step (KeyError).
_ADAMW_STATE = ("step", "exp_avg", "exp_avg_sq")


def _refused(where: str, problem: str) -> UserFacingError:
    return UserFacingError(f"{where} cannot be resumed: {problem}. The checkpoint was "
                           "damaged or edited; resume from another run, or start the recipe "
                           "again as a new run.")


def check_optimizer_state(optimizer: torch.optim.Optimizer, saved: Any, where: str) -> int:
    """The saved optimizer state fits this optimizer: as many groups with as many
    parameters, numeric settings that are numbers, and per-parameter tensors shaped like
    their parameter, finite. Returns how many of the parameters have saved moments (AdamW's
    averages; for other optimizers every listed parameter counts)."""
    groups = saved.get("param_groups") if isinstance(saved, dict) else None
    live = optimizer.param_groups
    if not isinstance(groups, list) or len(groups) != len(live):
        count = len(groups) if isinstance(groups, list) else "no"
        raise _refused(where, f"its optimizer state has {count} parameter groups, this "
                              f"run's optimizer {len(live)}")
    params: dict[int, torch.Tensor] = {}
    for number, (group, own) in enumerate(zip(groups, live, strict=True)):
        ids = group.get("params") if isinstance(group, dict) else None
        if (not isinstance(ids, list) or len(ids) != len(own["params"])
                or not all(isinstance(i, int) and not isinstance(i, bool) for i in ids)):
            raise _refused(where, f"optimizer group {number} does not list the "
                                  f"{len(own['params'])} parameters of this model")
        params.update(zip(ids, own["params"], strict=True))
        _check_settings(group, own, number, where)
    state = saved.get("state")
    if not isinstance(state, dict):
        raise _refused(where, "its optimizer state is not a table")
    for index, values in state.items():
        if index not in params:
            raise _refused(where, f"its optimizer state names parameter {index}, which no "
                                  "group lists")
        for name, value in (values.items() if isinstance(values, dict) else ()):
            if isinstance(value, torch.Tensor):
                _check_tensor(name, value, params[index], index, where)
    if not isinstance(optimizer, torch.optim.AdamW):
        return len(params)
    kept = 0
    for index, values in state.items():
        present = [n for n in _ADAMW_STATE if isinstance(values, dict) and n in values]
        if present and len(present) < len(_ADAMW_STATE):
            missing = ", ".join(n for n in _ADAMW_STATE if n not in present)
            raise _refused(where, f"its optimizer state for parameter {index} lacks {missing}")
        kept += bool(present)
    return kept


def _check_settings(group: dict, own: dict, number: int, where: str) -> None:
    for key, value in own.items():
        if key == "params" or key not in group or isinstance(value, bool) or value is None:
            continue
        saved = group[key]
        if isinstance(value, int | float):
            good = (isinstance(saved, int | float) and not isinstance(saved, bool)
                    and math.isfinite(saved))
        elif isinstance(value, tuple | list):
            good = (isinstance(saved, tuple | list) and len(saved) == len(value)
                    and all(isinstance(v, int | float) and not isinstance(v, bool)
                            and math.isfinite(v) for v in saved))
        else:
            continue
        if not good:
            raise _refused(where, f"optimizer group {number} has '{key}' = "
                                  f"{str(saved)[:40]}, not a number like {value!r}")


def _check_tensor(name: str, value: torch.Tensor, param: torch.Tensor, index: int,
                  where: str) -> None:
    what = f"the optimizer's '{name}' of parameter {index}"
    if not value.dtype.is_floating_point:
        raise _refused(where, f"{what} holds {str(value.dtype).removeprefix('torch.')}, not "
                              "floating-point numbers")
    if name in _SCALAR_STATE:
        if value.numel() != 1:
            raise _refused(where, f"{what} has {value.numel()} values, not one")
    elif tuple(value.shape) != tuple(param.shape):
        raise _refused(where, f"{what} has shape {tuple(value.shape)}, its parameter "
                              f"{tuple(param.shape)}")
    if not bool(torch.isfinite(value).all()):
        raise _refused(where, f"{what} holds values that are not numbers (NaN or infinity)")


def check_rng_state(rng: Any, where: str) -> None:
    """A torch RNG state as `torch.get_rng_state` gives it (bytes, at least its length; a
    GPU's part may follow)."""
    size = torch.get_rng_state().numel()
    if not isinstance(rng, torch.Tensor) or rng.dtype != torch.uint8 or rng.dim() != 1:
        shown = (f"{str(rng.dtype).removeprefix('torch.')} of shape {tuple(rng.shape)}"
                 if isinstance(rng, torch.Tensor) else type(rng).__name__)
        raise _refused(where, f"its random-number state 'rng.torch' is {shown}, not bytes")
    if rng.numel() < size:
        raise _refused(where, f"its random-number state 'rng.torch' has {rng.numel():,} "
                              f"bytes, torch's has {size:,}")


def check_carry(template: Any, parts: list[torch.Tensor], where: str) -> None:
    """The saved hidden state has the parts, shapes and kind of numbers the model's own
    state has (`template`: the model's `init_state` for the run's batch size)."""
    from workbench.core.training.checkpoints import flatten_state

    expected = flatten_state(template)
    if len(parts) != len(expected):
        raise _refused(where, f"its carried hidden state has {len(parts)} parts, this model's "
                              f"{len(expected)}")
    for number, (part, own) in enumerate(zip(parts, expected, strict=True)):
        if tuple(part.shape) != tuple(own.shape) or not part.dtype.is_floating_point:
            raise _refused(where, f"part {number} of its carried hidden state is "
                                  f"{str(part.dtype).removeprefix('torch.')} of shape "
                                  f"{tuple(part.shape)}, this model's {tuple(own.shape)}")
