"""BERT (Devlin et al. 2019) as the app's masked-LM model: its config.json mapped onto a
`MaskedLmModelConfig` (a `transformer_encoder` and the masked-token head), its tensors renamed.

BERT is the encoder of SLP3 ch. 11 with post-LN (x = LayerNorm(x + Sublayer(x)), the seeds'
form), learned positions, GELU (erf) and x_0 = LayerNorm(E[tokens] + P + T[type]) normalised
before the first block (the encoder's `embedding_norm`). Its MLM head `cls.predictions` is the
app's `MaskedTokenHead`: LayerNorm(GELU(W h + b)) Eᵀ + b_V with E the tied token embedding.
Every LayerNorm uses the folder's ε (1e-12 for BERT).

Its query, key and value are three Linear layers where the app has one `qkv` (W_Q, W_K, W_V side
by side): they are stacked here. BERT adds a segment ("token type") embedding T to every
position; the app reads one text at a time, all of segment 0, so T[0] is folded into the
position table (P'[i] = P[i] + T[0], the same sum BERT adds, term for term) and the segment
table is not kept. Its pooler and next-sentence head (`bert.pooler`, `cls.seq_relationship`),
which masked-token prediction does not use, are not read.

Read for next-sentence prediction (`next_sentence`: a pair [CLS] A [SEP] B [SEP]), T is the
encoder's segment table itself, and the pooler with `cls.seq_relationship` is the model's
next-sentence head (IsNext first, as BERT orders them); a folder without them (a
BertForMaskedLM) leaves that head to start fresh.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from workbench.core.config.encoder_tasks import MaskedLmTaskConfig
from workbench.core.config.models import TransformerEncoderConfig, config_to_dict
from workbench.core.config.task_models import MaskedLmModelConfig
from workbench.core.config.tasks import task_config_to_dict
from workbench.core.jobs import UserFacingError

ACTIVATIONS = {"gelu": "gelu", "gelu_new": "gelu_tanh", "gelu_pytorch_tanh": "gelu_tanh",
               "relu": "relu"}
# BERT name (after "encoder.layer.N.") -> the app's name (after "encoder.blocks.N.")
_BLOCK = {"attention.output.dense": "proj", "attention.output.LayerNorm": "norm1",
          "intermediate.dense": "ff_in", "output.dense": "ff_out", "output.LayerNorm": "norm2"}
_QKV = {"attention.self.query": 0, "attention.self.key": 1, "attention.self.value": 2}
_TOP = {
    "embeddings.word_embeddings.weight": "encoder.embedding.weight",
    "embeddings.position_embeddings.weight": "encoder.positions.weight",
    "embeddings.LayerNorm.weight": "encoder.embed_norm.weight",
    "embeddings.LayerNorm.bias": "encoder.embed_norm.bias",
    "cls.predictions.transform.dense.weight": "head.transform.weight",
    "cls.predictions.transform.dense.bias": "head.transform.bias",
    "cls.predictions.transform.LayerNorm.weight": "head.norm.weight",
    "cls.predictions.transform.LayerNorm.bias": "head.norm.bias",
    "cls.predictions.decoder.weight": "head.decoder.weight",
    "cls.predictions.decoder.bias": "head.decoder.bias",
    # the same tensor where the output is tied (saved once, under this name); an untied model
    # adds with its decoder's own bias, read in preference
    "cls.predictions.bias": "head.decoder.bias",
}
_FALLBACK = "cls.predictions.bias"
_TYPES = "embeddings.token_type_embeddings.weight"
_SEGMENTS = "encoder.segment_embedding.weight"
# the pooler and next-sentence head, read only for next-sentence prediction
_PAIR = {"pooler.dense.weight": "next_sentence.pooler.dense.weight",
         "pooler.dense.bias": "next_sentence.pooler.dense.bias",
         "cls.seq_relationship.weight": "next_sentence.relation.weight",
         "cls.seq_relationship.bias": "next_sentence.relation.bias"}
PAIR_HEAD = "next_sentence."  # the app's names of that head begin so
_OLD_NORM = re.compile(r"LayerNorm\.(gamma|beta)$")
_OLD_NORM_NAMES = {"gamma": "weight", "beta": "bias"}
_LAYER = re.compile(r"encoder\.layer\.(\d+)\.(.+)\.(weight|bias)")
# never read: the position-id buffer older files carry
_SKIPPED = re.compile(r"embeddings\.position_ids")
_NO_HEAD = ("This BERT folder has no masked-LM head (cls.predictions): it was saved as a bare "
            "encoder or a classifier. The workbench opens BERT as a masked language model "
            "(BertForMaskedLM or BertForPreTraining weights).")


def _number(config: dict[str, Any], key: str, default: Any = None) -> Any:
    value = config.get(key, default)
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        raise UserFacingError(f"This BERT folder's config.json gives '{key}' as {value!r}, "
                              "not a number. The file was damaged or edited.")
    return value


def model_config(config: dict[str, Any], next_sentence: bool = False) -> MaskedLmModelConfig:
    """The app's masked-LM model with BERT's sizes and choices (with `next_sentence`, its
    segment table and next-sentence head too); `UserFacingError` naming a BERT option the
    app's encoder does not compute."""
    activation = config.get("hidden_act", "gelu")
    if activation not in ACTIVATIONS:
        raise UserFacingError(f"This BERT model uses the activation {activation!r}; the "
                              f"workbench computes {', '.join(ACTIVATIONS)}.")
    positions = config.get("position_embedding_type", "absolute")
    if positions != "absolute":
        raise UserFacingError(f"This BERT model's positions are '{positions}'; the workbench's "
                              "encoder adds absolute learned positions only, so its numbers "
                              "would differ.")
    for option in ("is_decoder", "add_cross_attention"):
        if config.get(option):
            raise UserFacingError(f"This BERT model sets '{option}', which the workbench's "
                                  "encoder does not compute: it opens BERT as a masked LM that "
                                  "reads both sides.")
    if int(_number(config, "type_vocab_size", 2)) < 1:
        raise UserFacingError("This BERT model has no token-type (segment) embedding; "
                              "type_vocab_size must be at least 1.")
    encoder = TransformerEncoderConfig(
        vocab_size=int(_number(config, "vocab_size")),
        d_model=int(_number(config, "hidden_size")),
        num_heads=int(_number(config, "num_attention_heads")),
        num_layers=int(_number(config, "num_hidden_layers")),
        d_ff=int(_number(config, "intermediate_size")),
        context_length=int(_number(config, "max_position_embeddings")),
        dropout=0.0,  # inference; a fine-tuning run sets its own
        positional="learned",
        norm_placement="post",
        tie_weights=bool(config.get("tie_word_embeddings", True)),
        activation=ACTIVATIONS[activation],
        embedding_norm=True,
        norm_eps=float(_number(config, "layer_norm_eps", 1e-12)),
        segments=int(_number(config, "type_vocab_size", 2)) if next_sentence else 0,
    )
    return MaskedLmModelConfig(encoder=config_to_dict(encoder),
                               head_activation=ACTIVATIONS[activation],
                               next_sentence=next_sentence)


