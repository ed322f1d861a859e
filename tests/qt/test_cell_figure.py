"""The LSTM family's cell drawn from its table (issue 33 figure 9): the LSTM without and the
peephole LSTM with the dashed lines from the cell state into f, i and o; other cells have no
such figure."""

from __future__ import annotations

from workbench.core.config.models import MODEL_CONFIGS, GruConfig, LstmConfig, TransformerConfig
from workbench.core.recurrent_cells import CELLS
from workbench.qt.widgets.cell_figure import CellFigure
from workbench.qt.widgets.model_summary_view import cell_of


def test_lstm_and_peephole_cells_are_drawn_with_their_own_peepholes(qtbot):
    figure = CellFigure()
    qtbot.addWidget(figure)
    figure.show_cell(CELLS["lstm"])
    assert not figure.isHidden() and figure.peephole_lines == 0
    figure.show_cell(CELLS["peephole_lstm"])
    assert figure.peephole_lines == 3 and figure.peepholes == ("i", "f", "o")
    figure.show_cell(CELLS["gru"])  # no cell state: not this drawing
    assert figure.isHidden()


def test_each_config_names_its_cell():
    assert cell_of(LstmConfig()) is CELLS["lstm"]
    assert cell_of(MODEL_CONFIGS["peephole_lstm"]()) is CELLS["peephole_lstm"]
    assert cell_of(GruConfig()) is CELLS["gru"]
    assert cell_of(TransformerConfig()) is None and cell_of(None) is None
