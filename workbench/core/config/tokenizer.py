"""Tokenizer and split settings (torch-free), shown as a form in the Corpus panel.

The held-out text is text the model never trains on or beside (core/corpus/held_out.py):
`split = "documents"` holds out whole documents of a corpus of three or more (chosen from the
seed unless `validation_documents`/`test_documents` name them), and a few long contiguous
stretches of a corpus of one or two documents. The documents or stretches chosen are written
back into the config a run records, so a resumed run reads the same split whatever its seed.

`split = "stripes"` is the split of runs made before: the token ids cut into up to
`split_stripes` equal stripes, each into train, validation, test. Its validation pieces sit
between training pieces of the same scene, so it read 0.26-0.42 nats lower than unseen text
(issue 29); it is kept only so that such runs resume on the text they were trained on.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from workbench.core.config.fields import from_dict, param, range_problems, to_dict

TOKENIZER_KINDS = ("char", "word", "bpe")
BOUNDARIES = ("none", "lines", "sentences", "paragraphs")
SPLITS = ("documents", "stripes")

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
                            "in . ! or ?) becomes <bos> sentence <eos>. paragraphs: text "
                            "between blank lines (in a play, one speech) becomes <bos> "
                            "paragraph <eos>. With boundaries the "
                            "model learns where text starts and ends, so generation from an "
                            "empty prompt starts at <bos> and stops when it samples <eos> "
                            "(Jurafsky & Martin, SLP3 ch. 9, sec. 9.4.3: autoregressive "
                            "generation).", choices=BOUNDARIES)
    val_fraction: float = param(0.1, "Validation share",
                                "Share of the text held out for validation: whole documents "
                                "of a corpus of three or more, else a few long stretches.",
                                min=0.0, max=0.5, step=0.01)
    test_fraction: float = param(0.05, "Test share",
                                 "Share of the text held out for testing, chosen the same way "
                                 "(never a document or stretch of the validation text).",
                                 min=0.0, max=0.5, step=0.01)
    # Not in the form: "documents" for every new run, "stripes" only for runs made before it
    split: str = field(default="documents", metadata={"choices": SPLITS})
    split_stripes: int = field(default=100, metadata={"min": 1, "max": 10_000})
    # The held-out documents by name (empty: chosen from the seed), as the Corpus panel's table
    # sets them and a run's recipe records them.
    validation_documents: tuple[str, ...] = ()
    test_documents: tuple[str, ...] = ()
    # The held-out stretches of a corpus of one or two documents, as character offsets
    # start, end, start, end, ... into its text: recorded by a run, never typed by hand.
    validation_stretches: tuple[int, ...] = ()
    test_stretches: tuple[int, ...] = ()

    def problems(self) -> list[str]:
        """Messages for settings that cannot work together (empty when all is well)."""
        problems = range_problems(self)
        if self.val_fraction + self.test_fraction >= 0.9:
            problems.append("Validation and test shares together must leave at least 10% "
                            "for training.")
        if self.split not in SPLITS:
            problems.append(f"Split must be one of {', '.join(SPLITS)}.")
        both = sorted(set(self.validation_documents) & set(self.test_documents))
        if both:
            problems.append(f"{', '.join(both)} cannot be both validation and test text.")
        if len(self.validation_stretches) % 2 or len(self.test_stretches) % 2:
            problems.append("Held-out stretches are pairs of start and end offsets.")
        if self.kind == "word":
            import regex  # the engine the word tokenizer runs it in (with a time limit)

            try:
                compiled = regex.compile(self.word_pattern)
            except (regex.error, TypeError) as exc:
                problems.append(f"Word pattern is not a valid regular expression: {exc}.")
            else:
                problems.extend(_pattern_problems(compiled))
        return problems


def _pattern_problems(compiled) -> list[str]:
    """A word pattern that can match nothing (empty, or all optional like 'a*') made every
    position of the text an empty word; one with several groups gave tuples, not words."""
    if compiled.fullmatch("") is not None:
        return ["Word pattern matches an empty word (it is empty, or all of it is optional, "
                "like 'a*'): give a pattern that matches at least one character, or use the "
                "default."]
    if compiled.groups > 1:
        return [f"Word pattern has {compiled.groups} capturing groups; a word is one match: "
                "group with (?:...) instead of (...)."]
    return []


def tokenizer_config_to_dict(config: TokenizerConfig) -> dict:
    return to_dict(config)


def tokenizer_config_from_dict(data: dict) -> TokenizerConfig:
    return from_dict(TokenizerConfig, data)
