"""The Architecture panel with the real models backend: form, summary, refusal, matched size."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest

from workbench.app.backend import Backend
from workbench.core.config.models import LstmConfig, TransformerConfig, language_model_configs
from workbench.core.events import JobFinished
from workbench.core.jobs import JobSpec
from workbench.qt.controller import WorkbenchController
from workbench.qt.panels.architecture import ArchitecturePanel

WAIT_MS = 180_000  # a summary builds the model on a job thread: over 60 s on a slow 2-core machine


@pytest.fixture
def panel(qtbot):
    controller = WorkbenchController(Backend())
    widget = ArchitecturePanel(controller)
    qtbot.addWidget(widget)
    widget.resize(1200, 800)
    widget.show()
    yield widget
    # a description still building its model (over 30 s on a slow 2-core machine) cannot be
    # interrupted: let it end rather than leave its thread running past the test
    qtbot.waitUntil(lambda: not controller.query_queue.busy, timeout=WAIT_MS)
    controller.shutdown()


def tokens(vocab: int):
    return SimpleNamespace(tokenizer=SimpleNamespace(vocab_size=vocab, kind="char"))


def pick(panel, arch: str) -> None:
    panel.picker.setCurrentIndex(panel.picker.findData(arch))


def wait_for_summary(qtbot, panel, **expected):
    def described():
        s = panel.summary
        assert s is not None and all(
            getattr(panel._described, k) == v for k, v in expected.items())
        assert not panel.controller.query_queue.busy
        assert panel.summary_box.isEnabled() and panel.updating.text() == ""
    qtbot.waitUntil(described, timeout=WAIT_MS)
    return panel.summary


def test_lists_the_registry_and_describes_the_chosen_model(qtbot, panel):
    titles = [panel.picker.itemText(i) for i in range(panel.picker.count())]
    # the language-model architectures (an encoder-only transformer cannot predict a next token)
    assert titles == [cls.title for cls in language_model_configs().values()]
    pick(panel, "lstm")
    form = panel.form
    form.editors["embedding_size"].setValue(64)
    form.editors["hidden_size"].setValue(64)
    form.editors["num_layers"].setValue(2)
    summary = wait_for_summary(qtbot, panel, arch="lstm", hidden_size=64, num_layers=2)
    table = panel.table
    cells = {table.item(r, 0).text(): (table.item(r, 3).text(), table.item(r, 4).text())
             for r in range(table.rowCount())}
    # seed 002's LSTM(64) on 64-dim input: 33,280 in torch, 33,024 in Keras
    assert cells["lstm layer 1"] == ("33,280", "33,024")
    assert cells["lstm layer 2"] == ("33,280", "33,024")
    assert cells["Total"] == (f"{summary.total_params:,}", f"{summary.keras_params:,}")
    assert f"{summary.total_params:,}" in panel.stats.text()
    assert "Keras convention" in panel.stats.text() and "FLOPs per token" in panel.stats.text()
    assert [b.title for b in panel.diagram.boxes] == ["tokens x_t", "Embedding E", "LSTM ×2",
                                                      "Linear V", "softmax ŷ_t"]
    assert "LSTM cell" in panel.card.text() and "f<sub>t</sub>" in panel.card.text()
    assert panel.controller.model_config == LstmConfig(embedding_size=64, hidden_size=64,
                                                       num_layers=2)


def test_invalid_settings_are_refused_with_the_problem(qtbot, panel):
    pick(panel, "transformer")
    wait_for_summary(qtbot, panel, arch="transformer")
    good = panel.controller.model_config
    panel.form.editors["num_heads"].setValue(3)  # 3 does not divide 128
    assert "must divide the width" in panel.form.problems_label.text()
    assert "must divide the width" in panel.stats.text()
    assert panel.controller.model_config == good  # the session keeps the last valid model
    assert "Block" in [r.kind for r in panel.summary.rows]
    assert "Masked scaled dot-product attention" in panel.card.text()


def test_tying_unequal_sizes_is_refused_and_bidirectional_explains(qtbot, panel):
    pick(panel, "gru")
    panel.form.editors["tie_weights"].setChecked(True)  # 64 vs 256
    assert "Weight tying needs hidden size = embedding size" in panel.stats.text()
    panel.form.editors["tie_weights"].setChecked(False)
    assert panel.bidirectional_note.isHidden()
    panel.form.editors["bidirectional"].setChecked(True)
    assert not panel.bidirectional_note.isHidden()
    assert "would copy the answer" in panel.bidirectional_note.text()


def test_vocabulary_comes_from_the_tokens(qtbot, panel):
    panel.controller.set_tokens(tokens(123))
    assert panel.controller.model_config.vocab_size == 123
    summary = wait_for_summary(qtbot, panel, vocab_size=123)
    assert summary.rows[-1].output_shape.endswith("123)")
    assert "123" in panel.vocab_label.text()


def test_matched_size_proposes_and_applies_a_width(qtbot, panel):
    pick(panel, "gru")
    wait_for_summary(qtbot, panel, arch="gru")
    panel.matched.target.setCurrentIndex(panel.matched.target.findData("lstm"))
    panel.matched.propose()
    qtbot.waitUntil(lambda: panel.matched.apply_button.isEnabled(), timeout=WAIT_MS)
    proposal = panel.matched.proposal
    assert abs(proposal.relative_error) < 0.03 and proposal.width != 256
    assert f"{proposal.width}" in panel.matched.result.text()
    panel.matched.apply()
    assert panel.form.editors["hidden_size"].value() == proposal.width
    assert panel.controller.model_config.hidden_size == proposal.width
    summary = wait_for_summary(qtbot, panel, hidden_size=proposal.width)
    assert summary.total_params == proposal.params


def test_queues_behind_a_busy_query_thread_and_says_it_is_updating(qtbot, panel):
    wait_for_summary(qtbot, panel)
    release = threading.Event()

    def slow(control):
        release.wait(10)
        yield JobFinished(result=None)

    assert panel.controller.run_query(JobSpec("An inspector's probe", slow))
    panel.form.editors["num_layers"].setValue(3)
    # the old table is greyed and marked at once, not passed off as the new model's
    assert not panel.summary_box.isEnabled() and "Updating" in panel.updating.text()
    qtbot.wait(300)  # past the debounce: the summary waits in the queue, nothing fails
    assert panel.controller.query_queue.state("architecture:summary") == "waiting"
    panel.form.editors["num_layers"].setValue(4)  # a newer request replaces the waiting one
    qtbot.wait(300)
    assert panel.controller.last_error == ""
    release.set()
    wait_for_summary(qtbot, panel, num_layers=4)
    assert panel.summary.rows[-1].name != "" and panel._described.num_layers == 4


def test_a_model_chosen_elsewhere_shows_in_the_form(qtbot, panel):
    chosen = TransformerConfig(num_layers=3, d_model=64, num_heads=2, vocab_size=50)
    panel.controller.set_model_config(chosen)
    assert panel.picker.currentData() == "transformer"
    assert panel.form.editors["num_layers"].value() == 3
    summary = wait_for_summary(qtbot, panel, arch="transformer", num_layers=3)
    assert [b.title for b in panel.diagram.boxes][2:4] == ["+ Positions P", "Block ×3"]
    assert summary.rows[1].name == "sinusoid" and summary.rows[1].params == 0


def test_a_hidden_panel_does_not_load_torch_until_shown(qtbot):
    controller = WorkbenchController(Backend())
    widget = ArchitecturePanel(controller)
    qtbot.addWidget(widget)
    widget.form.editors["num_layers"].setValue(2)
    qtbot.wait(300)
    assert widget.summary is None and not controller.query_queue.busy  # start-up stays light
    assert controller.model_config.num_layers == 2  # the session still gets the config
    widget.show()
    wait_for_summary(qtbot, widget, num_layers=2)
    controller.shutdown()


def test_opening_advanced_settings_does_not_squeeze_the_form(qtbot, panel):
    panel.resize(1000, 700)
    panel.show()
    pick(panel, "gru")
    panel.form.advanced.setChecked(True)
    panel.form.editors["bidirectional"].setChecked(True)  # the note below grows too

    def roomy():
        for name, editor in panel.form.editors.items():
            assert editor.isVisible(), name
            assert editor.height() >= editor.minimumSizeHint().height(), name
    qtbot.waitUntil(roomy, timeout=2000)


def test_a_fresh_session_starts_with_an_lstm(panel):
    assert panel.picker.currentData() == "lstm"
    assert panel.controller.model_config.arch == "lstm"
    assert panel.stack.currentWidget() is panel.forms["lstm"]


def test_the_task_selector_offers_the_tasks_architectures_and_its_data(qtbot, panel):
    from workbench.core.config.seq2seq import RnnSeq2seqConfig, Seq2seqTaskConfig

    tasks = []
    panel.controller.task_config_changed.connect(tasks.append)
    panel.task_picker.combo.setCurrentIndex(panel.task_picker.combo.findData("seq2seq"))
    assert isinstance(tasks[-1], Seq2seqTaskConfig) and tasks[-1].data == "dates"
    titles = [panel.picker.itemText(i) for i in range(panel.picker.count())]
    assert titles == ["RNN encoder-decoder", "Transformer encoder-decoder"]
    assert isinstance(panel.controller.model_config, RnnSeq2seqConfig)
    assert panel.task_picker.browse.isVisible()  # a file of pairs can be chosen
    panel.form.editors["attention"].setCurrentText("dot")
    summary = wait_for_summary(qtbot, panel, arch="rnn_seq2seq", attention="dot")
    names = [row.name for row in summary.rows]
    assert "encoder gru" in names and "decoder attentional layer W_c" in names
    assert "s<sub>i</sub><sup>T</sup> h<sub>j</sub>" in panel.card.text()  # Luong's dot
    assert "Luong" in panel.card.text()
    panel.task_picker.forms["seq2seq"].editors["data"].setCurrentText("reverse")
    assert tasks[-1].data == "reverse"
    panel.task_picker.combo.setCurrentIndex(panel.task_picker.combo.findData("language_model"))
    titles = [panel.picker.itemText(i) for i in range(panel.picker.count())]
    assert titles == [cls.title for cls in language_model_configs().values()]
    assert tasks[-1].name == "language_model"


def table_total(panel) -> tuple[str, str]:
    table = panel.table
    row = next(r for r in range(table.rowCount()) if table.item(r, 0).text() == "Total")
    return table.item(row, 3).text(), table.item(row, 4).text()


def test_a_classifier_counts_reproduce_seed_002s_tables_in_the_panel(qtbot, panel):
    """Seed 002: Embedding(5000, 64) + LSTM(64) + LSTM(64) + Dense(6) is 386,950 in torch and
    386,438 in Keras; Embedding(20000, 128) + 2 x Bidirectional(LSTM(64)) + Dense(1, sigmoid)
    is 2,758,785 and 2,757,761. The panel counts the classifier the task trains (encoder, pooling,
    head), not a language model's vocabulary-wide output layer."""
    from workbench.core.config.encoder_tasks import ClassifyTaskConfig

    panel.task_picker.set_config(ClassifyTaskConfig())
    assert panel.counted.isVisible() and not panel.vocab_label.isVisible()
    pick(panel, "lstm")
    form = panel.form
    form.editors["embedding_size"].setValue(64)
    form.editors["hidden_size"].setValue(64)
    form.editors["num_layers"].setValue(2)
    panel.counted.labels.setValue(6)
    wait_for_summary(qtbot, panel, num_labels=6)
    assert table_total(panel) == ("386,950", "386,438")
    assert "386,950" in panel.stats.text() and "386,438" in panel.stats.text()
    assert panel.diagram.boxes[-1].title == "softmax ŷ"
    assert "Sequence classifier" in panel.card.text()
    assert "language model" not in panel.card.text()

    panel.task_picker.set_config(ClassifyTaskConfig(output="sigmoid"))
    form.editors["embedding_size"].setValue(128)
    form.editors["bidirectional"].setChecked(True)
    panel.counted.vocab.setValue(20_000)
    panel.counted.labels.setValue(2)
    wait_for_summary(qtbot, panel, output="sigmoid", num_labels=2, vocab_size=20_000)
    assert table_total(panel) == ("2,758,785", "2,757,761")


def test_a_narrow_panel_shows_every_row_of_the_layer_table(qtbot, panel):
    """In the Model & training perspective at 1920 x 1080 the table is narrower than its
    columns: its scroll bar hid the Total row when the height counted the rows only."""
    wait_for_summary(qtbot, panel, arch="lstm")
    panel.resize(700, 800)  # the summary side about 300 px wide: the columns scroll sideways
    table = panel.table

    def total_row_in_view():
        assert table.horizontalScrollBar().isVisible()
        last = table.visualItemRect(table.item(table.rowCount() - 1, 0))
        assert table.item(table.rowCount() - 1, 0).text() == "Total"
        assert last.top() >= 0 and last.bottom() <= table.viewport().height()
    qtbot.waitUntil(total_row_in_view, timeout=5000)
    panel.resize(1800, 800)  # wide enough again: no room kept for a scroll bar
    qtbot.waitUntil(lambda: not table.horizontalScrollBar().isVisible(), timeout=5000)
    last = table.visualItemRect(table.item(table.rowCount() - 1, 0))
    assert table.viewport().height() - last.bottom() < last.height()
