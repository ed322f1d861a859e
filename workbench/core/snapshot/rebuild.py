"""Taking a snapshot off the live model and rebuilding a private model from one (torch).

The torch half of the snapshot package: `Snapshot` itself (the package's __init__) is
torch-free so that the Qt room may hold one; this module is for the rooms that run models.
"""

from __future__ import annotations

from typing import Any

import torch

from workbench.core.config.models import config_from_dict, config_to_dict
from workbench.core.models.base import SequenceModel
from workbench.core.models.registry import build_model
from workbench.core.snapshot import Snapshot


def snapshot_of(
    model: SequenceModel,
    tokenizer: dict[str, Any],
    step: int = 0,
    metrics: dict[str, float] | None = None,
    run_name: str = "",
) -> Snapshot:
    """Copy the weights off the live model (any device) so others never touch it."""
    weights = {
        name: tensor.detach().to("cpu", dtype=torch.float32, copy=True).numpy()
        for name, tensor in model.state_dict().items()
    }
    return Snapshot(
        model_config=config_to_dict(model.config),
        weights=weights,
        tokenizer=dict(tokenizer),
        step=int(step),
        metrics=dict(metrics or {}),
        run_name=run_name,
    )


def model_from_snapshot(snapshot: Snapshot) -> SequenceModel:
    """A private CPU model in eval mode with the snapshot's weights.

    The model is built on the meta device and takes the snapshot's arrays as its parameters
    (no copy, nothing allocated twice: a GPT-2 opened from its folder costs its weights once,
    not three times). Inspectors and the console only read it, and a snapshot is never
    changed. A model with buffers rebuilt from a formula (sinusoidal positions) is built on
    the CPU and the weights copied in."""
    config = config_from_dict(snapshot.model_config)
    state = {name: torch.from_numpy(array) if array.flags.writeable
             else torch.from_numpy(array.copy()) for name, array in snapshot.weights.items()}
    with torch.device("meta"):
        model = build_model(config)
    model.load_state_dict(state, assign=True)
    if any(t.is_meta for t in [*model.parameters(), *model.buffers()]):
        model = build_model(config)
        model.load_state_dict(state)
    return model.eval()
