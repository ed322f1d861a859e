"""The Classify console's word contributions for a one-sigmoid-unit classifier (issue 29,
item 7): gradient × input of the predicted label's real logit, its log-odds (−z for the first
label, z for the second), never of the constant 0 the two-logit pair holds for the first."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from workbench.core.config.models import LstmConfig, config_to_dict
from workbench.core.config.task_models import ClassifierModelConfig
from workbench.core.config.tokenizer import DEFAULT_WORD_PATTERN
from workbench.core.corpus.tokenizers import WordTokenizer
from workbench.core.models import build_model
from workbench.core.tasks.explain import classify_sentence
from workbench.core.tasks.text_data import TextVocabulary


def sigmoid_classifier(bias: float):
    words = TextVocabulary(WordTokenizer.train(["horrible food good service"],
                                               DEFAULT_WORD_PATTERN))
    encoder = LstmConfig(vocab_size=words.size, embedding_size=6, hidden_size=5, num_layers=1)
    torch.manual_seed(3)
    model = build_model(ClassifierModelConfig(encoder=config_to_dict(encoder), num_labels=2,
                                              pooling="mean", output="sigmoid")).eval()
    with torch.no_grad():
        model.head.bias.fill_(bias)  # pushes the prediction to one label
    return model, words.to_dict(labels=["negative", "positive"])


def gradient_times_input_of_z(model, ids: list[int], sign: float) -> np.ndarray:
    """Independent of the console: the sigmoid unit's z itself, differentiated by hand."""
    embedded = model.encoder.embedding(torch.tensor([ids])).detach().requires_grad_(True)
    captured = {}
    hook = model.encoder.embedding.register_forward_hook(lambda m, i, o: embedded)
    try:
        pooled, _ = model.pool(model.encoder(torch.tensor([ids])))
        z = model.head(pooled)[0, 0]
        (sign * z).backward()
        captured["c"] = (embedded * embedded.grad).sum(-1)[0].detach().numpy()
    finally:
        hook.remove()
    return captured["c"]


@pytest.mark.parametrize("bias, label, sign", [(-5.0, "negative", -1.0),
                                               (5.0, "positive", 1.0)])
def test_contributions_are_gradient_times_input_of_the_real_logit(bias, label, sign):
    model, vocabulary = sigmoid_classifier(bias)
    answer = classify_sentence(model, vocabulary, "horrible food")
    assert answer.predicted == label
    assert answer.method == "gradient"
    ids = TextVocabulary.from_dict(vocabulary).tokenizer.encode("horrible food")
    expected = gradient_times_input_of_z(model, ids, sign)
    assert np.all(np.abs(answer.contributions) > 1e-6)  # the old code gave [0, 0] for label 0
    np.testing.assert_allclose(answer.contributions, expected, rtol=1e-4, atol=1e-7)
    assert "log-odds" in answer.explanation
