"""Gradient through the stream for a masked LM (issue 34 item 2): ‖∂L/∂x_t^(l)‖ of the loss of
the model's own best guess at the probe's [MASK], for every position on both sides of it,
computed on the trace's path, equals plain autograd through the fused forward (within 1e-5):
the app's masked LM (its mask id one past the tokenizer's) and a tiny BERT folder (its
tokenizer's own [MASK], through the inspection backend's probe)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch.nn import functional as F

from tests.core.pretrained_folders import make_bert_folder
from workbench.app.inspection_backend import InspectionBackend, snapshot_from_checkpoint
from workbench.core.config.encoder_tasks import masked_lm_model
from workbench.core.config.models import TransformerEncoderConfig, config_to_dict
from workbench.core.events import JobFinished
from workbench.core.inspection.probes import gradient_norms
from workbench.core.jobs import JobControl, drive
from workbench.core.models import build_model
from workbench.core.models.transformer_gradients import stream_name
from workbench.core.snapshot.rebuild import model_from_snapshot


def fused_norms(model, ids: list[int], mask_id: int) -> dict[str, np.ndarray]:
    """By autograd on `model(tokens)`: each block's input caught by a hook, L the
    cross-entropy of the best guess at the first [MASK]."""
    inputs: list[torch.Tensor] = []
    hooks = [block.register_forward_pre_hook(lambda _, args: inputs.append(args[0]))
             for block in model.encoder.blocks]
    try:
        model.eval()
        logits = model(torch.tensor([ids]))[0, ids.index(mask_id)]
    finally:
        for hook in hooks:
            hook.remove()
    loss = F.cross_entropy(logits[None], logits.argmax()[None])
    grads = torch.autograd.grad(loss, inputs)
    return {stream_name(i): g[0].norm(dim=-1).double().numpy() for i, g in enumerate(grads)}


def assert_same(norms, reference, steps: int):
    assert list(norms) == list(reference)
    for name, values in reference.items():
        assert norms[name].shape == (steps,)
        assert np.abs(norms[name] - values).max() < 1e-5, name
        assert (norms[name] > 0).all()  # both sides of the blank reach its loss


@pytest.mark.parametrize("options", [dict(), dict(norm_placement="pre", cls_token=True)],
                         ids=["post-ln", "pre-ln-cls"])
def test_the_apps_masked_lm_has_its_true_stream_gradients(options):
    torch.manual_seed(0)
    encoder = TransformerEncoderConfig(vocab_size=31, d_model=16, num_heads=2, num_layers=2,
                                       d_ff=32, context_length=24, dropout=0.0,
                                       positional="learned", **options)
    model = build_model(masked_lm_model(config_to_dict(encoder))).eval()
    mask_id = 30  # the vocabulary's [MASK]: one past the tokenizer's last id
    ids = [5, 9, 12, mask_id, 7, 21, 4]
    norms = {k.split("/", 1)[1]: v for k, v in gradient_norms(model, ids, mask_id).items()}
    steps = len(ids) + int(bool(options.get("cls_token")))
    assert_same(norms, fused_norms(model, ids, mask_id), steps)
    assert gradient_norms(model, [5, 9, 12], mask_id) == {}  # no blank: nothing to follow


def test_a_bert_folders_probe_has_its_true_stream_gradients(tmp_path):
    snapshot = snapshot_from_checkpoint(make_bert_folder(tmp_path / "tiny-bert"))
    spec = InspectionBackend().probe_job(snapshot, "but soft what [MASK] through yonder window")
    trace = [e for e in drive(spec, JobControl()) if isinstance(e, JobFinished)][0].result
    norms = {k.split("/", 1)[1]: v for k, v in trace.extras.items()
             if k.startswith("grad_norm/")}
    ids = [int(i) for i in trace.tokens]
    mask_id = int(snapshot.tokenizer["mask_id"])
    assert mask_id in ids and ids[0] != mask_id != ids[-1]  # [CLS] … [MASK] … [SEP]
    model = model_from_snapshot(snapshot).eval()
    assert_same(norms, fused_norms(model, ids, mask_id), len(ids))


def test_a_typed_mask_reaches_the_apps_own_masked_lm():
    """The app's tokenizer does not know [MASK] (its id lies past the vocabulary): a probe
    typed with one read the letters '[', 'M', 'A', … so the Gradients panel always asked for a
    blank. The probe now reads a typed [MASK] as the mask id, shown as [MASK]."""
    from workbench.core.corpus.tokenizers import CharTokenizer
    from workbench.core.inspection.probes import probe_job

    tokenizer = CharTokenizer.train("to be or not that is the question")
    mask_id = tokenizer.vocab_size  # one past the tokenizer's last id, as the vocabulary has it
    torch.manual_seed(0)
    encoder = TransformerEncoderConfig(vocab_size=mask_id + 1, d_model=16, num_heads=2,
                                       num_layers=2, d_ff=32, context_length=40, dropout=0.0,
                                       positional="learned")
    model = build_model(masked_lm_model(config_to_dict(encoder))).eval()
    spec = probe_job(model, tokenizer, "to be or [MASK] to be", mask_id=mask_id)
    trace = [e for e in drive(spec, JobControl()) if isinstance(e, JobFinished)][0].result
    ids = [int(i) for i in trace.tokens]
    assert ids.count(mask_id) == 1 and trace.token_text[ids.index(mask_id)] == "[MASK]"
    assert ids == [*tokenizer.encode_prompt("to be or"), mask_id, *tokenizer.encode(" to be")]
    norms = {k.split("/", 1)[1]: v for k, v in trace.extras.items() if k.startswith("grad_norm/")}
    assert norms, "the gradient of the blank's guess"
    assert_same(norms, fused_norms(model, ids, mask_id), len(ids))
