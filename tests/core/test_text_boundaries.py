"""Text boundaries: lines or sentences encoded as <bos> unit <eos>, and a model trained with
them that starts at <bos> and stops when it samples <eos> (SLP3 9.3 generation)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from workbench.core.config.tokenizer import TokenizerConfig
from workbench.core.corpus.boundaries import BoundaryEncoder, encode_chunks, units
from workbench.core.corpus.dataset import tokenize_job
from workbench.core.corpus.text_chunks import text_chunks
from workbench.core.corpus.tokenizers import BOS, EOS, CharTokenizer, tokenizer_from_dict
from workbench.core.events import JobFinished, SnapshotReady
from workbench.core.jobs import JobControl, drive

LINES = "the cat sat.\nthe dog ran!\n\n  a bird flew?\n"


def tokenized(text: str, boundaries: str, **extra):
    config = TokenizerConfig(kind="char", boundaries=boundaries, val_fraction=0.1,
                             test_fraction=0.0, **extra)
    corpus = SimpleNamespace(text=text, name="lines")
    events = list(drive(tokenize_job(corpus, config), JobControl()))
    assert isinstance(events[-1], JobFinished), events[-1]
    return events[-1].result


def test_units_of_lines_and_sentences():
    assert units(LINES, "lines") == ["the cat sat.", "the dog ran!", "a bird flew?"]
    text = 'He said "Go." Then\nshe left! Why? (No idea.) end'
    assert units(text, "sentences") == ['He said "Go."', "Then\nshe left!", "Why?",
                                        "(No idea.)", "end"]


def test_lines_become_bos_line_eos_and_decode_back():
    tokens = tokenized(LINES * 3, "lines")
    ids, tok = tokens.ids, tokens.tokenizer
    assert tok.boundaries == "lines"
    starts, ends = np.flatnonzero(ids == BOS), np.flatnonzero(ids == EOS)
    assert len(starts) == len(ends) == 9
    assert ids[0] == BOS and ids[-1] == EOS
    first = ids[starts[0] + 1:ends[0]]
    assert tok.decode(first) == "the cat sat."
    assert "\n" not in tok.decode(ids)  # the line break became the boundary


def test_without_boundaries_nothing_changes():
    tokens = tokenized(LINES, "none")
    assert BOS not in tokens.ids and EOS not in tokens.ids
    assert tokens.tokenizer.decode(tokens.ids) == LINES
    assert "boundaries" not in tokens.tokenizer.to_dict()


def test_a_sentence_across_two_chunks_stays_whole():
    text = "One two three. Four five six seven eight nine. Ten.\n" * 5
    tok = CharTokenizer.train(text)
    whole = BoundaryEncoder(tok, "sentences")
    expected = np.concatenate([whole.feed(text), whole.finish()])
    pieces = [ids for _, ids in encode_chunks(tok, text_chunks(text, size=20), "sentences")]
    assert np.array_equal(np.concatenate(pieces), expected)
    assert np.count_nonzero(expected == BOS) == 15


def test_prompts_and_probes_start_with_bos_after_a_round_trip():
    tok = tokenized(LINES * 3, "lines").tokenizer
    again = tokenizer_from_dict(tok.to_dict())
    assert again.boundaries == "lines" and again == tok
    assert again.encode_prompt("the") == [BOS, *again.encode("the")]
    assert again.encode_prompt("") == [BOS]
    plain = CharTokenizer.train("abc")
    assert plain.encode_prompt("ab") == plain.encode("ab")


def test_bad_boundaries_setting_is_named():
    problems = TokenizerConfig(boundaries="chapters").problems()
    assert any("Text boundaries" in p for p in problems)


@pytest.fixture
def runs_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))


@pytest.mark.slow
def test_a_model_trained_with_boundaries_generates_eos_and_stops(runs_dir):
    from workbench.core.config.generation import GenerationConfig
    from workbench.core.config.models import LstmConfig
    from workbench.core.config.training import TrainingConfig
    from workbench.core.generation.generate import generation_job
    from workbench.core.snapshot.rebuild import model_from_snapshot
    from workbench.core.training_loop.trainer import TrainRequest, train_job

    lines = ["the cat sat on the mat", "a dog ran", "we met at noon"]
    tokens = tokenized("\n".join(lines * 60) + "\n", "lines")
    training = TrainingConfig(max_steps=150, batch_size=8, seq_len=32, lr=1e-2,
                              warmup_steps=10, eval_every=150, sample_every=0,
                              checkpoint_every=1000, log_every=50, threads=1, seed=3)
    model = LstmConfig(embedding_size=16, hidden_size=48)
    events = list(drive(train_job(TrainRequest(tokens, model, training, gui=False)),
                        JobControl()))
    snapshot = [e for e in events if isinstance(e, SnapshotReady)][-1].snapshot
    tokenizer = tokenizer_from_dict(snapshot.tokenizer)
    generated = list(drive(generation_job(
        model_from_snapshot(snapshot), tokenizer, "",
        GenerationConfig(strategy="greedy", max_tokens=80)), JobControl()))
    result = generated[-1].result
    # it stops by itself, long before the 80-token limit, at the end of one line of text
    assert result.stopped_by == "end token" and result.token_ids[-1] == EOS
    assert 0 < len(result.text) <= max(map(len, lines)) and "\n" not in result.text


PLAY = "Romeo.\nBut soft, what light\nthrough yonder window breaks?\n\nJuliet.\nAy me!\n  \n"


def test_a_paragraph_is_a_speech_with_its_line_breaks_and_survives_chunking():
    assert units(PLAY, "paragraphs") == [
        "Romeo.\nBut soft, what light\nthrough yonder window breaks?", "Juliet.\nAy me!"]
    text = PLAY * 6
    tok = CharTokenizer.train(text)
    whole = BoundaryEncoder(tok, "paragraphs")
    expected = np.concatenate([whole.feed(text), whole.finish()])
    pieces = [ids for _, ids in encode_chunks(tok, text_chunks(text, size=25), "paragraphs")]
    assert np.array_equal(np.concatenate(pieces), expected)
    assert np.count_nonzero(expected == BOS) == 12 and np.count_nonzero(expected == EOS) == 12
    first = expected[:np.flatnonzero(expected == EOS)[0] + 1]
    assert tok.decode(first[1:-1]) == units(PLAY, "paragraphs")[0]
