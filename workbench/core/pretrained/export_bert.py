"""The app's BERT-shaped encoder models as Hugging Face BERT folders: the masked LM as
`BertForMaskedLM` (`BertForPreTraining` with its next-sentence head), the classifier as
`BertForSequenceClassification`, the tagger as `BertForTokenClassification`. The inverse of
`bert.py` (`qkv` split back into query, key and value); export.py writes the folder.

BERT's classes have one shape, so only a post-LN encoder with learned positions, the embedding
LayerNorm, biases and an ungated FFN is written, and only a head that the class computes term for
term: the masked-LM head with BERT's activation (its hidden_act serves both), the classifier
reading the [CLS] token of the text through BERT's pooler (the class always pools so), the
tagger's per-token layer. A sigmoid classifier's one unit z is the pair of logits [0, z]
(heads.two_class_logits), which a two-row classifier layer computes exactly.

Segments: a model read from a BERT folder without a segment table has segment 0's row folded
into its positions (P' = P + T[0], bert.py), and T[0] is not kept apart; P' is written as the
positions and a zero segment table beside it, so BERT's x_0 = E + P' + 0 is the app's for the
single-segment input every such model was trained on. An encoder with a segment table of its
own writes it as BERT's token-type table.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

from workbench.core.pretrained.bert import ACTIVATIONS

# the app's activation -> hidden_act, each read back by bert.ACTIVATIONS as the same one
EXPORT_ACTIVATIONS = {app: name for name, app in ACTIVATIONS.items() if name != "gelu_pytorch_tanh"}
# the app's name (after "encoder.") -> BERT's (after "bert.")
_TOP = {"embedding.weight": "embeddings.word_embeddings.weight",
        "positions.weight": "embeddings.position_embeddings.weight",
        "segment_embedding.weight": "embeddings.token_type_embeddings.weight",
        "embed_norm.weight": "embeddings.LayerNorm.weight",
        "embed_norm.bias": "embeddings.LayerNorm.bias"}
# the app's name (after "encoder.blocks.N.") -> BERT's (after "encoder.layer.N.")
_BLOCK = {"proj": "attention.output.dense", "norm1": "attention.output.LayerNorm",
          "ff_in": "intermediate.dense", "ff_out": "output.dense", "norm2": "output.LayerNorm"}
_QKV = ("attention.self.query", "attention.self.key", "attention.self.value")
_LAYER = re.compile(r"blocks\.(\d+)\.(\w+)\.(weight|bias)")
# the app's task models BERT has a class for
CLASSES = {"masked_lm": "BertForMaskedLM", "sequence_classifier": "BertForSequenceClassification",
           "token_tagger": "BertForTokenClassification"}
# the heads' names (the app's -> BERT's) for each class; the masked LM's decoder is its own
_HEADS = {
    "masked_lm": {"head.transform": "cls.predictions.transform.dense",
                  "head.norm": "cls.predictions.transform.LayerNorm",
                  "next_sentence.pooler.dense": "bert.pooler.dense",
                  "next_sentence.relation": "cls.seq_relationship"},
    "sequence_classifier": {"pooler.dense": "bert.pooler.dense", "head": "classifier"},
    "token_tagger": {"head": "classifier"},
}


def export_problems(config: Any) -> list[str]:
    """Why a task model config cannot be written as a BERT folder (each names the setting)."""
    encoder = config.encoder_config()
    if encoder.arch != "transformer_encoder":
        return [f"its encoder is {encoder.title}, not the transformer encoder BERT is"]
    checks = [
        (encoder.norm_placement == "post", "LayerNorm must be post-LN (BERT normalises after "
                                            "each residual sum)"),
        (encoder.norm == "layernorm", "Norm must be LayerNorm, not RMSNorm"),
        (encoder.positional == "learned", f"Positions must be learned, not "
                                          f"{encoder.positional}"),
        (encoder.embedding_norm, "the Embedding LayerNorm must be on (BERT normalises x_0)"),
        (not encoder.cls_token, "the [CLS] token must be off: BERT's [CLS] is the text's first "
                                "token, not a vector the encoder prepends"),
        (not encoder.causal_mask, "the Causal mask must be off (BERT reads both sides)"),
        (encoder.scale_scores, "Scale by 1/√d_k must be on (BERT always scales)"),
        (not encoder.gated_ffn, "the Gated FFN must be off (BERT's feed-forward has no gate)"),
        (encoder.kv_heads in (0, encoder.num_heads), "Key/value heads must be 0: BERT gives "
                                                     "every head its own keys and values"),
        (encoder.linear_bias, "Biases must be on (BERT's projections have them)"),
        (encoder.activation in EXPORT_ACTIVATIONS, f"the activation {encoder.activation} has no "
                                                   "BERT name"),
    ]
    problems = [problem for ok, problem in checks if not ok]
    if config.arch == "masked_lm" and config.head_activation != encoder.activation:
        problems.append(f"the masked-LM head's activation ({config.head_activation}) must be "
                        f"the encoder's ({encoder.activation}): BERT's hidden_act is both")
    if config.arch == "sequence_classifier":
        if config.pooling != "cls":
            problems.append(f"Pooling must be cls, not {config.pooling}: "
                            "BertForSequenceClassification reads the [CLS] state alone, and "
                            f"{config.pooling} pooling has no place in that class")
        if not config.pooler:
            problems.append("BERT's pooler must be on: BertForSequenceClassification passes "
                            "the [CLS] state through tanh(W h + b) before its label layer")
    return problems


def class_name(config: Any) -> str:
    if config.arch == "masked_lm" and getattr(config, "next_sentence", False):
        return "BertForPreTraining"  # the masked-LM head and the next-sentence head
    return CLASSES[config.arch]


def bert_config(config: Any, table: dict) -> dict[str, Any]:
    """The config.json `transformers` reads for the app's model; a classifier's or tagger's
    id2label and label2id from the run's labels (kept in its tokenizer table)."""
    encoder = config.encoder_config()
    out = {
        "model_type": "bert", "architectures": [class_name(config)],
        "vocab_size": encoder.vocab_size, "hidden_size": encoder.d_model,
        "num_hidden_layers": encoder.num_layers, "num_attention_heads": encoder.num_heads,
        "intermediate_size": encoder.d_ff, "hidden_act": EXPORT_ACTIVATIONS[encoder.activation],
        "max_position_embeddings": encoder.context_length,
        "type_vocab_size": int(getattr(encoder, "segments", 0)) or 2,
        "layer_norm_eps": encoder.norm_eps, "position_embedding_type": "absolute",
        "hidden_dropout_prob": encoder.dropout, "attention_probs_dropout_prob": encoder.dropout,
        "tie_word_embeddings": encoder.tie_weights, "pad_token_id": _pad_id(table),
        "initializer_range": 0.02,
    }
    if config.arch in ("sequence_classifier", "token_tagger"):
        count = config.num_labels if config.arch == "sequence_classifier" else config.num_tags
        names = list(table.get("labels" if config.arch == "sequence_classifier" else "tags", ()))
        if len(names) != count:
            names = [f"LABEL_{i}" for i in range(count)]
        out["id2label"] = {str(i): str(name) for i, name in enumerate(names)}
        out["label2id"] = {str(name): i for i, name in enumerate(names)}
    if config.arch == "sequence_classifier":  # the app's cross-entropy over the K logits
        out["problem_type"] = "single_label_classification"
    return out


