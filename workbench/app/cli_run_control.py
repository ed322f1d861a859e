"""How a headless run talks and stops (`workbench train`): one updating progress line on stderr,
Ctrl-C, SIGTERM and SIGHUP turned into a stop after the current step, and what a stopped run
left to resume, read from its folder."""

from __future__ import annotations

import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

from workbench.core.events import StepLogged
from workbench.core.jobs import JobControl


class ProgressLine:
    """One line on stderr, rewritten in place on a terminal, printed every few seconds when
    stderr is a file or a pipe (so logs stay short)."""

    def __init__(self, stream=None, quiet: bool = False) -> None:
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.quiet = quiet  # a rank other than 0: errors only
        self.val = ""
        self.last = 0.0

    def update(self, event: StepLogged, total: int, final: bool = False) -> None:
        now = time.monotonic()
        if self.quiet or not (self.tty or final or now - self.last > 5):
            return
        self.last = now
        remaining = (total - event.step) * event.elapsed_s / max(event.step, 1)
        text = (f"step {event.step}/{total}  loss {event.loss:.4f}{self.val}  "
                f"{event.tokens_per_s:,.0f} tok/s  ETA {remaining:.0f}s")
        self.stream.write(("\r" + text + "\033[K") if self.tty else text + "\n")
        self.stream.flush()

    def line(self, text: str, error: bool = False) -> None:
        if self.quiet and not error:
            return
        self.stream.write(("\r\033[K" if self.tty else "") + text + "\n")
        self.stream.flush()


def stop_on_signals(control: JobControl, say) -> Callable[[], None]:
    """Ctrl-C, SIGTERM (kill, a cluster scheduler) and SIGHUP (logout) all stop the run after
    its current step, which saves the latest checkpoint; a second signal stops at once.
    Returns the function that puts the previous handlers back."""
    def handler(signum, frame) -> None:
        if control.stop_requested:
            raise KeyboardInterrupt
        control.stop()
        say(f"{signal.Signals(signum).name}: stopping after this step, saving a checkpoint "
            "if a step was trained (send it again to stop at once)")

    names = ["SIGINT", "SIGTERM"]
    if getattr(signal, "SIGHUP", None) and signal.getsignal(signal.SIGHUP) == signal.SIG_DFL:
        names.append("SIGHUP")  # left alone under nohup, which ignores it
    previous = {}
    for name in names:
        number = getattr(signal, name)
        previous[number] = signal.signal(number, handler)

    def restore() -> None:
        for number, old in previous.items():
            signal.signal(number, old)

    return restore


def stopped_checkpoint(run_dir: Path | None) -> str:
    """What a stopped run left to resume, read from its folder (not assumed): the checkpoint
    'latest.json' names, or that there is none."""
    from workbench.core.distributed.launch import latest_step
    from workbench.core.training.run_folder import nothing_to_resume

    if run_dir is None:
        return ("it stopped before its run folder was set up, so no checkpoint was saved and "
                "there is nothing to resume; start the recipe again")
    step = latest_step(run_dir)
    if step is None:
        return "no checkpoint was saved. " + nothing_to_resume(run_dir)
    return (f"the latest checkpoint is step {step}, in {run_dir / 'checkpoints'} (continue "
            f"with --resume {run_dir})")
