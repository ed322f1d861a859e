"""Llama (Touvron et al. 2023) as the app's transformer decoder: its config.json mapped onto
`TransformerConfig`, its tensors renamed, its query, key and value stacked into `qkv`.

Llama is a pre-norm decoder (x + Sublayer(Norm(x)), a last norm before the head) with the
options the app's transformer has for it, each named in its config: RMSNorm with the folder's
ε (`rms_norm_eps`), rotary positions (`rope_theta`), a gated SiLU feed-forward, SwiGLU
(gate_proj, up_proj, down_proj: the app's ff_gate, ff_in and ff_out), grouped-query attention
(`num_key_value_heads`) and no biases; its output is its own matrix or, with
`tie_word_embeddings`, the token embedding. TinyLlama, SmolLM and models saved in this shape
open so; what the app's transformer does not compute (scaled rotary positions, biases,
sliding windows, a head width other than hidden_size / heads) is refused by name.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from workbench.core.config.models import TransformerConfig
from workbench.core.jobs import UserFacingError

# the longest context the app's form allows; a rotary model reads any shorter one the same way
LONGEST_CONTEXT = 8192
# Llama name (after "model.layers.N.") -> the app's name (after "blocks.N.")
_BLOCK = {"self_attn.o_proj": "proj", "mlp.gate_proj": "ff_gate", "mlp.up_proj": "ff_in",
          "mlp.down_proj": "ff_out", "input_layernorm": "norm1",
          "post_attention_layernorm": "norm2"}
_QKV = {"self_attn.q_proj": 0, "self_attn.k_proj": 1, "self_attn.v_proj": 2}
_TOP = {"model.embed_tokens.weight": "embedding.weight", "model.norm.weight": "final_norm.weight",
        "lm_head.weight": "head.weight"}
_LAYER = re.compile(r"model\.layers\.(\d+)\.(.+)\.(weight|bias)")
# the rotary frequencies older files carry as a buffer: rebuilt from rope_theta, not read
_SKIPPED = re.compile(r"model\.layers\.\d+\.self_attn\.rotary_emb\.inv_freq")


def _number(config: dict[str, Any], key: str, default: Any = None) -> Any:
    value = config.get(key, default)
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        raise UserFacingError(f"This Llama folder's config.json gives '{key}' as {value!r}, "
                              "not a number. The file was damaged or edited.")
    return value


def _refuse(option: str, why: str) -> UserFacingError:
    return UserFacingError(f"This Llama model sets '{option}': {why}, which the workbench's "
                           "transformer does not compute, so its numbers would differ.")


def _rope_theta(config: dict[str, Any]) -> float:
    """The rotary base: `rope_theta` with `rope_scaling` null (the files of most Llama
    folders), or `rope_parameters` of type "default" (the form transformers 5 writes)."""
    scaling = config.get("rope_scaling")
    if scaling is not None and (not isinstance(scaling, dict)
                                or scaling.get("rope_type", scaling.get("type")) != "default"):
        raise _refuse("rope_scaling", f"scaled rotary positions ({scaling!r})")
    parameters = config.get("rope_parameters")
    if isinstance(parameters, dict):
        kind = parameters.get("rope_type", "default")
        if kind != "default":
            raise _refuse("rope_parameters", f"rotary positions of type {kind!r}")
        return float(_number(parameters, "rope_theta", 10000.0))
    return float(_number(config, "rope_theta", 10000.0))


def model_config(config: dict[str, Any]) -> TransformerConfig:
    """The app's transformer with Llama's sizes and choices; `UserFacingError` naming a Llama
    option this transformer does not compute."""
    activation = config.get("hidden_act", "silu")
    if activation != "silu":
        raise UserFacingError(f"This Llama model uses the activation {activation!r}; the "
                              "workbench computes Llama's gated feed-forward with SiLU only.")
    for option, why in (("attention_bias", "biases in q, k, v and o"),
                        ("mlp_bias", "biases in the feed-forward"),
                        ("sliding_window", "attention over a sliding window"),
                        ("use_sliding_window", "attention over a sliding window")):
        if config.get(option):
            raise _refuse(option, why)
    width, heads = int(_number(config, "hidden_size")), int(_number(config, "num_attention_heads"))
    kv_heads = int(_number(config, "num_key_value_heads", heads))
    head_dim = config.get("head_dim")
    if head_dim is not None and heads > 0 and int(_number(config, "head_dim")) * heads != width:
        raise _refuse("head_dim", f"heads {head_dim} wide where hidden_size / heads is "
                      f"{width // heads}")
    return TransformerConfig(
        vocab_size=int(_number(config, "vocab_size")),
        d_model=width,
        num_heads=heads,
        num_layers=int(_number(config, "num_hidden_layers")),
        d_ff=int(_number(config, "intermediate_size")),
        context_length=min(int(_number(config, "max_position_embeddings", 2048)),
                           LONGEST_CONTEXT),
        dropout=0.0,  # inference; a fine-tuning run sets its own
        positional="rope",
        norm_placement="pre",
        tie_weights=bool(config.get("tie_word_embeddings", False)),
        activation="silu",
        head_bias=False,
        norm="rmsnorm",
        norm_eps=float(_number(config, "rms_norm_eps", 1e-6)),
        rope_theta=_rope_theta(config),
        kv_heads=kv_heads if kv_heads != heads else 0,
        gated_ffn=True,
        linear_bias=False,
    )


def _place(name: str) -> tuple[str, int | None] | None:
    """(the app's name, which part of `qkv` or None) of a Llama tensor; None for a buffer that
    is rebuilt; `UserFacingError` for a tensor Llama does not have."""
    if _SKIPPED.fullmatch(name):
        return None
    if name in _TOP:
        return _TOP[name], None
    match = _LAYER.fullmatch(name)
    if match and match.group(3) == "weight":
        prefix, part = f"blocks.{match.group(1)}.", match.group(2)
        if part in _BLOCK:
            return f"{prefix}{_BLOCK[part]}.weight", None
        if part in _QKV:
            return f"{prefix}qkv.weight", _QKV[part]
    raise UserFacingError(f"This folder's weights hold '{name}', which a Llama model without "
                          "biases does not have. It is another kind of model, or its files "
                          "were mixed.")


def wanted(name: str) -> bool:
    """Whether the reader reads the tensor (not a buffer that is rebuilt)."""
    return _place(name) is not None


def app_shapes(shapes: dict[str, tuple[int, ...]], config: TransformerConfig
               ) -> dict[str, tuple[int, ...]]:
    """The app's names and shapes of a weights file's tensors (from its header alone)."""
    out: dict[str, tuple[int, ...]] = {}
    rows: dict[str, dict[int, tuple[int, ...]]] = {}
    for name, shape in shapes.items():
        place = _place(name)
        if place is None:
            continue
        if place[1] is None:
            out[place[0]] = tuple(shape)
        else:
            rows.setdefault(place[0], {})[place[1]] = tuple(shape)
    for target, parts in rows.items():
        if len(parts) == 3:  # q (d, d) over k and v (kv·d_k, d): stacked along the rows
            out[target] = (sum(parts[i][0] for i in range(3)), *parts[0][1:])
    return _tied(out, config)


def app_weights(tensors: dict[str, np.ndarray], config: TransformerConfig
                ) -> dict[str, np.ndarray]:
    """Llama's tensors under the app's names, as the model's state_dict has them."""
    out: dict[str, np.ndarray] = {}
    parts: dict[str, dict[int, np.ndarray]] = {}
    for name, value in tensors.items():
        place = _place(name)
        if place is None:
            continue
        if place[1] is None:
            out[place[0]] = value
        else:
            parts.setdefault(place[0], {})[place[1]] = value
    for target, found in parts.items():
        if len(found) == 3:  # an incomplete one is left out: check_fits names it missing
            out[target] = np.concatenate([found[0], found[1], found[2]], axis=0)
    return _tied(out, config)


def _tied(out: dict, config: TransformerConfig) -> dict:
    if config.tie_weights and "embedding.weight" in out:
        # one tensor under two names, as the model's state_dict has it (a tied folder may
        # still carry lm_head.weight, the same numbers)
        out["head.weight"] = out["embedding.weight"]
    return out


def snapshot_parts(tokenizer: Any, config: TransformerConfig) -> tuple[dict, dict]:
    """The snapshot's tokenizer entry and its task (a language model: {})."""
    return tokenizer.to_dict(), {}