def _pad_id(table: dict) -> int:
    """[PAD]'s id in the tokenizer (BERT's embedding keeps that row for padding), else 0."""
    try:
        added = json.loads(table["tokenizer_json"]).get("added_tokens", [])
    except (KeyError, ValueError, AttributeError):
        return 0
    return next((int(t["id"]) for t in added if t.get("content") == "[PAD]"), 0)


def bert_weights(state: dict[str, np.ndarray], config: Any) -> dict[str, np.ndarray]:
    """The app's state_dict under the BERT class's names."""
    encoder = config.encoder_config()
    width = encoder.d_model
    heads = _HEADS[config.arch]
    out: dict[str, np.ndarray] = {}
    for name, value in state.items():
        if name.startswith("encoder."):
            out.update(_encoder_tensors(name.removeprefix("encoder."), value))
        elif name.startswith("head.decoder."):
            kind = name.removeprefix("head.decoder.")
            if kind == "bias":  # one tensor under both names: an untied BERT reads the second
                out["cls.predictions.bias"] = out["cls.predictions.decoder.bias"] = value
            elif not encoder.tie_weights:  # a tied decoder is the word embedding
                out["cls.predictions.decoder.weight"] = value
        else:
            module, _, kind = name.rpartition(".")
            if module not in heads:
                raise ValueError(f"no BERT name for {name}")
            if module == "head" and getattr(config, "output", "") == "sigmoid":
                value = np.concatenate([np.zeros_like(value), value], axis=0)  # [0, z]
            out[f"{heads[module]}.{kind}"] = value
    if "bert.embeddings.token_type_embeddings.weight" not in out:
        out["bert.embeddings.token_type_embeddings.weight"] = np.zeros((2, width), np.float32)
    return out


def _encoder_tensors(name: str, value: np.ndarray) -> dict[str, np.ndarray]:
    if name in _TOP:
        return {f"bert.{_TOP[name]}": value}
    match = _LAYER.fullmatch(name)
    if not match or match.group(2) not in (*_BLOCK, "qkv"):
        raise ValueError(f"no BERT name for encoder.{name}")
    prefix, part, kind = f"bert.encoder.layer.{match.group(1)}.", match.group(2), match.group(3)
    if part == "qkv":  # W_Q, W_K, W_V stacked along the rows, each d_model of them
        return {f"{prefix}{target}.{kind}": third
                for target, third in zip(_QKV, np.split(value, 3, axis=0), strict=True)}
    return {f"{prefix}{_BLOCK[part]}.{kind}": value}
