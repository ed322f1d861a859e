"""What a run measures and keeps, as a part of the `Trainer`: the memory check before its model
is built, resuming from the latest checkpoint (every piece of it checked against the live run
first, resume_checks.py), validation points (a snapshot, the 'best' checkpoint, a roll-back
when validation diverges), saving checkpoints, and the closing figure on the test split.

A mix-in rather than functions over the trainer: these read and set the same counters as the
loop (step, best validation, patience, the carried state), which are the trainer's own.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Generator, Iterator
from typing import TYPE_CHECKING, Any

import torch

from workbench.core.config.models import config_to_dict
from workbench.core.config.tasks import task_config_to_dict
from workbench.core.events import (
    CheckpointSaved,
    DivergenceHandled,
    EvalLogged,
    Event,
    SnapshotReady,
    TestLogged,
)
from workbench.core.jobs import UserFacingError
from workbench.core.training import (
    checkpoints,
    lora,
    model_budget,
    resume_checks,
    run_folder,
    runs,
)
from workbench.core.training.checkpoint_meta import check_run_fields
from workbench.core.training.guard import restore_weights
from workbench.core.training.schedules import lr_at
from workbench.core.training.setup import load_optimizer_state, rng_state, set_rng_state
from workbench.core.training.tensorboard_log import open_run_log

if TYPE_CHECKING:
    from workbench.core.training_loop.train_request import TrainRequest


class RunState:
    """The checkpoint side of `Trainer` (its attributes are set in `Trainer.__init__`)."""

    # set by Trainer.__init__; declared for readers and the type checker
    config: Any
    task: Any
    hooks: Any
    ctx: Any
    model: Any
    model_config: Any
    optimizer: Any
    guard: Any
    device: Any
    amp: bool
    request: Any
    run_dir: Any
    checkpoint_dir: Any
    step: int
    tokens_seen: int
    elapsed_before: float
    best_val: float
    best_step: int
    since_best: int
    carry: Any
    notices: list[str]
    log: Any  # the run log (metrics.jsonl, TensorBoard), set by _open_folder
    _lock: Any
    _closed: bool
    # and Trainer's methods elapsed() (training time of every session so far), _now() (the
    # step under way included) and _emit() (yield one event, written to the run log)

    def _check_budget(self, request: TrainRequest) -> None:
        """Refuse a model that cannot fit in memory before allocating it (model_budget.py)."""
        try:
            shapes, built = model_budget.built_on_meta(
                lambda: self.task.build_model(request.model_config, self.hooks.build))
        except UserFacingError:
            raise
        except Exception:  # noqa: BLE001 - a builder that cannot build on 'meta': no estimate
            return
        from workbench.core.training.activation_budget import sequence_length

        trained = None
        if self.config.lora_rank:  # only LoRA's factors have gradients and moments
            from workbench.core.training.lora import trained_values

            trained = trained_values(shapes, self.config)
        model_budget.check_training_memory(  # activations too: batch × sequence × width
            shapes, built, self.config.batch_size, sequence_length(request.task_config,
                                                                   self.config),
            "Training this model", trained)

    def _open_folder(self, request: TrainRequest) -> None:
        """The run's folder: a new one claimed, or the resumed one reopened and its checkpoint
        loaded; then its run log. The writer owns and locks the folder before writing anything
        (run_folder.py); a failure here unlocks it again."""
        ctx, config = self.ctx, self.config
        self.run_dir = request.run_dir or ctx.from_writer(
            lambda: runs.new_run_dir(request.run_name))
        self.checkpoint_dir = self.run_dir / "checkpoints"
        self._lock = None
        if ctx.is_writer:
            self._lock = (run_folder.open_for_resume(self.run_dir) if request.resume
                          else run_folder.claim(self.run_dir))
        try:
            if request.resume:
                self._resume()
            elif request.recipe_toml:
                ctx.from_writer(lambda: checkpoints.atomic_write(
                    self.run_dir / "recipe.toml", request.recipe_toml.encode("utf-8")))
            # metrics.jsonl, and TensorBoard's event files when the run asks for them
            self.log = open_run_log(self.run_dir, config.tensorboard, self.step if request.resume
                                    else None) if ctx.is_writer else runs.SilentLog()
        except BaseException:
            self._release_lock()
            raise

    def _close(self, together: bool) -> None:
        """Close the log and leave the process group, once (`together`: every rank is at the
        same point, so they may wait for each other first)."""
        if not self._closed:
            self._closed = True
            self.log.close()
            self._release_lock()
            self.ctx.close(together)

    def _release_lock(self) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def _resume(self) -> None:
        saved, _ = checkpoints.load_resumable(self.checkpoint_dir)  # recipe_run says which
        check_run_fields(saved.meta, f"The checkpoint of {self.run_dir.name}")
        checkpoints.load_weights_into(self.model, saved, f"checkpoint in {self.run_dir}")
        where = f"The checkpoint of {self.run_dir.name}"
        with_moments = resume_checks.check_optimizer_state(self.optimizer, saved.optimizer, where)
        load_optimizer_state(self.optimizer, saved.optimizer)
        meta = saved.meta
        self.step = saved.step
        if self.step > 0 and with_moments == 0:
            self.notices.append(
                f"The checkpoint of {self.run_dir.name} keeps no optimizer averages (AdamW's "
                "exp_avg and exp_avg_sq): they start afresh, as at step 0, so the loss may jump "
                "for the first steps after the resume.")
        self.tokens_seen = int(meta.get("tokens_seen", 0))
        self.elapsed_before = float(meta.get("elapsed_s", 0.0))
        self.best_val = float(meta.get("best_val", math.inf))
        self.best_step = int(meta.get("best_step", -1))
        self.since_best = int(meta.get("since_best", 0))
        self.guard.lr_scale = float(meta.get("lr_scale", 1.0))
        state, rng = checkpoints.rank_part(saved, self.ctx.rank, self.ctx.world_size)
        if saved.state and not state:
            self.notices.append(
                f"The checkpoint was saved by {saved.meta.get('state_ranks', 1)} processes and "
                f"this run has {self.ctx.world_size}: the carried hidden state starts afresh, "
                "so the curve may show a small bump.")
        if state:
            # this process's rows: the task's batch is the global one under torchrun
            self.carry = self.task.restore_carry(self.model, state, self.device,
                                                 self.config.batch_size)
        if rng is not None:
            resume_checks.check_rng_state(rng, where)
            set_rng_state(rng, self.device)
        self.ctx.from_writer(lambda: runs.truncate_after(self.run_dir, self.step))

    def _save(self, kind: str, metrics: dict | None = None) -> CheckpointSaved:
        meta = {"step": self.step, "kind": kind, "model_config": config_to_dict(self.model_config),
                "task": task_config_to_dict(self.task.config),
                "tokenizer": self.task.vocabulary(), "tokens_seen": self.tokens_seen,
                "elapsed_s": self.elapsed(), "best_val": self.best_val,
                "best_step": self.best_step, "since_best": self.since_best,
                "lr_scale": self.guard.lr_scale, "metrics": metrics or {},
                "training": dataclasses.asdict(self.config), "run_name": self.request.run_name,
                "world_size": self.ctx.world_size}
        # every rank's carry and RNG, so that each rank resumes exactly where it stood
        carries = self.ctx.gather([t.detach().cpu() for t in
                                   checkpoints.flatten_state(self.carry)])
        rngs = self.ctx.gather(rng_state(self.device))
        path = self.ctx.from_writer(lambda: checkpoints.save_checkpoint(
            self.checkpoint_dir, kind, self.model, self.optimizer, meta, carries, rngs))
        return CheckpointSaved(self.step, str(path), kind)

    def _validate(self) -> Generator[Event, None, bool]:
        """Validate, snapshot, keep 'best'; returns True when it rolled training back."""
        # each rank scores its share of the held-out examples; the task merges the shares
        result = self.task.merge_evaluations(self.ctx.gather(
            self.task.evaluate(self.model, self.amp)))
        now = self._now()
        yield from self._emit(EvalLogged(self.step, result.loss, tokens_seen=self.tokens_seen,
                                         elapsed_s=now, metrics=result.metrics,
                                         results=result.results))
        metrics = {"val_loss": result.loss, **result.metrics}
        snapshot = self.hooks.snapshot(self.model, self.task.vocabulary(), self.step, metrics,
                                       self.request.run_name)
        snapshot = dataclasses.replace(snapshot, task=task_config_to_dict(self.task.config),
                                       run_dir=str(self.run_dir))
        if lora.is_lora(self.model):  # W + (α/r) B A under the plain names: every view reads it
            snapshot = dataclasses.replace(snapshot, weights={
                k: v.detach().to("cpu", dtype=torch.float32, copy=True).numpy()
                for k, v in lora.merged_state(self.model).items()})
        yield from self._emit(SnapshotReady(snapshot))
        problem = self.guard.validation_problem(result.loss)
        if problem:
            step = self.step
            good = self.guard.roll_back(step, problem, self.model, self.optimizer, to_best=True)
            self.step, self.carry, self.tokens_seen = good.step, clone_state(good.state), \
                good.tokens_seen
            new_lr = lr_at(self.config, self.step, self.guard.lr_scale, self._now())
            yield from self._emit(DivergenceHandled(step, problem, new_lr, self.guard.tries,
                                                    good.step))
            return True
        # a loss worse than a uniform guess is never 'best', however it compares
        uniform = self.guard.uniform_loss
        if result.loss < self.best_val and (uniform is None or result.loss < uniform):
            self.best_val, self.best_step, self.since_best = result.loss, self.step, 0
            self.guard.keep_best(self.step, self.model, self.optimizer, self.carry,
                                 self.tokens_seen)
            yield from self._emit(self._save("best", metrics))
        else:
            self.since_best += 1
        return False

    def _test_figure(self) -> Iterator[Event]:
        """Score the best validation's model (the 'best' checkpoint; the last model when no
        validation made one) once on the test split, as the run's closing figure. The run is
        over (its latest checkpoint written), so the live model may take the best weights."""
        which, at = "latest", self.step
        if self.guard.best is not None:  # the best of this session, as saved
            restore_weights(self.model, self.guard.best.model)
            which, at = "best", self.guard.best.step
        elif self.best_step >= 0 and (self.checkpoint_dir / "best.json").is_file():
            saved = checkpoints.load_checkpoint(self.checkpoint_dir / "best.json")
            checkpoints.load_weights_into(self.model, saved, "best checkpoint")  # earlier session
            which, at = "best", saved.step
        result = self.task.test(self.model, self.amp)
        if result is None or not math.isfinite(result.loss):
            return
        yield from self._emit(TestLogged(self.step, result.loss, at, which,
                                         {"test_loss": result.loss, **result.metrics}))


def clone_state(state):
    """A copy of a carried hidden state (None, a tensor, or nested tuples of tensors)."""
    if state is None:
        return None
    if isinstance(state, torch.Tensor):
        return state.clone()
    return type(state)(clone_state(s) for s in state)
