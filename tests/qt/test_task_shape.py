"""The task picker draws the chosen task's shape from the course's taxonomy (issue 33 figure
33): every task declares one, and each shape reads and writes what the task does."""

from __future__ import annotations

from workbench.core.config.tasks import TASK_CONFIGS
from workbench.qt.widgets.task_picker import TaskPicker
from workbench.qt.widgets.task_shape import SHAPES


def test_every_task_has_a_shape_and_the_picker_draws_it(qtbot):
    assert {config.io_shape for config in TASK_CONFIGS.values()} <= set(SHAPES)
    picker = TaskPicker()
    qtbot.addWidget(picker)
    for name, config in TASK_CONFIGS.items():
        picker.combo.setCurrentIndex(picker.combo.findData(name))
        assert picker.shape.shape == config.io_shape and picker.shape.scene().items()
    inputs, outputs, caption, _ = SHAPES["one"]
    assert outputs.count("") == len(inputs) - 1 and caption == "many to one"
    inputs, outputs, caption, encoder = SHAPES["pairs"]
    assert encoder == 3 and outputs[-1] == "<eos>"  # reads the source, then writes
    assert SHAPES["next"][1][:-1] == SHAPES["next"][0][1:]  # each output the next input
