"""The generation job: stream tokens from a model rebuilt from a snapshot or checkpoint.

The job feeds the prompt once, then one token per step, carrying the model's recurrent state
(for a model that returns no state, such as a transformer without a cache, it re-runs the last
`context` tokens). With a clamp (a recurrent unit or an attention head fixed to a value) every
step runs through the model's `forward_clamped`, or through `trace(..., clamp=...)` on the
whole window when the model has no such method.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from workbench.core.config.generation import GenerationConfig
from workbench.core.corpus.text_chunks import Pacer
from workbench.core.corpus.text_stream import text_stream
from workbench.core.events import Event, JobFinished, Progress, TokenGenerated
from workbench.core.generation import decoding
from workbench.core.jobs import JobControl, JobSpec, UserFacingError

BOS, EOS = 2, 3
ALTERNATIVES = 5
BEAM_REPORTS_HZ = 10


@dataclass(frozen=True)
class GenerationResult:
    prompt: str
    text: str  # the continuation only
    token_ids: tuple[int, ...]
    config: GenerationConfig
    stopped_by: str  # "length" | "end token" | "stop sequence" | "beam"


class ModelStepper:
    """Turns a `SequenceModel` (torch) into (state, token) -> (logits numpy, state) steps."""

    def __init__(self, model: Any, clamp: dict | None = None, context: int = 256) -> None:
        import torch

        self.torch = torch
        self.model = model
        self.clamp = clamp
        limit = getattr(getattr(model, "config", None), "context_length", 0) or context
        self.context = int(limit)

    def _run(self, ids: list[int], state: Any) -> tuple[np.ndarray, Any]:
        torch = self.torch
        tokens = torch.tensor([ids], dtype=torch.long)
        with torch.no_grad():
            if self.clamp is None:
                logits, new_state = self.model(tokens, state)
            elif hasattr(self.model, "forward_clamped"):
                logits, new_state = self.model.forward_clamped(tokens, state, self.clamp)
            else:  # trace keeps no state: replay the window each step
                trace = self.model.trace(tokens[0], None, clamp=self.clamp)
                return np.asarray(trace.logits[-1], dtype=np.float64), None
        return logits[0, -1].double().numpy(), new_state

    def start(self, prompt_ids: list[int]) -> tuple[np.ndarray, Any]:
        window = prompt_ids[-self.context:]
        logits, state = self._run(window, None)
        return _finite(logits), (state, tuple(window))

    def step(self, carried: Any, token: int) -> tuple[np.ndarray, Any]:
        state, window = carried
        window = (window + (token,))[-self.context:]
        if state is None:  # stateless model: re-run the window
            logits, new_state = self._run(list(window), None)
        else:
            logits, new_state = self._run([token], state)
        return _finite(logits), (new_state, window)


def _finite(logits: np.ndarray) -> np.ndarray:
    """NaN or infinite outputs (damaged weights, a diverged snapshot) cannot be sampled from:
    say so, instead of a sampler failing deep inside."""
    if not np.isfinite(logits).all():
        raise UserFacingError(
            "The model's outputs are not numbers (NaN or infinity), so it cannot generate: its "
            "weights are damaged or training had diverged when this snapshot was taken. Open "
            "another checkpoint (the run's best) or train again with a lower learning rate.")
    return logits


def _stats(index: int, token: int, logits: np.ndarray, temperature: float, tokenizer,
           text: str) -> TokenGenerated:
    probs = decoding.softmax(logits, temperature)
    alternatives = tuple((tokenizer.readable_token(i), p)
                         for i, p in decoding.top_alternatives(probs, ALTERNATIVES))
    return TokenGenerated(index=index, token_id=int(token), text=text,
                          probability=float(probs[token]), entropy=decoding.entropy(probs),
                          rank=decoding.rank_of(probs, token), alternatives=alternatives)


def prompt_ids(tokenizer, prompt: str) -> list[int]:
    """The prompt's ids; <bos> first for a model trained with text boundaries, and <bos>
    alone for an empty prompt."""
    ids = tokenizer.encode_prompt(prompt)
    return ids or [BOS]


def generation_job(model: Any, tokenizer: Any, prompt: str, config: GenerationConfig,
                   clamp: dict | None = None, stepper: Any = None) -> JobSpec:
    """A job streaming `TokenGenerated` events; its result is a `GenerationResult`."""
    problems = config.problems()
    if problems:
        raise UserFacingError("Generation settings: " + " ".join(problems))

    def job(control: JobControl) -> Iterator[Event]:
        steps = stepper or ModelStepper(model, clamp)
        ids = prompt_ids(tokenizer, prompt)
        logits, state = steps.start(ids)
        if config.strategy == "beam":
            result = yield from _beam(steps, logits, state, tokenizer, prompt, config, control)
        else:
            result = yield from _sample(steps, logits, state, tokenizer, prompt, config, control)
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


def _sample(steps, logits, state, tokenizer, prompt, config, control):
    rng = np.random.default_rng(config.seed)
    generated: list[int] = []
    pieces: list[str] = []
    stream, stop = text_stream(tokenizer), StopWatch(config.stop_sequence)
    stopped_by = "length"
    for index in range(config.max_tokens):
        control.check()
        probs = decoding.sampling_distribution(logits, config.strategy, config.temperature,
                                               config.top_k, config.top_p)
        token = decoding.greedy(logits) if config.strategy == "greedy" else decoding.draw(
            probs, rng)
        generated.append(token)
        if token == EOS:
            stopped_by = "end token"
            piece = stream.end()  # bytes of an unfinished character, as decode shows them
            pieces.append(piece)
            yield _stats(index, token, logits, config.temperature, tokenizer, piece)
            break
        piece = stream.add(token)
        if index + 1 == config.max_tokens:
            piece += stream.end()
        pieces.append(piece)
        yield _stats(index, token, logits, config.temperature, tokenizer, piece)
        if stop.add(piece):
            stopped_by = "stop sequence"
            break
        if index + 1 < config.max_tokens:  # no model call for a token nobody will draw
            logits, state = steps.step(state, token)
    text = "".join(pieces)
    if stop.cut >= 0:
        text = text[:stop.cut]
    return GenerationResult(prompt, text, tuple(generated), config, stopped_by)


def _beam(steps, logits, state, tokenizer, prompt, config, control):
    # a beam stops when its last tokens show the stop sequence: a few tokens per character
    # of it are enough (a token may add no character of its own: a byte of a longer one)
    tail = 4 * len(config.stop_sequence) + 4

    def should_stop(beam) -> bool:
        return config.stop_sequence in tokenizer.decode(beam.last_tokens(tail))

    search = decoding.beam_search_steps(logits, state, steps.step, config.beam_width,
                                        config.max_tokens, config.length_penalty, eos_id=EOS,
                                        should_stop=should_stop if config.stop_sequence else None)
    # the tokens of a beam are only final at the end: meanwhile the console shows how far the
    # search is and the best beam so far, a few times a second
    pacer = Pacer(BEAM_REPORTS_HZ)
    while True:
        try:
            leader = next(search)
        except StopIteration as done:
            best = done.value[0]
            break
        control.check()
        if pacer.due():
            so_far = tokenizer.decode(leader.last_tokens(60))
            yield Progress(leader.length, config.max_tokens,
                           f"Beam search: {leader.length} of {config.max_tokens} tokens; "
                           f"best so far …{so_far[-60:]!r}")
    pieces: list[str] = []
    stream, stop = text_stream(tokenizer), StopWatch(config.stop_sequence)
    tokens = best.tokens
    for index, (token, step_logits) in enumerate(zip(tokens, best.steps, strict=True)):
        piece = stream.end() if token == EOS else stream.add(token)
        if index + 1 == len(tokens) and token != EOS:
            piece += stream.end()
        pieces.append(piece)
        stop.add(piece)
        yield _stats(index, token, step_logits, 1.0, tokenizer, piece)
    text = "".join(pieces)
    if stop.cut >= 0:
        text = text[:stop.cut]
    return GenerationResult(prompt, text, tuple(tokens), config, "beam")
