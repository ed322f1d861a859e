"""RNN encoder-decoder with attention (SEEDS 2.3 R12, 2.4 T1-T3; Luong et al. 2015).

Encoder (`RecurrentEncoder`): h_j = [h_j^f; h_j^b], j = 1..S, and its final states per layer
and direction. Bridge: s_0 = tanh(W_b [h_S^f; h_1^b] + b_b) per layer (LSTM: c_0 = W_c' [..]
+ b, no tanh, as a cell state is not bounded), or the final states copied as they are.
Decoder, for i = 1..T (width D = d_h, or 2·d_h with a bidirectional encoder):

  x_i  = E y_{i-1}, or [E y_{i-1}; h̃_{i-1}] with input feeding (h̃_0 = 0)
  s_i  = cell(s_{i-1}, x_i)                     (stacked layers; s_i is the top one)
  e_ij = score(s_i, h_j),  α_ij = softmax_j(e_ij) (0 on padding),  c_i = Σ_j α_ij h_j
  h̃_i  = tanh(W_c [c_i; s_i] + b_c)             (no attention: h̃_i = s_i)
  p(y_i | y_<i, x) = softmax(W_o h̃_i + b_o)

The decoder state that scores is the current one, s_i, as in Luong et al. and seed 002's
walkthrough (the RNN step first, then attention, then "concatenate h and C" into an FFN).
Seed 001 writes the additive score with the previous state, e_ij = fc(s_{i-1}, h_j), and feeds
c_i into the RNN (Bahdanau): with input feeding, the context computed from s_{i-1} reaches
step i through h̃_{i-1} in the same way.

`forward` runs the fused `nn.GRU`/`nn.LSTM`/`nn.RNN` over all target steps at once under full
teacher forcing without input feeding; otherwise (input feeding, scheduled sampling, decoding)
it steps, one fused call per token. `trace` replays the encoder and the decoder cell through
`recurrent_steps` (the seeds' equations) on the same weights.
"""

from __future__ import annotations

import dataclasses

import torch
from torch import nn

from workbench.core.config.models import GruConfig, LstmConfig, RnnConfig
from workbench.core.models import recurrent_steps
from workbench.core.models.attention_scores import AttentionScore, masked_softmax
from workbench.core.models.base import as_probe, eval_mode, to_numpy, token_labels
from workbench.core.models.recurrent_encoder import RecurrentEncoder
from workbench.core.models.registry import register_builder
from workbench.core.models.seq2seq_base import Memory, Seq2seqModel, decoder_inputs
from workbench.core.seq2seq_trace import Seq2seqTrace
from workbench.core.trace import LayerTrace

_FUSED = {"rnn": nn.RNN, "lstm": nn.LSTM, "gru": nn.GRU}
_ENCODER_CONFIGS = {"rnn": RnnConfig, "lstm": LstmConfig, "gru": GruConfig}
SCORE_EQUATIONS = {
    "none": "no attention: the decoder sees the source only through s_0 (the bottleneck)",
    "dot": "dot (Luong): e_ij = s_i^T h_j",
    "scaled": "scaled dot (000): e_ij = s_i^T h_j / √d_h",
    "general": "general (Luong): e_ij = s_i^T W_a h_j",
    "additive": "additive (001's fc, Bahdanau): e_ij = v_a^T tanh(W_a s_i + U_a h_j)",
}


