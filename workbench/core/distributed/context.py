"""The one object the trainer asks about processes: `OneProcess` (the window, a plain CLI run)
or `DistributedContext` (under torchrun). The trainer calls the same methods either way, so
its loop has no rank branches; one process answers each call with the identity.

Under torchrun: the process group uses gloo on CPU and NCCL on CUDA (one GPU per local rank);
the model is wrapped in DistributedDataParallel, which averages the gradients during
`backward`; each rank takes its rows of the global batch (`shard`); the step's loss and the
stop flag travel in one all-reduce (`step_agreement`), so every rank logs the same loss, makes
the same rollback decision and stops after the same step; only rank 0 writes. SIGINT and
SIGTERM only raise the stop flag (`StopSignals`), so Ctrl-C ends every rank after the current
step with a checkpoint, never in the middle of a collective.
"""

from __future__ import annotations

import datetime
import os
import re
import signal
import threading
from collections.abc import Callable
from typing import Any

import torch
from torch.nn.parallel import DistributedDataParallel

from workbench.core.cpu_threads import choose_threads, split_threads
from workbench.core.distributed.env import TorchrunEnv
from workbench.core.jobs import JobCancelledError, UserFacingError

# A peer that stops answering (killed, hung) ends a collective with an error after this long,
# instead of leaving the other ranks waiting for ever; torchrun notices a dead rank sooner.
COLLECTIVE_TIMEOUT = datetime.timedelta(minutes=5)


class OneProcess:
    """Training in one process: nothing to shard, average or agree on."""

    rank = 0
    world_size = 1
    is_writer = True
    # A stopped one-process run (the window's Stop, the generator closed) saves its latest
    # checkpoint on the way out; ranks stop through `step_agreement` instead, and after an
    # error a peer may be gone, so a collective save could never finish.
    saves_on_interrupt = True

    def __init__(self, device: torch.device) -> None:
        self.device = device

    def threads(self, requested: int, gui: bool) -> int:
        return choose_threads(requested, gui=gui)

    def wrap(self, model: torch.nn.Module) -> torch.nn.Module:
        """The model the training step runs (DistributedDataParallel under torchrun)."""
        return model

    def shard(self, batch: Any) -> Any:
        """This rank's rows of a batch (all of them here)."""
        return batch

    def loss_share(self, part: float, whole: float) -> float:
        """What this rank's mean loss is multiplied by so that DDP's average of the ranks'
        gradients is the gradient of the whole batch's mean: `part` of the `whole` batch's
        loss terms are this rank's (one process: all, 1)."""
        return 1.0

    def step_agreement(self, loss: float) -> tuple[float, bool]:
        """(the loss averaged over ranks, whether any rank asked to stop)."""
        return loss, False

    def gather(self, value: Any) -> list[Any]:
        """Every rank's `value`, in rank order, on every rank."""
        return [value]

    def from_writer(self, make: Callable[[], Any]) -> Any:
        """`make()` run on rank 0 only, its result handed to every rank (a new run folder,
        a checkpoint read from rank 0's disk)."""
        return make()

    def explain(self, error: Exception) -> Exception:
        """The error a user should read for a failure inside the training loop."""
        return error

    def close(self, together: bool = False) -> None:
        pass


