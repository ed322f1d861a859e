"""Word vectors chosen in the Embeddings panel land in the language model's embedding: copied
row for row, frozen rows stay put through an optimizer step, fine-tuned ones move, and a width
or vocabulary mismatch is explained instead of crashing the run."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from workbench.core.config.models import LstmConfig, TransformerConfig
from workbench.core.corpus.tokenizers import WordTokenizer
from workbench.core.embeddings.bridge import embedding_init
from workbench.core.embeddings.model_init import apply_embedding_init
from workbench.core.embeddings.vectors import WordVectors
from workbench.core.jobs import UserFacingError
from workbench.core.models import build_model

TEXT = "the king and the queen went to the castle with the prince"


def _init(width: int, freeze: bool):
    tokenizer = WordTokenizer.train(TEXT, r"\w+")
    words = TEXT.split()
    rng = np.random.default_rng(0)
    vectors = WordVectors(sorted(set(words)), rng.normal(size=(len(set(words)), width))
                          .astype("f4"))
    return tokenizer, vectors, embedding_init(vectors, tokenizer, freeze=freeze)


def _step(model, tokenizer) -> None:
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=0.1)
    tokens = torch.tensor([tokenizer.encode(TEXT)])
    logits, _ = model(tokens[:, :-1])
    torch.nn.functional.cross_entropy(logits.flatten(0, 1), tokens[:, 1:].flatten()).backward()
    optimizer.step()


@pytest.mark.parametrize("freeze", [True, False])
def test_vectors_are_copied_and_frozen_or_trained(freeze):
    tokenizer, vectors, init = _init(8, freeze)
    model = build_model(LstmConfig(vocab_size=tokenizer.vocab_size, embedding_size=8,
                                   hidden_size=16))
    note = apply_embedding_init(model, init.matrix, init.freeze)
    king = tokenizer.encode("king")[0]
    np.testing.assert_array_equal(model.embedding.weight[king].detach().numpy(),
                                  vectors.vector("king"))
    _step(model, tokenizer)
    moved = not np.allclose(model.embedding.weight[king].detach().numpy(),
                            vectors.vector("king"))
    assert moved is not freeze
    assert ("frozen" in note) is freeze


def test_tied_output_layer_is_named_when_frozen():
    tokenizer, _, init = _init(16, True)
    model = build_model(TransformerConfig(vocab_size=tokenizer.vocab_size, d_model=16,
                                          num_heads=2, tie_weights=True))
    assert "tied weights" in apply_embedding_init(model, init.matrix, True)


def test_mismatched_width_or_vocabulary_is_explained():
    tokenizer, _, init = _init(8, False)
    model = build_model(LstmConfig(vocab_size=tokenizer.vocab_size, embedding_size=32,
                                   hidden_size=16))
    with pytest.raises(UserFacingError, match="8 dimensions but the model's embedding has 32"):
        apply_embedding_init(model, init.matrix, False)
    other = build_model(LstmConfig(vocab_size=tokenizer.vocab_size + 5, embedding_size=8,
                                   hidden_size=16))
    with pytest.raises(UserFacingError, match="Check coverage again"):
        apply_embedding_init(other, init.matrix, False)
