"""A stop says what it saved: the checkpoint it left, or that there is none (and then the
resume says there is nothing to resume, and the recipe may start again in the same folder).

Before: SIGTERM before the first step, or two SIGTERMs 0.02-0.1 s apart, printed "the latest
checkpoint was saved" when none was, and the resume then failed."""

from __future__ import annotations

import os
import signal
import time

import pytest

from tests.core.training_fixtures import write_tiny_recipe
from workbench.app.train_cli import main
from workbench.core.training_loop import recipe_run

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX signals")


def _signalled_while_loading(monkeypatch, times: int, gap_s: float = 0.05) -> None:
    original = recipe_run.task_data_steps

    def loading(*args, **kwargs):
        for n in range(times):
            if n:
                time.sleep(gap_s)
            os.kill(os.getpid(), signal.SIGTERM)
        return (yield from original(*args, **kwargs))

    monkeypatch.setattr(recipe_run, "task_data_steps", loading)


@pytest.mark.parametrize("times", [1, 2])
@pytest.mark.slow
def test_a_stop_before_the_first_step_says_no_checkpoint_was_saved(tmp_path, monkeypatch,
                                                                   capsys, times):
    recipe = write_tiny_recipe(tmp_path, max_steps=20)
    out = tmp_path / "run"
    _signalled_while_loading(monkeypatch, times)
    assert main([str(recipe), "--out", str(out)]) == 130
    err = capsys.readouterr().err
    assert "no checkpoint was saved" in err and "nothing to resume" in err
    assert "checkpoint was saved (" not in err and "the latest checkpoint is" not in err
    monkeypatch.undo()
    assert main(["--resume", str(out)]) == 2
    assert "nothing to resume" in capsys.readouterr().err
    assert main([str(recipe), "--out", str(out)]) == 0  # the same folder starts it again
    assert main(["--resume", str(out), "--max-steps", "25"]) == 0


def test_a_stop_after_training_names_the_checkpoint_it_saved(tmp_path, monkeypatch, capsys):
    from workbench.core.training_loop import trainer

    recipe = write_tiny_recipe(tmp_path, max_steps=1000)
    out = tmp_path / "run"
    original = trainer.Trainer._save

    sent = []

    def save(self, kind, metrics=None):
        event = original(self, kind, metrics)
        if self.step == 7 and not sent:
            sent.append(True)
            os.kill(os.getpid(), signal.SIGTERM)
        return event

    monkeypatch.setattr(trainer.Trainer, "_save", save)
    recipe.write_text(recipe.read_text().replace("checkpoint_every = 10", "checkpoint_every = 7"))
    assert main([str(recipe), "--out", str(out)]) == 130
    err = capsys.readouterr().err
    assert f"the latest checkpoint is step 7, in {out / 'checkpoints'}" in err
