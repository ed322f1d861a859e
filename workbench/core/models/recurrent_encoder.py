"""Recurrent encoders: Elman RNN, LSTM and GRU, stacked and optionally bidirectional.

e_t = E x_t;  h_t^f = RNN_forward(e_1 … e_t),  h_t^b = RNN_backward(e_t … e_n),
h_t = [h_t^f; h_t^b]  (SLP3 9.15-9.17: concatenation, forward half first, as torch stores it).
Each stacked layer reads the concatenated states of the layer below.

`forward` runs the fused module over a packed batch (`pack_padded_sequence`), so a row's
padding is never read: the forward direction stops at the row's last real token and the
backward direction starts there. `trace` replays one sequence through `recurrent_steps` (the
seeds' cell equations on the same parameters), both directions recorded.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from workbench.core.models import recurrent_steps
from workbench.core.models.base import Clamp, State, as_probe, eval_mode, to_numpy, token_labels
from workbench.core.models.encoder import (
    EncoderOutput,
    EncoderTrace,
    checked_lengths,
    full_mask,
    register_encoder,
)
from workbench.core.recurrent_cells import CELLS
from workbench.core.trace import LayerTrace


class RecurrentEncoder(nn.Module):
    """Token ids (B, S) -> states (B, S, H·dirs), from an RnnConfig, LstmConfig or GruConfig.

    `bidirectional` in the config gives the second direction; `tie_weights` is a language
    model's setting and is ignored here.
    """

    def __init__(self, config) -> None:
        super().__init__()
        self.config = config
        self.kind = config.arch  # "rnn" | "lstm" | "gru": picks the cell equations
        self.directions = 2 if config.bidirectional else 1
        self.output_size = config.hidden_size * self.directions
        extra = {"nonlinearity": config.nonlinearity} if self.kind == "rnn" else {}
        self.embedding = nn.Embedding(config.vocab_size, config.embedding_size)
        self.rnn = recurrent_steps.FUSED[self.kind](
            config.embedding_size,
            config.hidden_size,
            num_layers=config.num_layers,
            dropout=config.dropout if config.num_layers > 1 else 0.0,
            batch_first=True,
            bidirectional=config.bidirectional,
            **extra,
        )
        self.drop = nn.Dropout(config.dropout) if config.dropout > 0 else nn.Identity()

    def init_state(self, batch_size: int, device: torch.device | None = None) -> State:
        shape = (self.config.num_layers * self.directions, batch_size, self.config.hidden_size)
        zeros = torch.zeros(shape, device=device or self.embedding.weight.device)
        return (zeros, zeros.clone()) if CELLS[self.kind].cell_state else zeros

    # --- fast path ----------------------------------------------------------------------------

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor | None = None,
                state: State = None) -> EncoderOutput:
        embedded = self.drop(self.embedding(tokens))  # (B, S, E)
        if mask is None or bool(mask.all()):
            states, final = self.rnn(embedded, state)  # (B, S, H·dirs)
            return EncoderOutput(states, full_mask(tokens) if mask is None else mask, final)
        lengths = checked_lengths(mask)
        packed = pack_padded_sequence(embedded, lengths.cpu(), batch_first=True,
                                      enforce_sorted=False)
        packed_states, final = self.rnn(packed, state)
        # zeros at padding; the final states come back in the batch's own row order
        states, _ = pad_packed_sequence(packed_states, batch_first=True,
                                        total_length=tokens.shape[1])
        return EncoderOutput(states, mask, final)

    # --- step-by-step path ---------------------------------------------------------------------

    def step_run(self, embedded: torch.Tensor, state: State = None, clamp: Clamp = None,
                 record: bool = True, keep_graph: bool = False) -> recurrent_steps.StepRun:
        """The seeds' cell equations over unpadded inputs (B, S, E), every gate recorded."""
        return recurrent_steps.run(self, embedded, state, clamp, record=record,
                                   keep_graph=keep_graph)

    def trace(self, tokens: torch.Tensor, token_text: list[str] | None = None,
              state: State = None, clamp: Clamp = None) -> EncoderTrace:
        tokens = as_probe(tokens).to(self.embedding.weight.device)
        with eval_mode(self):
            embedded = self.embedding(tokens)  # (1, S, E)
            run = self.step_run(embedded, state, clamp)
        layers = [
            LayerTrace(
                name=name,
                kind=self.kind,
                values={k: to_numpy(torch.stack(v, dim=1)[0]) for k, v in record.items()},
                convention=recurrent_steps.CONVENTIONS[self.kind]
                + ("; reverse: read right to left, h_t = state after x_n … x_t"
                   if name.endswith("reverse") else ""),
            )
            for name, record in run.records.items()
        ]
        output = EncoderOutput(run.output.detach(), full_mask(tokens), _detached(run.state))
        return EncoderTrace(output, layers, to_numpy(embedded[0]),
                            token_labels(tokens, token_text))


def _detached(state: State) -> State:
    if state is None or isinstance(state, torch.Tensor):
        return None if state is None else state.detach()
    return tuple(s.detach() for s in state)


for _arch in recurrent_steps.FUSED:
    register_encoder(_arch)(RecurrentEncoder)
