"""Language modelling: predict token x_{t+1} from x_1..x_t (SLP3 9.2-9.3; teacher forcing).

The data is the tokenized corpus. Batching follows the model's `supports_state` (never its
architecture): contiguous windows whose hidden state is carried (and detached) from one batch to
the next for models that keep a state (truncated BPTT), random blocks for stateless ones. The
carried state is this task's `carry`, so the trainer keeps and checkpoints it without knowing
what it is. Validation is mean cross-entropy on the first windows of the held-out split, with
perplexity exp(L) and bits L / ln 2; the preview is text sampled from a held-out prompt.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Generator, Iterator

import numpy as np
import torch
import torch.nn.functional as F

from workbench.core.config.tasks import LanguageModelTaskConfig
from workbench.core.events import Event, JobFinished, Notice
from workbench.core.jobs import JobControl, JobSpec, UserFacingError
from workbench.core.tasks.base import Batch, Evaluation, Task, register_task
from workbench.core.tasks.pretrained_start import PretrainedStart, folder_of, folder_tokenizer
from workbench.core.training.batches import training_batches, validation_windows
from workbench.core.training.evaluation import evaluate, sample_text
from workbench.core.training.metrics import bits_per_token, perplexity
from workbench.core.training.resume_checks import check_carry
from workbench.core.training.setup import state_to


def corpus_tokens_steps(recipe, control: JobControl, tokenizer=None
                        ) -> Generator[Event, None, object]:
    """Load and tokenize the recipe's corpus (with `tokenizer` when given, so a resumed run
    reads the ids it was trained on); returns the TokenizedCorpus. The recipe's [tokenizer]
    gains the held-out text chosen, so the recipe a run folder keeps names it."""
    from workbench.core.corpus.dataset import tokenize_job
    from workbench.core.corpus.loading import load_corpus_steps
    from workbench.core.training.recipe import corpus_hash

    location = recipe.corpus_location()
    if not location.exists():
        raise UserFacingError(f"The recipe's corpus {location} does not exist. Edit [corpus] "
                              "in the recipe to point at a file or folder on this machine.")
    corpus = yield from load_corpus_steps(location, cleaning=recipe.cleaning)
    digest = corpus_hash(corpus.text)
    if recipe.corpus_sha256 and digest != recipe.corpus_sha256:
        yield Notice(f"The corpus {location} differs from the one this recipe was made with "
                     "(its SHA-256 hash changed): curves will not match the original run.")
    recipe.corpus_sha256 = digest
    result = None
    job = tokenize_job(corpus, recipe.tokenizer, tokenizer, seed=recipe.seed)
    for event in job.job(control):
        if isinstance(event, JobFinished):
            result = event.result
        else:
            yield event
    # the held-out documents or stretches drawn from the seed, named: the run records them
    recipe.tokenizer = result.config
    if result.held_out is not None:
        yield Notice(result.held_out.describe(), "info")
    return result


@register_task
class LanguageModelTask(Task):
    name = LanguageModelTaskConfig.name
    _start: PretrainedStart | None = None  # a run that fine-tunes a model folder

    @classmethod
    def examples(cls, config, recipe, control, vocabulary=None):
        from workbench.core.corpus.tokenizers import tokenizer_from_dict

        tokenizer = tokenizer_from_dict(vocabulary) if vocabulary else None
        folder = folder_of(config)
        if tokenizer is None and folder is not None:  # fine-tuning: the model's own tokens
            tokenizer = folder_tokenizer(folder)
        return (yield from corpus_tokens_steps(recipe, control, tokenizer))

    def vocabulary(self) -> dict:
        return self.data.tokenizer.to_dict()

    def uniform_loss(self) -> float:
        return math.log(max(self.data.vocab_size, 2))  # ln |V| nats per token

    def build_model(self, model_config, build: Callable):
        folder = folder_of(self.config)
        if folder is not None:  # fine-tuning a model folder: its sizes, not the form's
            if self._start is None:
                self._start = PretrainedStart(folder, getattr(model_config, "dropout", 0.1))
            return self._start.build(self.data.tokenizer, build)
        model = build(dataclasses.replace(model_config, vocab_size=self.data.vocab_size))
        if not getattr(model, "causal", True):
            raise UserFacingError("A bidirectional model sees the token it should predict, so "
                                  "it cannot be trained as a language model. Turn off "
                                  "'Bidirectional' in the model settings.")
        return model

    def start(self, model, training, device) -> None:
        tokens = self.data
        self.device = device
        self.val_shares = 1  # ranks splitting each validation window (validation_shard)
        self.stateful = bool(getattr(model, "supports_state", False))
        context = getattr(model.config, "context_length", None)
        self.seq_len = min(training.seq_len, context) if context else training.seq_len
        self.batches = training_batches(np.asarray(tokens.train), training.batch_size,
                                        self.seq_len, self.stateful, training.seed)
        self.val = validation_windows(np.asarray(tokens.val), training.batch_size, self.seq_len,
                                      training.eval_batches, self.stateful
                                      ) if len(tokens.val) >= 3 else []
        self.test_windows = validation_windows(  # scored as validation is, on its own text
            np.asarray(tokens.test), training.batch_size, self.seq_len, training.eval_batches,
            self.stateful) if len(tokens.test) >= 3 else []
        self.prompt = sample_prompt(self.data.tokenizer, np.asarray(
            tokens.val if len(tokens.val) else tokens.train))
        self.seed = training.seed
        self.sample_length = training.sample_length

    def batch(self, step: int) -> Batch:
        x, y = self.batches.batch(step)
        return Batch({"inputs": x, "targets": y}, tokens=x.size,
                     fresh=self.batches.starts_sequence(step))

    def loss(self, model, batch: Batch, carry):
        if batch.fresh or carry is None:  # as many rows as this batch (a rank's share, in DDP)
            carry = state_to(model.init_state(len(batch["inputs"])), self.device)
        forcing = float(getattr(self.config, "teacher_forcing", 1.0))
        if forcing < 1.0:
            logits, new_state = own_inputs_logits(model, batch["inputs"], carry, forcing)
        else:
            logits, new_state = model(batch["inputs"], carry)  # (B, T, V)
        loss = F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]),
                               batch["targets"].reshape(-1))
        return loss, model.detach_state(new_state)

    def restore_carry(self, model, parts, device, rows):
        template = model.init_state(rows)
        check_carry(template, parts, "The checkpoint")  # an edited one: named, not torch's
        return restore_nested(template, iter(parts), device)

    def has_validation(self) -> bool:
        return bool(self.val)

    def evaluate(self, model, amp: bool) -> Evaluation:
        loss = evaluate(model, self.val, self.device, amp)
        return Evaluation(loss, {"perplexity": perplexity(loss), "bits": bits_per_token(loss)})

    def test(self, model, amp: bool = False) -> Evaluation | None:
        if not self.test_windows:
            return None
        loss = evaluate(model, self.test_windows, self.device, amp)
        return Evaluation(loss, {"perplexity": perplexity(loss), "bits": bits_per_token(loss)})

    def validation_shard(self, rank: int, world_size: int) -> None:
        """Rows [rank·R, (rank+1)·R) of every validation window: the ranks score equal numbers
        of tokens, so the mean of their losses is the loss of all. Rows that do not split
        evenly (a tiny held-out split) stay whole on every rank."""
        rows = len(self.val[0][0]) if self.val else 0
        self.val_shares = world_size if rows and rows % world_size == 0 else 1
        share = rows // self.val_shares
        if self.val_shares > 1:
            part = slice(rank * share, (rank + 1) * share)
            self.val = [(x[part], y[part]) for x, y in self.val]

    def merge_evaluations(self, parts: list[Evaluation]) -> Evaluation:
        if self.val_shares == 1:
            return parts[0]
        loss = float(np.mean([p.loss for p in parts]))
        return Evaluation(loss, {"perplexity": perplexity(loss), "bits": bits_per_token(loss)})

    def preview(self, model, step: int) -> str:
        return sample_text(model, self.data.tokenizer, self.prompt, self.sample_length,
                           self.stateful, self.seq_len, self.seed + step, self.device)

    @classmethod
    def predict(cls, model, vocabulary: dict, text: str, settings) -> JobSpec:
        from workbench.core.corpus.tokenizers import tokenizer_from_dict
        from workbench.core.generation.generate import generation_job

        return generation_job(model, tokenizer_from_dict(vocabulary), text, settings)


def own_inputs_logits(model, inputs: torch.Tensor, state, forcing: float):
    """Logits (B, T, V) when each input after the first is the true token with probability
    `forcing` and otherwise the model's own most likely prediction at that point: free running
    at 0, scheduled sampling in between (Bengio et al. 2015). One step at a time: a model with
    a state carries it, a stateless one re-reads its growing prefix. Gradients flow through
    every step's logits, not through the discrete choices."""
    batch, steps = inputs.shape
    keep = torch.rand(batch, steps, device=inputs.device) < forcing  # the global, seeded RNG
    stateful = state is not None
    current = inputs[:, :1]
    outputs = []
    for t in range(steps):
        if stateful:
            logits, state = model(current[:, -1:], state)  # (B, 1, V)
        else:
            logits, _ = model(current)  # (B, t+1, V): the prefix read so far
        step_logits = logits[:, -1]
        outputs.append(step_logits)
        if t + 1 < steps:
            own = step_logits.detach().argmax(dim=-1)
            following = torch.where(keep[:, t + 1], inputs[:, t + 1], own)
            current = torch.cat([current, following[:, None]], dim=1)
    return torch.stack(outputs, dim=1), state


def sample_prompt(tokenizer, ids: np.ndarray, length: int = 32) -> list[int]:
    """The first `length` tokens of the held-out text from its first <bos> (text trained with
    boundaries) or after its first line break, so samples start at the beginning of a line or
    sentence rather than mid-word."""
    from workbench.core.corpus.tokenizers import BOS

    head = [int(t) for t in ids[:400]]
    start = next((i + 1 for i, t in enumerate(head) if tokenizer.token(t).endswith("\n")), 0)
    if BOS in head:
        start = head.index(BOS)
    prompt = head[start: start + length]
    return prompt if len(prompt) == length else head[:length]


def restore_nested(template, parts: Iterator[torch.Tensor], device):
    """Refill a state shaped like `template` (tensor or nested tuples) from saved tensors."""
    if template is None:
        return None
    if isinstance(template, torch.Tensor):
        return next(parts).to(device)
    return type(template)(restore_nested(t, parts, device) for t in template)
