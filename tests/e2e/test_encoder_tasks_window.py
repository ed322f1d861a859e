"""End to end in the real window, one test per encoder task: write a tiny data file, choose the
task and a small encoder in the Architecture panel, press Train, wait for the job to finish,
then check what the user sees: the confusion matrix of the last validation with a sentence
classified in the console, predicted tags under the words of a typed sentence, and the top
tokens for a blank."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from workbench.app.backend import Backend
from workbench.app.window import build_window
from workbench.core.config.encoder_tasks import (
    ClassifyTaskConfig,
    MaskedLmTaskConfig,
    TagTaskConfig,
)
from workbench.core.config.models import LstmConfig, TransformerEncoderConfig
from workbench.core.config.training import TrainingConfig
from workbench.core.events import JobFailed, JobFinished
from workbench.core.tasks.encoder_start import load_pretrained
from workbench.qt.widgets import probe_bar

WAIT_MS = 600_000  # a loaded 2-core machine

GOOD = ("good", "great", "lovely", "tasty", "friendly")
BAD = ("bad", "awful", "cold", "bland", "rude")
THINGS = ("the food", "the service", "our waiter", "the soup", "the place", "dessert")


def reviews() -> str:
    """48 labelled sentences a small BiLSTM separates within a hundred steps."""
    rows = []
    for (thing, good, bad) in zip(itertools.cycle(THINGS), GOOD * 5, BAD * 5, strict=False):
        rows.append(f"{thing} was {good}\tpos")
        rows.append(f"{thing} was {bad}\tneg")
    for thing, word in zip(THINGS, GOOD + BAD, strict=False):
        rows.append(f"{thing} was really {word}\t{'pos' if word in GOOD else 'neg'}")
    return "text\tlabel\n" + "\n".join(rows[:48]) + "\n"


SENTENCES = [  # (words, UPOS tags)
    ("the dog runs .", "DET NOUN VERB PUNCT"),
    ("a cat sleeps .", "DET NOUN VERB PUNCT"),
    ("the old man sings .", "DET ADJ NOUN VERB PUNCT"),
    ("a small bird eats .", "DET ADJ NOUN VERB PUNCT"),
    ("dogs run fast .", "NOUN VERB ADV PUNCT"),
    ("the cat eats fish .", "DET NOUN VERB NOUN PUNCT"),
]


def conllu() -> str:
    """The sentences as CoNLL-U, with comments and a multi-word token line ("don't" over
    "do" + "n't") that the reader must skip while tagging its parts."""
    blocks = []
    for i, (words, tags) in enumerate(SENTENCES * 6):
        lines = [f"# sent_id = {i}", f"# text = {words}"]
        lines += [f"{k}\t{w}\t{w}\t{t}\t_\t_\t0\t_\t_\t_"
                  for k, (w, t) in enumerate(zip(words.split(), tags.split(), strict=True), 1)]
        blocks.append("\n".join(lines))
    blocks.append("\n".join(["# text = I don't run .", "1\tI\tI\tPRON\t_\t_\t0\t_\t_\t_",
                             "2-3\tdon't\t_\t_\t_\t_\t_\t_\t_\t_",
                             "2\tdo\tdo\tAUX\t_\t_\t0\t_\t_\t_",
                             "3\tn't\tnot\tPART\t_\t_\t0\t_\t_\t_",
                             "4\trun\trun\tVERB\t_\t_\t0\t_\t_\t_",
                             "5\t.\t.\tPUNCT\t_\t_\t0\t_\t_\t_"]))
    return "\n\n".join(blocks) + "\n\n"


def verses() -> str:
    lines = ["the cat sat on the mat", "the dog sat on the rug", "a bird sang in the tree",
             "the cat ate the fish", "the dog ate the bone", "a bird ate the seed"]
    return "\n".join(lines * 12) + "\n"


def small_training(steps: int, lr: float) -> TrainingConfig:
    return TrainingConfig(max_steps=steps, batch_size=16, eval_every=steps // 3, log_every=10,
                          sample_every=steps, warmup_steps=10, lr=lr, checkpoint_every=10_000,
                          threads=1)


@pytest.fixture
def window(qtbot, settings, tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))
    monkeypatch.setattr(probe_bar, "AUTO_INTERVAL_S", 0.0)  # probe every snapshot
    window = build_window(settings, Backend())
    qtbot.addWidget(window)
    window.show()
    yield window


def train(qtbot, window, task, model, training) -> str:
    """Choose the task and model as a user does, press Train, wait for the end."""
    window.panels["architecture"].task_picker.set_config(task)
    window.controller.set_model_config(model)
    panel = window.panels["training"]
    panel.controls.form.set_config(training)
    ended = []
    window.controller.job_event.connect(
        lambda e: ended.append(e) if isinstance(e, (JobFailed, JobFinished)) else None)
    panel.controls.start.click()
    qtbot.waitUntil(lambda: bool(ended) and not window.controller.jobs.busy
                    and not window.controller.queries.busy, timeout=WAIT_MS)
    assert not isinstance(ended[-1], JobFailed), ended[-1].message
    return ended[-1].result  # the run folder


def ask(qtbot, panel, text: str) -> None:
    panel.probe_bar.text.setText(text)
    with qtbot.waitSignal(panel.probe_bar.result_ready, timeout=60_000):
        panel.probe_bar.probe()


@pytest.mark.slow
def test_classify_sentences_in_the_window(qtbot, window, tmp_path):
    data = tmp_path / "reviews.tsv"
    data.write_text(reviews(), encoding="utf-8")
    task = ClassifyTaskConfig(dataset="file", path=str(data), val_fraction=0.25,
                              test_fraction=0.0, pooling="max")
    encoder = LstmConfig(embedding_size=16, hidden_size=16, bidirectional=True, dropout=0.0)
    train(qtbot, window, task, encoder, small_training(90, 1e-2))

    confusion = window.panels["confusion"]
    assert len(confusion.history) >= 3  # a matrix per validation, watched as it trains
    step, scores = confusion.shown()
    assert step == 90 and list(scores.names) == ["neg", "pos"]
    matrix = confusion.heatmap.image_values()
    assert matrix.sum() == 12  # the 12 held-out sentences (25% of 48), counted by class
    assert np.trace(matrix) >= 9, matrix  # the words decide the label: mostly on the diagonal
    assert f"accuracy {scores.accuracy:.1%}" in confusion.status.text()
    assert [item.toPlainText() for item in confusion.cell_text] == [
        str(int(v)) for v in matrix.ravel()]

    console = window.panels["classify"]
    window.show_panel("classify")
    ask(qtbot, console, "the soup was lovely")
    assert list(console.answer.labels) == ["neg", "pos"]
    assert console.verdict.text().startswith("pos")
    assert "&nbsp;lovely&nbsp;" in console.words.text()
    assert len(console.answer.contributions) == 4


@pytest.mark.slow
def test_tag_tokens_in_the_window(qtbot, window, tmp_path):
    data = tmp_path / "tiny.conllu"
    data.write_text(conllu(), encoding="utf-8")
    task = TagTaskConfig(dataset="file", path=str(data), val_fraction=0.2, test_fraction=0.0)
    encoder = LstmConfig(embedding_size=16, hidden_size=16, bidirectional=True, dropout=0.0)
    train(qtbot, window, task, encoder, small_training(90, 1e-2))

    confusion = window.panels["confusion"]
    _, scores = confusion.shown()
    assert {"DET", "NOUN", "VERB", "PUNCT"} <= set(scores.names)
    assert {"AUX", "PART"} <= set(scores.names)  # the parts of "don't", not the word itself

    tagging = window.panels["tagging"]
    window.show_panel("tagging")
    ask(qtbot, tagging, "the/DET cat/NOUN runs/VERB ./PUNCT")
    table = tagging.table
    assert [table.item(0, c).text() for c in range(4)] == ["the", "cat", "runs", "."]
    predicted = [table.item(1, c).text() for c in range(4)]
    assert [table.item(2, c).text() for c in range(4)] == ["DET", "NOUN", "VERB", "PUNCT"]
    assert predicted[0] == "DET" and predicted[3] == "PUNCT", predicted
    assert "of 4 words" in tagging.summary.text()
    probs = tagging.heatmap.image_values()  # each word's distribution over the tag set
    np.testing.assert_allclose(probs.sum(axis=0), 1.0, rtol=1e-4)


@pytest.mark.slow
def test_masked_lm_fills_blanks_in_the_window(qtbot, window, tmp_path):
    data = tmp_path / "verses.txt"
    data.write_text(verses(), encoding="utf-8")
    task = MaskedLmTaskConfig(dataset="file", path=str(data), min_words=3, val_fraction=0.1)
    encoder = TransformerEncoderConfig(d_model=32, num_heads=2, num_layers=1, d_ff=64,
                                       context_length=16, dropout=0.0)
    train(qtbot, window, task, encoder, small_training(150, 3e-3))

    fill = window.panels["fill_mask"]
    window.show_panel("fill_mask")
    ask(qtbot, fill, "the cat sat on the [MASK]")
    (answer,) = fill.answers
    tokens, probs = answer.candidates[0], np.asarray(answer.probs[0])
    assert len(tokens) >= 3 and np.all(np.diff(probs) <= 0) and probs.sum() <= 1 + 1e-6
    vocabulary = set(verses().split())
    assert tokens[0] in vocabulary, tokens  # a word of the text, not [MASK] or padding
    assert f"'{tokens[0]}'" in fill.summary.text()


@pytest.mark.slow
def test_fine_tune_a_masked_lm_encoder_in_the_window(qtbot, window, tmp_path):
    """Seed 003's feature-based way from the window: pretrain by masked-LM, then classify with
    that run as the pretrained encoder, frozen. The window says where the encoder came from,
    the classifier keeps the pretrained encoder's weights and vocabulary, and it trains."""
    review_rows = reviews().splitlines()[1:]
    text = tmp_path / "text.txt"
    text.write_text(verses() + "\n".join(r.split("\t")[0] for r in review_rows) + "\n",
                    encoding="utf-8")
    encoder = TransformerEncoderConfig(d_model=32, num_heads=2, num_layers=1, d_ff=64,
                                       context_length=16, dropout=0.0, cls_token=True)
    pretrain = MaskedLmTaskConfig(dataset="file", path=str(text), min_words=3, val_fraction=0.1)
    run = train(qtbot, window, pretrain, encoder, small_training(60, 3e-3))

    notices = []
    window.controller.notice.connect(notices.append)
    data = tmp_path / "reviews.tsv"
    data.write_text(reviews(), encoding="utf-8")
    task = ClassifyTaskConfig(dataset="file", path=str(data), val_fraction=0.25,
                              test_fraction=0.0, pooling="cls", pretrained=run,
                              encoder_state="frozen")
    other = LstmConfig(embedding_size=8, hidden_size=8)  # ignored: the run brings its encoder
    train(qtbot, window, task, other, small_training(60, 1e-2))

    assert any(n.startswith(f"The encoder starts from {run}") and n.endswith("frozen.")
               for n in notices), notices
    snapshot = window.controller.snapshot
    assert snapshot.arch == "sequence_classifier" and snapshot.step == 60
    assert snapshot.model_config["encoder"]["arch"] == "transformer_encoder"
    pretrained = load_pretrained(run)
    own = {k: v for k, v in snapshot.tokenizer.items() if k not in ("labels",
                                                                      "pretrained_encoder")}
    assert own == pretrained.vocabulary  # the pretrained run's tokenizer, not a new one
    for name, value in pretrained.weights.items():  # frozen: not one weight moved
        np.testing.assert_array_equal(snapshot.weights[f"encoder.{name}"], value.numpy(),
                                      err_msg=name)
    _, scores = window.panels["confusion"].shown()
    assert window.panels["confusion"].heatmap.image_values().sum() == 12
    assert list(scores.names) == ["neg", "pos"]
