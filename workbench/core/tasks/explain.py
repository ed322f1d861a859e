"""Answers for a typed sentence: a label with per-token contributions, tags, filled masks.

Per-token contributions of a classifier's decision:
- with attention pooling, the pooling weights α_t themselves (the decision is Σ_t α_t h_t);
- otherwise gradient × input: c_t = Σ_d e_{t,d} · ∂z_ŷ/∂e_{t,d}, where z_ŷ is the logit of the
  predicted label and e_t the token's input embedding (Shrikumar et al. 2017
  [NOT IN SEEDS]; Simonyan et al. 2013's saliency is the plain gradient). Positive c_t
  pushed towards the predicted label, negative away from it.
"""

from __future__ import annotations

import re

import numpy as np
import torch

from workbench.core.inspection.probes import display_text
from workbench.core.jobs import UserFacingError
from workbench.core.models.base import eval_mode, model_device, to_numpy
from workbench.core.predictions import ClassifyPrediction, FillMaskPrediction, TagPrediction
from workbench.core.tasks.sentence_pairs import (
    CLS_TEXT,
    PAIR_SEPARATOR,
    SEP_TEXT,
    pair_specials,
    probe_segments,
)
from workbench.core.tasks.text_data import MASK_TEXT, TextVocabulary

MAX_TOKENS = 512
TOP_K = 10
WORDS = re.compile(r"\w+(?:'\w+)*|[^\w\s]")  # how a typed sentence is cut into words to tag


def _ids(vocabulary: TextVocabulary, text: str) -> list[int]:
    if not text.strip():
        raise UserFacingError("Type a sentence first.")
    ids = vocabulary.tokenizer.encode(text)
    if not ids:
        raise UserFacingError("The sentence has no token this model knows.")
    ids = vocabulary.framed(ids)[0]  # a BERT folder's classifier reads [CLS] … [SEP]
    if len(ids) > MAX_TOKENS:
        raise UserFacingError(f"The sentence is {len(ids)} tokens long; at most {MAX_TOKENS}.")
    return ids


def classify_sentence(model, vocabulary: dict, text: str) -> ClassifyPrediction:
    words = TextVocabulary.from_dict(vocabulary)
    ids = _ids(words, text)
    labels = tuple(vocabulary.get("labels", ()))
    tokens = torch.tensor([ids], dtype=torch.long, device=model_device(model))
    captured = {}

    def keep(module, inputs, output):  # the embedding output e, kept with its gradient
        output.retain_grad()
        captured["e"] = output

    hook = model.encoder.embedding.register_forward_hook(keep)
    try:
        with eval_mode(model, grad=True):
            logits, weights = model.classify(tokens)
            probs = torch.softmax(logits[0].float(), dim=-1)
            predicted = int(probs.argmax())
            # a sigmoid unit's first label has a constant 0 among the logits: its real logit
            # (log-odds) is −z, the quantity whose gradient says what each token did
            model.explained_logits(logits)[0, predicted].backward()
    finally:
        hook.remove()
    shown = tuple(display_text(words.tokenizer, i) for i in ids)
    if weights is not None:
        contributions = to_numpy(weights[0])
        method, explanation = "attention", (
            "Attention-pooling weights α_t: the sentence vector is Σ α_t h_t, so α_t is the "
            "share of token t in what the classifier reads.")
    else:
        e = captured["e"]
        contributions = to_numpy((e * e.grad).sum(-1)[0])
        which = "log-odds" if getattr(model, "sigmoid", False) else "logit"
        method, explanation = "gradient", (
            f"Gradient × input, Σ_d e_t,d · ∂z/∂e_t,d for the {which} z of "
            f"'{labels[predicted]}'"
            ": positive pushed towards it, negative away (this model pools without "
            "attention weights).")
    return ClassifyPrediction(text, shown, labels, to_numpy(probs), contributions, method,
                              explanation)


def word_pieces(tokenizer, words: list[str]) -> tuple[list[int], list[int]]:
    """Token ids of a sentence given as words, and the index of each word's first token.

    Words are encoded one by one, with the tokenizer's own encoding of a space between them
    (a character tokenizer's space, a BPE's space marker, nothing for a word tokenizer), so a
    word is read as in running text and its tag sits on its first token."""
    from workbench.core.corpus.tokenizers import UNK

    space = tokenizer.encode(" ")
    ids, firsts = [], []
    for i, word in enumerate(words):
        if i:
            ids.extend(space)
        firsts.append(len(ids))
        ids.extend(tokenizer.encode(word) or [UNK])
    return ids, firsts


@torch.no_grad()
def tag_sentence(model, vocabulary: dict, text: str, words: list[str] | None = None,
                 gold: list[str] | None = None) -> TagPrediction:
    vocab = TextVocabulary.from_dict(vocabulary)
    words = words if words is not None else WORDS.findall(text)
    if not words:
        raise UserFacingError("Type a sentence to tag.")
    ids, firsts = word_pieces(vocab.tokenizer, words)
    ids, start = vocab.framed(ids)  # a BERT folder's tagger reads [CLS] … [SEP]
    firsts = [start + f for f in firsts]
    if len(ids) > MAX_TOKENS:
        raise UserFacingError(f"The sentence is {len(ids)} tokens long; at most {MAX_TOKENS}.")
    with eval_mode(model):
        tokens = torch.tensor([ids], dtype=torch.long, device=model_device(model))
        logits = model(tokens)[0]  # (S, n_tags)
    probs = torch.softmax(logits.float(), dim=-1)[firsts]
    return TagPrediction(text, tuple(words), tuple(vocabulary.get("tags", ())), to_numpy(probs),
                         tuple(gold) if gold is not None else None)


