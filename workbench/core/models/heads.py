"""Heads on an encoder: pooling for a sequence label, a tag per token, a masked token.

Pooling turns the states h_1 … h_n of one sentence (padding left out) into one vector
(SLP3 9.4.2, Fig. 9.8-9.9 and 9.12):
  last:      h_n; for a bidirectional RNN [h_n^f; h_1^b], the final state of each direction
             (each has read the whole sentence);
  mean:      h_mean = (1/n) Σ_i h_i   (9.14)
  max:       the element-wise maximum over i
  attention: α = softmax_i(w · h_i), h = Σ_i α_i h_i, a learned query w [NOT IN SEEDS as a
             pooling; it is the seeds' attention with one fixed query]; α shows which words
             the decision rests on
  cls:       the state of the [CLS] position a transformer encoder prepends, or of the [CLS]
             token a BERT folder's tokenizer writes first (`cls_in_text`)
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from workbench.core.models.encoder import EncoderOutput


def last_positions(mask: torch.Tensor) -> torch.Tensor:
    """(B,) index of each row's last real token (right padding)."""
    return mask.sum(dim=1) - 1


class Pooling(nn.Module):
    """(EncoderOutput) -> pooled (B, H) and the attention weights α (B, S) (None otherwise)."""

    def __init__(self, how: str, size: int, directions: int = 1,
                 cls_in_text: bool = False) -> None:
        super().__init__()
        self.how = how
        self.directions = directions
        self.cls_in_text = cls_in_text
        if how == "attention":
            self.query = nn.Linear(size, 1, bias=False)  # w: score_i = w · h_i

    def forward(self, out: EncoderOutput) -> tuple[torch.Tensor, torch.Tensor | None]:
        states, mask = out.states, out.mask  # (B, S, H), (B, S)
        if self.how == "mean":
            counts = mask.sum(dim=1, keepdim=True).to(states.dtype)  # (B, 1)
            return (states * mask.unsqueeze(-1)).sum(dim=1) / counts, None
        if self.how == "max":
            return states.masked_fill(~mask.unsqueeze(-1), float("-inf")).amax(dim=1), None
        if self.how == "attention":
            scores = self.query(states).squeeze(-1).masked_fill(~mask, float("-inf"))  # (B, S)
            weights = torch.softmax(scores, dim=-1)
            return torch.einsum("bs,bsh->bh", weights, states), weights
        if self.how == "cls":
            if out.cls is None and self.cls_in_text:
                return states[:, 0], None  # the tokenizer's [CLS] (right padding: always real)
            if out.cls is None:
                raise ValueError("[CLS] pooling needs an encoder with a [CLS] token.")
            return out.cls, None
        rows = torch.arange(states.shape[0], device=states.device)
        last = states[rows, last_positions(mask)]  # (B, H): h_n
        if self.directions == 1:
            return last, None
        half = states.shape[-1] // 2  # [h_n^f; h_1^b]: the backward direction ends at token 1
        return torch.cat([last[:, :half], states[:, 0, half:]], dim=-1), None


def two_class_logits(z: torch.Tensor) -> torch.Tensor:
    """One sigmoid unit z as two logits [0, z]: softmax gives [1 − σ(z), σ(z)], so the cross-
    entropy over them is exactly the binary cross-entropy of σ(z) (Keras' Dense(1, sigmoid))."""
    return torch.cat([torch.zeros_like(z), z], dim=-1)


def two_class_log_odds(logits: torch.Tensor) -> torch.Tensor:
    """The real logit of each label of a sigmoid unit's two logits [0, z]: its log-odds
    ln p / (1 − p), which is −z for the first label and z for the second. The pair's first
    entry is a constant 0 that the softmax needs and nothing depends on: its gradient is zero,
    so an explanation that differentiates it says every word counted for nothing."""
    z = logits[..., 1:] - logits[..., :1]
    return torch.cat([-z, z], dim=-1)


class BertPooler(nn.Module):
    """BERT's pooler: tanh(W h + b) of the pooled ([CLS]) state, trained by next-sentence
    prediction and kept by BertForSequenceClassification before its label layer."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.dense = nn.Linear(size, size)  # "dense": the name BERT's weights give it

    def forward(self, pooled: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.dense(pooled))


class NextSentenceHead(nn.Module):
    """BERT's next-sentence prediction (Devlin et al. 2019, sec. 3.1; SEEDS T16): the [CLS]
    state through the pooler tanh(W h + b), then two logits, IsNext (index 0) and NotNext
    (index 1), in the order BertForPreTraining's `seq_relationship` gives them."""

    IS_NEXT, NOT_NEXT = 0, 1

    def __init__(self, size: int) -> None:
        super().__init__()
        self.pooler = BertPooler(size)
        self.relation = nn.Linear(size, 2)

    def forward(self, cls_state: torch.Tensor) -> torch.Tensor:
        return self.relation(self.pooler(cls_state))  # (B, 2)


def cls_state(output: EncoderOutput) -> torch.Tensor:
    """The [CLS] state (B, H): the vector a transformer encoder prepends, else position 0,
    where the pair's framing writes [CLS] (right padding: always a real token)."""
    return output.cls if output.cls is not None else output.states[:, 0]


class MaskedTokenHead(nn.Module):
    """BERT's MLM output (SEEDS T16: "a classification layer on the encoder output, multiply
    by the embedding matrix, softmax over the vocabulary"): x -> LayerNorm(GELU(W x + b)),
    then logits = x Eᵀ + b_V (E tied to the input embedding) or a separate matrix."""

    def __init__(self, size: int, embedding: nn.Embedding, tie: bool, activation=F.gelu,
                 eps: float = 1e-5) -> None:
        super().__init__()
        width = embedding.embedding_dim
        self.transform = nn.Linear(size, width)
        self.activation = activation  # GELU (BERT's hidden_act; a BERT folder may name another)
        self.norm = nn.LayerNorm(width, eps=eps)
        self.decoder = nn.Linear(width, embedding.num_embeddings)
        if tie:
            self.decoder.weight = embedding.weight

    def forward(self, states: torch.Tensor) -> torch.Tensor:
        return self.decoder(self.norm(self.activation(self.transform(states))))
