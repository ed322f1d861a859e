"""The trainer: a generator job that trains any registered model on any registered task.

The loop knows the task only through the `Task` protocol (core/tasks/base.py): the task gives
the batch of each step, the loss of a batch (and whatever it carries to the next batch, such
as a language model's hidden state under truncated BPTT), validation metrics and a preview.
So there are no task branches and no architecture branches here.

Under torchrun the same loop runs in every rank: `self.ctx` (core/distributed/context.py) wraps
the model in DistributedDataParallel, gives the rank its rows of the task's global batch
(recipe batch size × ranks), averages the logged loss, agrees on stopping, and lets rank 0
alone write; one process has a context whose every call is the identity.

Events, in order within a step: `StepLogged` + `Progress` every `log_every` steps,
`DivergenceHandled` on a rollback, then at validation points `EvalLogged`, `SnapshotReady` and
`CheckpointSaved("best")` when validation improved, `SampleGenerated` every `sample_every`
steps, `CheckpointSaved("latest")` every `checkpoint_every` steps and at the end. A stopped job
still writes its latest checkpoint (in `finally`), so every run can be resumed; a rank sent
SIGINT/SIGTERM ends the loop of every rank after the same step, with a checkpoint.

Stop and pause act between any two steps, not only at the events: the loop looks at the job's
`JobControl` before each step (two flag reads, nothing measurable next to a step; see
benchmarks/README.md), so a run logging every 10 steps still stops within one step.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Iterator

import torch

from workbench.core.distributed.context import make_context
from workbench.core.events import (
    DivergenceHandled,
    Event,
    JobCancelled,
    JobFinished,
    Notice,
    Progress,
    RunStarted,
    SampleGenerated,
    StepLogged,
)
from workbench.core.jobs import JobCancelledError, JobControl, JobSpec, UserFacingError
from workbench.core.tasks import build_task
from workbench.core.training import lora
from workbench.core.training.evaluation import ModelHooks
from workbench.core.training.guard import DivergenceGuard
from workbench.core.training.schedules import lr_at
from workbench.core.training.setup import autocast, make_optimizer
from workbench.core.training_loop.train_request import TrainRequest
from workbench.core.training_loop.trainer_state import RunState, clone_state

# Progress only moves the status bar: a few updates a second are enough, and a tiny model
# logging every few milliseconds must not flood the GUI thread with them.
PROGRESS_EVERY_S = 0.2
FINISHING = "Finishing: the last validation, checkpoint and test figure"


class Trainer(RunState):
    """One run: built from a request, then `run()` yields its events. Its folder, checkpoints,
    validation points and test figure are in `RunState` (trainer_state.py)."""

    def __init__(self, request: TrainRequest) -> None:
        self.request = request
        self.config = config = request.training
        problems = (config.problems() + request.model_config.problems()
                    + request.task_config.problems())
        if problems:
            raise UserFacingError("Training settings: " + " ".join(problems))
        self.hooks = request.hooks or ModelHooks.default()
        self.ctx = ctx = make_context(request.distributed, config.device)
        if config.minutes and ctx.world_size > 1:
            # each rank's clock would end the run (and set the rate) at its own step
            raise UserFacingError("A time budget ('minutes') is not supported with several "
                                  "processes yet: set a number of steps instead.")
        self._closed = False
        torch.set_num_threads(ctx.threads(config.threads, request.gui))
        self.device = ctx.device
        self.amp = config.bf16 and self.device.type == "cuda"
        self.task = build_task(request.task_config, request.data)
        self._check_budget(request)
        torch.manual_seed(config.seed)
        self.model = self.task.build_model(request.model_config, self.hooks.build)
        self.model = lora.wrap_for_run(self.model, config, request.task_config).to(self.device)
        self.model_config = self.model.config  # with the vocabulary sizes the task set
        torch.manual_seed(config.seed + ctx.rank)  # the same weights, a dropout stream per rank
        # the task plans global batches; each of N ranks trains on its B rows of them, as one
        # process with batch N·B would, and scores its share of the held-out examples
        self.task.start(self.model, dataclasses.replace(
            config, batch_size=config.batch_size * ctx.world_size), self.device)
        self.task.validation_shard(ctx.rank, ctx.world_size)
        self.optimizer = make_optimizer(self.model, config)
        self.train_model = ctx.wrap(self.model)  # DDP averages the gradients under torchrun
        self.guard = DivergenceGuard(config.spike_factor, self.task.uniform_loss(),
                                     config.warmup_steps, floor=config.grad_clip)
        self.step = 0
        self.tokens_seen = 0
        self.elapsed_before = 0.0
        self.best_val = math.inf
        self.best_step = -1  # the step of the 'best' checkpoint (-1: none yet)
        self.since_best = 0  # validations since the best one (early-stopping patience)
        self.carry = None  # what the task carries from batch to batch (a hidden state)
        self.notices: list[str] = []  # said when the run starts
        self._open_folder(request)  # claims or reopens it, resumes, opens the run log
        self.active_s = 0.0  # time spent training, pauses and consumers left out
        self.budget_s = 60.0 * config.minutes  # 0: no time budget, the steps decide
        self.clock = time.perf_counter  # a test may hand in a fake clock
        self._progress_at = -PROGRESS_EVERY_S
        self.control: JobControl | None = None  # looked at before every step when given

    def elapsed(self) -> float:
        return self.elapsed_before + self.active_s

    def _now(self) -> float:
        """Training time so far, the step under way included (what a time budget counts)."""
        return self.elapsed() + self.clock() - self._since

    def _finished(self) -> bool:
        """The steps are done, or the time budget is spent."""
        return (self.step >= self.config.max_steps
                or bool(self.budget_s) and self._now() >= self.budget_s)

    # --- the loop -------------------------------------------------------------------------------

    def _between_steps(self) -> None:
        """Wait while paused (not counted as training time), stop when asked: within a step
        of the request, whatever the logging interval."""
        control = self.control
        if control is None:
            return
        if control.paused:
            paused_at = self.clock()
            control.wait_if_paused()
            self._since += self.clock() - paused_at
        if control.stop_requested:
            raise JobCancelledError

    def _emit(self, event: Event) -> Iterator[Event]:
        """Yield one event, writing it to the run log; time away from training is not counted."""
        self.active_s += self.clock() - self._since
        self.log.write(event)
        yield event
        self._since = self.clock()

    def run(self) -> Iterator[Event]:
        config, model, task = self.config, self.model, self.task
        model.train()
        self._since = self.clock()
        self.guard.keep(self.step, model, self.optimizer, self.carry, self.tokens_seen)
        first_step = self.step
        window_loss, window_clips, window_steps = 0.0, 0, 0
        window_start, window_tokens = self.elapsed(), self.tokens_seen
        stop = False
        early = ""  # why the run stopped early (patience), said when it ends
        try:
            for text in self.notices:
                yield from self._emit(Notice(text))
            while not self._finished():
                self._between_steps()
                step = self.step
                whole = task.batch(step)
                batch = self.ctx.shard(whole)
                share = self.ctx.loss_share(task.loss_weight(batch), task.loss_weight(whole))
                lr = lr_at(config, step, self.guard.lr_scale, self._now())
                for group in self.optimizer.param_groups:
                    group["lr"] = lr
                with autocast(self.device, self.amp):
                    loss, carry = task.loss(self.train_model, batch.to(self.device),
                                            self.carry)
                loss = loss * share  # 1 in one process; a rank's share of the terms in DDP
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                limit = config.grad_clip if config.grad_clip > 0 else math.inf
                norm = torch.nn.utils.clip_grad_norm_(model.parameters(), limit)
                # one read from the device for both numbers: each read waits for the GPU
                # (clip_grad_norm_ gives a CPU zero when no parameter has a gradient)
                norm, loss_value = torch.stack([norm.float().to(loss.device),
                                                loss.detach().float()]).tolist()
                loss_value, stop = self.ctx.step_agreement(loss_value)
                problem = self.guard.problem(loss_value, norm)
                if problem:
                    good = self.guard.roll_back(step, problem, model, self.optimizer)
                    self.step, self.carry = good.step, clone_state(good.state)
                    self.tokens_seen = good.tokens_seen
                    new_lr = lr_at(config, self.step, self.guard.lr_scale, self._now())
                    yield from self._emit(DivergenceHandled(step, problem, new_lr,
                                                            self.guard.tries, good.step))
                    window_loss, window_clips, window_steps = 0.0, 0, 0
                    continue
                self.optimizer.step()
                self.carry = carry
                self.step += 1
                self.tokens_seen += batch.tokens
                self.guard.record_good(self.step, norm, model, self.optimizer, self.carry,
                                       self.tokens_seen, loss_value)
                window_loss += loss_value
                window_clips += int(norm > limit)
                window_steps += 1
                last = self._finished()
                if self.step % config.log_every == 0 or last:
                    now = self._now()
                    rate = (self.tokens_seen - window_tokens) / max(now - window_start, 1e-9)
                    yield from self._emit(StepLogged(
                        self.step, window_loss / window_steps, lr, norm, norm > limit,
                        self.tokens_seen, rate, now, window_clips / window_steps))
                    if now - self._progress_at >= PROGRESS_EVERY_S or last:
                        self._progress_at = now
                        yield from self._emit(self._progress(loss_value, last))
                    window_loss, window_clips, window_steps = 0.0, 0, 0
                    window_start, window_tokens = now, self.tokens_seen
                validate = (self.step % config.eval_every == 0 or last) and task.has_validation()
                if validate and (yield from self._validate()):
                    window_loss, window_clips, window_steps = 0.0, 0, 0
                    continue  # rolled back to the best validation
                if validate and config.patience and self.since_best >= config.patience:
                    early = (f"Stopped early at step {self.step}: the validation loss has not "
                             f"improved for {self.since_best} validations (patience "
                             f"{config.patience}); the best, {self.best_val:.4f}, was at step "
                             f"{self.best_step} and is the 'best' checkpoint.")
                    last = True
                if config.sample_every and (self.step % config.sample_every == 0 or last):
                    yield from self._emit(SampleGenerated(self.step,
                                                          task.preview(model, self.step)))
                if self.step % config.checkpoint_every == 0 and not last:
                    yield from self._emit(self._save("latest"))
                if stop or early:  # a rank got SIGINT/SIGTERM: every rank ends after this
                    break          # same step; patience ran out: likewise
            if early:
                yield from self._emit(Progress(1, 1, FINISHING))
            yield from self._emit(self._save("latest"))
            if early:
                yield from self._emit(Notice(early, "info"))
            if not stop:
                yield from self._test_figure()
            # Leave the process group here, where every rank is, not when the caller drops
            # this generator: that may be during interpreter shutdown, where gloo aborts.
            self._close(together=True)
            yield (JobCancelled(f"stopped by a signal after step {self.step}") if stop
                   else JobFinished(result=str(self.run_dir)))
        except Exception as exc:
            explained = self.ctx.explain(exc)
            if explained is exc:
                raise
            raise explained from exc
        finally:
            if (self.ctx.saves_on_interrupt and not self._finished()
                    and self.step > first_step):
                self._save("latest")  # stopped: keep what was trained so it can be resumed
            self._close(together=False)

    def _progress(self, loss: float, last: bool) -> Progress:
        """The status bar's progress: by steps, or by the time budget when there is one (so
        its bar and ETA follow the clock the run ends by). Of the whole run: a resumed run's
        bar starts where it stood. The last one says that the run is finishing (its last
        validation, checkpoint and test figure take a while; the window once showed
        "step 300/300, ETA 0s" for 15 s with nothing said)."""
        if last:
            return Progress(1, 1, FINISHING)
        if not self.budget_s:
            return Progress(self.step, self.config.max_steps,
                            f"Step {self.step}/{self.config.max_steps}, loss {loss:.3f}")
        now = self._now()
        return Progress(now, self.budget_s, f"Step {self.step}, {_clock(now)} of "
                        f"{_clock(self.budget_s)}, loss {loss:.3f}")

def _clock(seconds: float) -> str:
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}:{rest:02d}"


def train_steps(request: TrainRequest, control: JobControl | None = None) -> Iterator[Event]:
    """The training events of one request (set-up happens when the generator starts). With
    `control`, stop and pause act before any step, not only between events."""
    yield Progress(0, None, "Building the model")
    trainer = Trainer(request)
    trainer.control = control
    try:
        yield RunStarted(str(trainer.run_dir), request.run_name,
                         trainer.step if request.resume else 0, request.task_config.name,
                         request.training.grad_clip)
        yield from trainer.run()
    finally:  # closed before run() began (stopped at once): still unlock the folder
        trainer._close(together=False)


def train_job(request: TrainRequest, title: str = "") -> JobSpec:
    arch = getattr(request.model_config, "arch", "model")
    verb = "Resuming" if request.resume else "Training"
    return JobSpec(title or f"{verb} {arch}", lambda control: train_steps(request, control))
