"""The Architecture panel's equation card: the language-model frame around the cell's equations.

Cell cards come from `cell_equations` (shared with the inspectors); this adds the frame of
SLP3 (9.6)-(9.8) and the transformer block in post-LN (as Vaswani et al. and SLP3 write it) or
pre-LN form. The card says what this model computes: the √d scaling of the embeddings when the
positions are sinusoidal, every bias, and any ablation switched on in the model settings.
"""

from __future__ import annotations

import math

from workbench.core.config.base import ModelConfig
from workbench.core.config.models import RecurrentConfig, TransformerConfig
from workbench.core.config.summary import ModelSummary
from workbench.qt.widgets.cell_equations import CARDS, attention_card, card_html, source, wrap

# the output lines of a language model, which an encoder task's head replaces
RECURRENT_OUTPUT = "ŷ<sub>t</sub> = softmax(V h<sub>t</sub> + b) &nbsp;(weight tying: V = E)<br>"
POST_OUTPUT = "proba = softmax(X W<sub>out</sub> + b<sub>out</sub>)<br>"
PRE_OUTPUT = "proba = softmax(LayerNorm(X) W<sub>out</sub> + b<sub>out</sub>)<br>"

RECURRENT_FRAME = """
<b>Recurrent language model</b><br>
e<sub>t</sub> = E x<sub>t</sub> &nbsp;(embedding lookup: the column of E for x<sub>t</sub>)<br>
h<sub>t</sub><sup>[l]</sup> = cell(h<sub>t−1</sub><sup>[l]</sup>, h<sub>t</sub><sup>[l−1]</sup>),
&nbsp;h<sub>t</sub><sup>[0]</sup> = e<sub>t</sub> &nbsp;(stacked layers)<br>
""" + RECURRENT_OUTPUT + source("Jurafsky &amp; Martin, SLP3 ch. 9, eqs. 9.6–9.8 and sec. "
                                "9.3 (weight tying).")

POST_BLOCK = """
X := LayerNorm(X + MaskedMultiHead(X))<br>
X := LayerNorm(X + max{0, X W<sub>1</sub> + b<sub>1</sub>} W<sub>2</sub> + b<sub>2</sub>)<br>
""" + POST_OUTPUT

PRE_BLOCK = """
X := X + MaskedMultiHead(LayerNorm(X))<br>
X := X + FFN(LayerNorm(X)), &nbsp;FFN(z) = max{0, z W<sub>1</sub> + b<sub>1</sub>} W<sub>2</sub>
+ b<sub>2</sub><br>
""" + PRE_OUTPUT

LAYER_NORM = (
    "LayerNorm(x) = γ (x − μ) / σ + β with the population σ (SLP3 eqs. 9.39–9.42; Ba et al. "
    "2016); PyTorch adds ε = 10<sup>−5</sup> under the root."
)


def embedding_line(config: TransformerConfig | None) -> str:
    """X_0 as this model computes it."""
    positional = config.positional if config is not None else "sinusoidal"
    if positional == "sinusoidal":
        d = int(config.d_model or 0) if config is not None else 0
        root = f" (√{d} ≈ {math.sqrt(d):.2f})" if d else ""
        return ("X<sub>0</sub> = √d · E[x] + P &nbsp;(token embeddings scaled by √d"
                f"{root}, as Vaswani et al. 2017 sec. 3.4 do, plus the sinusoidal positions)<br>")
    if positional == "learned":
        return "X<sub>0</sub> = E[x] + P &nbsp;(token embedding plus a learned position row)<br>"
    if positional == "rope":
        return ("X<sub>0</sub> = E[x] &nbsp;(nothing added: rotary positions turn each head's "
                "q<sub>i</sub> and k<sub>j</sub> by their positions before q·k, RoPE)<br>")
    return ("X<sub>0</sub> = E[x] &nbsp;<i>(ablation: no positional information, so a permuted "
            "input gives the same outputs, permuted)</i><br>")


