"""Equation cards of the encoder-decoder models, as rich text, each citing where a student can
read it: the additive score is Bahdanau, Cho & Bengio 2014 (the course's "fc(s, h)", Luong's
"concat"), dot and general are Luong, Pham & Manning 2015, the scaled dot product is the
scaling of Vaswani et al. 2017 applied to these states, the encoder-decoder frame is
Sutskever, Vinyals & Le 2014 and Cho et al. 2014. The Architecture panel shows the card of
the chosen model; the Alignment panel shows the score's card beside the matrix.
"""

from __future__ import annotations

from workbench.core.config.attention_scores import SCORES as SCORE_KINDS
from workbench.core.config.seq2seq import RnnSeq2seqConfig, TransformerSeq2seqConfig
from workbench.qt.widgets.cell_equations import card_html

_STYLE = "font-family: 'DejaVu Serif', serif; font-size: large;"

# the card of each score, from the one table of scores (core/config/attention_scores.py)
SCORES = {name: (kind.title_html, kind.equation_html) for name, kind in SCORE_KINDS.items()}

RNN_FRAME = """
<b>RNN encoder-decoder</b> (Sutskever et al. 2014; Cho et al. 2014)<br>
h<sub>j</sub> = [h<sub>j</sub><sup>f</sup>; h<sub>j</sub><sup>b</sup>] &nbsp;encoder states,
j = 1…S (Jurafsky &amp; Martin, SLP3 eq. 9.17)<br>
s<sub>0</sub> = tanh(W<sub>b</sub> [h<sub>S</sub><sup>f</sup>; h<sub>1</sub><sup>b</sup>] +
b<sub>b</sub>) &nbsp;the bridge<br>
s<sub>i</sub> = cell(s<sub>i−1</sub>, E y<sub>i−1</sub>{feed}) &nbsp;decoder state<br>
{attention}
p(y<sub>i</sub> | y<sub>&lt;i</sub>, x) = softmax(W<sub>o</sub> {out} + b<sub>o</sub>)<br>
"""

ATTENTION_LINES = """
α<sub>ij</sub> = exp(e<sub>ij</sub>) / Σ<sub>k</sub> exp(e<sub>ik</sub>) &nbsp;(0 on
padding)<br>
c<sub>i</sub> = Σ<sub>j</sub> α<sub>ij</sub> h<sub>j</sub> &nbsp;context vector (Bahdanau et
al. 2014)<br>
h̃<sub>i</sub> = tanh(W<sub>c</sub> [c<sub>i</sub>; s<sub>i</sub>] + b<sub>c</sub>)
&nbsp;attentional state (Luong et al. 2015)<br>
"""

QUERY_NOTE = ("<small>The score reads the current state s<sub>i</sub>, as Luong et al. 2015 "
              "do. Bahdanau et al. 2014 score the previous state, fc(s<sub>i−1</sub>, "
              "h<sub>j</sub>), and feed c<sub>i</sub> into the cell; with input feeding the "
              "context computed from s<sub>i−1</sub> reaches step i the same way, through "
              "h̃<sub>i−1</sub>.</small>")

TRANSFORMER = """
<b>Transformer encoder-decoder</b> (Vaswani et al. 2017, {norm})<br>
X = {scale}E<sub>src</sub>[x] + P &nbsp;the source tokens' embeddings with positions<br>
X := LayerNorm(X + MultiHead(X W<sub>Q</sub>, X W<sub>K</sub>, X W<sub>V</sub>)) &nbsp;encoder,
no mask<br>
X := LayerNorm(X + FFN(X))<br>
Y = {scale}E<sub>tgt</sub>[&lt;bos&gt; y<sub>1</sub> … y<sub>m−1</sub>] + P: the output
shifted right<br>
Y := LayerNorm(Y + MaskedMultiHead(Y W<sub>Q</sub>, Y W<sub>K</sub>, Y W<sub>V</sub>))<br>
Y := LayerNorm(Y + MultiHead(Y W<sub>Q</sub>, X W<sub>K</sub>, X W<sub>V</sub>))
&nbsp;cross-attention: keys and values from the encoder<br>
Y := LayerNorm(Y + FFN(Y)){final}<br>
proba = softmax(Y W<sub>O</sub> + b<sub>O</sub>)<br>
"""
# Why the scale: with sinusoidal positions the embeddings are multiplied by √d (Vaswani et al.
# 2017, sec. 3.4) so the positions do not drown them; learned positions start at the scale of
# the embeddings (core/models/transformer.py, TokenPositions).
SCALE = {True: "√d·", False: ""}
FINAL_NORM = "; &nbsp;Y := LayerNorm(Y) after the last block (pre-LN)"


def score_card(attention: str) -> str:
    title, equation = SCORES[attention]
    return f"<div style=\"{_STYLE}\"><b>{title}</b><br>{equation}</div>"


def seq2seq_card(config: RnnSeq2seqConfig | TransformerSeq2seqConfig) -> str:
    """The card of an encoder-decoder model config (RNN or transformer)."""
    if isinstance(config, RnnSeq2seqConfig):
        attends = config.attention != "none"
        frame = RNN_FRAME.format(
            feed="; h̃<sub>i−1</sub>]" if config.input_feeding and attends else "",
            attention=ATTENTION_LINES if attends else "",
            out="h̃<sub>i</sub>" if attends else "s<sub>i</sub>")
        frame = frame.replace("E y<sub>i−1</sub>; h̃", "[E y<sub>i−1</sub>; h̃")
        parts = [f"<div style=\"{_STYLE}\">{frame}</div>", score_card(config.attention)]
        if attends:
            parts.append(f"<div>{QUERY_NOTE}</div>")
        parts.append(card_html(config.cell))
        return "<hr>".join(parts)
    norm = "post-LN, as the paper writes it" if config.norm_placement == "post" else (
        "drawn post-LN; this model is pre-LN: X := X + Sublayer(LayerNorm(X))")
    text = TRANSFORMER.format(norm=norm, scale=SCALE[config.positional == "sinusoidal"],
                              final=FINAL_NORM if config.norm_placement == "pre" else "")
    return "<hr>".join([f"<div style=\"{_STYLE}\">{text}</div>",
                        card_html("attention")]
                       # the sinusoid's card only where the model adds one
                       + ([card_html("positional")] if config.positional == "sinusoidal"
                          else []))
