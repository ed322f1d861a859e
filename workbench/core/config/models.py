"""Model configurations (torch-free) and the registry of architecture names to config types.

The torch side (`workbench.core.models`) registers a builder for each name; the form in the
Architecture panel is generated from these dataclasses. `vocab_size` is not a form field: it
comes from the tokenizer when a model is built.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from workbench.core.config.base import ModelConfig
from workbench.core.config.fields import from_dict, param, range_problems, to_dict
from workbench.core.recurrent_cells import CELLS

MODEL_CONFIGS: dict[str, type[ModelConfig]] = {}
C = TypeVar("C", bound=type[ModelConfig])


def register_config(cls: C) -> C:
    """Class decorator: make a config type available under its `arch` name."""
    MODEL_CONFIGS[cls.arch] = cls
    return cls


def settings_problems(config: Any) -> list[str]:
    """What is wrong with a model config before it is built: its own problems, and a
    vocabulary size (a language model's, or a translator's source and target) not yet set."""
    problems = list(config.problems())
    sizes = [getattr(config, name) for name in config.__dataclass_fields__
             if name.endswith("vocab_size")]
    if any(size < 1 for size in sizes):
        problems.append("The vocabulary size is not set: tokenize a corpus first.")
    return problems


def architectures() -> list[str]:
    return list(MODEL_CONFIGS)


def language_model_configs() -> dict[str, type[ModelConfig]]:
    """The architectures that can be trained as next-token language models (an encoder-only
    one, such as the transformer encoder, cannot)."""
    return {arch: cls for arch, cls in MODEL_CONFIGS.items() if cls.language_model}


def architectures_for(task: str) -> dict[str, type[ModelConfig]]:
    """The configs of the architectures that can learn `task`: the language models for
    "language_model", else those whose `tasks` ClassVar names the task."""
    if task == "language_model":
        return language_model_configs()
    return {arch: cls for arch, cls in MODEL_CONFIGS.items()
            if task in cls.tasks}


def config_to_dict(config: ModelConfig) -> dict[str, Any]:
    return {"arch": config.arch, **to_dict(config)}


def config_from_dict(data: dict[str, Any]) -> ModelConfig:
    arch = data.get("arch")
    if arch not in MODEL_CONFIGS:
        known = ", ".join(MODEL_CONFIGS)
        raise ValueError(f"Unknown architecture '{arch}'. Known: {known}.")
    return from_dict(MODEL_CONFIGS[arch], data)


@dataclass
class RecurrentConfig(ModelConfig):
    """Shared fields of the recurrent family (Elman RNN, LSTM, GRU)."""

    arch: ClassVar[str] = ""
    title: ClassVar[str] = ""
    language_model: ClassVar[bool] = True  # also a next-token model (not only an encoder)
    tasks: ClassVar[tuple[str, ...]] = ("language_model", "classify", "tag", "masked_lm",
                                        "forecast")
    vocab_size: int = 0
    embedding_size: int = param(64, "Embedding size",
                                "Width d of the token embeddings e_t = E x_t.", min=2,
                                max=4096, step=8)
    hidden_size: int = param(256, "Hidden size", "Units in each recurrent layer (d_h).",
                             min=2, max=8192, step=16)
    num_layers: int = param(1, "Layers", "Stacked recurrent layers; each feeds the next.",
                            min=1, max=8)
    dropout: float = param(0.0, "Dropout", "Dropout between stacked layers and before the "
                           "output projection (0 = none).", min=0.0, max=0.9, step=0.05)
    tie_weights: bool = param(False, "Tie weights", "Share the input embedding E with the output "
                              "projection V (E = V, SLP3 sec. 9.3). Needs hidden size = embedding "
                              "size.")
    bidirectional: bool = param(False, "Bidirectional", "Run a second layer right to left and "
                                "concatenate. For encoders and classifiers only: a language "
                                "model must not see the token it predicts, so training refuses "
                                "it.", advanced=True)
    recurrent_init: str = param("default", "Recurrent init",
                                "default: PyTorch's uniform ±1/√H for every weight. identity: "
                                "the recurrent matrices U start as the identity (each gate's "
                                "block) and the biases at zero, the remedy for vanishing "
                                "gradients of Le, Jaitly & Hinton 2015 (best with ReLU in an "
                                "Elman RNN).", choices=("default", "identity"), advanced=True)

    def problems(self) -> list[str]:
        problems = range_problems(self)
        if self.tie_weights and self.hidden_size != self.embedding_size:
            problems.append(
                "Weight tying needs hidden size = embedding size "
                f"({self.hidden_size} ≠ {self.embedding_size})."
            )
        if self.tie_weights and self.bidirectional:
            problems.append("Weight tying and bidirectional layers do not combine.")
        return problems


@register_config
@dataclass
class RnnConfig(RecurrentConfig):
    arch: ClassVar[str] = "rnn"
    title: ClassVar[str] = "Elman RNN"
    nonlinearity: str = param("tanh", "Nonlinearity", "g in h_t = g(U h_{t-1} + W x_t).",
                              choices=("tanh", "relu"))


@register_config
@dataclass
class LstmConfig(RecurrentConfig):
    arch: ClassVar[str] = "lstm"
    title: ClassVar[str] = "LSTM"


@register_config
@dataclass
class GruConfig(RecurrentConfig):
    arch: ClassVar[str] = "gru"
    title: ClassVar[str] = "GRU"


def _cell_config(name: str, title: str, tasks: tuple[str, ...]) -> type[RecurrentConfig]:
    """The config of a cell with no settings of its own beyond the family's (a new file in
    core/recurrent_cells needs nothing here)."""
    namespace = {"arch": name, "title": title, "__module__": __name__,
                 "__qualname__": f"{name.title().replace('_', '')}Config",
                 "__annotations__": {"arch": "ClassVar[str]", "title": "ClassVar[str]"}}
    if tasks:
        namespace["tasks"] = tasks
        namespace["__annotations__"]["tasks"] = "ClassVar[tuple[str, ...]]"
    cls = dataclass(type(namespace["__qualname__"], (RecurrentConfig,), namespace))
    globals()[cls.__name__] = cls  # importable by name, as pickling needs
    return register_config(cls)


for _cell in CELLS.values():
    if _cell.name not in MODEL_CONFIGS:
        _cell_config(_cell.name, _cell.title, _cell.tasks)


@register_config
@dataclass
class TransformerConfig(ModelConfig):
    """A GPT-style causal decoder."""

    arch: ClassVar[str] = "transformer"
    title: ClassVar[str] = "Transformer (decoder)"
    language_model: ClassVar[bool] = True
    vocab_size: int = 0
    d_model: int = param(128, "Width d_model", "Width of tokens, attention and residual stream.",
                         min=8, max=4096, step=8)
    num_heads: int = param(4, "Heads", "Attention heads per layer; must divide d_model.",
                           min=1, max=64)
    num_layers: int = param(2, "Layers", "Transformer blocks.", min=1, max=48)
    d_ff: int = param(512, "Feed-forward width", "Hidden width of the position-wise FFN "
                      "(often 4 × d_model).", min=8, max=16384, step=8)
    context_length: int = param(128, "Context length", "Longest sequence the model attends "
                                "over (block size).", min=2, max=8192, step=8)
    dropout: float = param(0.1, "Dropout", "Dropout on attention weights, residual branches and "
                           "embeddings.", min=0.0, max=0.9, step=0.05)
    positional: str = param("sinusoidal", "Positions", "Sinusoidal encoding (Vaswani et al. "
                            "2017, sec. 3.5), learned position embeddings, rotary (RoPE, Su et "
                            "al. 2021: q and k rotated by their position, nothing added to "
                            "the embeddings; Llama's), or none (an ablation: without "
                            "positions self-attention cannot tell word order, so permuting "
                            "the input only permutes the outputs).",
                            choices=("sinusoidal", "learned", "rope", "none"))
    norm_placement: str = param("post", "LayerNorm", "post-LN as Vaswani et al. and SLP3 write it "
                                "(x + Sublayer(x), then norm) or pre-LN (norm inside the "
                                "residual branch).", choices=("post", "pre"))
    tie_weights: bool = param(False, "Tie weights", "Share the token embedding with the output "
                              "projection (E = V). Off by default: with post-LN and sinusoidal "
                              "positions a tied character model sat at the unigram loss for "
                              "its first 150+ steps in our runs; untied it learns at once.")
    activation: str = param("relu", "FFN activation", "The feed-forward layer's nonlinearity: "
                            "ReLU max(0, x) as Vaswani et al. and the seeds write it, GELU "
                            "x·Φ(x) (BERT), GELU's tanh approximation (GPT-2), or SiLU "
                            "x·σ(x) (Llama, in its gated FFN).",
                            choices=("relu", "gelu", "gelu_tanh", "silu"), advanced=True)
    head_bias: bool = param(True, "Output bias", "A bias b in logits = x V + b. GPT-2 has none "
                            "(its head is the tied embedding alone): turn it off, with pre-LN "
                            "and learned positions, for a model that exports as a GPT-2 folder.",
                            advanced=True)
    causal_mask: bool = param(True, "Causal mask", "Add M (−∞ above the diagonal) to the "
                              "scores so a position sees only itself and the past. Turning it "
                              "off is an ablation: training then reads the next token, the "
                              "validation loss collapses and generation fails.", advanced=True)
    scale_scores: bool = param(True, "Scale by 1/√d_k", "Divide the scores QKᵀ by √d_k before "
                               "the softmax. Turning it off is an ablation: large scores "
                               "saturate the softmax and its gradients vanish (Vaswani et al. "
                               "2017, sec. 3.2.1).", advanced=True)
    # [NOT IN SEEDS] what Llama-style models use; each default keeps the course transformer
    norm: str = param("layernorm", "Norm", "LayerNorm γ(x − μ)/σ + β, or RMSNorm γx/RMS(x) "
                      "(Zhang & Sennrich 2019: no mean subtracted, no β; Llama's).",
                      choices=("layernorm", "rmsnorm"), advanced=True)
    rope_theta: float = param(10000.0, "RoPE base θ", "With rotary positions, pair p of each "
                              "head turns by i·θ^(−2p/d_k) at position i (Su et al. 2021).",
                              min=1.0, max=1e9, advanced=True)
    kv_heads: int = param(0, "Key/value heads", "Grouped-query attention (Ainslie et al. "
                          "2023): this many key/value heads, each shared by a group of query "
                          "heads; 0 gives every head its own (multi-head attention).",
                          min=0, max=64, advanced=True)
    gated_ffn: bool = param(False, "Gated FFN", "FFN(x) = (f(x W_gate) ⊙ x W_1) W_2: with SiLU "
                            "this is SwiGLU (Shazeer 2020), Llama's feed-forward.",
                            advanced=True)
    linear_bias: bool = param(True, "Biases", "A bias b in every attention and feed-forward "
                              "projection. Llama has none.", advanced=True)
    # ε of every norm (blocks, final, an encoder's embedding and masked-LM head): 1e-5 is
    # torch's default and what every model trained here used; folders bring their own (BERT
    # 1e-12, Llama 1e-5 or 1e-6). Not a form field.
    norm_eps: float = 1e-5

    def longest_sequence(self) -> int | None:
        return self.context_length

    def problems(self) -> list[str]:
        problems = range_problems(self)
        if self.num_heads > 0 and self.d_model % self.num_heads:
            problems.append(
                f"Heads ({self.num_heads}) must divide the width d_model ({self.d_model})."
            )
        elif self.positional == "rope" and self.num_heads > 0 \
                and (self.d_model // self.num_heads) % 2:
            problems.append(f"Rotary positions turn pairs of dimensions: the head width "
                            f"d_model / heads ({self.d_model // self.num_heads}) must be even.")
        if self.kv_heads > 0 and self.num_heads % self.kv_heads:
            problems.append(f"Key/value heads ({self.kv_heads}) must divide the heads "
                            f"({self.num_heads}).")
        if getattr(self, "segments", 0) < 0:  # the encoder's only
            problems.append(f"The segment table needs 0 or more rows (got {self.segments}).")
        if not 0 < self.norm_eps < 1:
            norm = "RMSNorm" if self.norm == "rmsnorm" else "LayerNorm"
            problems.append(f"The {norm} ε must lie between 0 and 1 (got {self.norm_eps}).")
        return problems


@register_config
@dataclass
class TransformerEncoderConfig(TransformerConfig):
    """Transformer blocks without the causal mask: every position attends to every other.

    An encoder, not a language model: it feeds a classifier, a tagger or a masked-LM head.
    `tie_weights` ties the masked-LM head's output matrix to the token embedding.
    """

    arch: ClassVar[str] = "transformer_encoder"
    title: ClassVar[str] = "Transformer (encoder)"
    language_model: ClassVar[bool] = False
    tasks: ClassVar[tuple[str, ...]] = ("classify", "tag", "masked_lm")
    tie_weights: bool = param(False, "Tie weights", "Share the token embedding with the "
                              "masked-LM head's output matrix (E = V, as BERT does).")
    causal_mask: bool = param(False, "Causal mask", "An encoder reads both sides, so no mask "
                              "by default. On: every position sees only itself and the past, "
                              "as in a decoder (an ablation).", advanced=True)
    head_bias: bool = True  # no output layer of its own: the task heads have theirs
    cls_token: bool = param(False, "[CLS] token", "Prepend a learned [CLS] vector at position "
                            "0 (BERT): a classifier may read the sentence from its state. The "
                            "context length must hold it too.")
    embedding_norm: bool = param(False, "Embedding LayerNorm", "Normalise x_0 = E[tokens] + P "
                                 "with a LayerNorm before the first block, as BERT does. Off: "
                                 "x_0 as the course's transformer writes it.", advanced=True)
    # BERT's segment ("token type") table S (segments × d): x_0 = E[tokens] + P + S[segment
    # ids], sentence A of a pair segment 0, sentence B segment 1 (Devlin et al. 2019, sec.
    # 3.1; SEEDS T16). 0: no table, the x_0 every model made before it had. Not a form field:
    # the masked-LM task's next-sentence option and a BERT folder read for it set it.
    segments: int = 0
