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


@pytest.mark.parametrize("name", sorted(TORCH_CELLS))
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


def test_the_peephole_cell_is_the_courses_equations():
    """R6 of the course (seed 001): f, i read c_{t-1}, o reads the new c_t, each through its
    own matrix; with those matrices at zero it is torch's LSTM cell."""
    torch.manual_seed(1)
    cell = CELLS["peephole_lstm"]
    reference = nn.LSTMCell(5, 7)
    x, h, c = torch.randn(2, 5), torch.randn(2, 7), torch.randn(2, 7)
    v = torch.randn(21, 7)
    projected = x @ reference.weight_ih.t() + reference.bias_ih
    new_h, new_c, values = cell.step(projected, h, c, reference.weight_hh, reference.bias_hh,
                                     "tanh", v)
    pre = projected + h @ reference.weight_hh.t() + reference.bias_hh
    a_i, a_f, a_g, a_o = pre.chunk(4, dim=-1)
    v_i, v_f, v_o = v.chunk(3)
    i, f = torch.sigmoid(a_i + c @ v_i.t()), torch.sigmoid(a_f + c @ v_f.t())
    c_t = f * c + i * torch.tanh(a_g)
    o = torch.sigmoid(a_o + c_t @ v_o.t())
    torch.testing.assert_close(new_c, c_t)
    torch.testing.assert_close(new_h, o * torch.tanh(c_t))
    torch.testing.assert_close(values["o"], o)
    no_peeps = cell.step(projected, h, c, reference.weight_hh, reference.bias_hh, "tanh",
                         torch.zeros_like(v))
    expected_h, expected_c = reference(x, (h, c))
    torch.testing.assert_close(no_peeps[0], expected_h)
    torch.testing.assert_close(no_peeps[1], expected_c)
    assert cell.fused == "" and "peephole_lstm" not in FUSED


def test_an_unknown_cell_is_refused_by_name():
    with pytest.raises(ValueError, match="Cells: rnn, lstm, gru, peephole_lstm"):
        cell_kind("peephole")


def test_a_peephole_model_trains_is_summarised_and_comes_back_from_its_snapshot():
    """The peephole LSTM trains step by step (torch has no module for it), its layer table
    names it and counts V, and a snapshot rebuilds the same model."""
    from workbench.core.config.models import MODEL_CONFIGS
    from workbench.core.models import build_model
    from workbench.core.models.summary import summarize
    from workbench.core.snapshot.rebuild import model_from_snapshot, snapshot_of

    torch.manual_seed(2)
    config = MODEL_CONFIGS["peephole_lstm"](vocab_size=11, embedding_size=4, hidden_size=6,
                                            num_layers=2)
    assert config.tasks == ("language_model", "forecast")  # no padded batches to pack
    model = build_model(config)
    tokens = torch.randint(0, 11, (4, 9))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
    losses = []
    for _ in range(30):
        logits, _ = model(tokens[:, :-1])
        loss = nn.functional.cross_entropy(logits.reshape(-1, 11), tokens[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0] * 0.8
    assert model.rnn.weight_ch_l1.grad is not None  # the peepholes learn too
    rows = {row.name: row for row in summarize(config).rows}
    per_layer = 4 * 6 * (4 + 6) + 2 * 24 + 3 * 6 * 6  # the first layer: W, U, biases, V
    assert rows["peephole_lstm layer 1"].kind == "PeepholeLSTM"
    assert rows["peephole_lstm layer 1"].params == per_layer
    model.eval()
    again = model_from_snapshot(snapshot_of(model, {"kind": "char"}, step=3, metrics={},
                                            run_name="p"))
    torch.testing.assert_close(again(tokens)[0], model(tokens)[0])
