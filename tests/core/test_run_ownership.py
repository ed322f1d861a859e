"""A run writes only into a folder it owns and deletes only files it wrote (run_folder.py).

Before: `train --out d` deleted `d/checkpoints/mine.safetensors` and any `.*.tmp`, and
overwrote `recipe.toml` and `best.json`; `--out .` beside one's recipe replaced it."""

from __future__ import annotations

import errno
import hashlib
import json
from pathlib import Path

import pytest

from tests.core.training_fixtures import write_tiny_recipe
from workbench.app.train_cli import main
from workbench.core.training import checkpoint_files, run_folder


def _fingerprints(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_out_into_a_folder_holding_the_users_files_is_refused_and_touches_nothing(
        tmp_path, capsys):
    recipe = write_tiny_recipe(tmp_path, max_steps=20)
    mine = tmp_path / "d"
    (mine / "checkpoints").mkdir(parents=True)
    (mine / "checkpoints" / "mine.safetensors").write_text("x")
    (mine / "checkpoints" / "best.json").write_text('{"mine": 1}')
    (mine / ".draft.tmp").write_text("unsaved")
    (mine / "recipe.toml").write_text("# notes\n")
    before = _fingerprints(mine)
    assert main([str(recipe), "--out", str(mine), "--max-steps", "20"]) == 2
    err = capsys.readouterr().err
    assert "not empty and is not a run folder" in err and "checkpoints" in err
    assert "Traceback" not in err
    assert _fingerprints(mine) == before  # not even a lock or marker file was added
    assert sorted(p.name for p in mine.iterdir()) == [".draft.tmp", "checkpoints",
                                                      "recipe.toml"]


def test_out_dot_beside_ones_own_recipe_does_not_replace_it(tmp_path, monkeypatch):
    recipe = write_tiny_recipe(tmp_path, max_steps=20)
    text = "# my comments\n" + recipe.read_text()
    recipe.write_text(text)
    monkeypatch.chdir(tmp_path)
    assert main(["tiny.toml", "--out", ".", "--max-steps", "20"]) == 2
    assert recipe.read_text() == text
    assert not (tmp_path / "metrics.jsonl").exists()


@pytest.mark.slow
def test_pruning_and_resume_keep_files_in_the_run_the_app_did_not_write(tmp_path):
    recipe = write_tiny_recipe(tmp_path, max_steps=20)
    out = tmp_path / "run"
    assert main([str(recipe), "--out", str(out)]) == 0
    assert run_folder.is_marked(out)
    planted = {out / "checkpoints" / "mine.safetensors": "x",
               out / "checkpoints" / ".notes.tmp": "draft",
               out / "checkpoints" / "latest-1.safetensors": "lookalike",
               out / ".metrics.jsonl.mine.tmp": "keep"}
    for path, text in planted.items():
        path.write_text(text)
    assert main(["--resume", str(out), "--max-steps", "40"]) == 0  # saves, prunes, rewrites
    for path, text in planted.items():
        assert path.read_text() == text, path
    weights = [p.name for p in (out / "checkpoints").glob("latest-0*.safetensors")]
    assert weights and all("000040" in n or "000030" in n or "000020" in n for n in weights)


def test_prune_deletes_only_its_own_name_patterns(tmp_path):
    own = ["latest-000010-0123456789ab.safetensors", ".latest.json.ab12cd_3.tmp",
           ".best-000010-0123456789ab.safetensors.zz99zz99.tmp", "step-000001.json",
           "step-000002.json", "step-000003.json"]
    users = ["mine.safetensors", ".x.tmp", "latest-10-abc.safetensors", ".mine.json.ab12cd_3.tmp",
             "notes.json"]
    for name in own + users:
        (tmp_path / name).write_text("{}")
    checkpoint_files.prune(tmp_path)
    left = {p.name for p in tmp_path.iterdir()}
    assert set(users) <= left
    assert not left & {own[0], own[1], own[2], "step-000001.json"}  # oldest fallback pruned


@pytest.mark.slow
def test_a_run_stopped_before_its_first_checkpoint_may_start_again_in_its_folder(tmp_path):
    recipe = write_tiny_recipe(tmp_path, max_steps=20)
    out = tmp_path / "run"
    run_folder.claim(out).release()  # as a run stopped while loading its data leaves it
    (out / "metrics.jsonl").write_text(json.dumps({"event": "step", "step": 5}) + "\n")
    assert main([str(recipe), "--out", str(out)]) == 0
    steps = [json.loads(x)["step"] for x in (out / "metrics.jsonl").read_text().splitlines()]
    assert steps == sorted(steps)  # the old run's lines were cleared, not appended to


def test_out_on_a_read_only_disk_is_one_clear_line(tmp_path, capsys, monkeypatch):
    recipe = write_tiny_recipe(tmp_path, max_steps=20)

    def read_only(self, *args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system", str(self))

    monkeypatch.setattr(Path, "mkdir", read_only)
    assert main([str(recipe), "--out", str(tmp_path / "ro" / "run")]) == 2
    err = capsys.readouterr().err
    assert "read-only disk" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_resume_of_a_folder_that_is_not_a_run_writes_nothing_into_it(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("mine")
    assert main(["--resume", str(tmp_path)]) == 2
    assert "not a run folder" in capsys.readouterr().err
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


@pytest.mark.parametrize("legacy", [True])
def test_resuming_a_run_of_an_older_version_marks_it(tmp_path, legacy):
    recipe = write_tiny_recipe(tmp_path, max_steps=20)
    out = tmp_path / "run"
    assert main([str(recipe), "--out", str(out)]) == 0
    (out / run_folder.MARKER).unlink()  # as an older version left it
    assert main(["--resume", str(out), "--max-steps", "30"]) == 0
    assert run_folder.is_marked(out)