def transformer_frame(config: TransformerConfig | None) -> str:
    pre = config is not None and config.norm_placement == "pre"
    title = ("pre-LN (GPT-2's placement; Xiong et al. 2020)" if pre
             else "post-LN (Vaswani et al. 2017; SLP3 eqs. 9.37–9.38)")
    cite = ("Radford et al. 2019 (GPT-2); Xiong et al. 2020." if pre else
            "Vaswani et al. 2017, sec. 3.1; Jurafsky &amp; Martin, SLP3 ch. 9, eqs. 9.37–9.38.")
    block = PRE_BLOCK if pre else POST_BLOCK
    notes = LAYER_NORM
    if config is not None and not config.causal_mask:
        block = block.replace("MaskedMultiHead", "MultiHead")
    if config is not None and config.activation in GELU_FORMS:
        for z in ("X", "z"):  # the FFN's nonlinearity as this model computes it
            block = block.replace(f"max{{0, {z} W<sub>1</sub> + b<sub>1</sub>}}",
                                  f"GELU({z} W<sub>1</sub> + b<sub>1</sub>)")
        notes += " " + GELU_FORMS[config.activation]
    if config is not None and not config.head_bias:
        block = block.replace(" + b<sub>out</sub>", "")  # GPT-2's head has no bias
    if config is not None:
        block += "".join(f"{line}<br>" for line in llama_options(config))
    return (f"<b>Transformer decoder block</b>, {title}<br>{embedding_line(config)}{block}"
            f"<small>{notes}</small>{source(cite)}")


def llama_options(config: TransformerConfig) -> list[str]:
    """What this block computes instead of the seeds' form, one line each: the options a
    Llama folder sets (off for every course model, which gets no line)."""
    lines = []
    if config.norm == "rmsnorm":
        lines.append("LayerNorm is RMSNorm here: γ x / √(mean(x²) + ε), no μ and no β "
                     "(Zhang &amp; Sennrich 2019)")
    if config.positional == "rope":
        lines.append(f"RoPE: q̃<sub>i</sub> = R<sub>i</sub> q<sub>i</sub>, k̃<sub>j</sub> = "
                     f"R<sub>j</sub> k<sub>j</sub>, pair p turned by i·θ<sub>p</sub>, θ<sub>p"
                     f"</sub> = {config.rope_theta:g}<sup>−2p/d_k</sup> (Su et al. 2021)")
    if config.gated_ffn:
        lines.append("FFN(z) = (f(z W<sub>gate</sub>) ⊙ z W<sub>1</sub>) W<sub>2</sub>"
                     + (", SwiGLU (Shazeer 2020)" if config.activation == "silu" else ""))
    if 0 < config.kv_heads < config.num_heads:
        lines.append(f"{config.kv_heads} key/value heads, each shared by "
                     f"{config.num_heads // config.kv_heads} query heads (grouped-query "
                     "attention, Ainslie et al. 2023)")
    if not config.linear_bias:
        lines.append("no biases b in the attention and feed-forward projections")
    return lines


GELU_FORMS = {
    "gelu": "GELU(x) = x Φ(x), Φ the standard normal's distribution function (Hendrycks and "
            "Gimpel 2016; BERT).",
    "gelu_tanh": "GELU in GPT-2's tanh form: 0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³))).",
}


# What an encoder task's head computes from the encoder's states h_1 … h_n (SLP3 9.4).
HEAD_FRAMES = {
    "sequence_classifier": (
        "<b>Sequence classifier</b> (SLP3 sec. 9.4.2)<br>h = pool(h<sub>1</sub> … "
        "h<sub>n</sub>) &nbsp;(last state, mean, max, attention weights or [CLS])<br>"
        "ŷ = softmax(W h + b) &nbsp;(one sigmoid unit for two labels), one loss per sentence"),
    "token_tagger": (
        "<b>Sequence labelling</b> (SLP3 sec. 9.4.1)<br>ŷ<sub>t</sub> = softmax(W h<sub>t</sub> "
        "+ b) &nbsp;a tag distribution per token (a word's first piece), one loss per word"),
    "masked_lm": (
        "<b>Masked language model</b> (BERT; Devlin et al. 2019)<br>x<sub>t</sub> = "
        "LayerNorm(GELU(W h<sub>t</sub> + b)) &nbsp;the head's transform<br>ŷ<sub>t</sub> = "
        "softmax(x<sub>t</sub> E<sup>T</sup> + b<sub>V</sub>) over the vocabulary, E the input "
        "embedding (tied, as BERT; untied: a matrix of its own), at the chosen positions (the "
        "task's Chosen share: BERT's 15%; of those 80% [MASK], 10% random, 10% kept), the loss "
        "on those only"),
}


