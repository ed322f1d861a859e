"""A run knows its data (data_fingerprint.py): task data paths resolve against the recipe's
folder, every data file's size and hash is recorded, and a resume on changed data refuses
naming what changed unless asked to go on."""

from __future__ import annotations

import json
from pathlib import Path

from tests.core.training_fixtures import write_tiny_recipe
from workbench.app.train_cli import main
from workbench.core.training import data_fingerprint
from workbench.core.training.recipe import load_recipe

ROOT = Path(__file__).resolve().parents[2]


def _pairs_recipe(folder: Path) -> Path:
    text = (ROOT / "resources" / "recipes" / "dates-plain.toml").read_text(encoding="utf-8")
    text = text.replace('data = "dates"', 'data = "file"\npath = "pairs.tsv"')
    (folder / "pairs.tsv").write_text("ab\tba\n" * 50, encoding="utf-8")
    (folder / "r.toml").write_text(text, encoding="utf-8")
    return folder / "r.toml"


def test_a_task_data_path_means_the_file_beside_the_recipe_not_in_the_current_folder(
        tmp_path, monkeypatch):
    recipe_dir, elsewhere = tmp_path / "recipes", tmp_path / "elsewhere"
    recipe_dir.mkdir()
    elsewhere.mkdir()
    path = _pairs_recipe(recipe_dir)
    (elsewhere / "pairs.tsv").write_text("other\tdata\n", encoding="utf-8")
    monkeypatch.chdir(elsewhere)
    recipe = load_recipe(path)
    assert Path(recipe.task.path) == recipe_dir / "pairs.tsv"
    assert data_fingerprint.data_locations(recipe) == [recipe_dir / "pairs.tsv"]
    files = data_fingerprint.fingerprint(recipe)
    assert files[str(recipe_dir / "pairs.tsv")]["size"] == len("ab\tba\n") * 50


def test_a_run_records_its_data_and_a_resume_on_changed_data_refuses_naming_it(
        tmp_path, capsys):
    recipe = write_tiny_recipe(tmp_path, max_steps=10)
    corpus = tmp_path / "tiny.txt"
    out = tmp_path / "run"
    assert main([str(recipe), "--out", str(out)]) == 0
    record = json.loads((out / "data.json").read_text())["files"]
    size = corpus.stat().st_size
    assert record[str(corpus)]["size"] == size and len(record[str(corpus)]["sha256"]) == 64
    capsys.readouterr()

    text = corpus.read_text()
    corpus.write_text(text[::-1])  # same size, other content
    assert main(["--resume", str(out), "--max-steps", "20"]) == 1  # refused by the job
    err = capsys.readouterr().err
    assert f"tiny.txt has the same size ({size:,} bytes) but other content" in err
    assert "--allow-changed-data" in err and "Traceback" not in err

    corpus.write_text(text + "more text\n")
    assert main(["--resume", str(out), "--max-steps", "20"]) == 1
    assert f"tiny.txt was {size:,} bytes, now {size + 10:,} bytes" in capsys.readouterr().err

    assert main(["--resume", str(out), "--max-steps", "20", "--allow-changed-data"]) == 0
    assert "continues on the new data, as asked" in capsys.readouterr().err
    assert json.loads((out / "data.json").read_text())["files"][str(corpus)]["size"] == size + 10


def test_changes_name_files_gone_and_new():
    old = {"a": {"size": 3, "sha256": "x"}, "b": {"size": 1, "sha256": "y"}}
    now = {"a": {"missing": True}, "c": {"size": 2, "sha256": "z"}}
    said = data_fingerprint.changes(old, now)
    assert said == ["a is gone (was 3 bytes)", "b is gone (was 1 bytes)", "c is new"]
