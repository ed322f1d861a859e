"""Gradient through time for a transformer decoder (issue 34 item 2): ‖∂L_T/∂x_t^(l)‖ of the
last prediction's loss with respect to the residual stream entering each block, computed on the
transcription the trace runs, equals autograd through the fused `forward` (within 1e-5) for
the app's transformers (post-LN, pre-LN, Llama's options) and opened GPT-2 and Llama folders."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch.nn import functional as F

from tests.core.pretrained_folders import make_gpt2_folder, make_llama_folder
from workbench.app.inspection_backend import snapshot_from_checkpoint
from workbench.core.config.models import TransformerConfig
from workbench.core.corpus.tokenizers import tokenizer_from_dict
from workbench.core.events import JobFinished
from workbench.core.inspection.probes import probe_job
from workbench.core.jobs import JobControl, drive
from workbench.core.models import build_model
from workbench.core.models.transformer_gradients import stream_name
from workbench.core.snapshot.rebuild import model_from_snapshot

PROBE = "But soft, what light through yonder window"


def fused_norms(model, ids: list[int]) -> dict[str, np.ndarray]:
    """The same norms by plain autograd on `model(tokens)`: each block's input caught by a
    hook, L_T the cross-entropy of the last position's prediction of the last token."""
    inputs: list[torch.Tensor] = []
    hooks = [block.register_forward_pre_hook(lambda _, args: inputs.append(args[0]))
             for block in model.blocks]
    try:
        model.eval()
        logits, _ = model(torch.tensor([ids[:-1]]))
    finally:
        for hook in hooks:
            hook.remove()
    loss = F.cross_entropy(logits[:, -1], torch.tensor([ids[-1]]))
    grads = torch.autograd.grad(loss, inputs)
    return {stream_name(i): g[0].norm(dim=-1).double().numpy() for i, g in enumerate(grads)}


def assert_same(norms: dict[str, np.ndarray], reference: dict[str, np.ndarray], steps: int):
    assert list(norms) == list(reference)
    for name, values in reference.items():
        assert norms[name].shape == (steps,)
        assert np.abs(norms[name] - values).max() < 1e-5, name
        assert (norms[name] > 0).all()  # attention reaches every earlier position


@pytest.mark.parametrize("options", [
    dict(),  # the seeds' post-LN, sinusoidal, ReLU
    dict(norm_placement="pre", positional="learned", activation="gelu_tanh"),  # GPT-2's
    dict(norm_placement="pre", positional="rope", norm="rmsnorm", kv_heads=2, gated_ffn=True,
         activation="silu", linear_bias=False),  # Llama's
], ids=["post-ln", "gpt2-like", "llama-like"])
def test_stream_gradients_are_autograd_through_the_fused_forward(options):
    torch.manual_seed(0)
    config = TransformerConfig(vocab_size=30, d_model=32, num_heads=4, num_layers=3, d_ff=48,
                               context_length=32, dropout=0.0, **options)
    model = build_model(config)
    ids = torch.randint(0, 30, (12,)).tolist()
    norms = model.hidden_gradients(torch.tensor(ids[:-1]), torch.tensor(ids[1:]))
    assert list(norms) == ["block 0 input (embeddings)", "block 1 input", "block 2 input"]
    assert_same(norms, fused_norms(model, ids), 11)


@pytest.mark.parametrize("make", [make_gpt2_folder, make_llama_folder], ids=["gpt2", "llama"])
def test_an_opened_folders_probe_has_its_true_stream_gradients(tmp_path, make):
    snapshot = snapshot_from_checkpoint(make(tmp_path / "tiny"))
    model = model_from_snapshot(snapshot).eval()
    tokenizer = tokenizer_from_dict(snapshot.tokenizer)
    events = list(drive(probe_job(model, tokenizer, PROBE, gradients=True), JobControl()))
    assert isinstance(events[-1], JobFinished)
    trace = events[-1].result
    norms = {k.split("/", 1)[1]: v for k, v in trace.extras.items()
             if k.startswith("grad_norm/")}
    ids = [int(i) for i in trace.tokens]
    assert_same(norms, fused_norms(model, ids), len(ids) - 1)  # one per position but the last


def test_a_frozen_model_still_has_its_stream_gradients():
    """A LoRA run freezes the pretrained weights: the gradient w.r.t. the stream is still
    there (it does not need the embedding table to train)."""
    torch.manual_seed(1)
    model = build_model(TransformerConfig(vocab_size=20, d_model=16, num_heads=2, num_layers=2,
                                          d_ff=32, context_length=16, dropout=0.0))
    ids = torch.randint(0, 20, (8,)).tolist()
    expected = fused_norms(model, ids)
    model.requires_grad_(False)
    norms = model.hidden_gradients(torch.tensor(ids[:-1]), torch.tensor(ids[1:]))
    assert_same(norms, expected, 7)
