"""`workbench evaluate` on a language model (issue 29, item 5): its nats per token equal an
independent, straightforward scorer's; the state-carried figure equals one pass over the
text; per character divides by the characters scored; a text with characters the model never
saw is refused with how many, or scored on request."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch
from training_fixtures import write_tiny_recipe

from workbench.app.evaluate_cli import evaluate
from workbench.app.main import main as workbench
from workbench.app.train_cli import main as train
from workbench.core.corpus.tokenizers import tokenizer_from_dict
from workbench.core.evaluation import lm_scoring
from workbench.core.snapshot.rebuild import model_from_snapshot


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """A 16-unit GRU trained 10 steps on the tiny text."""
    folder = tmp_path_factory.mktemp("lm")
    import os

    os.environ["WORKBENCH_RUNS_DIR"] = str(folder / "runs")
    assert train([str(write_tiny_recipe(folder)), "--out", str(folder / "run"),
                  "--max-steps", "10"]) == 0
    return folder / "run"


def straightforward_nats(model, ids: list[int], block: int) -> float:
    """Consecutive blocks read one by one, each position's -log p summed by hand."""
    total, count = 0.0, 0
    for at in range(0, len(ids) - block, block):
        x = torch.tensor([ids[at:at + block]])
        with torch.no_grad():
            logits = model(x, None)[0][0].double().numpy()  # (block, V)
        for t in range(block):
            row = logits[t] - logits[t].max()
            log_p = row - math.log(np.exp(row).sum())
            total -= log_p[ids[at + t + 1]]
            count += 1
    return total / count


@pytest.mark.slow
def test_the_figure_equals_an_independent_scorer_and_the_carried_one_a_single_pass(
        run_dir, tmp_path):
    text = (run_dir.parent / "tiny.txt").read_text(encoding="utf-8")
    data = tmp_path / "heldout.txt"
    data.write_text(text[: 3000], encoding="utf-8")
    report, label = evaluate(run_dir, data, block=32)
    from workbench.app.generate_cli import open_checkpoint

    snapshot = open_checkpoint(run_dir)
    model = model_from_snapshot(snapshot).eval()
    tokenizer = tokenizer_from_dict(snapshot.tokenizer)
    ids = tokenizer.encode(data.read_text(encoding="utf-8"))
    expected = straightforward_nats(model, ids, 32)
    assert report.metrics["nats_per_token"] == pytest.approx(expected, abs=0.01)
    assert report.metrics["nats_per_token"] == pytest.approx(expected, rel=1e-5)
    # characters: a character model spells one character per token
    assert report.metrics["nats_per_char"] == pytest.approx(report.metrics["nats_per_token"])
    assert report.metrics["perplexity"] == pytest.approx(math.exp(expected), rel=1e-4)
    carried = report.results["carried"]
    one_pass = lm_scoring.score_carried(lambda x, y: model(x, None)[0], np.asarray(ids),
                                        [(0, len(ids))])
    assert carried["nats_per_token"] == pytest.approx(one_pass, rel=1e-5)
    assert carried["tokens"] == len(ids) - 1
    chunked, count = lm_scoring.carried_nats(model, np.asarray(ids), [(0, len(ids))], chunk=37)
    assert chunked / count == pytest.approx(one_pass, rel=1e-5)


def test_the_command_prints_json_and_refuses_unknown_characters(run_dir, tmp_path, capsys):
    text = (run_dir.parent / "tiny.txt").read_text(encoding="utf-8")[:2000]
    data = tmp_path / "odd.txt"
    data.write_text(text + " ☃☃ €", encoding="utf-8")
    assert workbench(["evaluate", str(run_dir), str(data)]) == 2
    err = capsys.readouterr().err
    assert "3 characters (2 distinct)" in err and "☃" in err and "Traceback" not in err
    assert err.count("\n") == 1  # one line
    assert workbench(["evaluate", str(run_dir), str(data), "--allow-unknown", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["task"] == "language_model" and out["metrics"]["nats_per_token"] > 0
    assert any("scored as <unk>" in note for note in out["notes"])
    assert workbench(["evaluate", str(run_dir), str(tmp_path / "missing.txt")]) == 2
    assert "does not exist" in capsys.readouterr().err
    clean = tmp_path / "clean.txt"
    clean.write_text(text, encoding="utf-8")
    assert workbench(["evaluate", str(run_dir), str(clean)]) == 0
    shown = capsys.readouterr().out
    assert "fresh blocks of 64 tokens" in shown and "state carried" in shown
