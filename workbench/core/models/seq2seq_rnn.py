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

from workbench.core.config.attention_scores import SCORES
from workbench.core.config.models import GruConfig, LstmConfig, RnnConfig
from workbench.core.models import recurrent_steps
from workbench.core.models.base import as_probe, eval_mode, to_numpy, token_labels
from workbench.core.models.recurrent_encoder import RecurrentEncoder
from workbench.core.models.registry import register_builder
from workbench.core.models.rnn_decoder import RnnDecoder
from workbench.core.models.seq2seq_base import Seq2seqModel, decoder_inputs
from workbench.core.trace import LayerTrace
from workbench.core.trace.seq2seq import Seq2seqTrace

_ENCODER_CONFIGS = {"rnn": RnnConfig, "lstm": LstmConfig, "gru": GruConfig}


@register_builder("rnn_seq2seq")
class RnnSeq2seq(Seq2seqModel):
    def __init__(self, config) -> None:
        super().__init__(config)
        self.encoder = RecurrentEncoder(_ENCODER_CONFIGS[config.cell](
            vocab_size=config.source_vocab_size, embedding_size=config.embedding_size,
            hidden_size=config.hidden_size, num_layers=config.num_layers,
            dropout=config.dropout, bidirectional=config.bidirectional))
        self.decoder = RnnDecoder(config)

    def begin(self, source: torch.Tensor, source_mask: torch.Tensor | None):
        encoded = self.encoder(source, source_mask)  # a mask of None: no padding
        memory = self.decoder.memory(encoded.states, encoded.mask)
        feed = encoded.states.new_zeros(source.shape[0], self.config.decoder_size)
        return memory, (self.decoder.bridge(encoded.final, self.encoder.directions), feed)

    def step(self, memory, state, tokens: torch.Tensor):
        rnn_state, feed = state
        s, rnn_state = self.decoder.rnn(self.decoder.inputs(tokens[:, None], feed), rnn_state)
        attentional, weights, _, _ = self.decoder.attend(s, memory)
        logits = self.decoder.logits(attentional)[:, 0]
        return logits, (rnn_state, attentional[:, 0]), None if weights is None else weights[:, 0]

    def reorder(self, state, index: torch.Tensor):
        rnn_state, feed = state
        if isinstance(rnn_state, tuple):
            rnn_state = tuple(t.index_select(1, index) for t in rnn_state)
        else:
            rnn_state = rnn_state.index_select(1, index)
        return rnn_state, feed.index_select(0, index)

    def forward(self, source, source_mask, target_in, teacher_forcing: float = 1.0):
        if teacher_forcing < 1.0 or self.decoder.feeds:
            return self.stepwise(source, source_mask, target_in, teacher_forcing)
        memory, (start, _) = self.begin(source, source_mask)
        s, _ = self.decoder.rnn(self.decoder.inputs(target_in, None), start)  # (B, T, D)
        attentional, _, _, _ = self.decoder.attend(s, memory)
        return self.decoder.logits(attentional)  # (B, T, V)

    # --- step by step through the seeds' equations ---------------------------------------------

    def trace(self, source, outputs, source_text=None, target_text=None) -> Seq2seqTrace:
        decoder = self.decoder
        source = as_probe(source).to(decoder.head.weight.device)
        outputs = as_probe(outputs).to(source.device)
        target_in = decoder_inputs(outputs)
        with eval_mode(self):
            encoded = self.encoder.trace(source, source_text)
            states = encoded.output.states  # (1, S, D)
            memory = decoder.memory(states, encoded.output.mask)
            rnn_state = decoder.bridge(encoded.output.final, self.encoder.directions)
            feed = states.new_zeros(1, self.config.decoder_size)
            kept: dict[str, list] = {k: [] for k in ("s", "h~", "alpha", "e", "c", "logits")}
            gates: dict[str, dict[str, list]] = {}
            for i in range(target_in.shape[1]):
                run = recurrent_steps.run(decoder, decoder.inputs(target_in[:, i: i + 1], feed),
                                          rnn_state, None, record=True)
                rnn_state = run.state
                attentional, weights, scores, context = decoder.attend(run.output, memory)
                feed = attentional[:, 0]
                for key, value in (("s", run.output), ("h~", attentional), ("alpha", weights),
                                   ("e", scores), ("c", context),
                                   ("logits", decoder.logits(attentional))):
                    if value is not None:
                        kept[key].append(value[0, 0])
                for name, record in run.records.items():
                    for gate, values in record.items():
                        gates.setdefault(name, {}).setdefault(gate, []).append(values[0][0])
        stack = {k: to_numpy(torch.stack(v)) for k, v in kept.items() if v}
        decoder_layers = [LayerTrace(name=f"decoder {name}", kind=decoder.kind,
                                     values={g: to_numpy(torch.stack(v)) for g, v in rec.items()},
                                     convention=recurrent_steps.CONVENTIONS[decoder.kind])
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
            attentional=stack["h~"] if decoder.attends else None,
            encoder_layers=[dataclasses.replace(layer, name=f"encoder {layer.name}")
                            for layer in encoded.layers],
            decoder_layers=decoder_layers,
            convention=SCORES[self.config.attention].equation)