class StopSignals:
    """While installed, SIGINT and SIGTERM set `requested` instead of raising, so the training
    loop stops at a step boundary that every rank agrees on. A rank also stops when the
    launcher that started it is gone: torchrun starts ranks in sessions of their own, so a
    launcher killed outright (it cannot pass a signal on) would leave them training unwatched."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.requested = threading.Event()
        self.parent = os.getppid()
        self._previous: dict[int, Any] = {}

    def install(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return  # signals reach the main thread only (a test driving a job on a thread)
        for sig in self.SIGNALS:
            self._previous[sig] = signal.signal(sig, self._on_signal)

    def _on_signal(self, signum, _frame) -> None:
        self.requested.set()

    @property
    def stop_wanted(self) -> bool:
        return self.requested.is_set() or os.getppid() != self.parent

    def restore(self) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        self._previous.clear()


class DistributedContext(OneProcess):
    """One rank of a torchrun job; `setup` joins the process group."""

    saves_on_interrupt = False

    def __init__(self, env: TorchrunEnv, device: torch.device) -> None:
        super().__init__(device)
        self.env = env
        self.rank, self.world_size = env.rank, env.world_size
        self.is_writer = env.is_writer
        self.signals = StopSignals()

    @classmethod
    def setup(cls, env: TorchrunEnv, device_name: str) -> DistributedContext:
        """Join the process group: NCCL when the device is CUDA (GPU `local_rank`), else gloo."""
        import torch.distributed as dist

        device = _rank_device(env, device_name)
        backend = "nccl" if device.type == "cuda" else "gloo"
        if device.type == "cuda":
            torch.cuda.set_device(device)
        if not dist.is_initialized():
            dist.init_process_group(backend, rank=env.rank, world_size=env.world_size,
                                    timeout=COLLECTIVE_TIMEOUT,
                                    device_id=device if device.type == "cuda" else None)
        context = cls(env, device)
        context.signals.install()
        return context

    def wrap(self, model: torch.nn.Module) -> torch.nn.Module:
        ids = [self.device.index] if self.device.type == "cuda" else None
        return Replica(model, device_ids=ids)

    def threads(self, requested: int, gui: bool) -> int:
        """"auto" shares the node's cores between its ranks."""
        return requested if requested > 0 else split_threads(None, self.env.local_world_size)

    def shard(self, batch: Any) -> Any:
        """Rows [rank·B, (rank+1)·B) of every array of a global batch of world_size·B rows, so
        N ranks together read exactly what one process with batch N·B reads."""
        return shard_batch(batch, self.rank, self.world_size)

    def loss_share(self, part: float, whole: float) -> float:
        # DDP averages: (1/N)·Σ_r (N·w_r/W)·∇L_r = Σ_r (w_r/W)·∇L_r, the whole batch's mean
        return self.world_size * part / whole if whole else 1.0

    def step_agreement(self, loss: float) -> tuple[float, bool]:
        import torch.distributed as dist

        flags = torch.tensor([loss, float(self.signals.stop_wanted)],
                             dtype=torch.float64, device=self._collective_device())
        dist.all_reduce(flags)  # sum over ranks
        return float(flags[0]) / self.world_size, bool(flags[1] > 0)

    def gather(self, value: Any) -> list[Any]:
        import torch.distributed as dist

        values: list[Any] = [None] * self.world_size
        dist.all_gather_object(values, value)
        return values

    def from_writer(self, make: Callable[[], Any]) -> Any:
        import torch.distributed as dist

        box = [make() if self.is_writer else None]
        dist.broadcast_object_list(box, src=0)
        return box[0]

    def explain(self, error: Exception) -> Exception:
        if isinstance(error, (UserFacingError, JobCancelledError)):
            return error
        # gloo and NCCL begin with "[file.cc:123] "; the rest says what happened
        text = re.sub(r"^\[[^\]]*\]\s*", "", (str(error).strip().splitlines() or [""])[0])
        return UserFacingError(
            f"rank {self.rank} of {self.world_size} stopped: {type(error).__name__}: "
            f"{text[:160]}. If another rank died, this is the echo of it (torchrun names the "
            "first failure); the run folder keeps its latest checkpoint.")

    def close(self, together: bool = False) -> None:
        """Leave the process group. `together`: every rank ended the run normally and is here,
        so they first wait for each other (a rank that left while another still talked to it
        made gloo abort the other, seen on a loaded machine)."""
        import torch.distributed as dist

        self.signals.restore()
        if dist.is_initialized():
            if together:
                dist.barrier()
            dist.destroy_process_group()

    def _collective_device(self) -> torch.device:
        return self.device if self.device.type == "cuda" else torch.device("cpu")


class Replica(DistributedDataParallel):
    """DistributedDataParallel that also answers the wrapped model's own attributes
    (`init_state`, `detach_state`, `config`...), so a task's `loss` calls it as the model."""

    def __getattr__(self, name: str) -> Any:
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self.module, name)


def shard_batch(batch: Any, rank: int, world_size: int) -> Any:
    """A task `Batch` (arrays by name, rows first) cut to one rank's rows."""
    arrays = batch.arrays
    rows = {len(a) for a in arrays.values() if hasattr(a, "shape") and a.ndim}
    if len(rows) != 1:
        raise UserFacingError(f"A batch's arrays disagree on their number of rows ({rows}); "
                              "it cannot be split between processes.")
    total = rows.pop()
    if total % world_size:
        raise UserFacingError(f"The batch has {total} rows, which {world_size} processes cannot "
                              "share evenly.")
    size = total // world_size
    part = slice(rank * size, (rank + 1) * size)
    shared = {k: (a[part] if hasattr(a, "shape") and a.ndim else a) for k, a in arrays.items()}
    # the token count stays global: every rank counts the whole step's tokens, as one process
    # with the whole batch would, so "tokens seen" and tokens/s match it
    return type(batch)(shared, batch.tokens, batch.fresh)


def _rank_device(env: TorchrunEnv, name: str) -> torch.device:
    cuda = torch.cuda.is_available()
    if name == "cuda" and not cuda:
        raise UserFacingError("Device 'cuda' was chosen but no CUDA GPU is available to this "
                              "torch build. Choose cpu or auto.")
    if name in ("cuda", "auto") and cuda:
        count = torch.cuda.device_count()
        if env.local_rank >= count:
            raise UserFacingError(
                f"{env.local_world_size} processes were started on this node but it has "
                f"{count} GPU(s): start at most {count} (--nproc {count}), one per GPU.")
        return torch.device("cuda", env.local_rank)
    if name == "mps":
        raise UserFacingError("Distributed training runs on CPU (gloo) or CUDA GPUs (NCCL), "
                              "not on Apple's Metal backend. Choose cpu.")
    return torch.device("cpu")


def make_context(env: TorchrunEnv | None, device_name: str) -> OneProcess:
    """The context of this process: one of a torchrun job (joining its process group), or
    training alone."""
    from workbench.core.training.setup import resolve_device

    if env is None or env.world_size == 1:
        return OneProcess(resolve_device(device_name))
    return DistributedContext.setup(env, device_name)
