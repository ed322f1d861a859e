"""Child processes that are killed (SIGKILL) at a chosen point, for crash-safety tests.

A child counts the file-system calls it makes (open, write, fsync, rename, unlink, ...) with a
profile hook and kills itself with SIGKILL just before call number `kill_at`: the files are
left exactly as a power cut or `kill -9` would leave them, with no mock in the code under test.
Children are forked from a forkserver that has torch imported already, so each costs
milliseconds rather than the seconds of a fresh interpreter.
"""

from __future__ import annotations

import io
import multiprocessing
import multiprocessing.forkserver
import os
import signal
import sys
from pathlib import Path

FS_CALLS = frozenset({"open", "write", "fsync", "replace", "rename", "unlink", "remove",
                      "mkdir", "close", "truncate", "ftruncate", "mkstemp", "flush",
                      "write_bytes", "write_text", "rmdir"})
_CONTEXT = None


def context():
    """A forkserver context whose server has imported torch and the trainer once."""
    global _CONTEXT
    if _CONTEXT is None:
        _CONTEXT = multiprocessing.get_context("forkserver")
        _CONTEXT.set_forkserver_preload(["fault_children_warm", "training_fixtures",
                                         "fault_children"])
        # the forkserver ignores the parent's sys.path (3.11): it finds these by PYTHONPATH
        here = Path(__file__).resolve().parent
        saved = os.environ.get("PYTHONPATH")
        os.environ["PYTHONPATH"] = os.pathsep.join(
            [str(here), str(here.parent.parent), *([saved] if saved else [])])
        try:
            multiprocessing.forkserver.ensure_running()
        finally:
            if saved is None:
                del os.environ["PYTHONPATH"]
            else:
                os.environ["PYTHONPATH"] = saved
    return _CONTEXT


def _kill_before_call(kill_at: int):
    count = [0]

    def hook(frame, event, arg):
        if event == "c_call" and _is_file_call(arg):
            count[0] += 1
            if count[0] == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)

    return hook


def _is_file_call(function) -> bool:
    """os.* file functions and methods of open files (not str.replace or list.remove)."""
    if getattr(function, "__name__", "") not in FS_CALLS:
        return False
    owner = getattr(function, "__self__", None)
    return isinstance(owner, io.IOBase) or getattr(function, "__module__", "") in ("posix", "nt")


def run_killed_at(target, args: tuple, kill_at: int, timeout: float = 120.0) -> int:
    """Run `target(*args)` in a child killed before its `kill_at`-th file-system call (0 =
    never); returns the exit code (-9 killed, 0 finished)."""
    process = context().Process(target=_child, args=(target, args, kill_at))
    process.start()
    process.join(timeout)
    if process.exitcode is None:
        process.kill()
        process.join()
        raise TimeoutError(f"child {target.__name__} did not end within {timeout} s")
    return process.exitcode


def _child(target, args, kill_at: int) -> None:
    if kill_at:
        sys.setprofile(_kill_before_call(kill_at))
    target(*args)
    sys.setprofile(None)


# --- targets ---------------------------------------------------------------------------------

def save_tiny_checkpoint(folder: str, kind: str, step: int, seed: int) -> None:
    """Save a tiny model's checkpoint whose weights depend on `seed`."""
    from pathlib import Path

    import torch
    from training_fixtures import build_tiny, tiny_config

    from workbench.core.training.checkpoints import save_checkpoint

    torch.manual_seed(seed)
    model = build_tiny(tiny_config(vocab_size=10, hidden_size=8))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    save_checkpoint(Path(folder), kind, model, optimizer, {"step": step, "seed": seed})


def train_or_resume(run_dir: str, max_steps: int) -> None:
    """Train the tiny model into `run_dir`, resuming it when it already has a checkpoint."""
    from pathlib import Path

    from training_fixtures import tiny_request

    from workbench.core.jobs import JobControl
    from workbench.core.training_loop.recipe_run import resume_steps  # noqa: F401 - preloaded
    from workbench.core.training_loop.trainer import train_steps

    run = Path(run_dir)
    resume = (run / "checkpoints").is_dir() and any((run / "checkpoints").glob("*.json"))
    if not resume:  # killed before its first checkpoint: start afresh
        for name in ("metrics.jsonl", "samples.jsonl"):
            (run / name).unlink(missing_ok=True)
    request = tiny_request(run, run_dir=run, max_steps=max_steps, checkpoint_every=6,
                           eval_every=10, log_every=3, sample_every=10)
    request.resume = resume
    JobControl()
    for _ in train_steps(request):
        pass


def truncate_run(run_dir: str, step: int) -> None:
    """Cut a run's logs back to `step`, as a resume does."""
    from pathlib import Path

    from workbench.core.training.runs import truncate_after

    truncate_after(Path(run_dir), step)
