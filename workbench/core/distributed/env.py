"""What torchrun tells each process it starts: its rank, how many there are, where to meet.

torchrun (`python -m torch.distributed.run`) sets RANK, WORLD_SIZE, LOCAL_RANK,
LOCAL_WORLD_SIZE, MASTER_ADDR and MASTER_PORT in every process it starts; on several nodes the
ranks are numbered across them and LOCAL_RANK counts within one node (it picks the GPU).
Torch-free, so the CLI can tell a distributed start before torch loads.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from workbench.core.jobs import UserFacingError

NEEDED = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT")


@dataclass(frozen=True)
class TorchrunEnv:
    rank: int  # 0 .. world_size-1, across every node
    world_size: int
    local_rank: int  # 0 .. local_world_size-1 on this node: which GPU this process uses
    local_world_size: int
    master_addr: str
    master_port: int

    @property
    def is_writer(self) -> bool:
        """Rank 0 writes the run folder; the others only train."""
        return self.rank == 0

    def describe(self) -> str:
        return (f"rank {self.rank} of {self.world_size} (local rank {self.local_rank} of "
                f"{self.local_world_size}, rendezvous {self.master_addr}:{self.master_port})")


def torchrun_env(environ: Mapping[str, str] | None = None) -> TorchrunEnv | None:
    """The settings torchrun gave this process, or None when it was not started by torchrun."""
    environ = os.environ if environ is None else environ
    if "WORLD_SIZE" not in environ:
        return None
    missing = [name for name in NEEDED if not environ.get(name)]
    if missing:
        raise UserFacingError(
            f"WORLD_SIZE is set but {', '.join(missing)} is not: the process was not started "
            "by torchrun. Start distributed training with `workbench train --nproc N RECIPE` "
            "or `torchrun --nproc_per_node N -m workbench train RECIPE`, or unset WORLD_SIZE.")
    try:
        env = TorchrunEnv(int(environ["RANK"]), int(environ["WORLD_SIZE"]),
                          int(environ["LOCAL_RANK"]),
                          int(environ.get("LOCAL_WORLD_SIZE") or environ["WORLD_SIZE"]),
                          environ["MASTER_ADDR"], int(environ["MASTER_PORT"]))
    except ValueError as exc:
        raise UserFacingError(f"torchrun's environment is not understood ({exc}).") from None
    if not (0 <= env.rank < env.world_size and 0 <= env.local_rank < env.local_world_size):
        raise UserFacingError(f"torchrun's environment is inconsistent: {env.describe()}.")
    return env


def leave_rank(code: int) -> None:
    """End a torchrun rank with `code` without the interpreter's shutdown. The run's files are
    closed and the process group left by then; what is left for shutdown is freeing torch's
    objects, and gloo's worker threads may still hold tensors whose release needs the
    interpreter: on a loaded machine that aborted the rank ('terminate called without an
    active exception', SIGABRT) after a finished run, and torchrun reported a failure."""
    import sys

    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(code)
