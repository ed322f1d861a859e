"""The console's decoding job for a sequence-to-sequence model: text in, tokens streamed out.

Greedy decoding streams each output token as it is chosen (`DecodedToken`: probability,
alternatives and the attention row over the input). Beam search reports its leading prefix as
`Progress` while it searches and streams the best finished output's tokens at the end. The
result is a `DecodeResult`.
"""

from __future__ import annotations

from collections.abc import Iterator

import torch

from workbench.core.corpus.detokenize import target_decoder
from workbench.core.corpus.tokenizers import EOS, tokenizer_from_dict
from workbench.core.events import DecodedToken, Event, JobFinished, Progress
from workbench.core.generation.seq2seq_decoding import Decoded, beam_steps, greedy_steps
from workbench.core.jobs import JobControl, JobSpec, UserFacingError
from workbench.core.trace.seq2seq import DecodeResult


def source_ids(tokenizer, text: str) -> list[int]:
    ids = tokenizer.encode(text.strip())
    if not ids:
        raise UserFacingError("Type an input for the model to read.")
    return ids


def _token(decoded: Decoded, index: int, target) -> DecodedToken:
    token = decoded.tokens[index]
    return DecodedToken(index, token, target.readable_token(token) if token != EOS else "<eos>",
                        decoded.probabilities[index],
                        tuple((target.readable_token(i), p)
                              for i, p in decoded.alternatives[index]),
                        tuple(float(a) for a in decoded.attention[index]))


def decode_job(model, vocabulary: dict, text: str, settings) -> JobSpec:
    problems = settings.problems()
    if problems:
        raise UserFacingError("Decoding settings: " + " ".join(problems))
    source_tok = tokenizer_from_dict(vocabulary["source"])
    target_tok = tokenizer_from_dict(vocabulary["target"])
    written = target_decoder(vocabulary)  # a word model's output spaced as its targets were
    ids = source_ids(source_tok, text)
    labels = [source_tok.readable_token(i) for i in ids]

    def job(control: JobControl) -> Iterator[Event]:
        device = next(model.parameters()).device
        source = torch.tensor([ids], device=device)
        model.eval()
        tokens: list[DecodedToken] = []
        decoded = Decoded([])
        if settings.strategy == "beam":
            for decoded in beam_steps(model, source, settings.beam_width, settings.max_length,
                                      settings.length_penalty, settings.alternatives):
                control.check()
                yield Progress(len(decoded.tokens), settings.max_length,
                               "Beam search: " + written(decoded.ids()))
            for index in range(len(decoded.tokens)):
                tokens.append(_token(decoded, index, target_tok))
                yield tokens[-1]
        else:
            for decoded in greedy_steps(model, source, settings.max_length,
                                        settings.alternatives):
                control.check()
                tokens.append(_token(decoded, len(decoded.tokens) - 1, target_tok))
                yield tokens[-1]
        yield JobFinished(result=DecodeResult(labels, tokens, written(decoded.ids()),
                                              settings.strategy, decoded.log_prob))

    return JobSpec(f"Decode ({settings.strategy})", job)
