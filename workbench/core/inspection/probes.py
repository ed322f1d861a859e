"""Probe a model with a sentence: its trace plus what the inspectors draw from it.

The probe job runs `model.trace` (the step-by-step transcription of the seed equations on the
model's own weights) and adds to `Trace.extras`, so the Qt room receives one torch-free object:

  "topk_ids", "topk_probs" (T, k)    the k most likely next tokens at each position
  "topk_text" (T, k)                 their text
  "token_loss" (T,)                  -log p(x_t | x_<t), NaN for the first token
  "pca_path" (T, 2), "pca_explained" (2,)  last layer's states projected by PCA
  "saturation/<layer>/<gate>" (H, 2) fractions of steps with the gate < 0.1 and > 0.9
  "head_stats/<layer>" (nh, 4)       entropy, mean distance, previous- and first-token scores
  "grad_norm/<layer>" (T-1,)         ||dL_T/dh_t||, L_T the last prediction's loss (recurrent);
                                     a transformer decoder's ||dL_T/dx_t^(l)||, x^(l) the residual
                                     stream entering block l ("block l input")
  "step" ()                          the training step of the snapshot probed
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import numpy as np

from workbench.core.data.masking import MASK_TEXT
from workbench.core.events import Event, JobFinished, Progress
from workbench.core.inspection import statistics
from workbench.core.jobs import JobControl, JobSpec, UserFacingError
from workbench.core.trace import Trace

MAX_PROBE_TOKENS = 512
TOP_K = 5


def display_text(tokenizer: Any, token_id: int) -> str:
    """A token as the user reads it (decoded, so byte-level BPE shows its characters; a piece
    of a character's bytes shows them as <0xE2> rather than U+FFFD). A WordPiece piece
    decodes alone as itself ("##s"): its readable form says it continues a word ("s")."""
    if getattr(tokenizer, "piece_prefix", ""):
        return tokenizer.readable_token(int(token_id))
    text = tokenizer.decode([int(token_id)])
    return text if text and "\ufffd" not in text else tokenizer.readable_token(int(token_id))


def encode_probe(tokenizer: Any, text: str, mask_id: int | None = None) -> list[int]:
    """The probe's ids. A masked LM's [MASK] typed in the text is its mask id: a BERT folder's
    tokenizer knows it; the app's own tokenizer does not (the id lies past its vocabulary), so
    the text is split there, as Fill in the blank reads it."""
    if not text.strip():
        raise UserFacingError("The probe text is empty. Type a sentence to probe the model with.")
    if mask_id is not None and MASK_TEXT in text and getattr(tokenizer, "mask_id", None) is None:
        first, *rest = text.split(MASK_TEXT)
        ids = tokenizer.encode_prompt(first.rstrip())  # the mask has its own leading space
        for piece in rest:
            ids = [*ids, mask_id, *(tokenizer.encode(piece) if piece.strip() else [])]
    else:
        ids = tokenizer.encode_prompt(text)  # <bos> first when the model was trained with it
    if len(ids) > MAX_PROBE_TOKENS:
        raise UserFacingError(
            f"The probe is {len(ids)} tokens long; inspectors show at most {MAX_PROBE_TOKENS}. "
            "Shorten the probe text.")
    return ids


def probe(model: Any, tokenizer: Any, text: str, step: int = 0, top_k: int = TOP_K,
          mask_id: int | None = None) -> Trace:
    """Trace `text` through `model` and add the inspectors' extras (see the module doc)."""
    import torch

    ids = encode_probe(tokenizer, text, mask_id)
    token_text = [MASK_TEXT if mask_id is not None and i == mask_id else
                  display_text(tokenizer, i) for i in ids]
    tokens = torch.tensor(ids, dtype=torch.long)
    try:  # the model labels its own positions (an encoder's [CLS] comes first)
        trace = model.trace(tokens, token_text=token_text)
    except TypeError:  # a model whose trace does not take token_text
        trace = dataclasses.replace(model.trace(tokens), token_text=token_text)
    next_token = getattr(model, "predicts_next_token", True)
    return dataclasses.replace(trace, extras={
        **trace.extras, **derived_extras(trace, tokenizer, top_k, step, next_token)})


def derived_extras(trace: Trace, tokenizer: Any, top_k: int, step: int,
                   next_token: bool = True) -> dict[str, np.ndarray]:
    """The extras of the module doc; the next-token ones only for a model whose logits are
    next-token predictions (an encoder's head answers something else: a label, tags)."""
    extras: dict[str, np.ndarray] = {"step": np.array(step)}
    if next_token:
        extras.update(_next_token_extras(trace, tokenizer, top_k))
    if trace.layers:
        last = trace.layers[-1].values
        states = last.get("h", last.get("resid"))
        if states is not None:
            extras["pca_path"], extras["pca_explained"] = statistics.pca_path(states)
    for layer in trace.layers:
        for gate, fractions in statistics.gate_saturation(layer).items():
            extras[f"saturation/{layer.name}/{gate}"] = fractions
        if "attn" in layer.values:
            extras[f"head_stats/{layer.name}"] = statistics.head_statistics(layer.values["attn"])
    return extras


def _next_token_extras(trace: Trace, tokenizer: Any, top_k: int) -> dict[str, np.ndarray]:
    ids = np.asarray(trace.tokens)
    extras: dict[str, np.ndarray] = {}
    top_ids, top_probs = statistics.top_k_next(trace.logits, top_k)
    extras["topk_ids"] = top_ids
    extras["topk_probs"] = top_probs
    extras["topk_text"] = np.array([[display_text(tokenizer, i) for i in row] for row in top_ids],
                                   dtype=object)
    extras["token_loss"] = statistics.token_losses(trace.logits, ids)
    return extras


def gradient_norms(model: Any, ids: list[int], mask_id: int | None = None
                   ) -> dict[str, np.ndarray]:
    """||dL_T/dh_t|| per layer along the probe, L_T the loss of its last prediction, from the
    model's own `hidden_gradients`: how far back through time one loss reaches (the
    vanishing-gradient picture); a transformer decoder's are its residual stream's
    (`transformer_gradients`). Models with neither have no such method. A masked LM's
    transformer encoder (`mask_id`: its vocabulary's [MASK], which the model itself does not
    know) follows the loss of its best guess at the probe's [MASK] to every position."""
    import torch

    if mask_id is not None and getattr(model, "masked_gradients", None) is not None:
        norms = model.masked_gradients(ids, mask_id)
        if norms is not None:  # None: a recurrent encoder, whose decision curve follows
            return {f"grad_norm/{name}": np.asarray(v, dtype=np.float64).reshape(-1)
                    for name, v in norms.items()}
    if hasattr(model, "decision_gradients"):  # an encoder's task model: its own decision
        return {f"grad_norm/{name}": np.asarray(v, dtype=np.float64).reshape(-1)
                for name, v in model.decision_gradients(ids).items()}
    if len(ids) < 2 or not hasattr(model, "hidden_gradients"):
        return {}
    tokens = torch.tensor(ids[:-1], dtype=torch.long)
    targets = torch.tensor(ids[1:], dtype=torch.long)
    norms = model.hidden_gradients(tokens, targets)
    return {f"grad_norm/{name}": np.asarray(v, dtype=np.float64).reshape(-1)
            for name, v in norms.items()}


def probe_job(model: Any, tokenizer: Any, text: str, step: int = 0, top_k: int = TOP_K,
              gradients: bool = True, mask_id: int | None = None) -> JobSpec:
    """A query job whose result is the probe's `Trace` (with extras); `mask_id`: a masked
    LM's [MASK] (default: the tokenizer's own, as a BERT folder's has)."""
    if mask_id is None:
        mask_id = getattr(tokenizer, "mask_id", None)
    encode_probe(tokenizer, text, mask_id)  # refuse bad probes before a thread starts

    def job(control: JobControl) -> Iterator[Event]:
        trace = probe(model, tokenizer, text, step, top_k, mask_id)
        if gradients:
            yield Progress(1, 2, "gradients through time")
            control.check()
            extra = gradient_norms(model, [int(i) for i in trace.tokens], mask_id)
            trace = dataclasses.replace(trace, extras={**trace.extras, **extra})
        yield JobFinished(result=trace)

    return JobSpec("Probe", job)
