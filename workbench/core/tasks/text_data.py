"""What the encoder tasks share before training: a tokenizer, encoded splits, what a
pretrained encoder brings (`Pretrained`; where it is read from: `encoder_start`), and the notes
a user should read about the data.

The tokenizer is trained on the training split only (so held-out text stays unseen), taken
from a resumed run's checkpoint (the same ids as before), or taken from the pretrained
masked-LM run (its encoder only knows those ids). Every vocabulary has one id more than its
tokenizer: [MASK] = tokenizer.vocab_size, which masked-LM pretraining uses and fine-tuning
inherits.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from workbench.core.config.tokenizer import TokenizerConfig
from workbench.core.corpus.tokenizers import SPECIAL_TOKENS, UNK, Tokenizer, tokenizer_from_dict
from workbench.core.data.masking import MASK_TEXT
from workbench.core.jobs import UserFacingError

FIRST_ORDINARY = len(SPECIAL_TOKENS)  # ids below are <pad>, <unk>, <bos>, <eos>
DEFAULT_BPE_SIZE = 2000


@dataclass
class TextVocabulary:
    """A tokenizer plus the [MASK] id after its last entry, or the tokenizer's own [MASK] (a
    BERT folder's vocabulary has one, and its model was trained on that id)."""

    tokenizer: Tokenizer

    @property
    def mask_id(self) -> int:
        own = getattr(self.tokenizer, "mask_id", None)
        return self.tokenizer.vocab_size if own is None else int(own)

    @property
    def size(self) -> int:
        own = getattr(self.tokenizer, "mask_id", None) is not None
        return self.tokenizer.vocab_size + (0 if own else 1)

    @property
    def special_ids(self) -> list[int]:
        """Ids no answer proposes: the tokenizer's own special tokens (BERT's [PAD], [UNK],
        [CLS], [SEP]) or the app's <pad>, <unk>, <bos>, <eos>, and [MASK]."""
        return sorted({*self.tokenizer.special_ids, self.mask_id})

    def framed(self, ids: list[int]) -> tuple[list[int], int]:
        """The ids a model reads for one text, framed as its tokenizer frames every input
        (BERT: [CLS] ids [SEP]; the app's tokenizers: as they are), and where `ids` begin."""
        prefix, suffix = getattr(self.tokenizer, "frame", ((), ()))
        return [*prefix, *ids, *suffix], len(prefix)

    def token(self, i: int) -> str:
        return MASK_TEXT if i == self.mask_id else self.tokenizer.readable_token(i)

    def to_dict(self, **extra: Any) -> dict:
        """The checkpoint's "tokenizer" entry: the tokenizer's own dict (so anything that
        reads a tokenizer from it still can) plus the mask id and the task's names."""
        return {**self.tokenizer.to_dict(), "mask_id": self.mask_id, **extra}

    @staticmethod
    def from_dict(data: dict) -> TextVocabulary:
        return TextVocabulary(tokenizer_from_dict(data))


def train_vocabulary(texts: list[str], settings: Any) -> TextVocabulary:
    """A tokenizer trained on `texts` with a task config's tokenizer fields."""
    from workbench.core.corpus.dataset import train_tokenizer

    limit = int(settings.vocab_limit)
    config = TokenizerConfig(kind=settings.tokenizer, lowercase=settings.lowercase,
                             min_count=settings.min_count, max_word_vocab=limit,
                             bpe_vocab_size=limit or DEFAULT_BPE_SIZE)
    problems = config.problems()
    if problems:
        raise UserFacingError("Tokenizer settings: " + " ".join(problems))
    return TextVocabulary(train_tokenizer("\n".join(texts), config))


def encode_texts(vocabulary: TextVocabulary, texts: list[str], max_length: int
                 ) -> tuple[list[np.ndarray], int]:
    """Token ids of each text, cut to `max_length` (an empty encoding becomes <unk>), and how
    many texts were cut."""
    rows, cut = [], 0
    for text in texts:
        ids = vocabulary.tokenizer.encode(text) or [UNK]
        cut += len(ids) > max_length
        rows.append(np.asarray(ids[:max_length], dtype=np.int64))
    return rows, cut


def encode_framed(vocabulary: TextVocabulary, texts: list[str], max_length: int
                  ) -> tuple[list[np.ndarray], int]:
    """`encode_texts`, each text framed as its tokenizer frames every input (BERT: [CLS] ids
    [SEP], within `max_length`; the app's tokenizers frame nothing)."""
    framing = len(vocabulary.framed([])[0])
    rows, cut = encode_texts(vocabulary, texts, max(1, max_length - framing))
    if framing:
        rows = [np.asarray(vocabulary.framed(row.tolist())[0], dtype=np.int64) for row in rows]
    return rows, cut


def run_dropout(recipe: Any) -> float:
    """The dropout a run's model asks for (the Architecture panel's), which a BERT folder's
    encoder trains with."""
    return float(getattr(getattr(recipe, "model", None), "dropout", 0.1))


def cut_note(cut: int, total: int, max_length: int) -> str:
    if not cut:
        return ""
    return (f"{cut} of {total} sentences are longer than {max_length} tokens and were cut "
            "there (raise 'Longest sentence' to keep more).")


# --- a pretrained masked-LM run --------------------------------------------------------------

@dataclass
class Pretrained:
    """The encoder part of a saved run or a BERT folder: its config dict, weights and
    vocabulary."""

    source: str
    encoder: dict[str, Any]
    weights: dict[str, Any]  # "embedding.weight", ... (the encoder's own state_dict keys)
    vocabulary: dict
    step: int = 0
    notes: list[str] = field(default_factory=list)
    head: dict[str, Any] = field(default_factory=dict)  # a BERT folder's pooler, when asked
