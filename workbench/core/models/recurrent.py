"""The recurrent family: Elman RNN, LSTM, GRU and peephole LSTM language models (SLP3 eqs.
9.6-9.8).

e_t = E x_t;  h_t = cell(h_{t-1}, e_t) for each stacked layer;  y_t = softmax(V h_t).

Training runs through the fused `nn.RNN` / `nn.LSTM` / `nn.GRU` modules (cuDNN on a GPU), or
step by step for a cell torch has none for (step_recurrent.py);
`trace`, `forward_clamped` and `hidden_gradients` replay the same parameters one step at a time
through `recurrent_steps`, which transcribes the seeds' cell equations.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from workbench.core.models import recurrent_steps
from workbench.core.models.base import (
    Clamp,
    SequenceModel,
    State,
    as_probe,
    eval_mode,
    state_gradient_norms,
    to_numpy,
    token_labels,
)
from workbench.core.models.registry import register_builder
from workbench.core.models.step_recurrent import recurrent_layers
from workbench.core.recurrent_cells import CELLS
from workbench.core.trace import LayerTrace, Trace


class RecurrentLM(SequenceModel):
    supports_state = True

    def __init__(self, config) -> None:
        super().__init__(config)
        self.kind = config.arch  # a cell of core/recurrent_cells: its equations and state
        self.causal = not config.bidirectional
        self.directions = 2 if config.bidirectional else 1
        self.embedding = nn.Embedding(config.vocab_size, config.embedding_size)
        self.rnn = recurrent_layers(
            self.kind, config.embedding_size, config.hidden_size,
            num_layers=config.num_layers, dropout=config.dropout,
            bidirectional=config.bidirectional, config=config,
            nonlinearity=config.nonlinearity if self.kind == "rnn" else None)
        # Identity when dropout is 0, so the fast path is exactly embedding -> rnn -> linear.
        self.drop = nn.Dropout(config.dropout) if config.dropout > 0 else nn.Identity()
        self.head = nn.Linear(config.hidden_size * self.directions, config.vocab_size)
        if config.tie_weights:
            self.head.weight = self.embedding.weight  # E = V (SLP3 sec. 9.3, weight tying)
        if getattr(config, "recurrent_init", "default") == "identity":
            identity_init(self.rnn)

    # --- state ------------------------------------------------------------------------------

    def init_state(self, batch_size: int, device: torch.device | None = None) -> State:
        shape = (self.config.num_layers * self.directions, batch_size, self.config.hidden_size)
        device = device or self.embedding.weight.device
        zeros = torch.zeros(shape, device=device)
        return (zeros, zeros.clone()) if CELLS[self.kind].cell_state else zeros

    # --- fast path ----------------------------------------------------------------------------

    def forward(self, tokens: torch.Tensor, state: State = None) -> tuple[torch.Tensor, State]:
        hidden, state = self.rnn(self.drop(self.embedding(tokens)), state)  # (B, T, H*dirs)
        return self.head(self.drop(hidden)), state  # (B, T, V)

    # --- step-by-step path ---------------------------------------------------------------------

    def forward_clamped(
        self, tokens: torch.Tensor, state: State, clamp: Clamp
    ) -> tuple[torch.Tensor, State]:
        run = recurrent_steps.run(self, self.embedding(tokens), state, clamp, record=False)
        return self.head(run.output), run.state

    def trace(
        self,
        tokens: torch.Tensor,
        state: State = None,
        clamp: Clamp = None,
        token_text: list[str] | None = None,
    ) -> Trace:
        tokens = as_probe(tokens).to(self.embedding.weight.device)
        with eval_mode(self):
            embedded = self.embedding(tokens)  # (1, T, E)
            run = recurrent_steps.run(self, embedded, state, clamp, record=True)
            logits = self.head(run.output)  # (1, T, V)
        layers = [
            LayerTrace(
                name=name,
                kind=self.kind,
                values={k: to_numpy(torch.stack(v, dim=1)[0]) for k, v in record.items()},
                convention=recurrent_steps.CONVENTIONS[self.kind],
            )
            for name, record in run.records.items()
        ]
        return Trace(
            tokens=tokens[0].cpu().numpy(),
            token_text=token_labels(tokens, token_text),
            logits=to_numpy(logits[0]),
            layers=layers,
            embeddings=to_numpy(embedded[0]),
        )

    def hidden_gradients(
        self, tokens: torch.Tensor, targets: torch.Tensor
    ) -> dict[str, np.ndarray]:
        """||∂L_T/∂h_t|| for every layer and step t of a probe, where L_T is the cross-entropy
        of the last position's prediction.

        Only the last step's loss is used so that every h_t reaches it through time alone: the
        curve is the gradient flowing back through time (SEEDS P1, P8). In an Elman RNN it
        usually fades towards early steps; an LSTM's cell state lets it travel further.
        """
        tokens = as_probe(tokens).to(self.embedding.weight.device)
        targets = as_probe(targets).to(tokens.device)
        with eval_mode(self, grad=True):
            run = recurrent_steps.run(self, self.embedding(tokens), None, None, record=True,
                                      keep_graph=True)
            logits = self.head(run.output)
            loss = nn.functional.cross_entropy(logits[:, -1], targets[:, -1])
            return state_gradient_norms(loss, {name: rec["h"]
                                               for name, rec in run.records.items()})


def identity_init(rnn: nn.Module) -> None:
    """U = I for every gate's block of the recurrent weights and all biases 0 (Le, Jaitly &
    Hinton 2015, "A Simple Way to Initialize Recurrent Networks of Rectified Linear Units"):
    at the start h_t = g(h_{t-1} + W x_t), so a gradient passes back through time unscaled by
    U. The input weights W keep PyTorch's default."""
    hidden = rnn.hidden_size
    with torch.no_grad():
        for name, param in rnn.named_parameters():
            if name.startswith("weight_hh"):
                for block in range(param.shape[0] // hidden):  # i, f, g, o / r, z, n / one
                    param[block * hidden:(block + 1) * hidden].copy_(torch.eye(hidden))
            elif name.startswith("bias"):
                param.zero_()


for _arch in CELLS:
    register_builder(_arch)(RecurrentLM)
