"""Streamed generation text: token by token it adds up to what decoding the whole gives."""

from __future__ import annotations

import numpy as np
import pytest

from tests.core.generation_fixtures import BigramModel
from workbench.core.config.generation import GenerationConfig
from workbench.core.config.tokenizer import DEFAULT_WORD_PATTERN
from workbench.core.corpus.text_stream import text_stream
from workbench.core.corpus.tokenizers import BpeTokenizer, CharTokenizer, WordTokenizer
from workbench.core.events import JobFinished, TokensGenerated
from workbench.core.generation.generate import generation_job
from workbench.core.jobs import JobControl, drive

# accents, a dash, CJK and an emoji: characters of 2, 3 and 4 UTF-8 bytes that byte-level BPE
# splits across tokens; brackets and punctuation the word tokenizer glues to their words
TEXT = ("Café « naïve » — 日本語 (and) 🎭 masks, said he; [quite] so!\n"
        "Whether 'tis nobler in the mind to suffer?\n") * 4


def tokenizers():
    return {"char": CharTokenizer.train(TEXT),
            "word": WordTokenizer.train(TEXT, DEFAULT_WORD_PATTERN),
            "bpe": BpeTokenizer.train(TEXT.splitlines(keepends=True), vocab_size=300)}


@pytest.mark.parametrize("kind", ["char", "word", "bpe"])
def test_streamed_pieces_add_up_to_the_decoded_whole(kind):
    tokenizer = tokenizers()[kind]
    rng = np.random.default_rng(0)
    sequences = [tokenizer.encode(TEXT)]  # a real text, and any ids at all (specials too)
    sequences += [rng.integers(0, tokenizer.vocab_size, size=n).tolist() for n in (1, 7, 300)]
    for ids in sequences:
        stream = text_stream(tokenizer)
        streamed = "".join(stream.add(i) for i in ids) + stream.end()
        assert streamed == tokenizer.decode(ids)
    if kind == "bpe":  # a character split across tokens shows once it is whole, not as U+FFFD
        ids = tokenizer.encode("🎭")
        stream = text_stream(tokenizer)
        pieces = [stream.add(i) for i in ids] + [stream.end()]
        assert len(ids) > 1 and "".join(pieces) == "🎭" and "\ufffd" not in "".join(pieces)


@pytest.mark.parametrize("strategy", ["sample", "beam"])
def test_generation_streams_the_text_it_returns(strategy):
    # a model drawing any byte-level token, so characters split between tokens come out
    tokenizer = tokenizers()["bpe"]
    vocab = tokenizer.vocab_size
    table = np.random.default_rng(1).normal(0, 1, size=(vocab, vocab))
    table[:, :4] = -1e4
    job = generation_job(BigramModel(table), tokenizer, "Café",
                         GenerationConfig(strategy=strategy, max_tokens=120, seed=2,
                                          beam_width=2, length_penalty=0.0))
    events = list(drive(job, JobControl()))
    result = events[-1].result
    assert isinstance(events[-1], JobFinished)
    streamed = "".join(token.text for e in events if isinstance(e, TokensGenerated)
                       for token in e.tokens)
    assert streamed == result.text == tokenizer.decode(result.token_ids)
    assert len(result.token_ids) == 120
