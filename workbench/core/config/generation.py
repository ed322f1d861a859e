"""Generation settings (torch-free): what the generation console's form edits.

Decoding strategies beyond plain autoregressive sampling (temperature, top-k, top-p, beam search,
length penalty) are not in the course texts (SEEDS.md 2.8 D5); the tooltips cite where they
come from.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.core.config.fields import param, range_problems

STRATEGIES = ("greedy", "sample", "top-k", "top-p", "beam")


@dataclass
class GenerationConfig:
    strategy: str = param("top-k", "Strategy", "greedy: always the most likely token (argmax); "
                          "sample: draw from softmax(z / T); top-k: draw among the k most likely; "
                          "top-p: draw from the smallest set whose probability reaches p "
                          "(nucleus); beam: keep the best `width` sequences. Sampling from the "
                          "softmax is SLP3 ch. 9 sec. 9.4.3; the others go beyond the course texts "
                          "(top-k: Fan et al. 2018; top-p: Holtzman et al. 2020).",
                          choices=STRATEGIES)
    max_tokens: int = param(200, "Max tokens", "Stop after this many new tokens.", min=1,
                            max=5000)
    temperature: float = param(1.0, "Temperature", "Divide the logits by T before softmax: "
                               "T < 1 sharpens, T > 1 flattens (compared with top-k and top-p "
                               "by Holtzman et al. 2020).", min=0.05, max=5.0, step=0.05)
    top_k: int = param(40, "Top k", "Sample among the k most likely tokens (Fan et al. 2018).",
                       min=1, max=100000)
    top_p: float = param(0.9, "Top p", "Smallest set of tokens whose probabilities sum to at "
                         "least p (nucleus sampling, Holtzman et al. 2020).", min=0.01,
                         max=1.0, step=0.01)
    beam_width: int = param(4, "Beam width", "Sequences kept at each step of beam search.",
                            min=1, max=64)
    length_penalty: float = param(1.0, "Length penalty", "Beam score = log P / length^α; "
                                  "α > 0 favours longer outputs, 0 = raw log probability.",
                                  min=0.0, max=3.0, step=0.1)
    stop_sequence: str = param("", "Stop at", "Stop when the generated text contains this "
                               "(empty: only the end token or the length limit stops).")
    seed: int = param(0, "Seed", "Random seed: the same seed, prompt and snapshot give the same "
                      "text.", min=0, max=2**31 - 1)

    def problems(self) -> list[str]:
        return range_problems(self)


RECURRENT_ARCHS = ("rnn", "lstm", "gru")


def clamp_limits(model_config: dict) -> tuple[str, int, int] | None:
    """What a clamp can fix in the model of `model_config` (a snapshot's config dict): ("unit",
    layers, hidden units) for a recurrent language model, ("head", layers, heads) for a
    transformer, None for a model the console cannot clamp."""
    arch = str(model_config.get("arch", ""))
    layers = int(model_config.get("num_layers", 1) or 1)
    if arch in RECURRENT_ARCHS:
        return "unit", layers, int(model_config.get("hidden_size", 0) or 0)
    if arch == "transformer":
        return "head", layers, int(model_config.get("num_heads", 0) or 0)
    return None


def clamp_problems(model_config: dict, clamp: dict | None) -> list[str]:
    """Why `clamp` ({"layer", "unit" | "head", "value"}) cannot apply to this model, naming
    the valid range: a clamp on a unit, head or layer that does not exist would do nothing."""
    if not clamp:
        return []
    limits = clamp_limits(model_config)
    arch = model_config.get("arch", "?")
    if limits is None:
        return [f"This {arch} model cannot be clamped: clamps fix a recurrent unit (RNN, LSTM, "
                "GRU) or an attention head (transformer)."]
    kind, layers, size = limits
    other = "head" if kind == "unit" else "unit"
    if other in clamp:
        return [f"A {arch} model has no attention {other}s to clamp: clamp a {kind} instead."
                if other == "head" else
                "A transformer has no recurrent units to clamp: clamp a head instead."]
    problems = []
    layer, index = int(clamp.get("layer", 0)), int(clamp.get(kind, 0))
    if not 0 <= layer < layers:
        problems.append(f"Layer {layer} does not exist: this model has {layers} "
                        f"layer{'s' if layers != 1 else ''} (0 to {layers - 1}).")
    if not 0 <= index < size:
        problems.append(f"{kind.capitalize()} {index} does not exist: each layer has {size} "
                        f"{kind}s (0 to {size - 1}).")
    return problems


def describe_settings(config: GenerationConfig, clamp: dict | None = None) -> str:
    """The settings of one generation in a line, for the history: strategy and its
    parameters, length, seed, stop text and clamp."""
    parts = [config.strategy]
    if config.strategy in ("sample", "top-k", "top-p"):
        parts.append(f"T={config.temperature:g}")
    if config.strategy == "top-k":
        parts.append(f"k={config.top_k}")
    if config.strategy == "top-p":
        parts.append(f"p={config.top_p:g}")
    if config.strategy == "beam":
        parts.append(f"width {config.beam_width}, α={config.length_penalty:g}")
    parts.append(f"max {config.max_tokens}")
    if config.strategy in ("sample", "top-k", "top-p"):
        parts.append(f"seed {config.seed}")
    if config.stop_sequence:
        parts.append(f"stop at {config.stop_sequence!r}")
    if clamp:
        kind = "unit" if "unit" in clamp else "head"
        parts.append(f"clamp layer {clamp['layer']} {kind} {clamp[kind]} = {clamp['value']:g}")
    return ", ".join(parts)