def has_pair_head(config: dict[str, Any], names: set[str] | None) -> bool:
    """Whether a folder holds BERT's pooler and next-sentence head (BertForPreTraining): by
    its weights' names where known (a safetensors header), else by the class its
    config.json names."""
    if names is None:
        return "BertForPreTraining" in (config.get("architectures") or [])
    return set(_PAIR) <= {_bare(name) for name in names}


def _bare(name: str) -> str:
    """The name without the "bert." of a BertForMaskedLM, LayerNorm's gamma and beta (older
    files converted from TensorFlow) as weight and bias."""
    return _OLD_NORM.sub(lambda m: "LayerNorm." + _OLD_NORM_NAMES[m.group(1)],
                         name.removeprefix("bert."))


def _place(name: str) -> tuple[str, int | None] | None:
    """(the app's name, which third of `qkv` or None) of a BERT tensor; None for one that is
    not read; `UserFacingError` for a tensor BERT does not have."""
    bare = _bare(name)
    if _SKIPPED.fullmatch(bare) or bare == _TYPES:
        return None
    if bare in _TOP:
        return _TOP[bare], None
    if bare in _PAIR:
        return _PAIR[bare], None
    match = _LAYER.fullmatch(bare)
    if match:
        prefix, part, kind = f"encoder.blocks.{match.group(1)}.", match.group(2), match.group(3)
        if part in _BLOCK:
            return f"{prefix}{_BLOCK[part]}.{kind}", None
        if part in _QKV:
            return f"{prefix}qkv.{kind}", _QKV[part]
    raise UserFacingError(f"This folder's weights hold '{name}', which a BERT masked LM does "
                          "not have. It is another kind of model, or its files were mixed.")


