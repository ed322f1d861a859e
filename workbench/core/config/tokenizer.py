"""Tokenizer and split settings (torch-free), shown as a form in the Corpus panel.

The split is interleaved and deterministic: the corpus token ids are cut into up to
`split_stripes` equal stripes (of at least 10,000 tokens each) and every stripe into train, then
validation, then test, so the held-out text samples the whole corpus (core/corpus/dataset.py
says why). Nothing is shuffled, so a model never sees text in training that sits inside a
validation piece. One stripe is the plain contiguous cut.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.core.config.fields import from_dict, param, range_problems, to_dict

TOKENIZER_KINDS = ("char", "word", "bpe")
BOUNDARIES = ("none", "lines", "sentences")

# Words with inner apostrophes ("o'er", "don't") stay whole; punctuation marks are tokens of
# their own; a line break is a token so that generated text keeps the line structure of verse.
DEFAULT_WORD_PATTERN = r"\w+(?:'\w+)*|[^\w\s]|\n"


@dataclass
class TokenizerConfig:
    kind: str = param("char", "Tokenizer",
                      "char: one token per character. word: regex words and punctuation. "
                      "bpe: byte-level byte-pair encoding trained on this corpus.",
                      choices=TOKENIZER_KINDS)
    lowercase: bool = param(False, "Lower-case words",
                            "Word tokenizer only: fold case before counting, so 'The' = 'the'.")
    min_count: int = param(1, "Minimum count",
                           "Characters or words seen fewer times than this map to <unk>.",
                           min=1, max=1000)
    bpe_vocab_size: int = param(2000, "BPE vocabulary size",
                                "Target vocabulary of the BPE tokenizer, special tokens included.",
                                min=260, max=65536, step=250)
    max_word_vocab: int = param(0, "Maximum word vocabulary",
                                "Word tokenizer only: keep the most frequent words (0 = no limit).",
                                min=0, max=1_000_000, step=1000, advanced=True)
    word_pattern: str = param(DEFAULT_WORD_PATTERN, "Word pattern",
                              "Regular expression a word token matches (word tokenizer only).",
                              advanced=True)
    boundaries: str = param("none", "Text boundaries",
                            "none: the corpus is one stream of tokens. lines: every non-empty "
                            "line becomes <bos> line <eos>. sentences: every sentence (ending "
                            "in . ! or ?) becomes <bos> sentence <eos>. With boundaries the "
                            "model learns where text starts and ends, so generation from an "
                            "empty prompt starts at <bos> and stops when it samples <eos> "
                            "(Jurafsky & Martin, SLP3 ch. 9, sec. 9.4.3: autoregressive "
                            "generation).", choices=BOUNDARIES)
    val_fraction: float = param(0.1, "Validation share",
                                "Share of every stripe held out for validation (after its "
                                "training piece).",
                                min=0.0, max=0.5, step=0.01)
    test_fraction: float = param(0.05, "Test share",
                                 "Share of every stripe held out for testing (its last piece).",
                                 min=0.0, max=0.5, step=0.01)
    split_stripes: int = param(100, "Split stripes",
                               "The ids are cut into this many equal stripes (each at least "
                               "10,000 tokens, so a short text gets fewer) and each stripe into "
                               "train, validation, test: the held-out text then samples the "
                               "whole corpus. 1 = one contiguous block each, in order.",
                               min=1, max=10_000, advanced=True)

    def problems(self) -> list[str]:
        """Messages for settings that cannot work together (empty when all is well)."""
        problems = range_problems(self)
        if self.val_fraction + self.test_fraction >= 0.9:
            problems.append("Validation and test shares together must leave at least 10% "
                            "for training.")
        if self.kind == "word":
            import regex  # the engine the word tokenizer runs it in (with a time limit)

            try:
                regex.compile(self.word_pattern)
            except (regex.error, TypeError) as exc:
                problems.append(f"Word pattern is not a valid regular expression: {exc}.")
        return problems


def tokenizer_config_to_dict(config: TokenizerConfig) -> dict:
    return to_dict(config)


def tokenizer_config_from_dict(data: dict) -> TokenizerConfig:
    return from_dict(TokenizerConfig, data)
