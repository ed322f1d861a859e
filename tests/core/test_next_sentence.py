"""BERT's sentence pairs (issue 33 item 1): the encoder's segment table, in the fused path and
the trace; the pairs of next-sentence prediction; a tiny model learning both tasks."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch
from test_encoder_tasks import prepared, training

from workbench.core.config.encoder_tasks import MaskedLmTaskConfig, masked_lm_model
from workbench.core.config.models import TransformerEncoderConfig, config_from_dict, config_to_dict
from workbench.core.models import build_model
from workbench.core.models.encoder import build_encoder
from workbench.core.tasks import build_task
from workbench.core.tasks.next_sentence import pair_loss
from workbench.core.tasks.sentence_pairs import (
    BLOCK,
    PAIR_SEPARATOR,
    make_pairs,
    split_blocks,
)

ENCODER = TransformerEncoderConfig(vocab_size=40, d_model=16, num_heads=2, num_layers=2,
                                   d_ff=32, context_length=24, dropout=0.0,
                                   positional="learned")


@pytest.fixture(autouse=True)
def runs_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))


def built(config, seed: int = 0):
    torch.manual_seed(seed)
    return build_encoder(config).eval()


def test_without_segments_the_encoder_is_the_one_it_was():
    """A config saved before the option (no 'segments' key) builds the same weights from the
    same seed, has no segment table, and segment ids change none of its numbers."""
    old = {k: v for k, v in config_to_dict(ENCODER).items() if k != "segments"}
    new, before = built(ENCODER), built(config_from_dict(old))
    assert new.state_dict().keys() == before.state_dict().keys()
    assert not any("segment" in name for name in new.state_dict())
    for name, tensor in new.state_dict().items():
        assert torch.equal(tensor, before.state_dict()[name]), name
    tokens = torch.randint(4, 40, (2, 9))
    with torch.no_grad():
        plain = new(tokens).states
        assert torch.equal(plain, new(tokens, segments=torch.ones_like(tokens)).states)
        traced = new.trace(tokens[:1])
        assert "segment" not in traced.extras
        assert torch.allclose(plain[:1], traced.output.states, atol=1e-6)


@pytest.mark.parametrize("cls_token", [False, True])
def test_segment_ids_enter_through_the_segment_table_alone(cls_token):
    config = dataclasses.replace(ENCODER, segments=2, cls_token=cls_token)
    encoder = built(config)
    tokens = torch.randint(4, 40, (1, 9))
    segments = torch.tensor([[0] * 5 + [1] * 4])
    with torch.no_grad():
        fused = encoder(tokens, segments=segments).states
        traced = encoder.trace(tokens, segments=segments)
        assert (fused - traced.output.states).abs().max() < 1e-6
        assert not torch.allclose(fused, encoder(tokens).states)  # B reads row 1, not row 0
        table = encoder.segment_embedding.weight
        start = 1 if cls_token else 0  # the prepended [CLS] is of segment 0
        ids = np.asarray([0] * start + segments[0].tolist())
        np.testing.assert_array_equal(traced.extras["segment_ids"], ids)
        np.testing.assert_allclose(traced.extras["segment"], table[ids].numpy())
        # x_0 = E[tokens] + P + S[ids] (no embedding LayerNorm here), the three terms shown
        x0 = encoder.embedding(tokens)[0]
        if cls_token:
            x0 = torch.cat([encoder.cls[0], x0])
        x0 = x0 + encoder.positions.weight[:len(ids)] + table[ids]
        np.testing.assert_allclose(traced.embeddings, x0.numpy(), atol=1e-6)
        # the same row for both segments: the ids can no longer matter
        table[1] = table[0]
        assert torch.equal(encoder(tokens, segments=segments).states, encoder(tokens).states)


def test_pairs_are_half_next_within_their_split_and_never_the_true_next():
    sources = [f"a.txt:{i}" for i in range(3000)] + [f"b.txt:{i}" for i in range(2100)]
    lines = [f"line {i % 2500}" for i in range(5100)]  # repeated lines: never a NotNext
    train, val = split_blocks(sources, 0.1, seed=3)
    assert all(len(b) <= BLOCK and len({sources[i].split(":")[0] for i in b}) == 1
               for b in train + val)
    members = [{i for b in part for i in b} for part in (train, val)]
    assert not members[0] & members[1] and len(members[1]) > 300
    for blocks, inside in zip((train, val), members, strict=True):
        following = {b[k]: b[k + 1] for b in blocks for k in range(len(b) - 1)}
        pairs = make_pairs(blocks, lines, np.random.default_rng(5))
        assert len(pairs) == len(following)
        share = np.mean([p.is_next for p in pairs])
        assert abs(share - 0.5) < 0.05, share
        for pair in pairs:
            assert pair.first in inside and pair.second in inside
            if pair.is_next:
                assert pair.second == following[pair.first]
            else:
                assert pair.second not in (following[pair.first], pair.first)
                assert lines[pair.second] != lines[following[pair.first]]


LINES = [f"scene {i % 9} the {w} of the king is {v}" for i, (w, v) in enumerate(
    zip(["crown", "ghost", "sword", "queen", "fool", "storm"] * 30,
        ["gold", "pale", "drawn", "near", "wise", "loud", "gone"] * 26, strict=False))]


def nsp_task(tmp_path, **changes):
    (tmp_path / "lines.txt").write_text("\n".join(LINES))
    config = MaskedLmTaskConfig(dataset="file", path=str(tmp_path / "lines.txt"), min_words=2,
                                val_fraction=0.2, next_sentence=True, max_length=24,
                                **changes)
    data, notes = prepared(config, training())
    return config, data, notes


def test_the_task_frames_pairs_and_never_masks_cls_or_sep(tmp_path):
    config, data, notes = nsp_task(tmp_path)
    assert "pairs" in notes[0]
    task = build_task(config, data)
    task.start(None, training(batch_size=16), torch.device("cpu"))
    batch = task.batch(0)
    segments, real = batch["segments"], batch["mask"]
    # the app's tokenizers: <bos> (2) plays [CLS], <eos> (3) [SEP]
    first = data.train.ids[0]
    assert first[0] == 2 and np.isin(first, [2, 3]).sum() == 3 and first[-1] == 3
    chosen = batch["targets"] != -100
    assert not np.isin(batch["targets"][chosen], [2, 3]).any()
    assert ((segments == 1) <= real).all() and (segments[:, 0] == 0).all()
    assert set(batch["is_next"].tolist()) <= {0, 1}


def test_twenty_steps_lower_both_losses(tmp_path):
    config, data, _ = nsp_task(tmp_path)
    task = build_task(config, data)
    torch.manual_seed(0)
    model = task.build_model(dataclasses.replace(ENCODER, vocab_size=0), build_model)
    assert model.next_sentence is not None and model.encoder.segment_embedding is not None
    train = training(batch_size=16)
    task.start(model, train, torch.device("cpu"))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    batch = task.batch(0).to(torch.device("cpu"))

    def losses():
        with torch.no_grad():
            chosen = batch["targets"] != -100
            logits, pair = model(batch["tokens"], batch["mask"], where=chosen,
                                 segments=batch["segments"], pairs=True)
            return (float(torch.nn.functional.cross_entropy(logits, batch["targets"][chosen])),
                    float(torch.nn.functional.cross_entropy(pair, batch["is_next"])))

    first = losses()
    for _ in range(20):
        optimizer.zero_grad()
        pair_loss(model, batch).backward()
        optimizer.step()
    last = losses()
    assert last[0] < first[0] and last[1] < first[1], (first, last)
    evaluation = task.evaluate(model, amp=False)
    assert {"accuracy", "nsp_accuracy", "mlm_loss", "nsp_loss"} <= set(evaluation.metrics)
    assert evaluation.loss == pytest.approx(evaluation.metrics["mlm_loss"]
                                            + evaluation.metrics["nsp_loss"])


def test_a_pair_needs_the_transformer_encoder():
    from workbench.core.config.models import GruConfig

    gru = config_to_dict(GruConfig(vocab_size=30, embedding_size=8, hidden_size=8))
    problems = masked_lm_model(gru, next_sentence=True).problems()
    assert any("transformer encoder" in p for p in problems)


def test_a_sentence_may_be_several_consecutive_lines(tmp_path):
    """`sentence_lines`: A and B are spans of consecutive lines (a block's last span may be
    shorter), B the span right after A when IsNext."""
    lines = [f"line {i} of the play" for i in range(200)]
    (tmp_path / "lines.txt").write_text("\n".join(lines))
    config = MaskedLmTaskConfig(dataset="file", path=str(tmp_path / "lines.txt"), min_words=2,
                                val_fraction=0.2, next_sentence=True, max_length=64,
                                sentence_lines=3)
    data, _ = prepared(config, training())
    for row, ((label, start), text) in enumerate(zip(data.train.targets, data.train.texts,
                                                     strict=True)):
        first, second = (part.split(" of the play")[:-1]
                         for part in text.split(f" {PAIR_SEPARATOR} "))
        a = [int(n.split()[-1]) for n in first]
        b = [int(n.split()[-1]) for n in second]
        assert a == list(range(a[0], a[0] + len(a))) and 1 <= len(a) <= 3
        assert data.train.ids[row][start - 1] == 3  # the first [SEP] ends A
        assert (b[0] == a[-1] + 1) == (label == 0)