SERIES_FRAME = """
<b>Series forecaster</b> (the course's autoregressive framing of a series)<br>
e<sub>t</sub> = W<sub>in</sub> x<sub>t</sub> + b<sub>in</sub> &nbsp;(x<sub>t</sub> is a number: a
linear layer, not a lookup)<br>
h<sub>t</sub><sup>[l]</sup> = cell(h<sub>t−1</sub><sup>[l]</sup>, h<sub>t</sub><sup>[l−1]</sup>),
&nbsp;h<sub>t</sub><sup>[0]</sup> = e<sub>t</sub><br>
x̂<sub>t+1</sub> = w<sub>out</sub> · h<sub>t</sub> + b<sub>out</sub> &nbsp;one number; the loss
is the mean squared error against x<sub>t+1</sub> (standardised units)<br>
""" + source("Vitrià, “Deep Sequential Models &amp; Embeddings” (the course's seed 002), "
             "time series as autoregressive models; Jurafsky &amp; Martin, SLP3 ch. 9, "
             "eqs. 9.6–9.8 for the recurrence.")


def architecture_card(summary: ModelSummary, config: ModelConfig | None = None) -> str:
    """Rich text for the card of the summarized model (`config` its model config; for an
    encoder task's model, its encoder's config)."""
    card = _model_card(summary, config)
    if summary.arch == "series_forecaster":  # the recurrence of a language model, on numbers
        return card.replace(RECURRENT_FRAME, SERIES_FRAME)
    head = HEAD_FRAMES.get(summary.arch)
    if head is None:
        return card
    # the encoder's frame speaks of a language model's output: the head replaces those lines
    for line in (RECURRENT_OUTPUT, POST_OUTPUT, PRE_OUTPUT):
        card = card.replace(line, "")
    card = card.replace("<b>Recurrent language model</b>", "<b>Recurrent encoder</b>")
    card = card.replace("<b>Transformer decoder block</b>", "<b>Transformer encoder block</b>")
    return f"<div>{head}</div><hr>{card}"


def _model_card(summary: ModelSummary, config: ModelConfig | None = None) -> str:
    kinds = [row.kind.lower() for row in summary.rows]
    # the cell's card: a recurrent model's own arch, else the fused layers' (nn.GRU -> "gru")
    cells = ([config.arch] if isinstance(config, RecurrentConfig) and config.arch in CARDS
             else [k for k in dict.fromkeys(kinds) if k in CARDS])
    if "block" in kinds:
        blocks = config if isinstance(config, TransformerConfig) else None
        attention = wrap(attention_card(blocks.causal_mask if blocks else True,
                                        blocks.scale_scores if blocks else True,
                                        encoder=summary.arch in HEAD_FRAMES))
        parts = [attention, f"<div>{transformer_frame(blocks)}</div>"]
        positional = blocks.positional if blocks else "sinusoidal"
        if positional == "sinusoidal":
            parts.append(card_html("positional"))
        elif positional == "rope":
            parts.append("<div><b>Rotary positions</b>: nothing is added to the embeddings; "
                         "each head's q and k are rotated by their position, so q̃<sub>i</sub>"
                         " · k̃<sub>j</sub> depends on i − j." + source("Su et al. 2021 "
                                                                     "(RoFormer).") + "</div>")
        elif positional == "learned":
            parts.append("<div><b>Learned positions</b>: P is a trained table of one row per "
                         "position up to the context length."
                         + source("Jurafsky &amp; Martin, SLP3 ch. 9, sec. 9.7.3; "
                                  "Radford et al. 2018 (GPT).") + "</div>")
        return "<hr>".join(parts)
    bidirectional = any("bidirectional" in row.note for row in summary.rows)
    note = ("Bidirectional: h<sub>t</sub> = [h<sub>t</sub><sup>f</sup>; h<sub>t</sub><sup>b</sup>]"
            " (SLP3 eqs. 9.15–9.17)." if bidirectional else "")
    if isinstance(config, RecurrentConfig) and config.recurrent_init == "identity":
        note += ("<br>Initialisation: U = I (each gate block), b = 0, the remedy for vanishing "
                 "gradients of Le, Jaitly &amp; Hinton 2015.")
    return "<hr>".join([f"<div>{RECURRENT_FRAME}</div>",
                        *(card_html(cell, note) for cell in cells)])
