"""Language-model metrics from mean cross-entropy (SEEDS.md, SLP3 eq. 9.x).

The loss is the mean negative log-likelihood per token in nats, L = -(1/N) Σ ln p(w_t | w_<t).
Perplexity is exp(L) (the geometric-mean inverse probability of the held-out tokens); bits per
token (for a char tokenizer, bits per character) is L / ln 2.
"""

from __future__ import annotations

import math

# exp overflows a float past ~709 nats; a model that bad reports an infinite perplexity.
_MAX_NATS = 700.0


def perplexity(mean_nll: float) -> float:
    if not math.isfinite(mean_nll) or mean_nll > _MAX_NATS:
        return math.inf
    return math.exp(mean_nll)


def bits_per_token(mean_nll: float) -> float:
    return mean_nll / math.log(2.0)


def unit_name(tokenizer_kind: str) -> str:
    """'char' for a character tokenizer (bits per character), else 'token'."""
    return "char" if tokenizer_kind == "char" else "token"
