"""LoRA fine-tuning (Hu et al. 2021) of a model that starts from a model folder, through `peft`
(an optional extra, imported only when a run asks for LoRA).

W x becomes W x + (α/r) B A x for the attention projections (`qkv`, W_Q W_K W_V side by side,
and `proj`, W_O): A (r × in) starts random, B (out × r) at zero, so step 0 computes exactly
the pretrained model; W and everything else stay frozen and only A and B train.

`peft.inject_adapter_in_model` replaces those Linear layers in place, so the model keeps its
own class, forward and trace. Its state then names W `….qkv.base_layer.weight` and adds
`….qkv.lora_A.default.weight`: what the rest of the app reads (snapshots, checkpoints' model
part, export, the inspectors) is the merged W' = W + (α/r) B A under the plain names, and a
checkpoint keeps the base layers and the factors beside it (`lora_parts`) so that a resumed
run continues from the same W, A and B, not from W'.
"""

from __future__ import annotations

from typing import Any

import torch

from workbench.core.jobs import UserFacingError

_BASE = ".base_layer."
_FACTOR = (".lora_A.", ".lora_B.")


def wrap(model: torch.nn.Module, training: Any) -> torch.nn.Module:
    """`model` with LoRA on the Linear layers named in `training.lora_targets`, everything
    else frozen; `UserFacingError` when peft is missing or no layer has such a name."""
    try:
        from peft import LoraConfig, inject_adapter_in_model
    except ImportError:
        raise UserFacingError("LoRA fine-tuning needs the 'peft' package: pip install "
                              "'sequence-workbench[hf]' (or pip install peft), or set "
                              "'LoRA rank' to 0 for full fine-tuning.") from None
    targets = targets_of(training)
    present = {name.rsplit(".", 1)[-1] for name, module in model.named_modules()
               if isinstance(module, torch.nn.Linear)}
    if not set(targets) & present:
        raise UserFacingError(f"LoRA adapts the Linear layers named {', '.join(targets)}, and "
                              "this model has none (LoRA is for the transformer's attention "
                              "projections qkv and proj).")
    config = LoraConfig(r=int(training.lora_rank), lora_alpha=float(training.lora_alpha),
                        lora_dropout=float(training.lora_dropout),
                        target_modules=[t for t in targets if t in present], bias="none")
    model = inject_adapter_in_model(config, model)
    # a classifier's or tagger's head is new (only its encoder is pretrained): it trains whole
    fresh = "encoder." if isinstance(getattr(model, "encoder", None), torch.nn.Module) else None
    for name, parameter in model.named_parameters():
        parameter.requires_grad_(_is_factor(name)
                                 or (fresh is not None and not name.startswith(fresh)))
    return model


def wrap_for_run(model: torch.nn.Module, training: Any, task: Any) -> torch.nn.Module:
    """The run's model, wrapped when its training settings ask for LoRA, which adapts a
    pretrained model (a random one has nothing to keep frozen)."""
    if not training.lora_rank:
        return model
    started = any(str(getattr(task, key, "") or "").strip() for key in ("start_from",
                                                                         "pretrained"))
    if not started:
        raise UserFacingError("LoRA adapts a pretrained model, and this run trains a new one: "
                              "set 'Start from' to a model folder, or 'LoRA rank' to 0.")
    return wrap(model, training)


def targets_of(training: Any) -> list[str]:
    return [t for t in str(training.lora_targets).replace(",", " ").split() if t]


def is_lora(model: torch.nn.Module) -> bool:
    return any(_is_factor(name) for name, _ in model.named_parameters())


def _is_factor(name: str) -> bool:
    return any(part in name for part in _FACTOR)


def _adapted(model: torch.nn.Module):
    """(plain name prefix, LoRA layer) of every adapted Linear."""
    from peft.tuners.lora import LoraLayer

    for name, module in model.named_modules():
        if isinstance(module, LoraLayer):
            yield name, module


@torch.no_grad()
def merged_state(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    """The model's state under the plain names, each adapted weight merged: W + (α/r) B A
    (peft's own delta, so its scaling and layout are the ones it trains with)."""
    if not is_lora(model):
        return dict(model.state_dict())
    deltas = {f"{name}.weight": layer.get_delta_weight(adapter)
              for name, layer in _adapted(model) for adapter in layer.active_adapters}
    out: dict[str, torch.Tensor] = {}
    for name, tensor in model.state_dict().items():
        if _is_factor(name):
            continue
        plain = name.replace(_BASE, ".")
        out[plain] = tensor + deltas[plain].to(tensor.dtype) if plain in deltas else tensor
    return out


def lora_parts(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    """What a checkpoint keeps beside the merged weights to resume exactly: the base layers
    and the factors A and B, under peft's names ({} for a model without LoRA)."""
    if not is_lora(model):
        return {}
    return {name: tensor for name, tensor in model.state_dict().items()
            if _BASE in name or _is_factor(name)}


def unmerged_state(merged: dict[str, torch.Tensor], parts: dict[str, torch.Tensor]
                   ) -> dict[str, torch.Tensor]:
    """The LoRA model's own state from a checkpoint's two parts: its plain weights, the
    adapted ones replaced by their base layers and factors."""
    adapted = {name.replace(_BASE, ".") for name in parts if _BASE in name}
    state = {k: v for k, v in merged.items() if k not in adapted}
    state.update(parts)
    return state


def trained_values(shapes: dict[str, tuple[int, ...]], training: Any) -> int:
    """How many values LoRA trains in a model of these state shapes (before it is wrapped):
    r (in + out) for each adapted (out × in) weight."""
    targets, rank = set(targets_of(training)), int(training.lora_rank)
    return sum(rank * (shape[0] + shape[1]) for name, shape in shapes.items()
               if len(shape) == 2 and name.endswith(".weight")
               and name[:-len(".weight")].rsplit(".", 1)[-1] in targets)
