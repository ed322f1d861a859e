"""`workbench train --nproc N ...`: start torchrun on this machine for the user.

This process becomes torchrun's agent (`torch.distributed.run`, in process): it starts N
processes of `python -m workbench train ...` with the rendezvous environment, watches them, and
when one dies stops the others. Its failure report is turned into a message that names the
rank and what ended it, and says where the latest checkpoint is and how to resume. Ctrl-C goes
to the agent, which passes SIGINT on to every rank; each stops after the current step.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from workbench.core.cpu_threads import split_threads
from workbench.core.files import bounded

EXIT_FAILED, EXIT_STOPPED = 1, 130


def torchrun_args(nproc: int, train_args: list[str], frozen: bool | None = None
                  ) -> list[str]:
    """torchrun's arguments for N processes on this machine, each running `workbench train`
    with `train_args`. In the installed app (a PyInstaller bundle) there is no Python to run
    `-m workbench`: each rank is the app's own program, `SequenceWorkbench train …`."""
    frozen = getattr(sys, "frozen", False) if frozen is None else frozen
    # Every rank is on this machine, so they meet at 127.0.0.1. Without --local-addr the
    # ranks look up the machine's own name, and where it does not resolve (a fresh Debian has
    # no /etc/hosts line for it, nor do many DHCP-named classroom machines) torchrun retries
    # for ever, printing only "The IPv6 network addresses of (vm, 42019) cannot be retrieved".
    local = ["--standalone", f"--nproc-per-node={nproc}", "--local-addr=127.0.0.1"]
    if frozen:
        return [*local, "--no-python", sys.executable, "train", *train_args]
    return [*local, "--module", "workbench", "train", *train_args]


def launch(nproc: int, train_args: list[str], run_dir: Path, stream=None) -> int:
    """Run torchrun until every rank ends; the exit status for the shell."""
    from torch.distributed.elastic.multiprocessing.api import SignalException
    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError
    from torch.distributed.run import parse_args, run

    stream = stream or sys.stderr
    # the ranks set their own torch threads (the recipe's, or the cores shared out); this
    # only keeps torchrun from printing its banner about choosing 1 for them
    os.environ.setdefault("OMP_NUM_THREADS", str(split_threads(None, nproc)))
    try:
        run(parse_args(torchrun_args(nproc, train_args)))
    except ChildFailedError as exc:
        rank, failure = exc.get_first_failure()
        stream.write(failure_message(rank, failure.exitcode, failure.pid, run_dir, nproc) + "\n")
        return EXIT_FAILED
    except (SignalException, KeyboardInterrupt):
        stream.write("stopped: every rank ended after its current step. "
                     + resume_hint(run_dir, nproc) + "\n")
        return EXIT_STOPPED
    return 0


def failure_message(rank: int, exitcode: int, pid: int, run_dir: Path, nproc: int) -> str:
    """What a user reads when a rank dies: which one, how, and what is left to resume."""
    if exitcode < 0:
        try:
            how = f"was killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            how = f"was killed by signal {-exitcode}"
    else:
        how = f"exited with status {exitcode} (its error is printed above)"
    return (f"error: rank {rank} (pid {pid}) {how}, so torchrun stopped the other ranks. "
            + resume_hint(run_dir, nproc))


def resume_hint(run_dir: Path, nproc: int) -> str:
    step = latest_step(run_dir)
    if step is None:
        return f"No checkpoint was written yet in {run_dir}; start the run again."
    return (f"The latest checkpoint (step {step}) is in {run_dir}; continue with: "
            f"workbench train --nproc {nproc} --resume {run_dir}")


def latest_step(run_dir: Path) -> int | None:
    try:
        meta = bounded.read_json(Path(run_dir) / "checkpoints" / "latest.json", "manifest")
        return int(meta["step"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