@register_builder("rnn_seq2seq")
class RnnSeq2seq(Seq2seqModel):
    def __init__(self, config) -> None:
        super().__init__(config)
        self.kind = config.cell  # picks the cell equations in recurrent_steps
        self.directions = 1  # of the decoder (recurrent_steps reads it)
        size = config.decoder_size
        encoder_config = _ENCODER_CONFIGS[config.cell](
            vocab_size=config.source_vocab_size, embedding_size=config.embedding_size,
            hidden_size=config.hidden_size, num_layers=config.num_layers,
            dropout=config.dropout, bidirectional=config.bidirectional)
        self.encoder = RecurrentEncoder(encoder_config)
        self.embedding = nn.Embedding(config.target_vocab_size, config.embedding_size)
        self.attends = config.attention != "none"
        self.feeds = config.input_feeding and self.attends
        self.rnn = _FUSED[config.cell](
            config.embedding_size + (size if self.feeds else 0), size,
            num_layers=config.num_layers, batch_first=True,
            dropout=config.dropout if config.num_layers > 1 else 0.0)
        if config.bridge == "linear":
            self.bridge_h = nn.Linear(size, size)
            self.bridge_c = nn.Linear(size, size) if config.cell == "lstm" else None
        if self.attends:
            self.score = AttentionScore(config.attention, size)
            self.combine = nn.Linear(2 * size, size)  # W_c
        self.drop = nn.Dropout(config.dropout) if config.dropout > 0 else nn.Identity()
        self.head = nn.Linear(size, config.target_vocab_size)  # W_o

    # --- encoder and bridge -------------------------------------------------------------------

    def init_state(self, batch_size: int, device: torch.device | None = None):
        """Zero decoder state (recurrent_steps asks for one when given None)."""
        shape = (self.config.num_layers, batch_size, self.config.decoder_size)
        zeros = torch.zeros(shape, device=device or self.head.weight.device)
        return (zeros, zeros.clone()) if self.kind == "lstm" else zeros

    def _bridge(self, final):
        """Encoder final states (L·dirs, B, H) -> decoder start s_0 (L, B, D)."""
        def per_layer(t: torch.Tensor) -> torch.Tensor:
            layers, batch = self.config.num_layers, t.shape[1]
            dirs = self.encoder.directions
            joined = t.view(layers, dirs, batch, -1).permute(0, 2, 1, 3)  # (L, B, dirs, H)
            return joined.reshape(layers, batch, -1)  # [h^f; h^b] per layer

        if self.kind == "lstm":
            h, c = (per_layer(t) for t in final)
            if self.config.bridge == "linear":
                h, c = torch.tanh(self.bridge_h(h)), self.bridge_c(c)
            return h, c
        h = per_layer(final)
        return torch.tanh(self.bridge_h(h)) if self.config.bridge == "linear" else h

    def begin(self, source: torch.Tensor, source_mask: torch.Tensor):
        encoded = self.encoder(source, source_mask)
        keys = self.score.keys(encoded.states) if self.attends else None
        memory = Memory(encoded.states, source_mask, keys)
        feed = encoded.states.new_zeros(source.shape[0], self.config.decoder_size)
        return memory, (self._bridge(encoded.final), feed)

    # --- decoder ---------------------------------------------------------------------------

    def attend(self, s: torch.Tensor, memory: Memory):
        """s (B, T, D) -> (h̃, α, e, c), each with a T axis (h̃ = s without attention)."""
        if not self.attends:
            return s, None, None, None
        scores = self.score(s, memory.keys)  # e (B, T, S)
        weights = masked_softmax(scores, memory.mask)  # α
        context = weights @ memory.states  # c (B, T, D)
        return torch.tanh(self.combine(torch.cat([context, s], dim=-1))), weights, scores, context

    def step(self, memory: Memory, state, tokens: torch.Tensor):
        rnn_state, feed = state
        x = self.drop(self.embedding(tokens)).unsqueeze(1)  # (B, 1, E)
        if self.feeds:
            x = torch.cat([x, feed.unsqueeze(1)], dim=-1)
        s, rnn_state = self.rnn(x, rnn_state)
        attentional, weights, _, _ = self.attend(s, memory)
        logits = self.head(self.drop(attentional))[:, 0]
        return logits, (rnn_state, attentional[:, 0]), None if weights is None else weights[:, 0]

    def reorder(self, state, index: torch.Tensor):
        rnn_state, feed = state
        if isinstance(rnn_state, tuple):
            rnn_state = tuple(t.index_select(1, index) for t in rnn_state)
        else:
            rnn_state = rnn_state.index_select(1, index)
        return rnn_state, feed.index_select(0, index)

    def forward(self, source, source_mask, target_in, teacher_forcing: float = 1.0):
        if teacher_forcing < 1.0 or self.feeds:
            return self.stepwise(source, source_mask, target_in, teacher_forcing)
        memory, (start, _) = self.begin(source, source_mask)
        s, _ = self.rnn(self.drop(self.embedding(target_in)), start)  # (B, T, D)
        attentional, _, _, _ = self.attend(s, memory)
        return self.head(self.drop(attentional))  # (B, T, V)

    # --- step by step through the seeds' equations ---------------------------------------------

    def trace(self, source, outputs, source_text=None, target_text=None) -> Seq2seqTrace:
        source = as_probe(source).to(self.head.weight.device)
        outputs = as_probe(outputs).to(source.device)
        target_in = decoder_inputs(outputs)
        with eval_mode(self):
            encoded = self.encoder.trace(source, source_text)
            states = encoded.output.states  # (1, S, D)
            mask = torch.ones(states.shape[:2], dtype=torch.bool, device=source.device)
            memory = Memory(states, mask, self.score.keys(states) if self.attends else None)
            rnn_state = self._bridge(encoded.output.final)
            feed = states.new_zeros(1, self.config.decoder_size)
            kept: dict[str, list] = {k: [] for k in ("s", "h~", "alpha", "e", "c", "logits")}
            gates: dict[str, dict[str, list]] = {}
            for i in range(target_in.shape[1]):
                x = self.embedding(target_in[:, i: i + 1])
                if self.feeds:
                    x = torch.cat([x, feed.unsqueeze(1)], dim=-1)
                run = recurrent_steps.run(self, x, rnn_state, None, record=True)
                rnn_state = run.state
                attentional, weights, scores, context = self.attend(run.output, memory)
                feed = attentional[:, 0]
                for key, value in (("s", run.output), ("h~", attentional), ("alpha", weights),
                                   ("e", scores), ("c", context),
                                   ("logits", self.head(attentional))):
                    if value is not None:
                        kept[key].append(value[0, 0])
                for name, record in run.records.items():
                    for gate, values in record.items():
                        gates.setdefault(name, {}).setdefault(gate, []).append(values[0][0])
        stack = {k: to_numpy(torch.stack(v)) for k, v in kept.items() if v}
        decoder_layers = [LayerTrace(name=f"decoder {name}", kind=self.kind,
                                     values={g: to_numpy(torch.stack(v)) for g, v in rec.items()},
                                     convention=recurrent_steps.CONVENTIONS[self.kind])
                          for name, rec in gates.items()]
        steps = target_in.shape[1]
        return Seq2seqTrace(
            source_tokens=source[0].cpu().numpy(),
            source_text=token_labels(source, source_text),
            target_tokens=outputs[0].cpu().numpy(),
            target_text=token_labels(outputs, target_text),
            logits=stack["logits"],
            alignment=stack.get("alpha", torch.zeros(steps, 0).numpy()),
            decoder_states=stack["s"], encoder_states=to_numpy(states[0]),
            scores=stack.get("e"), contexts=stack.get("c"),
            attentional=stack["h~"] if self.attends else None,
            encoder_layers=[dataclasses.replace(layer, name=f"encoder {layer.name}")
                            for layer in encoded.layers],
            decoder_layers=decoder_layers,
            convention=SCORE_EQUATIONS[self.config.attention])
