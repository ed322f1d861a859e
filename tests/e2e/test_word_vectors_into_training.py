"""Word vectors chosen in the Embeddings panel reach the model the Training panel trains:
copied into its input embedding before the optimizer is made, frozen or fine-tuned."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from tests.core.training_fixtures import tiny_tokens
from workbench.app.training_backend import TrainingBackend
from workbench.core.config.models import LstmConfig
from workbench.core.config.training import TrainingConfig
from workbench.core.events import CheckpointSaved, JobFinished, Notice
from workbench.core.jobs import JobControl, drive


@pytest.mark.parametrize("freeze", [True, False])
def test_training_starts_from_the_chosen_vectors(tmp_path, monkeypatch, freeze):
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))
    tokens = tiny_tokens()
    vocab = tokens.tokenizer.vocab_size
    matrix = np.random.default_rng(0).normal(size=(vocab, 8)).astype(np.float32)
    model = LstmConfig(vocab_size=vocab, embedding_size=8, hidden_size=16)
    training = TrainingConfig(max_steps=6, batch_size=4, seq_len=16, eval_every=6,
                              eval_batches=2, sample_every=100, log_every=2, lr=0.05,
                              warmup_steps=0, checkpoint_every=6)
    corpus = SimpleNamespace(text="tiny", name="tiny", path=str(tmp_path))
    spec = TrainingBackend().train_job(corpus, tokens, model, training,
                                       embedding_init=(matrix, freeze))
    events = list(drive(spec, JobControl()))
    assert isinstance(events[-1], JobFinished), events[-1]
    assert any(isinstance(e, Notice) and "word vectors" in e.text for e in events)
    saved = [e for e in events if isinstance(e, CheckpointSaved)][-1]
    from workbench.core.training.checkpoints import load_checkpoint

    weights = load_checkpoint(saved.path).model["embedding.weight"].numpy()
    if freeze:
        np.testing.assert_array_equal(np.asarray(weights), matrix)
    else:
        assert not np.allclose(np.asarray(weights), matrix)
        assert np.corrcoef(np.asarray(weights).ravel(), matrix.ravel())[0, 1] > 0.9
