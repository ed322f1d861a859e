"""Put word vectors into a language model's input embedding E (SEEDS E1, E17), frozen or not.

`bridge.embedding_init` chooses one row per token of the model's vocabulary and the panel hands
`(matrix, freeze)` to the controller; the trainer calls `apply_embedding_init(model, matrix,
freeze)` once the model is built and before the optimizer is made. Frozen rows get no gradient,
so AdamW leaves them (and their weight decay) alone. With tied weights (E = V) the output layer
is the same tensor: freezing E freezes it too, which the returned note says.
"""

from __future__ import annotations

import numpy as np

from workbench.core.jobs import UserFacingError


def apply_embedding_init(model, matrix: np.ndarray, freeze: bool) -> str:
    """Copy `matrix` (V, d) into `model.embedding.weight`; returns a line for the run log."""
    import torch

    weight = model.embedding.weight
    rows, width = weight.shape
    if matrix.shape != (rows, width):
        if matrix.shape[0] != rows:
            raise UserFacingError(
                f"The word vectors were matched to a vocabulary of {matrix.shape[0]} tokens but "
                f"the model has {rows}. Check coverage again in the Embeddings panel after "
                "choosing the tokenizer.")
        raise UserFacingError(
            f"The word vectors have {matrix.shape[1]} dimensions but the model's embedding has "
            f"{width}. Set the model's embedding width to {matrix.shape[1]}, or train vectors "
            f"of size {width}, then check coverage again.")
    with torch.no_grad():
        weight.copy_(torch.from_numpy(np.ascontiguousarray(matrix, dtype=np.float32)))
    weight.requires_grad_(not freeze)
    tied = getattr(getattr(model, "head", None), "weight", None) is weight
    note = f"Input embedding set from word vectors ({rows} × {width}), "
    note += "frozen" if freeze else "fine-tuned with the model"
    if tied and freeze:
        note += "; the output layer shares it (tied weights), so it is frozen too"
    return note + "."