def _masked_ids(vocab: TextVocabulary, text: str) -> tuple[list[int], list[int]]:
    """The ids of a text with the mask id at each literal [MASK], and where those are."""
    pieces = text.split(MASK_TEXT)
    ids: list[int] = []
    masked = []
    for i, piece in enumerate(pieces):
        if i:
            masked.append(len(ids))
            ids.append(vocab.mask_id)
        if i < len(pieces) - 1:
            piece = piece.rstrip()  # the mask stands for a word with its own leading space
        if piece.strip():
            ids.extend(vocab.tokenizer.encode(piece))
    return ids, masked


def _pair_ids(vocab: TextVocabulary, text: str) -> tuple[list[int], list[int], list[int]]:
    """"A ||| B" as [CLS] A [SEP] B [SEP]: ids, mask positions and segment ids."""
    first, second = (part.strip() for part in text.split(PAIR_SEPARATOR, 1))
    if not first or not second or PAIR_SEPARATOR in second:
        raise UserFacingError(f"Write a pair as two sentences with {PAIR_SEPARATOR} between "
                              f"them, e.g. 'To be, or not to be {PAIR_SEPARATOR} that is the "
                              "question'.")
    cls, sep = pair_specials(vocab.tokenizer)
    a, masked_a = _masked_ids(vocab, first)
    b, masked_b = _masked_ids(vocab, second)
    ids = [cls, *a, sep, *b, sep]
    masked = [1 + m for m in masked_a] + [len(a) + 2 + m for m in masked_b]
    return ids, masked, probe_segments(ids, sep)


@torch.no_grad()
def fill_mask(model, vocabulary: dict, text: str, top_k: int = TOP_K) -> FillMaskPrediction:
    """Encode the text around each literal [MASK], put the mask id there, and read the top
    tokens at those positions (special tokens and [MASK] itself are never proposed). A pair
    "A ||| B" is read as [CLS] A [SEP] B [SEP] with segment ids 0 and 1, and a model with
    next-sentence prediction adds P(IsNext); a pair needs no [MASK] for that."""
    vocab = TextVocabulary.from_dict(vocabulary)
    pair_head = getattr(model, "next_sentence", None)
    segments: list[int] = []
    if PAIR_SEPARATOR in text:
        ids, masked, segments = _pair_ids(vocab, text)
    else:
        ids, masked = _masked_ids(vocab, text)
        ids, start = vocab.framed(ids)  # BERT reads [CLS] … [SEP], as it was trained
        masked = [start + m for m in masked]
    if not masked and (not segments or pair_head is None):
        raise UserFacingError(f"Write {MASK_TEXT} where a word should be guessed, e.g. "
                              f"'To be, or not to {MASK_TEXT}'.")
    if len(ids) > MAX_TOKENS:
        raise UserFacingError(f"The sentence is {len(ids)} tokens long; at most {MAX_TOKENS}.")
    # a transformer encoder's positions end at its context length (its [CLS] vector takes one)
    config = getattr(getattr(model, "encoder", None), "config", None)
    limit = int(getattr(config, "context_length", 0) or 0) - int(getattr(config, "cls_token",
                                                                         False))
    if limit > 0 and len(ids) > limit:
        raise UserFacingError(f"The text is {len(ids)} tokens long as the model reads it; "
                              f"this model reads at most {limit}. Shorten it.")
    is_next = None
    with eval_mode(model):
        device = model_device(model)
        tokens = torch.tensor([ids], dtype=torch.long, device=device)
        if segments and pair_head is not None:
            logits, pair = model(tokens, segments=torch.tensor([segments], device=device),
                                 pairs=True)
            is_next = float(torch.softmax(pair[0].float(), dim=-1)[0])  # index 0: IsNext
        elif segments:  # no segment table to read them: both sentences read as segment 0
            logits = model(tokens, segments=torch.tensor([segments], device=device))
        else:
            logits = model(tokens)
        logits = logits[0].float()  # (S, V+1)
    never = vocab.special_ids  # <pad> <unk> <bos> <eos> (or BERT's own) and [MASK]
    logits[:, never] = float("-inf")
    probs = torch.softmax(logits[masked], dim=-1)
    top = probs.topk(min(top_k, probs.shape[-1] - len(never)), dim=-1)
    specials = dict(zip(pair_specials(vocab.tokenizer), (CLS_TEXT, SEP_TEXT), strict=True)) \
        if segments else {}
    shown = tuple(MASK_TEXT if i == vocab.mask_id else specials.get(i) or
                  display_text(vocab.tokenizer, i) for i in ids)
    candidates = tuple(tuple(display_text(vocab.tokenizer, int(i)) for i in row)
                       for row in top.indices)
    return FillMaskPrediction(text, shown, tuple(masked), candidates,
                              np.asarray(to_numpy(top.values)), tuple(segments), is_next)
