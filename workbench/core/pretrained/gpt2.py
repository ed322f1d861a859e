"""GPT-2 (Radford et al. 2019) as the app's transformer decoder: its config.json mapped onto
`TransformerConfig`, its tensors renamed and its Conv1D weights transposed.

GPT-2 is the transformer of SLP3 sec. 9.7 with pre-LN (x + Sublayer(LN(x)), a last LayerNorm
before the head), learned positions, GELU in the tanh form ("gelu_new") and the output tied to
the token embedding with no bias. Its Conv1D layers store W as (in, out), torch's Linear as
(out, in): each is transposed once here.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from workbench.core.config.models import TransformerConfig
from workbench.core.jobs import UserFacingError

ACTIVATIONS = {"gelu_new": "gelu_tanh", "gelu_pytorch_tanh": "gelu_tanh", "gelu": "gelu",
               "relu": "relu"}
# GPT-2 name (after "h.N.") -> the app's name (after "blocks.N."), and whether it is a Conv1D
_BLOCK = {
    "ln_1": ("norm1", False), "attn.c_attn": ("qkv", True), "attn.c_proj": ("proj", True),
    "ln_2": ("norm2", False), "mlp.c_fc": ("ff_in", True), "mlp.c_proj": ("ff_out", True),
}
_TOP = {"wte.weight": "embedding.weight", "wpe.weight": "positions.weight",
        "ln_f.weight": "final_norm.weight", "ln_f.bias": "final_norm.bias"}
_LAYER = re.compile(r"h\.(\d+)\.(.+)\.(weight|bias)")
# buffers older GPT-2 files carry (the causal mask as a tensor): rebuilt, not read
_SKIPPED = re.compile(r"(h\.\d+\.attn\.(bias|masked_bias))")


def _number(config: dict[str, Any], key: str, default: Any = None) -> Any:
    value = config.get(key, default)
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        raise UserFacingError(f"This GPT-2 folder's config.json gives '{key}' as {value!r}, "
                              "not a number. The file was damaged or edited.")
    return value


def model_config(config: dict[str, Any]) -> TransformerConfig:
    """The app's transformer with GPT-2's sizes and choices; `UserFacingError` naming a GPT-2
    option this transformer does not compute."""
    activation = config.get("activation_function", "gelu_new")
    if activation not in ACTIVATIONS:
        raise UserFacingError(f"This GPT-2 model uses the activation '{activation}'; the "
                              f"workbench computes {', '.join(ACTIVATIONS)}.")
    for option in ("scale_attn_by_inverse_layer_idx", "add_cross_attention"):
        if config.get(option):
            raise UserFacingError(f"This GPT-2 model sets '{option}', which the workbench's "
                                  "transformer does not compute, so its numbers would differ.")
    epsilon = float(_number(config, "layer_norm_epsilon", 1e-5))
    if abs(epsilon - 1e-5) > 1e-12:
        raise UserFacingError(f"This GPT-2 model's LayerNorm ε is {epsilon:g}; the workbench's "
                              "transformer uses 1e-5, so its numbers would differ.")
    width = int(_number(config, "n_embd"))
    inner = config.get("n_inner")
    return TransformerConfig(
        vocab_size=int(_number(config, "vocab_size")),
        d_model=width,
        num_heads=int(_number(config, "n_head")),
        num_layers=int(_number(config, "n_layer")),
        d_ff=int(_number(config, "n_inner")) if inner is not None else 4 * width,
        context_length=int(_number(config, "n_positions")),
        dropout=0.0,  # inference; a fine-tuning run sets its own
        positional="learned",
        norm_placement="pre",
        tie_weights=bool(config.get("tie_word_embeddings", True)),
        activation=ACTIVATIONS[activation],
        head_bias=False,
        scale_scores=bool(config.get("scale_attn_weights", True)),
    )


def app_name(name: str) -> str | None:
    """The app's name for a GPT-2 tensor name; None for a buffer that is rebuilt, not read;
    `UserFacingError` for a tensor GPT-2 does not have."""
    bare = name.removeprefix("transformer.")
    if _SKIPPED.fullmatch(bare):
        return None
    if bare in _TOP:
        return _TOP[bare]
    if bare == "lm_head.weight":
        return "head.weight"
    match = _LAYER.fullmatch(bare)
    if match and match.group(2) in _BLOCK:
        return f"blocks.{match.group(1)}.{_BLOCK[match.group(2)][0]}.{match.group(3)}"
    raise UserFacingError(f"This folder's weights hold '{name}', which a GPT-2 model does not "
                          "have. It is another kind of model, or its files were mixed.")


def is_conv1d(name: str) -> bool:
    match = _LAYER.fullmatch(name.removeprefix("transformer."))
    return bool(match and match.group(3) == "weight" and match.group(2) in _BLOCK
                and _BLOCK[match.group(2)][1])


def app_shape(name: str, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The shape a GPT-2 tensor has once renamed (a Conv1D weight transposed)."""
    return tuple(reversed(shape)) if is_conv1d(name) else tuple(shape)


def wanted(name: str) -> bool:
    """Whether the reader reads the tensor (not a buffer that is rebuilt)."""
    return app_name(name) is not None


