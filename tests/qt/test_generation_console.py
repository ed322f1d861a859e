"""Generation console: streaming, hover info, re-sampling, history, clamp, errors."""

from __future__ import annotations

import pytest

from tests.qt.token_view import token_point
from workbench.qt.gallery.fake_traces import snapshot
from workbench.qt.panels.generate import GeneratePanel


@pytest.fixture
def panel(make_panel):
    return make_panel(GeneratePanel)


def generate(qtbot, panel, **kwargs):
    with qtbot.waitSignal(panel.controller.queries.busy_changed,
                          check_params_cb=lambda busy: not busy, timeout=5000):
        assert panel.generate(**kwargs)


def test_without_a_model_generate_is_disabled_and_explains(panel):
    assert not panel.generate_button.isEnabled()
    assert not panel.generate()
    assert "train a model" in panel.controller.last_error


def test_tokens_stream_into_the_console_and_history(qtbot, panel):
    panel.controller.set_snapshot(snapshot(300))
    assert "step 300" in panel.source.text() and panel.generate_button.isEnabled()
    panel.prompt.setPlainText("ROMEO:")
    generate(qtbot, panel)
    assert panel.generated_text() == "the king is dead."
    assert "king" in panel.output.toPlainText() and "ROMEO:" in panel.output.toPlainText()
    assert panel.history_list.count() == 1 and panel.history[0][1] == "the king is dead."
    prompt, config, clamp = panel.controller.backend.inspection.generations[-1]
    assert prompt == "ROMEO:" and config.strategy == "top-k" and clamp is None


def test_the_generate_button_generates_from_the_prompt(qtbot, panel):
    from PySide6.QtCore import Qt

    panel.controller.set_snapshot(snapshot())
    panel.prompt.setPlainText("JULIET:")
    with qtbot.waitSignal(panel.controller.queries.busy_changed,
                          check_params_cb=lambda busy: not busy, timeout=5000):
        qtbot.mouseClick(panel.generate_button, Qt.MouseButton.LeftButton)
    assert panel.controller.backend.inspection.generations[-1][0] == "JULIET:"
    assert panel.history_list.count() == 1


def test_hover_shows_probability_entropy_rank_and_alternatives(qtbot, panel):
    panel.controller.set_snapshot(snapshot())
    panel.show()
    qtbot.waitExposed(panel)
    generate(qtbot, panel)
    qtbot.mouseMove(panel.output.viewport(), token_point(panel.output, 1))
    info = panel.info.text()
    assert "' king'" in info and "p = 0.250" in info and "rank 2" in info and "'x' 0.100" in info


def test_click_resamples_from_that_token_with_the_next_seed(qtbot, panel):
    from PySide6.QtCore import Qt

    panel.controller.set_snapshot(snapshot())
    panel.show()
    qtbot.waitExposed(panel)
    panel.prompt.setPlainText("ROMEO:")
    generate(qtbot, panel)
    assert len(panel.output.token_starts) == 5  # each token can be pointed at
    with qtbot.waitSignal(panel.controller.queries.busy_changed,
                          check_params_cb=lambda busy: not busy, timeout=5000):
        qtbot.mouseClick(panel.output.viewport(), Qt.MouseButton.LeftButton,
                         pos=token_point(panel.output, 2))
    prompt, config, _ = panel.controller.backend.inspection.generations[-1]
    assert prompt == "ROMEO:the king" and config.seed == 1
    assert panel.history_list.count() == 2


def test_clamp_settings_reach_the_job(qtbot, panel):
    panel.controller.set_snapshot(snapshot())
    panel.clamp_box.on.setChecked(True)
    panel.clamp_box.layer.setValue(1)
    panel.clamp_box.index.setValue(7)
    panel.clamp_box.value.setValue(0.5)
    generate(qtbot, panel)
    assert panel.controller.backend.inspection.generations[-1][2] == {
        "layer": 1, "unit": 7, "value": 0.5}
    panel.clamp_box.kind.setCurrentText("head")
    assert panel.clamp_box.clamp() == {"layer": 1, "head": 7, "value": 0.5}


def test_clamp_boxes_offer_the_models_own_units_and_a_bad_clamp_is_refused(qtbot, panel):
    panel.controller.set_snapshot(snapshot())  # 2 layers of 8 units
    assert panel.clamp_box.layer.maximum() == 1 and panel.clamp_box.index.maximum() == 7
    panel.clamp_box.on.setChecked(True)
    panel.clamp_box.kind.setCurrentText("head")  # an LSTM has no attention heads
    assert not panel.generate()
    assert "Clamp refused" in panel.controller.last_error
    assert "no attention heads" in panel.controller.last_error
    assert panel.controller.backend.inspection.generations == []  # nothing ran silently


