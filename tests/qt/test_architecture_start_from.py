"""While a language model starts from a model folder (a masked LM, a classifier or a tagger:
from a BERT folder's encoder), the Architecture panel shows that folder's model (the one that
trains), locked, with a note; clearing 'Start from' gives the form back. The card and the
block figure say GELU and no output bias for a GPT-2."""

from __future__ import annotations

import pytest

from workbench.core.config.models import LstmConfig, TransformerConfig, TransformerEncoderConfig
from workbench.core.config.tasks import TASK_CONFIGS, LanguageModelTaskConfig
from workbench.qt.panels.architecture import ArchitecturePanel
from workbench.qt.widgets.architecture_cards import transformer_frame
from workbench.qt.widgets.model_summary_view import block_of


def test_the_folder_model_is_shown_locked_and_clearing_gives_the_form_back(qtbot, make_panel):
    panel = make_panel(ArchitecturePanel)
    panel.show()
    controller = panel.controller
    controller.set_model_config(LstmConfig(hidden_size=96))
    panel.task_picker.use_value("start_from", "/models/gpt2")
    qtbot.waitUntil(lambda: panel.start_from.config is not None, timeout=10_000)
    config = controller.model_config
    assert isinstance(config, TransformerConfig) and config.vocab_size == 320
    assert config.activation == "gelu_tanh" and panel.config() == config
    assert panel.picker.currentData() == "transformer" and not panel.picker.isEnabled()
    assert not panel.stack.isEnabled() and panel.start_from.note.isVisibleTo(panel)
    assert "Fine-tuning gpt2" in panel.start_from.note.text()
    assert not panel.vocab_label.isVisibleTo(panel)  # no "5,000 assumed": the folder's own
    panel.task_picker.use_value("start_from", "")
    assert panel.picker.isEnabled() and panel.stack.isEnabled()
    assert not panel.start_from.note.isVisibleTo(panel) and panel.vocab_label.isVisibleTo(panel)
    assert controller.task_config == LanguageModelTaskConfig()


def test_a_gpt2_card_and_block_say_gelu_and_no_output_bias():
    gpt2 = TransformerConfig(norm_placement="pre", positional="learned", activation="gelu_tanh",
                             head_bias=False, tie_weights=True)
    card = transformer_frame(gpt2)
    assert "GELU(z W<sub>1</sub>" in card and "max{0" not in card and "tanh form" in card
    assert "b<sub>out</sub>" not in card
    assert "b<sub>out</sub>" in transformer_frame(TransformerConfig(norm_placement="pre"))
    parts, _ = block_of(gpt2)
    assert any("GELU (tanh)" in part.title for part in parts)
    parts, _ = block_of(TransformerConfig())
    assert any("ReLU" in part.title for part in parts)


@pytest.mark.parametrize("task", ["masked_lm", "classify", "tag"])
def test_an_encoder_task_shows_the_bert_folders_encoder_locked(qtbot, make_panel, task):
    panel = make_panel(ArchitecturePanel)
    panel.show()
    picker = panel.task_picker
    picker.combo.setCurrentIndex(picker.combo.findData(task))
    assert picker.start_from.isVisibleTo(panel) and "BERT" in picker.start_from.toolTip()
    picker.use_value("start_from", "/models/bert")
    qtbot.waitUntil(lambda: panel.start_from.config is not None, timeout=10_000)
    config = panel.controller.model_config
    # the encoder the panel designs, with the folder's sizes and vocabulary; the task's head
    # is added when it trains
    assert isinstance(config, TransformerEncoderConfig) and config.vocab_size == 120
    assert config.embedding_norm and panel.config() == config
    assert panel.picker.currentData() == "transformer_encoder" and not panel.stack.isEnabled()
    assert "Fine-tuning bert" in panel.start_from.note.text()
    assert not panel.counted.isVisibleTo(panel)  # no assumed vocabulary: the folder's own
    counted = panel._counted(config)
    assert counted.arch != "transformer_encoder" and counted.vocab_size == 120
    picker.use_value("start_from", "")
    assert panel.stack.isEnabled() and panel.counted.isVisibleTo(panel)
    assert panel.controller.task_config == TASK_CONFIGS[task]()


def test_the_language_models_button_asks_for_gpt2(make_panel):
    panel = make_panel(ArchitecturePanel)
    assert "GPT-2" in panel.task_picker.start_from.toolTip()