def app_shapes(shapes: dict[str, tuple[int, ...]], config: TransformerConfig
               ) -> dict[str, tuple[int, ...]]:
    """The app's names and shapes of a weights file's tensors (from its header alone)."""
    out = {app_name(name): app_shape(name, shape) for name, shape in shapes.items()
           if app_name(name) is not None}
    if config.tie_weights and "embedding.weight" in out:
        out["head.weight"] = out["embedding.weight"]
    return out  # type: ignore[return-value] - the None names were left out


def snapshot_parts(tokenizer: Any, config: TransformerConfig) -> tuple[dict, dict]:
    """The snapshot's tokenizer entry and its task (a language model: {})."""
    return tokenizer.to_dict(), {}


def app_weights(tensors: dict[str, np.ndarray], config: TransformerConfig
                ) -> dict[str, np.ndarray]:
    """GPT-2's tensors under the app's names, as the model's state_dict has them."""
    tied = config.tie_weights
    out: dict[str, np.ndarray] = {}
    for name, value in tensors.items():
        target = app_name(name)
        if target is None:
            continue
        # a Conv1D's (in, out) array seen as the (out, in) weight a Linear holds: a view, not a
        # copy (a one-row product x·W then reads W in GPT-2's own order, as fast as its Conv1D)
        out[target] = value.T if is_conv1d(name) else value
    if tied:  # the head is the embedding (one tensor, two names in the state_dict)
        out["head.weight"] = out["embedding.weight"]
    return out


# --- the other way: the app's transformer as a GPT-2 folder (export.py writes it) ------------

EXPORT_ACTIVATIONS = {"gelu_tanh": "gelu_new", "gelu": "gelu", "relu": "relu"}
_APP_BLOCK = {app: (gpt2_name, conv) for gpt2_name, (app, conv) in _BLOCK.items()}
_APP_TOP = {app: gpt2_name for gpt2_name, app in _TOP.items()}
_APP_LAYER = re.compile(r"blocks\.(\d+)\.(\w+)\.(weight|bias)")


def export_problems(config: Any) -> list[str]:
    """Why a model config cannot be written as GPT-2 (each names the setting to change)."""
    if config.arch != "transformer":
        return [f"it is {config.title}, not the transformer decoder GPT-2 is"]
    checks = [
        (config.norm_placement == "pre", "LayerNorm must be pre-LN (GPT-2 normalises inside "
                                          "each residual branch)"),
        (config.positional == "learned", "Positions must be learned, not "
         + ("rotary (RoPE)" if config.positional == "rope" else config.positional)),
        (not config.head_bias, "Output bias must be off (GPT-2's head has none)"),
        (config.causal_mask, "the Causal mask must be on"),
        (config.activation in EXPORT_ACTIVATIONS, f"the activation {config.activation} has "
                                                  "no GPT-2 name"),
        # the options a Llama-shaped model sets, which a GPT-2 folder has no place for
        (config.norm == "layernorm", "Norm must be LayerNorm, not RMSNorm (GPT-2's norms have "
                                     "a mean and a β)"),
        (abs(config.norm_eps - 1e-5) < 1e-12, f"the norm's ε must be 1e-5, not "
                                              f"{config.norm_eps:g}"),
        (not config.gated_ffn, "the Gated FFN must be off (GPT-2's feed-forward has no gate)"),
        (config.kv_heads in (0, config.num_heads), "Key/value heads must be 0: GPT-2 gives "
                                                   "every head its own keys and values"),
        (config.linear_bias, "Biases must be on (GPT-2's projections have them)"),
    ]
    return [problem for ok, problem in checks if not ok]


def gpt2_config(config: Any, bos_id: int, eos_id: int) -> dict[str, Any]:
    """The config.json `transformers` reads for the app's transformer."""
    return {
        "model_type": "gpt2", "architectures": ["GPT2LMHeadModel"],
        "vocab_size": config.vocab_size, "n_positions": config.context_length,
        "n_embd": config.d_model, "n_layer": config.num_layers, "n_head": config.num_heads,
        "n_inner": config.d_ff, "activation_function": EXPORT_ACTIVATIONS[config.activation],
        "layer_norm_epsilon": 1e-5, "tie_word_embeddings": config.tie_weights,
        "scale_attn_weights": config.scale_scores, "resid_pdrop": config.dropout,
        "embd_pdrop": config.dropout, "attn_pdrop": config.dropout,
        "bos_token_id": bos_id, "eos_token_id": eos_id, "initializer_range": 0.02,
    }


def gpt2_weights(state: dict[str, np.ndarray], tied: bool) -> dict[str, np.ndarray]:
    """The app's state_dict under GPT-2's names, its Linear weights transposed to Conv1D."""
    out = {}
    for name, value in state.items():
        if name in _APP_TOP:
            out[f"transformer.{_APP_TOP[name]}"] = value
        elif name == "head.weight":
            if not tied:
                out["lm_head.weight"] = value
        else:
            match = _APP_LAYER.fullmatch(name)
            if not match or match.group(2) not in _APP_BLOCK:
                raise ValueError(f"no GPT-2 name for {name}")
            target, conv = _APP_BLOCK[match.group(2)]
            weight = conv and match.group(3) == "weight"
            out[f"transformer.h.{match.group(1)}.{target}.{match.group(3)}"] = \
                np.ascontiguousarray(value.T) if weight else value
    return out
