"""An opened recipe fills the forms, and the forms are what trains (issue 31, item 1): a task or
a size changed after opening trains and is recorded, the header says what was modified, and New
experiment forgets the recipe."""

from __future__ import annotations

import tomllib

import pytest

from workbench.core.resources import resource_path
from workbench.core.training.recipe import recipe_to_toml
from workbench.qt.controller import WorkbenchController
from workbench.qt.gallery.fake_backend import FakeBackend
from workbench.qt.gallery.fake_training import FakeTraining
from workbench.qt.panels.architecture import ArchitecturePanel
from workbench.qt.panels.training import TrainingPanel


@pytest.fixture
def window(qtbot, tmp_path):
    """The Training and Architecture panels on one controller (the Architecture panel stays
    hidden: it describes no model, so torch is not loaded)."""
    run_dir = tmp_path / "run-a"
    run_dir.mkdir()
    controller = WorkbenchController(FakeBackend(training=FakeTraining(run_dir)))
    training = TrainingPanel(controller)
    architecture = ArchitecturePanel(controller)
    qtbot.addWidget(training)
    qtbot.addWidget(architecture)
    yield training, architecture
    controller.shutdown()


def train(qtbot, panel):
    with qtbot.waitSignal(panel.controller.jobs.busy_changed, timeout=10_000,
                          check_params_cb=lambda busy: not busy):
        assert panel.start_training()
    return panel.controller.backend.training.trained[-1]


def test_a_task_changed_after_opening_a_recipe_is_the_task_that_trains(qtbot, window):
    training, architecture = window
    assert training.open_recipe(str(resource_path("recipes/dates-additive.toml")))
    assert architecture.task_picker.name == "seq2seq"
    assert "Recipe <b>dates-additive</b>" in training.controls.what.text()
    combo = architecture.task_picker.combo
    combo.setCurrentIndex(combo.findData("classify"))
    assert "Modified from recipe <b>dates-additive</b>" in training.controls.what.text()
    assert "task Sequence to sequence" in training.controls.what.text()
    trained = train(qtbot, training)
    assert trained.task.name == "classify"  # the old code ran the recipe's seq2seq
    assert trained.model.arch == architecture.picker.currentData() != "rnn_seq2seq"
    assert trained.corpus_path == ""  # a classifier brings its own data
    assert not trained.name.startswith("dates-additive")


def test_a_size_changed_after_opening_is_in_the_runs_recipe(qtbot, window):
    training, architecture = window
    assert training.open_recipe(str(resource_path("recipes/sentiment-bilstm.toml")))
    assert architecture.form.editors["hidden_size"].value() == 64
    architecture.form.editors["hidden_size"].setValue(96)
    training.controls.form.editors["max_steps"].setValue(40)
    header = training.controls.what.text()
    assert "Modified from recipe <b>sentiment-bilstm</b>" in header
    assert "hidden_size 64 → 96" in header and "max_steps 1200 → 40" in header
    trained = train(qtbot, training)
    recorded = tomllib.loads(recipe_to_toml(trained))
    assert recorded["model"]["hidden_size"] == 96 and recorded["training"]["max_steps"] == 40
    assert recorded["task"]["name"] == "classify" and recorded["model"]["bidirectional"]
    assert recorded["name"] == "sentiment-bilstm-modified"


def test_an_unchanged_recipe_trains_as_read_and_new_experiment_forgets_it(qtbot, window):
    training, architecture = window
    assert training.open_recipe(str(resource_path("recipes/dates-additive.toml")))
    assert "Modified" not in training.controls.what.text()
    trained = train(qtbot, training)
    assert trained.name == "dates-additive" and trained.model.hidden_size == 64
    assert trained.training.max_steps == 1500
    training.new_experiment()
    assert training.recipe is None
    assert architecture.task_picker.name == "language_model"
    assert architecture.picker.currentData() == "lstm"
    assert training.controls.form.config().max_steps != 1500
    assert "Recipe" not in training.controls.what.text()
    assert "New experiment" in " ".join(a.text() for a in training.menu_actions())


def test_another_corpus_tokenized_after_opening_trains_instead_of_the_recipes(qtbot, window):
    from workbench.core.config.tokenizer import TokenizerConfig
    from workbench.core.corpus.dataset import tokenize_job
    from workbench.core.jobs import JobControl
    from workbench.qt.gallery.fake_data import corpus_of

    training, _ = window
    assert training.open_recipe(str(resource_path("recipes/char-lstm.toml")))
    controller = training.controller
    corpus = corpus_of("sonnets " * 200, "/somewhere/sonnets.txt")
    events = list(tokenize_job(corpus, TokenizerConfig(kind="char")).job(JobControl()))
    tokens = events[-1].result
    controller.set_corpus(corpus)
    controller.set_tokens(tokens)
    assert "data: the Corpus panel's corpus" in training.controls.what.text()
    trained = train(qtbot, training)
    assert not trained.corpus_resource  # train_job on the session's data, not the recipe's
