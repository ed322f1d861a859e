"""The trainer: a generator job that trains any registered model as a language model.

Teacher forcing on the tokenized corpus: the model reads tokens x_1..x_T and is scored on
predicting x_2..x_{T+1} with mean cross-entropy. Batching follows the model's `supports_state`
(contiguous windows with a carried, detached hidden state for recurrent models; random blocks
for stateless ones), so the loop has no architecture branches.

Events, in order within a step: `StepLogged` + `Progress` every `log_every` steps,
`DivergenceHandled` on a rollback, then at validation points `EvalLogged`, `SnapshotReady` and
`CheckpointSaved("best")` when validation improved, `SampleGenerated` every `sample_every`
steps, `CheckpointSaved("latest")` every `checkpoint_every` steps and at the end. A stopped job
still writes its latest checkpoint (in `finally`), so every run can be resumed.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from workbench.core.config.models import config_to_dict
from workbench.core.config.training import TrainingConfig
from workbench.core.cpu_threads import choose_threads
from workbench.core.events import (
    CheckpointSaved,
    DivergenceHandled,
    EvalLogged,
    Event,
    JobFinished,
    Progress,
    RunStarted,
    SampleGenerated,
    SnapshotReady,
    StepLogged,
)
from workbench.core.jobs import JobSpec, UserFacingError
from workbench.core.training import checkpoints, runs
from workbench.core.training.batches import training_batches, validation_windows
from workbench.core.training.evaluation import ModelHooks, evaluate, sample_text
from workbench.core.training.guard import DivergenceGuard
from workbench.core.training.metrics import bits_per_token, perplexity
from workbench.core.training.schedules import lr_at
from workbench.core.training.setup import autocast, make_optimizer, resolve_device, state_to

# Progress only moves the status bar: a few updates a second are enough, and a tiny model
# logging every few milliseconds must not flood the GUI thread with them.
PROGRESS_EVERY_S = 0.2


@dataclasses.dataclass
class TrainRequest:
    """What to train. `run_dir` None makes a new run folder; `resume` continues its latest
    checkpoint."""

    tokens: object  # TokenizedCorpus
    model_config: object
    training: TrainingConfig
    run_dir: Path | None = None
    run_name: str = "run"
    recipe_toml: str = ""
    resume: bool = False
    hooks: ModelHooks | None = None
    gui: bool = True  # a window shares the process: "auto" threads leave it a core


class Trainer:
    def __init__(self, request: TrainRequest) -> None:
        self.request = request
        self.config = config = request.training
        problems = config.problems() + request.model_config.problems()
        if problems:
            raise UserFacingError("Training settings: " + " ".join(problems))
        self.hooks = request.hooks or ModelHooks.default()
        torch.set_num_threads(choose_threads(config.threads, gui=request.gui))
        self.device = resolve_device(config.device)
        self.amp = config.bf16 and self.device.type == "cuda"
        tokens = request.tokens
        self.tokenizer = tokens.tokenizer
        self.model_config = dataclasses.replace(request.model_config,
                                                vocab_size=tokens.vocab_size)
        torch.manual_seed(config.seed)
        self.model = self.hooks.build(self.model_config).to(self.device)
        if not getattr(self.model, "causal", True):
            raise UserFacingError("A bidirectional model sees the token it should predict, so it "
                                  "cannot be trained as a language model. Turn off "
                                  "'Bidirectional' in the model settings.")
        self.stateful = bool(getattr(self.model, "supports_state", False))
        context = getattr(self.model_config, "context_length", None)
        self.seq_len = min(config.seq_len, context) if context else config.seq_len
        self.batches = training_batches(np.asarray(tokens.train), config.batch_size,
                                        self.seq_len, self.stateful, config.seed)
        self.val = validation_windows(np.asarray(tokens.val), config.batch_size, self.seq_len,
                                      config.eval_batches) if len(tokens.val) >= 3 else []
        self.prompt = _sample_prompt(self.tokenizer, np.asarray(
            tokens.val if len(tokens.val) else tokens.train))
        self.optimizer = make_optimizer(self.model, config)
        self.guard = DivergenceGuard(config.spike_factor)
        self.step = 0
        self.tokens_seen = 0
        self.elapsed_before = 0.0
        self.best_val = math.inf
        self.state = None
        self.run_dir = request.run_dir or runs.new_run_dir(request.run_name)
        self.checkpoint_dir = self.run_dir / "checkpoints"
        if request.resume:
            self._resume()
        elif request.recipe_toml:
            checkpoints.atomic_write(self.run_dir / "recipe.toml",
                                     request.recipe_toml.encode("utf-8"))
        self.log = runs.RunLog(self.run_dir)
        self.active_s = 0.0  # time spent training, pauses and consumers left out
        self._progress_at = -PROGRESS_EVERY_S

    # --- resume and checkpoints -----------------------------------------------------------------

    def _resume(self) -> None:
        saved = checkpoints.load_checkpoint(self.checkpoint_dir / "latest.json")
        checkpoints.load_weights_into(self.model, saved, f"checkpoint in {self.run_dir}")
        self.optimizer.load_state_dict(saved.optimizer)
        meta = saved.meta
        self.step = saved.step
        self.tokens_seen = int(meta.get("tokens_seen", 0))
        self.elapsed_before = float(meta.get("elapsed_s", 0.0))
        self.best_val = float(meta.get("best_val", math.inf))
        self.guard.lr_scale = float(meta.get("lr_scale", 1.0))
        if saved.state:
            self.state = _restore_state(self.model.init_state(self.config.batch_size),
                                        iter(saved.state), self.device)
        if saved.rng is not None:
            torch.set_rng_state(saved.rng)
        runs.truncate_after(self.run_dir, self.step)

    def _save(self, kind: str, metrics: dict | None = None) -> CheckpointSaved:
        meta = {"step": self.step, "kind": kind, "model_config": config_to_dict(self.model_config),
                "tokenizer": self.tokenizer.to_dict(), "tokens_seen": self.tokens_seen,
                "elapsed_s": self.elapsed(), "best_val": self.best_val,
                "lr_scale": self.guard.lr_scale, "metrics": metrics or {},
                "training": dataclasses.asdict(self.config), "run_name": self.request.run_name}
        path = checkpoints.save_checkpoint(self.checkpoint_dir, kind, self.model,
                                           self.optimizer, meta, self.state)
        return CheckpointSaved(self.step, str(path), kind)

    def elapsed(self) -> float:
        return self.elapsed_before + self.active_s

    # --- the loop -------------------------------------------------------------------------------

    def _emit(self, event: Event) -> Iterator[Event]:
        """Yield one event, writing it to the run log; time away from training is not counted."""
        self.active_s += time.perf_counter() - self._since
        self.log.write(event)
        yield event
        self._since = time.perf_counter()

    def run(self) -> Iterator[Event]:
        config, model = self.config, self.model
        model.train()
        self._since = time.perf_counter()
        self.guard.keep(self.step, model, self.optimizer, self.state)
        first_step = self.step
        window_loss, window_clips, window_steps = 0.0, 0, 0
        window_start, window_tokens = self.elapsed(), self.tokens_seen
        try:
            while self.step < config.max_steps:
                step = self.step
                if self.batches.starts_sequence(step) or self.state is None:
                    self.state = state_to(model.init_state(config.batch_size), self.device)
                x, y = self.batches.batch(step)
                inputs = torch.from_numpy(x).to(self.device)
                targets = torch.from_numpy(y).to(self.device)
                lr = lr_at(config, step, self.guard.lr_scale)
                for group in self.optimizer.param_groups:
                    group["lr"] = lr
                with autocast(self.device, self.amp):
                    logits, new_state = model(inputs, self.state)  # (B, T, V)
                loss = F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]),
                                       targets.reshape(-1))
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                limit = config.grad_clip if config.grad_clip > 0 else math.inf
                norm = float(torch.nn.utils.clip_grad_norm_(model.parameters(), limit))
                loss_value = loss.item()
                problem = self.guard.problem(loss_value, norm)
                if problem:
                    good = self.guard.roll_back(step, problem, model, self.optimizer)
                    self.step, self.state = good.step, _clone(good.state)
                    self.tokens_seen -= (step - good.step) * inputs.numel()
                    new_lr = lr_at(config, self.step, self.guard.lr_scale)
                    yield from self._emit(DivergenceHandled(step, problem, new_lr,
                                                            self.guard.tries, good.step))
                    window_loss, window_clips, window_steps = 0.0, 0, 0
                    continue
                self.optimizer.step()
                self.state = model.detach_state(new_state)
                self.step += 1
                self.tokens_seen += inputs.numel()
                self.guard.record_good(self.step, norm, model, self.optimizer, self.state)
                window_loss += loss_value
                window_clips += int(norm > limit)
                window_steps += 1
                last = self.step == config.max_steps
                if self.step % config.log_every == 0 or last:
                    now = self.elapsed() + time.perf_counter() - self._since
                    rate = (self.tokens_seen - window_tokens) / max(now - window_start, 1e-9)
                    yield from self._emit(StepLogged(
                        self.step, window_loss / window_steps, lr, norm, norm > limit,
                        self.tokens_seen, rate, now, window_clips / window_steps))
                    if now - self._progress_at >= PROGRESS_EVERY_S or last:
                        self._progress_at = now
                        yield from self._emit(Progress(
                            self.step - first_step, config.max_steps - first_step,
                            f"Step {self.step}/{config.max_steps}, loss {loss_value:.3f}"))
                    window_loss, window_clips, window_steps = 0.0, 0, 0
                    window_start, window_tokens = now, self.tokens_seen
                if (self.step % config.eval_every == 0 or last) and self.val:
                    yield from self._validate()
                if config.sample_every and (self.step % config.sample_every == 0 or last):
                    text = sample_text(model, self.tokenizer, self.prompt, config.sample_length,
                                       self.stateful, self.seq_len, config.seed + self.step,
                                       self.device)
                    yield from self._emit(SampleGenerated(self.step, text))
                if self.step % config.checkpoint_every == 0 and not last:
                    yield from self._emit(self._save("latest"))
            yield from self._emit(self._save("latest"))
            yield JobFinished(result=str(self.run_dir))
        finally:
            if self.step < config.max_steps and self.step > first_step:
                self._save("latest")  # stopped: keep what was trained so it can be resumed
            self.log.close()

    def _validate(self) -> Iterator[Event]:
        val_loss = evaluate(self.model, self.val, self.device, self.amp)
        now = self.elapsed() + time.perf_counter() - self._since
        yield from self._emit(EvalLogged(self.step, val_loss, perplexity(val_loss),
                                         bits_per_token(val_loss), self.tokens_seen, now))
        metrics = {"val_loss": val_loss, "perplexity": perplexity(val_loss)}
        snapshot = self.hooks.snapshot(self.model, self.tokenizer.to_dict(), self.step, metrics,
                                       self.request.run_name)
        yield from self._emit(SnapshotReady(snapshot))
        if val_loss < self.best_val:
            self.best_val = val_loss
            yield from self._emit(self._save("best", metrics))


def _sample_prompt(tokenizer, ids: np.ndarray, length: int = 32) -> list[int]:
    """The first `length` tokens of the held-out text after its first line break, so samples
    start at the beginning of a line rather than mid-word."""
    head = [int(t) for t in ids[:400]]
    start = next((i + 1 for i, t in enumerate(head) if tokenizer.token(t).endswith("\n")), 0)
    prompt = head[start: start + length]
    return prompt if len(prompt) == length else head[:length]


def _clone(state):
    if state is None:
        return None
    if isinstance(state, torch.Tensor):
        return state.clone()
    return type(state)(_clone(s) for s in state)


def _restore_state(template, parts, device):
    """Refill a state shaped like `template` (tensor or nested tuples) from saved tensors."""
    if template is None:
        return None
    if isinstance(template, torch.Tensor):
        return next(parts).to(device)
    return type(template)(_restore_state(t, parts, device) for t in template)


def train_steps(request: TrainRequest) -> Iterator[Event]:
    """The training events of one request (set-up happens when the generator starts)."""
    yield Progress(0, None, "Building the model")
    trainer = Trainer(request)
    yield RunStarted(str(trainer.run_dir), request.run_name,
                     trainer.step if request.resume else 0)
    yield from trainer.run()


def train_job(request: TrainRequest, title: str = "") -> JobSpec:
    arch = getattr(request.model_config, "arch", "model")
    verb = "Resuming" if request.resume else "Training"
    return JobSpec(title or f"{verb} {arch}", lambda control: train_steps(request))
