"""The recurrent cells' one table (core/recurrent_cells): each cell's step, as the trace runs
it, is the step of torch's own cell with the same weights, and everything the window shows of
a cell (gate names, squashing, card, sources) is there for every gate it has."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from workbench.core.models.recurrent_steps import FUSED
from workbench.core.recurrent_cells import CELLS, cell_kind

TORCH_CELLS = {"rnn": nn.RNNCell, "lstm": nn.LSTMCell, "gru": nn.GRUCell}


@pytest.mark.parametrize("name", sorted(CELLS))
def test_a_cells_step_is_torchs_step_on_the_same_weights(name):
    torch.manual_seed(0)
    cell = CELLS[name]
    reference = TORCH_CELLS[name](5, 7)
    x, h, c = torch.randn(3, 5), torch.randn(3, 7), torch.randn(3, 7)
    projected = x @ reference.weight_ih.t() + reference.bias_ih
    new_h, new_c, values = cell.step(projected, h, c, reference.weight_hh, reference.bias_hh,
                                     "tanh")
    expected = reference(x, (h, c)) if cell.cell_state else reference(x, h)
    if cell.cell_state:
        torch.testing.assert_close(new_h, expected[0])
        torch.testing.assert_close(new_c, expected[1])
    else:
        torch.testing.assert_close(new_h, expected)
    assert set(cell.gates) <= set(values) and "h" in values
    assert FUSED[name].__name__ == cell.fused


@pytest.mark.parametrize("name", sorted(CELLS))
def test_what_the_window_shows_of_a_cell_covers_its_gates(name):
    cell = CELLS[name]
    assert set(cell.gates) <= set(cell.gate_words)
    assert cell.title in cell.card and "Source:" in cell.card and cell.worked_source
    for gate in cell.gates:
        assert cell.squash_name(gate) in ("σ", "tanh")
    assert cell.reset_after in ("", *cell.gates)


def test_an_unknown_cell_is_refused_by_name():
    with pytest.raises(ValueError, match="Cells: rnn, lstm, gru"):
        cell_kind("peephole")
