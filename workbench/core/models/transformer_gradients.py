"""Gradient through the residual stream: the transformer's answer to "gradient through time".

The recurrent models' curve (`RecurrentLM.hidden_gradients`) is ‖∂L_T/∂h_t‖, L_T the
cross-entropy of the probe's last prediction: h_t reaches L_T only through the product of
Jacobians ∂h_{t+1}/∂h_t ⋯ ∂h_T/∂h_{T−1}, so the norm fades (or grows) geometrically going back.
Here the same loss is differentiated with respect to the residual stream x_t^(l) entering each
block l at each position t (x^(0): the embeddings with their positions). There is no chain
through time: block l's attention reads every earlier position directly, and the residual
connection x^(l+1) = x^(l) + … carries the gradient from block to block unchanged by a product,
so an early position is as few hops from the loss as a late one.

The stream after the last block is not a curve: the final norm and the head read each position
alone, so the last prediction's loss reaches it only at the last position.

Computed on the transcription `transformer_steps.run` (the trace's path, the same weights);
a test compares it with autograd through the fused `forward`.
"""

from __future__ import annotations

import numpy as np
import torch
from torch.nn import functional as F

from workbench.core.models import transformer_steps
from workbench.core.models.base import as_probe, eval_mode


def stream_name(block: int) -> str:
    """The curve of the stream entering `block` (block 0's input is the embeddings)."""
    return "block 0 input (embeddings)" if block == 0 else f"block {block} input"


def stream_gradients(model, tokens: torch.Tensor, targets: torch.Tensor
                     ) -> dict[str, np.ndarray]:
    """{stream name: ‖∂L_T/∂x_t^(l)‖ for t = 1 … T} of a causal decoder, L_T the cross-entropy
    of the last position's prediction of targets[-1], as the recurrent models' curve."""
    tokens = as_probe(tokens).to(model.embedding.weight.device)
    targets = as_probe(targets).to(tokens.device)
    with eval_mode(model, grad=True):
        # a leaf of its own: a frozen embedding table (a LoRA run) still gives ∂L/∂x^(0)
        x0 = model.embed(tokens).detach().requires_grad_(True)
        x, records = transformer_steps.run(model, x0, None, record=True)
        logits = model.head(model.final_norm(x[:, -1]))
        loss = F.cross_entropy(logits, targets[:, -1])
        streams = [x0] + [rec["resid_in"] for rec in records[1:]]
        grads = torch.autograd.grad(loss, streams)
    return {stream_name(i): g[0].norm(dim=-1).double().cpu().numpy()
            for i, g in enumerate(grads)}


def masked_stream_gradients(model, ids: list[int], mask_id: int) -> dict[str, np.ndarray]:
    """{stream name: ‖∂L/∂x_t^(l)‖ for every position t} of a masked LM's transformer encoder,
    L = −log p(its own best guess at the probe's first [MASK]): a probe has no original token,
    so the loss is the one of the answer the model gives. Every position, on both sides of the
    blank, since the encoder reads both ways; {} for a probe without `mask_id`."""
    if mask_id not in ids:
        return {}
    encoder = model.encoder
    tokens = as_probe(torch.tensor(ids, dtype=torch.long)).to(encoder.embedding.weight.device)
    where = ids.index(mask_id) + int(bool(getattr(encoder, "has_cls", False)))
    with eval_mode(model, grad=True):
        x0, _ = encoder.embed_with_cls(tokens, None, transformer_steps.layer_norm)
        x0 = x0.detach().requires_grad_(True)  # a leaf of its own, as the decoder's
        x, records = transformer_steps.run(encoder, x0, None, record=True)
        states = encoder.final_norm(x)[:, where]
        logits = model.head(states)
        loss = F.cross_entropy(logits, logits.argmax(-1).detach())
        streams = [x0] + [rec["resid_in"] for rec in records[1:]]
        grads = torch.autograd.grad(loss, streams)
    return {stream_name(i): g[0].norm(dim=-1).double().cpu().numpy()
            for i, g in enumerate(grads)}
