"""The generation job on a fixed bigram model: streaming, seeds, stops, beam, errors."""

from __future__ import annotations

import numpy as np
import pytest

from tests.core.generation_fixtures import BigramModel, abc_tokenizer, bigram_table
from workbench.core.config.generation import GenerationConfig
from workbench.core.events import JobFinished, Progress, TokensGenerated
from workbench.core.generation.generate import generation_job
from workbench.core.generation.token_batches import MOST_PER_BATCH
from workbench.core.jobs import JobControl, UserFacingError, drive


def run(config, prompt="a", table=None):
    model = BigramModel(bigram_table() if table is None else table)
    events = list(drive(generation_job(model, abc_tokenizer(), prompt, config), JobControl()))
    tokens = [t for e in events if isinstance(e, TokensGenerated) for t in e.tokens]
    result = events[-1].result if isinstance(events[-1], JobFinished) else None
    return tokens, result, events


def test_greedy_follows_the_argmax_chain():
    table = bigram_table()
    tokens, result, _ = run(GenerationConfig(strategy="greedy", max_tokens=6), table=table)
    expected, last = [], 4  # "a"
    for _ in range(6):
        last = int(np.argmax(table[last]))
        expected.append(last)
    assert [t.token_id for t in tokens] == expected
    assert all(t.rank == 0 for t in tokens)
    assert result.text == "".join(t.text for t in tokens) and len(result.text) == 6


def test_same_seed_same_text_other_seed_other_text():
    cfg = GenerationConfig(strategy="sample", max_tokens=40, seed=3)
    a = run(cfg)[1].text
    assert run(cfg)[1].text == a
    others = {run(GenerationConfig(strategy="sample", max_tokens=40, seed=s))[1].text
              for s in range(4, 8)}
    assert others - {a}


def test_token_events_carry_probability_entropy_rank_alternatives():
    tokens, _, _ = run(GenerationConfig(strategy="top-k", top_k=2, max_tokens=30, seed=1))
    for t in tokens:
        assert 0 < t.probability <= 1 and t.entropy >= 0
        assert t.rank in (0, 1)  # top-k = 2: only the two best can come out
        assert t.alternatives[0][1] >= t.alternatives[-1][1]
        assert len(t.alternatives) == 5


def test_stop_sequence_and_max_length():
    table = np.full((8, 8), -1e4)
    table[4, 5] = table[5, 6] = table[6, 4] = 0  # a -> b -> c -> a ...
    tokens, result, _ = run(GenerationConfig(strategy="greedy", max_tokens=50,
                                             stop_sequence="ca"), table=table)
    assert result.text == "b" and result.stopped_by == "stop sequence"  # "bca" holds "ca"
    _, result, _ = run(GenerationConfig(strategy="greedy", max_tokens=7), table=table)
    assert result.text == "bcabcab" and result.stopped_by == "length"


def test_end_token_stops():
    table = np.full((8, 8), -1e4)
    table[4, 5] = 0
    table[5, 3] = 0  # b -> EOS
    _, result, _ = run(GenerationConfig(strategy="greedy", max_tokens=20), table=table)
    assert result.text == "b" and result.stopped_by == "end token"


def test_beam_streams_its_best_sequence():
    tokens, result, _ = run(GenerationConfig(strategy="beam", beam_width=3, max_tokens=5))
    assert len(tokens) == 5 and result.text == "".join(t.text for t in tokens)


def test_beam_reports_progress_and_its_best_beam_while_it_searches():
    _, result, events = run(GenerationConfig(strategy="beam", beam_width=3, max_tokens=40))
    progress = [e for e in events if isinstance(e, Progress)]
    assert progress and progress[0].done == 1 and progress[0].total == 40
    assert "Beam search: 1 of 40 tokens" in progress[0].message
    assert "best so far …'" in progress[0].message  # the leading beam's text, quoted
    assert events.index(progress[-1]) < min(i for i, e in enumerate(events)
                                            if isinstance(e, TokensGenerated))


def test_stepper_carries_state_instead_of_rerunning_the_prompt():
    model = BigramModel(bigram_table())
    spec = generation_job(model, abc_tokenizer(), "abcabc", GenerationConfig(
        strategy="greedy", max_tokens=10))
    list(drive(spec, JobControl()))
    assert model.calls == 10  # one call for the prompt, then one per new token but the last


def test_bad_settings_are_refused_with_the_field_name():
    with pytest.raises(UserFacingError, match="Top p"):
        generation_job(BigramModel(bigram_table()), abc_tokenizer(), "a",
                       GenerationConfig(top_p=1.5))


def test_cancel_stops_the_stream():
    control = JobControl()
    spec = generation_job(BigramModel(bigram_table()), abc_tokenizer(), "a",
                          GenerationConfig(strategy="sample", max_tokens=5000))
    seen = []
    for event in drive(spec, control):
        seen.append(event)
        if isinstance(event, TokensGenerated):
            control.stop()
    assert type(seen[-1]).__name__ == "JobCancelled"
    assert sum(len(e.tokens) for e in seen if isinstance(e, TokensGenerated)) < 5000


def test_the_first_token_is_sent_alone_then_the_rest_in_batches_in_order():
    """The console shows the first token at once; then a batch per time slice (how many
    depends on the machine's speed), no token lost or repeated between batches."""
    tokens, result, events = run(GenerationConfig(strategy="sample", max_tokens=1500))
    batches = [e for e in events if isinstance(e, TokensGenerated)]
    assert len(batches[0].tokens) == 1
    assert max(len(b.tokens) for b in batches) <= MOST_PER_BATCH  # 1,500 tokens: 3 or more
    assert [t.index for t in tokens] == list(range(1500))
    assert "".join(t.text for t in tokens) == result.text


def test_nan_outputs_are_refused_with_a_message_for_every_strategy():
    table = np.full((8, 8), -1e4)
    table[4, 5] = table[5, 6] = table[6, 7] = 0  # a -> b -> c -> d
    table[7] = np.nan  # the model breaks down after "d"
    for prompt in ("a", "d"):  # a few tokens in, and at once
        for strategy in ("greedy", "sample", "top-k", "top-p", "beam"):
            _, result, events = run(GenerationConfig(strategy=strategy, max_tokens=300),
                                    prompt, table=table)
            assert result is None and "not numbers" in events[-1].message, strategy
