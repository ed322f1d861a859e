"""The generation job: stream tokens from a model rebuilt from a snapshot or checkpoint.

Token by token (greedy, sample, top-k, top-p) the job draws each token in torch from the
logits of the model's last step (`stepper.py`, `decoding.py`) and sends the tokens in batches
(`token_batches.py`): a token costs what it costs in a plain torch loop of the same model, at
the 5,000th token as at the first (the text is decoded piece by piece, the stop sequence looked
for in the newest text only). Beam search (`beam.py`) steps its beams as one batch and sends
the best beam's tokens when it is done, reporting its progress meanwhile.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from workbench.core.config.generation import GenerationConfig
from workbench.core.corpus.text_chunks import Pacer
from workbench.core.corpus.text_stream import text_stream
from workbench.core.events import Event, JobFinished, Progress
from workbench.core.generation.beam import BeamSearch
from workbench.core.generation.decoding import Sampler
from workbench.core.generation.memory_budget import check_generation_memory
from workbench.core.generation.stepper import ModelStepper
from workbench.core.generation.token_batches import ALTERNATIVES, TokenBatches, batches_of
from workbench.core.jobs import JobControl, JobSpec, UserFacingError

BEAM_REPORTS_HZ = 10


@dataclass(frozen=True)
class GenerationResult:
    prompt: str
    text: str  # the continuation only
    token_ids: tuple[int, ...]
    config: GenerationConfig
    stopped_by: str  # "length" | "end token" | "stop sequence" | "beam"


def prompt_ids(tokenizer, prompt: str) -> list[int]:
    """The prompt's ids; <bos> first for a model trained with text boundaries, and <bos>
    alone for an empty prompt (GPT-2's <|endoftext|>, for a GPT-2 folder)."""
    ids = tokenizer.encode_prompt(prompt)
    return ids or [tokenizer.bos_id]


def generation_job(model: Any, tokenizer: Any, prompt: str, config: GenerationConfig,
                   clamp: dict | None = None) -> JobSpec:
    """A job streaming `TokensGenerated` events; its result is a `GenerationResult`."""
    problems = config.problems()
    if problems:
        raise UserFacingError("Generation settings: " + " ".join(problems))

    def job(control: JobControl) -> Iterator[Event]:
        ids = prompt_ids(tokenizer, prompt)
        # what one call reads at once (the prompt, a window, each beam): refused with the
        # estimate before the allocator fails midway (memory_budget.py)
        check_generation_memory(getattr(model, "config", None), len(ids), config.max_tokens,
                                config.beam_width if config.strategy == "beam" else 1)
        steps = ModelStepper(model, clamp)
        if config.strategy == "beam":
            result = yield from _beam(steps, ids, tokenizer, prompt, config, control)
        else:
            result = yield from _sample(steps, ids, tokenizer, prompt, config, control)
        yield JobFinished(result=result)

    return JobSpec(f"Generate ({config.strategy})", job)


class StopWatch:
    """Finds the stop sequence as the text grows, looking only at the text the last piece
    could complete it in (the piece and the len(stop) - 1 characters before it), so the cost
    per token does not grow with the text. `cut` is where the first occurrence starts."""

    def __init__(self, stop: str) -> None:
        self.stop, self.recent, self.length, self.cut = stop, "", 0, -1

    def add(self, piece: str) -> bool:
        if not self.stop or self.cut >= 0:
            return self.cut >= 0
        window = self.recent + piece
        found = window.find(self.stop)
        self.length += len(piece)
        if found >= 0:
            self.cut = self.length - len(window) + found
        self.recent = window[-(len(self.stop) - 1):] if len(self.stop) > 1 else ""
        return self.cut >= 0


def _sample(steps, ids, tokenizer, prompt, config, control):
    eos = tokenizer.eos_id
    draw = Sampler(config.strategy, config.temperature, config.top_k, config.top_p, config.seed)
    batches = TokenBatches(tokenizer, config.temperature)
    generated: list[int] = []
    pieces: list[str] = []
    stream, stop = text_stream(tokenizer), StopWatch(config.stop_sequence)
    stopped_by = "length"
    logits = steps.start(ids)
    for index in range(config.max_tokens):
        control.check()
        token = draw(logits)  # from NaN logits too: the batch's check refuses them
        generated.append(token)
        last = token == eos or index + 1 == config.max_tokens
        # an end token or the last token lets out bytes of an unfinished character
        piece = stream.end() if token == eos else stream.add(token)
        if last and token != eos:
            piece += stream.end()
        pieces.append(piece)
        batch = batches.add(token, piece, logits)
        if batch is not None:
            yield batch
        if token == eos:
            stopped_by = "end token"
            break
        if stop.add(piece):
            stopped_by = "stop sequence"
            break
        if not last:  # no model call for a token nobody will draw
            logits = steps.step(token)
    batch = batches.flush()
    if batch is not None:
        yield batch
    text = "".join(pieces)
    if stop.cut >= 0:
        text = text[:stop.cut]
    return GenerationResult(prompt, text, tuple(generated), config, stopped_by)


def _beam(steps, ids, tokenizer, prompt, config, control):
    # a beam stops when its last tokens show the stop sequence: a few tokens per character
    # of it are enough (a token may add no character of its own: a byte of a longer one)
    tail = 4 * len(config.stop_sequence) + 4
    eos = tokenizer.eos_id

    def should_stop(last_tokens: list[int]) -> bool:
        return config.stop_sequence in tokenizer.decode(last_tokens)

    search = BeamSearch(steps.start_beams(ids), steps.step_beams, config.beam_width,
                        config.max_tokens, config.length_penalty, eos_id=eos,
                        should_stop=should_stop if config.stop_sequence else None, tail=tail,
                        alternatives=ALTERNATIVES)
    # the tokens of a beam are only final at the end: meanwhile the console shows how far the
    # search is and the best beam so far, a few times a second
    pacer, running = Pacer(BEAM_REPORTS_HZ), search.run()
    while True:
        try:
            next(running)
        except StopIteration as done:
            best = done.value[0]
            break
        control.check()
        if pacer.due():
            so_far = tokenizer.decode(search.last_tokens(0, 60))
            yield Progress(search.leader_length, config.max_tokens,
                           f"Beam search: {search.leader_length} of {config.max_tokens} tokens; "
                           f"best so far …{so_far[-60:]!r}")
    pieces: list[str] = []
    stream, stop = text_stream(tokenizer), StopWatch(config.stop_sequence)
    tokens = best.tokens
    for index, token in enumerate(tokens):
        piece = stream.end() if token == eos else stream.add(token)
        if index + 1 == len(tokens) and token != eos:
            piece += stream.end()
        pieces.append(piece)
        stop.add(piece)
    yield from batches_of(tokens, pieces, search.details(best, ALTERNATIVES), tokenizer)
    text = "".join(pieces)
    if stop.cut >= 0:
        text = text[:stop.cut]
    return GenerationResult(prompt, text, tuple(tokens), config, "beam")