def wanted(name: str) -> bool:
    """Whether the reader reads the tensor (the segment table is: it is folded in, or is the
    segment table; the pooler and next-sentence head are, and left out without NSP)."""
    return _bare(name) == _TYPES or _place(name) is not None


def app_shapes(shapes: dict[str, tuple[int, ...]], config: MaskedLmModelConfig
               ) -> dict[str, tuple[int, ...]]:
    """The app's names and shapes of a weights file's tensors (from its header alone)."""
    out: dict[str, tuple[int, ...]] = {}
    for name, shape in shapes.items():
        place = _place(name)
        if place is None:
            continue
        target, third = place
        if third is None:
            _put(out, name, target, tuple(shape))
        else:  # three (d, ·) parts stacked into one (3d, ·)
            out[target] = (3 * shape[0], *shape[1:])
    types = next((tuple(v) for k, v in shapes.items() if _bare(k) == _TYPES), None)
    if config.next_sentence and types is not None:
        out[_SEGMENTS] = types
    return _pairs_only(_tied(out, config), config)


def _pairs_only(out: dict, config: MaskedLmModelConfig) -> dict:
    """The next-sentence head's tensors kept only for a model that has that head."""
    if config.next_sentence:
        return out
    return {k: v for k, v in out.items() if not k.startswith(PAIR_HEAD)}


def _put(out: dict, name: str, target: str, value: Any) -> None:
    if _bare(name) == _FALLBACK:
        out.setdefault(target, value)
    else:
        out[target] = value


def _tied(out: dict, config: MaskedLmModelConfig) -> dict:
    if "head.transform.weight" not in out:
        raise UserFacingError(_NO_HEAD)
    if config.encoder.get("tie_weights") and "encoder.embedding.weight" in out:
        # one tensor under two names, as the model's state_dict has it
        out["head.decoder.weight"] = out["encoder.embedding.weight"]
    return out


def app_weights(tensors: dict[str, np.ndarray], config: MaskedLmModelConfig
                ) -> dict[str, np.ndarray]:
    """BERT's tensors under the app's names, as the masked-LM model's state_dict has them."""
    out: dict[str, np.ndarray] = {}
    thirds: dict[str, dict[int, np.ndarray]] = {}
    types = None
    for name, value in tensors.items():
        if _bare(name) == _TYPES:
            types = value
            continue
        place = _place(name)
        if place is None:
            continue
        target, third = place
        if third is None:
            _put(out, name, target, value)
        else:
            thirds.setdefault(target, {})[third] = value
    for target, parts in thirds.items():
        if len(parts) == 3:  # an incomplete one is left out: check_fits names it missing
            out[target] = np.concatenate([parts[0], parts[1], parts[2]], axis=0)
    positions = out.get("encoder.positions.weight")
    if config.next_sentence and types is not None:  # BERT's T is the segment table itself
        out[_SEGMENTS] = types
    elif types is not None and positions is not None and \
            types.shape[-1:] == positions.shape[-1:]:
        out["encoder.positions.weight"] = positions + types[0]  # segment 0 at every position
    elif positions is not None:
        raise UserFacingError("This BERT folder's weights have no token-type (segment) "
                              "embedding that fits its positions; the file is damaged or was "
                              "mixed with another model's.")
    return _pairs_only(_tied(out, config), config)


def snapshot_parts(tokenizer: Any, config: MaskedLmModelConfig) -> tuple[dict, dict]:
    """The snapshot's tokenizer entry (with the vocabulary's own [MASK], as a masked-LM run's
    checkpoint records it) and its task (masked LM: the fill-in-the-blank console)."""
    if tokenizer.mask_id is None:
        raise UserFacingError("This BERT folder's tokenizer.json has no [MASK] token, which "
                              "a masked language model needs: it belongs to another model.")
    framing = sum(len(part) for part in tokenizer.frame)
    longest = max(2, min(int(config.encoder["context_length"]) - framing, 4096))
    task = task_config_to_dict(MaskedLmTaskConfig(dataset="file", max_length=longest,
                                                  next_sentence=config.next_sentence))
    return {**tokenizer.to_dict(), "mask_id": tokenizer.mask_id}, task
