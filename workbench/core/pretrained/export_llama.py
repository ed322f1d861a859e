"""The app's Llama-shaped transformer decoder as a Hugging Face `LlamaForCausalLM` folder: the
inverse of `llama.py` (config.json from the sizes and options, `qkv` split back into q_proj,
k_proj and v_proj, the gated feed-forward's ff_gate, ff_in and ff_out as gate_proj, up_proj and
down_proj). export.py writes the folder.

Llama's class has one shape and no switches for the course transformer's other choices, so a
model is written only when every option is Llama's: pre-norm RMSNorm, rotary positions, a gated
SiLU feed-forward, no biases, scaled scores and a causal mask. Grouped-query attention (any
number of key/value heads that divides the heads) and a tied or untied output both have a place
in its config.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

# the app's name (after "blocks.N.") -> Llama's (after "model.layers.N."), as llama.py reads
_BLOCK = {"proj": "self_attn.o_proj", "ff_gate": "mlp.gate_proj", "ff_in": "mlp.up_proj",
          "ff_out": "mlp.down_proj", "norm1": "input_layernorm",
          "norm2": "post_attention_layernorm"}
_TOP = {"embedding.weight": "model.embed_tokens.weight", "final_norm.weight": "model.norm.weight"}
_APP_LAYER = re.compile(r"blocks\.(\d+)\.(\w+)\.weight")


def export_problems(config: Any) -> list[str]:
    """Why a model config cannot be written as a Llama folder (each names the setting)."""
    if config.arch != "transformer":
        return [f"it is {config.title}, not the transformer decoder Llama is"]
    positions = "rotary (RoPE)" if config.positional == "rope" else config.positional
    checks = [
        (config.norm_placement == "pre", "LayerNorm (placement) must be pre-LN: Llama "
                                          "normalises inside each residual branch"),
        (config.norm == "rmsnorm", "Norm must be RMSNorm (Llama's norms have no mean and no β)"),
        (config.positional == "rope", f"Positions must be rotary (RoPE), not {positions}"),
        (config.gated_ffn, "the Gated FFN must be on (Llama's feed-forward is SwiGLU)"),
        (config.activation == "silu", f"the FFN activation must be SiLU, not "
                                      f"{config.activation} (SwiGLU's gate)"),
        (not config.linear_bias, "Biases must be off (Llama's projections have none)"),
        (not config.head_bias, "Output bias must be off (Llama's head has none)"),
        (config.causal_mask, "the Causal mask must be on"),
        (config.scale_scores, "Scale by 1/√d_k must be on (Llama always scales)"),
    ]
    return [problem for ok, problem in checks if not ok]


def llama_config(config: Any, bos_id: int | None, eos_id: int | None) -> dict[str, Any]:
    """The config.json `transformers` reads for the app's Llama-shaped transformer."""
    heads = config.num_heads
    return {
        "model_type": "llama", "architectures": ["LlamaForCausalLM"],
        "vocab_size": config.vocab_size, "hidden_size": config.d_model,
        "intermediate_size": config.d_ff, "num_hidden_layers": config.num_layers,
        "num_attention_heads": heads, "num_key_value_heads": config.kv_heads or heads,
        "head_dim": config.d_model // heads, "hidden_act": "silu",
        # a rotary model reads any length; the app's context is the longest it was given
        "max_position_embeddings": config.context_length,
        "rms_norm_eps": config.norm_eps,
        # both forms: transformers 4 reads rope_theta with rope_scaling null, 5 rope_parameters
        "rope_theta": config.rope_theta, "rope_scaling": None,
        "rope_parameters": {"rope_type": "default", "rope_theta": config.rope_theta},
        "attention_bias": False, "mlp_bias": False, "attention_dropout": 0.0,
        "tie_word_embeddings": config.tie_weights, "bos_token_id": bos_id,
        "eos_token_id": eos_id, "initializer_range": 0.02, "pretraining_tp": 1,
    }


def llama_weights(state: dict[str, np.ndarray], config: Any) -> dict[str, np.ndarray]:
    """The app's state_dict under Llama's names: `qkv` (q over k over v along the rows, k and
    v of kv_heads · d_k rows each) split into its three projections."""
    width = config.d_model
    kv_rows = (config.kv_heads or config.num_heads) * (width // config.num_heads)
    out: dict[str, np.ndarray] = {}
    for name, value in state.items():
        if name in _TOP:
            out[_TOP[name]] = value
            continue
        if name == "head.weight":
            if not config.tie_weights:  # a tied head is the embedding, saved once
                out["lm_head.weight"] = value
            continue
        match = _APP_LAYER.fullmatch(name)
        if not match:
            raise ValueError(f"no Llama name for {name}")
        prefix, part = f"model.layers.{match.group(1)}.", match.group(2)
        if part == "qkv":
            q, k, v = np.split(value, [width, width + kv_rows], axis=0)
            out.update({f"{prefix}self_attn.q_proj.weight": q,
                        f"{prefix}self_attn.k_proj.weight": k,
                        f"{prefix}self_attn.v_proj.weight": v})
        elif part in _BLOCK:
            out[f"{prefix}{_BLOCK[part]}.weight"] = value
        else:
            raise ValueError(f"no Llama name for {name}")
    return out
