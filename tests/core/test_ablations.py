"""Ablation switches of the model settings change what they should, in the fast path and the
trace alike (issue 13, items 4 and 7)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from workbench.core.config.models import RnnConfig, TransformerConfig
from workbench.core.models import build_model


def transformer(**ablation):
    torch.manual_seed(0)
    config = TransformerConfig(vocab_size=20, d_model=32, num_heads=4, num_layers=2, d_ff=64,
                               context_length=16, dropout=0.0, **ablation)
    return build_model(config).eval()


TOKENS = torch.tensor([[3, 7, 11, 5, 9, 4, 13, 8]])


def logits_of(model, tokens=TOKENS):
    with torch.no_grad():
        return model(tokens)[0][0]


@pytest.mark.parametrize("ablation", [{}, {"causal_mask": False}, {"scale_scores": False},
                                      {"positional": "none"}, {"positional": "sinusoidal"}])
def test_trace_agrees_with_the_fast_path_under_every_ablation(ablation):
    model = transformer(**ablation)
    trace = model.trace(TOKENS[0])
    assert np.allclose(trace.logits, logits_of(model).numpy(), atol=1e-5)


def test_without_the_causal_mask_position_t_reads_position_t_plus_1():
    changed = TOKENS.clone()
    changed[0, 5] = 17  # change the token at t + 1 = 5
    masked, unmasked = transformer(), transformer(causal_mask=False)
    before = logits_of(masked)[:5] - logits_of(masked, changed)[:5]
    assert torch.allclose(before, torch.zeros_like(before), atol=1e-6)  # the past cannot see it
    after = logits_of(unmasked)[4] - logits_of(unmasked, changed)[4]
    assert after.abs().max() > 1e-5  # position 4 now depends on position 5 (a fresh model
    # has std-0.02 weights, so the change is small, but far above float noise)
    weights = unmasked.trace(TOKENS[0]).layers[0].values["attn"]
    assert weights[:, 0, 1:].sum() > 0  # the first token attends to later ones


def test_without_positions_a_permuted_input_permutes_the_outputs():
    order = torch.tensor([4, 2, 7, 0, 6, 1, 5, 3])
    permuted = TOKENS[:, order]
    plain = transformer(positional="none", causal_mask=False)  # permutation-equivariant
    assert torch.allclose(logits_of(plain)[order], logits_of(plain, permuted), atol=1e-5)
    learned = transformer(causal_mask=False)  # with positions the order matters
    assert not torch.allclose(logits_of(learned)[order], logits_of(learned, permuted), atol=1e-3)
    assert "positional" not in plain.trace(TOKENS[0]).extras


def test_without_scaling_the_scores_are_the_raw_dot_products():
    model = transformer(scale_scores=False)
    layer = model.trace(TOKENS[0]).layers[0].values
    raw = np.einsum("htd,hsd->hts", layer["q"], layer["k"])
    finite = np.isfinite(layer["scores"])
    assert np.allclose(layer["scores"][finite], raw[finite], atol=1e-5)
    scaled = transformer().trace(TOKENS[0]).layers[0].values
    d_k = scaled["q"].shape[-1]
    raw = np.einsum("htd,hsd->hts", scaled["q"], scaled["k"]) / np.sqrt(d_k)
    assert np.allclose(scaled["scores"][finite], raw[finite], atol=1e-5)


def test_identity_initialisation_sets_u_to_i_and_carries_gradients_further_back():
    def elman(init):
        torch.manual_seed(1)
        config = RnnConfig(vocab_size=20, embedding_size=16, hidden_size=32,
                           nonlinearity="relu", recurrent_init=init)
        return build_model(config)

    identity = elman("identity")
    assert torch.equal(identity.rnn.weight_hh_l0, torch.eye(32))
    assert not identity.rnn.bias_ih_l0.any() and not identity.rnn.bias_hh_l0.any()
    tokens = torch.randint(4, 20, (1, 40), generator=torch.Generator().manual_seed(2))

    def reach(model):  # how much of the last loss's gradient arrives 30 steps back
        norms = model.hidden_gradients(tokens[0, :-1], tokens[0, 1:])["layer 0"]
        return norms[5] / norms[-1]

    assert reach(identity) > 10 * reach(elman("default"))


def test_teacher_forcing_one_is_the_plain_forward_and_zero_reads_own_predictions():
    from workbench.core.config.models import LstmConfig
    from workbench.core.tasks.language_model import own_inputs_logits

    torch.manual_seed(3)
    lstm = build_model(LstmConfig(vocab_size=20, embedding_size=8, hidden_size=16)).eval()
    tokens = torch.randint(4, 20, (2, 7), generator=torch.Generator().manual_seed(1))
    state = lstm.init_state(2)
    with torch.no_grad():
        forced, _ = own_inputs_logits(lstm, tokens, state, 1.0)
        assert torch.allclose(forced, lstm(tokens, state)[0], atol=1e-5)
        free, _ = own_inputs_logits(lstm, tokens, state, 0.0)
        # free running: after the first token the model reads its own argmax chain
        chain = tokens[:, :1]
        for _ in range(6):
            chain = torch.cat([chain, lstm(chain, state)[0][:, -1:].argmax(-1)], dim=1)
        assert torch.allclose(free, lstm(chain, state)[0], atol=1e-5)
        model = transformer()
        stateless, _ = own_inputs_logits(model, TOKENS, None, 0.0)
        assert torch.allclose(stateless[:, 0], logits_of(model)[0][None], atol=1e-5)
        assert not torch.allclose(stateless, logits_of(model)[None], atol=1e-3)


@pytest.mark.slow
def test_a_recipe_sets_free_running_training_and_the_trainer_honours_it(tmp_path, monkeypatch):
    from types import SimpleNamespace

    from workbench.core.config.models import GruConfig
    from workbench.core.config.tasks import LanguageModelTaskConfig, task_config_from_dict
    from workbench.core.config.tokenizer import TokenizerConfig
    from workbench.core.config.training import TrainingConfig
    from workbench.core.corpus.dataset import tokenize_job
    from workbench.core.events import JobFinished, StepLogged
    from workbench.core.jobs import JobControl, drive
    from workbench.core.training.recipe import parse_recipe
    from workbench.core.training_loop.trainer import TrainRequest, train_job

    recipe = parse_recipe('[corpus]\nresource = "corpora/shakespeare-small"\n[model]\n'
                          'arch = "gru"\n[task]\nname = "language_model"\nteacher_forcing = 0.0\n')
    assert recipe.task.teacher_forcing == 0.0
    assert any("Teacher forcing" in p
               for p in task_config_from_dict({"teacher_forcing": 1.5}).problems())

    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path))
    corpus = SimpleNamespace(text="the cat sat on the mat. " * 40, name="cats")
    tokens = list(drive(tokenize_job(corpus, TokenizerConfig()), JobControl()))[-1].result
    training = TrainingConfig(max_steps=6, warmup_steps=2, batch_size=4, seq_len=12, eval_every=6,
                              sample_every=0, log_every=2, threads=1, seed=2)

    def losses(forcing):
        request = TrainRequest(tokens, GruConfig(embedding_size=8, hidden_size=12), training,
                               gui=False, task=LanguageModelTaskConfig(teacher_forcing=forcing))
        events = list(drive(train_job(request), JobControl()))
        assert isinstance(events[-1], JobFinished)
        return [e.loss for e in events if isinstance(e, StepLogged)]

    forced, free = losses(1.0), losses(0.0)
    assert forced[0] != free[0]  # the same seed and batches, other inputs read