def test_the_real_backend_refuses_a_clamp_outside_the_model_with_the_range():
    from workbench.app.inspection_backend import InspectionBackend
    from workbench.core.config.generation import GenerationConfig, clamp_problems
    from workbench.core.jobs import UserFacingError

    lstm = {"arch": "lstm", "num_layers": 2, "hidden_size": 8}
    assert clamp_problems(lstm, {"layer": 2, "unit": 8, "value": 1.0}) == [
        "Layer 2 does not exist: this model has 2 layers (0 to 1).",
        "Unit 8 does not exist: each layer has 8 units (0 to 7)."]
    assert clamp_problems(lstm, {"layer": 1, "unit": 7, "value": 1.0}) == []
    transformer = {"arch": "transformer", "num_layers": 2, "num_heads": 4}
    assert "Head 4 does not exist" in clamp_problems(transformer, {"layer": 0, "head": 4,
                                                                   "value": 0.0})[0]
    with pytest.raises(UserFacingError, match="Clamp refused: Layer 5 does not exist"):
        InspectionBackend().generation_job(snapshot(), "x", GenerationConfig(),
                                           {"layer": 5, "unit": 0, "value": 1.0})


def test_the_history_records_each_generations_settings_and_clamp(qtbot, panel):
    panel.controller.set_snapshot(snapshot(300))
    config = panel.form.config()
    panel.form.set_config(type(config)(**{**vars(config), "strategy": "top-k", "top_k": 7,
                                          "seed": 3, "temperature": 0.8}))
    panel.clamp_box.on.setChecked(True)
    panel.clamp_box.layer.setValue(0)
    panel.clamp_box.index.setValue(5)
    panel.clamp_box.value.setValue(1.5)
    generate(qtbot, panel)
    panel.clamp_box.on.setChecked(False)
    generate(qtbot, panel)
    first, second = (panel.history_list.item(i).text() for i in range(2))
    assert "top-k, T=0.8, k=7, max 200, seed 3, clamp layer 0 unit 5 = 1.5" in first
    assert "clamp" not in second
    assert panel.history[0][3] == {"layer": 0, "unit": 5, "value": 1.5}
    panel.history_list.setCurrentRow(0)
    assert "clamp layer 0 unit 5 = 1.5" in panel.info.text()
    assert "demo @ step 300" in panel.history_list.item(0).toolTip()


def test_history_click_restores_an_earlier_output(qtbot, panel):
    panel.controller.set_snapshot(snapshot())
    generate(qtbot, panel)
    panel.output.clear()
    panel.history_list.setCurrentRow(0)
    assert "the king is dead." in panel.output.toPlainText()


def test_only_the_strategys_settings_are_editable(panel):
    editors = panel.form.editors
    editors["strategy"].setCurrentText("beam")
    assert editors["beam_width"].isEnabled() and not editors["top_k"].isEnabled()
    assert not editors["seed"].isEnabled()
    editors["strategy"].setCurrentText("top-p")
    assert editors["top_p"].isEnabled() and editors["temperature"].isEnabled()
    assert not editors["beam_width"].isEnabled()


def test_generate_waits_for_a_running_probe_instead_of_failing(qtbot, panel):
    import threading

    from workbench.core.events import JobFinished
    from workbench.core.jobs import JobSpec

    release = threading.Event()

    def slow_probe(control):
        release.wait(5)
        yield JobFinished(result=None)

    panel.controller.set_snapshot(snapshot())
    assert panel.controller.run_query(JobSpec("probe", slow_probe))
    assert panel.generate()
    assert "Waiting" in panel.info.text() and panel.controller.last_error == ""
    with qtbot.waitSignal(panel.controller.queries.busy_changed,
                          check_params_cb=lambda busy: not busy, timeout=5000):
        release.set()
    qtbot.waitUntil(lambda: panel.history_list.count() == 1, timeout=5000)
    assert panel.generated_text() == "the king is dead."


def test_beam_search_shows_its_progress_then_the_hint_again(qtbot, panel):
    import dataclasses

    from workbench.core.events import Progress
    from workbench.qt.panels.generate import HINT

    panel.controller.set_snapshot(snapshot())
    panel.form.set_config(dataclasses.replace(panel.form.config(), strategy="beam"))
    shown = []  # the line as the user sees it after each progress event
    panel.controller.queries.event.connect(
        lambda event: shown.append(panel.info.text()) if isinstance(event, Progress) else None)
    generate(qtbot, panel)
    assert shown and "Beam search: 1 of" in shown[0]
    assert "&lt;the" in shown[0]  # generated text is not read as markup
    assert panel.info.text() == HINT  # no stale progress line once it is done


def test_the_prompt_comes_from_the_corpus_until_the_user_types_one(panel):
    from workbench.core.corpus.loading import Corpus
    from workbench.core.corpus.statistics import corpus_statistics

    def corpus(text):
        return Corpus("play", "play", [("play", text)], stats=corpus_statistics([text]))

    assert panel.prompt.toPlainText() == ""  # no corpus yet: start from <bos>
    panel.controller.set_corpus(corpus("Kent.\nSir.\n\nKent.\nNo.\n\nKent.\nAy.\n"))
    assert panel.prompt.toPlainText() == "Kent.\n"
    panel.controller.set_corpus(corpus("Lear.\nGo.\n\nLear.\nNo.\n\nLear.\nAy.\n"))
    assert panel.prompt.toPlainText() == "Lear.\n"  # a new corpus, a new suggestion
    panel.prompt.setPlainText("My own words")
    panel.controller.set_corpus(corpus("Kent.\nSir.\n\nKent.\nNo.\n\nKent.\nAy.\n"))
    assert panel.prompt.toPlainText() == "My own words"  # the user's prompt is kept
