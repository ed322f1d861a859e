"""The encoder tasks' settings (torch-free): classify sentences, tag tokens, masked-LM.

Each brings its own data (a shipped data set or a file), its own tokenizer settings (the
tokenizer is trained on the training split, or taken from a pretrained masked-LM run) and its
head settings. Recipes keep them as their `[task]` table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from workbench.core.config.base import ModelConfig, TaskConfig
from workbench.core.config.fields import param, range_problems
from workbench.core.config.models import config_to_dict
from workbench.core.config.task_models import (
    OUTPUTS,
    POOLINGS,
    ClassifierModelConfig,
    MaskedLmModelConfig,
    TaggerModelConfig,
)
from workbench.core.config.tasks import Curve, register_task_config

TOKENIZERS = ("word", "char", "bpe")
ENCODER_STATES = ("trained", "frozen")
HEADERS = ("auto", "yes", "no")
ENCODER_INSPECTORS = ("gates", "attention", "gradients")


# Fields the three tasks share, declared once. The tokenizer's settings are all advanced, so
# they sit in a base class (dataclass inheritance puts a base's fields first, which only orders
# them within the form's Advanced box); the others are factories each config lists where its
# form wants them.

@dataclass
class _EncoderTaskBase(TaskConfig):
    """The tokenizer settings and the check every encoder task's data choice needs."""

    file_needs: ClassVar[str] = "a data file"  # what "Data = file" asks for
    counted_labels: ClassVar[int] = 2  # the head's outputs the panel counts with by default
    encoder_head: ClassVar[bool] = True

    tokenizer: str = param("word", "Tokenizer", "word: regex words and punctuation. char: one "
                           "token per character. bpe: byte-level BPE trained on the training "
                           "sentences. Ignored when a pretrained encoder brings its own.",
                           choices=TOKENIZERS, advanced=True)
    lowercase: bool = param(True, "Lower-case words", "Word tokenizer: fold case first.",
                            advanced=True)
    min_count: int = param(1, "Minimum count", "Words or characters seen fewer times in "
                           "training map to <unk>.", min=1, max=1000, advanced=True)
    vocab_limit: int = param(0, "Vocabulary limit", "Word tokenizer: keep the most frequent "
                             "words (0 = all); BPE: the vocabulary size (0 = 2000).", min=0,
                             max=1_000_000, step=500, advanced=True)

    def problems(self) -> list[str]:
        problems = range_problems(self)
        if getattr(self, "dataset", "") == "file" and not getattr(self, "path", "").strip():
            problems.append(f"Data = file needs {self.file_needs}: choose one.")
        if getattr(self, "pretrained", "").strip() and getattr(self, "start_from", "").strip():
            problems.append("The encoder starts from a masked-LM run ('Pretrained encoder') or "
                            "a BERT folder ('Start from'), not both: clear one.")
        return problems

    def data_name(self) -> str:
        return getattr(self, "dataset", "") or self.name


def _max_length(default: int = 64):
    return param(default, "Longest sentence", "Tokens kept per sentence; longer ones are cut "
                 "(how many were cut is reported).", min=2, max=4096, step=8)


def _val_fraction():
    return param(0.1, "Validation share", "Share of the training data held out to validate "
                 "on (a seeded random cut).", min=0.0, max=0.5, step=0.01)


def _test_fraction():
    return param(0.1, "Test share", "Share held out for testing when there is no test file.",
                 min=0.0, max=0.5, step=0.01)


def _pretrained():
    return param("", "Pretrained encoder", "A masked-LM run folder, or 'run:NAME' for the "
                 "newest run of that name, whose encoder (and tokenizer) this model starts "
                 "from: fine-tuning. Empty = from scratch.")


def _start_from():
    return param("", "Start from", "A Hugging Face BERT model folder (File ▸ Open model reads "
                 "the same folders) whose encoder, weights and tokenizer this model starts "
                 "from: fine-tuning, the text read as [CLS] … [SEP]. Its sizes replace the "
                 "Architecture panel's encoder. Empty: a new model.")


def _encoder_state():
    return param("trained", "Pretrained encoder is", "trained: every weight learns "
                 "(fine-tuning, as BERT). frozen: only the head learns (feature-based).",
                 choices=ENCODER_STATES)


@register_task_config
@dataclass
class ClassifyTaskConfig(_EncoderTaskBase):
    """Sequence classification: one label per sentence (SLP3 9.4.2; seed 002's sentiment)."""

    name: ClassVar[str] = "classify"
    title: ClassVar[str] = "Classify sentences"
    short_title: ClassVar[str] = "Classify"
    io_shape: ClassVar[str] = "one"
    needs_corpus: ClassVar[bool] = False
    curves: ClassVar[tuple[Curve, ...]] = (
        Curve("val_loss", "Loss (nats per sentence)", train="loss"),
        Curve("accuracy", "Accuracy", log_ok=False, unit="percent", short="accuracy"),
        Curve("macro_f1", "Macro-F1", log_ok=False, unit="percent", short="macro-F1"),
    )
    inspectors: ClassVar[tuple[str, ...]] = ("classify", *ENCODER_INSPECTORS)

    dataset: str = param("sentiment", "Data", "sentiment: 3,000 review sentences (Kotzias et "
                         "al., CC BY 4.0). restaurant-reviews: the ten reviews of the Keras "
                         "embedding example. file: your text<TAB>label file or folder.",
                         choices=("sentiment", "restaurant-reviews", "file"))
    path: str = param("", "Data file", "Data = file: a text<TAB>label file, or a folder of "
                      ".txt/.tsv files.")
    test_path: str = param("", "Test file", "Optional separate test file; empty = a seeded "
                           "share of the data is held out.")
    test_fraction: float = _test_fraction()
    val_fraction: float = _val_fraction()
    text_column: str = param("0", "Text column", "Column number (0 = first) or header name.",
                             advanced=True)
    label_column: str = param("-1", "Label column", "Column number (-1 = last) or header "
                              "name, when a row has more than two columns.", advanced=True)
    header: str = param("auto", "Header row", "auto: a first row whose label is no other "
                        "row's label is a header.", choices=HEADERS, advanced=True)
    pooling: str = param("last", "Pooling", "How the states of a sentence become one vector: "
                         "last state, mean, max, attention (learned weights, shown per word) "
                         "or [CLS] (transformer encoder with a [CLS] token).", choices=POOLINGS)
    output: str = param("softmax", "Output", "softmax over the labels, or one sigmoid unit "
                        "for two labels (Keras' Dense(1, sigmoid)).", choices=OUTPUTS)
    max_length: int = _max_length()
    pretrained: str = _pretrained()
    encoder_state: str = _encoder_state()
    start_from: str = _start_from()
    # BERT's pooler tanh(W h_[CLS] + b) between the [CLS] state and the label layer, as
    # BertForSequenceClassification has it; off: the label layer reads h_[CLS] itself
    bert_pooler: bool = param(False, "BERT's pooler", "Start from a BERT folder: the pooled "
                              "vector goes through tanh(W h + b) first, W and b read from the "
                              "folder's pooler (a fresh layer where it has none).",
                              advanced=True)

    def problems(self) -> list[str]:
        problems = super().problems()
        if self.bert_pooler and not self.start_from.strip():
            problems.append("BERT's pooler needs 'Start from' a BERT folder.")
        return problems

    def model_for_counts(self, encoder: ModelConfig, labels: int = 2) -> ClassifierModelConfig:
        """The whole model (encoder and head) the Architecture panel counts, for `labels`
        labels (the data's own count is known once it is read)."""
        return ClassifierModelConfig(encoder=config_to_dict(encoder), num_labels=labels,
                                     pooling=self.pooling, output=self.output,
                                     cls_in_text=bool(self.start_from.strip()),
                                     pooler=self.bert_pooler)


@register_task_config
@dataclass
class TagTaskConfig(_EncoderTaskBase):
    """Sequence labelling: one tag per word (SLP3 9.4.1, part-of-speech tagging)."""

    name: ClassVar[str] = "tag"
    file_needs: ClassVar[str] = "a CoNLL-U file"
    counted_labels: ClassVar[int] = 17  # UD's UPOS tags
    title: ClassVar[str] = "Tag tokens"
    short_title: ClassVar[str] = "Tag"
    io_shape: ClassVar[str] = "aligned"
    needs_corpus: ClassVar[bool] = False
    curves: ClassVar[tuple[Curve, ...]] = (
        Curve("val_loss", "Loss (nats per word)", train="loss"),
        Curve("accuracy", "Token accuracy", log_ok=False, unit="percent", short="accuracy"),
        Curve("macro_f1", "Macro-F1 over tags", log_ok=False, unit="percent", short="macro-F1"),
    )
    inspectors: ClassVar[tuple[str, ...]] = ("tagging", *ENCODER_INSPECTORS)

    dataset: str = param("ewt", "Data", "ewt: UD English EWT, dev file to train, test file to "
                         "test (CC BY-SA 4.0). file: your CoNLL-U file(s).",
                         choices=("ewt", "file"))
    path: str = param("", "Data file", "Data = file: a .conllu file or a folder of them.")
    test_path: str = param("", "Test file", "Data = file: an optional .conllu test file "
                           "(empty = a seeded share of the data).")
    test_fraction: float = _test_fraction()
    val_fraction: float = _val_fraction()
    column: str = param("upos", "Tag column", "upos: the 17 universal tags. xpos: the "
                        "treebank's own tags (Penn Treebank tags for EWT).",
                        choices=("upos", "xpos"))
    max_length: int = _max_length(128)
    pretrained: str = _pretrained()
    encoder_state: str = _encoder_state()
    start_from: str = _start_from()

    def model_for_counts(self, encoder: ModelConfig, labels: int = 17) -> TaggerModelConfig:
        """The whole model the Architecture panel counts (17 tags: UD's UPOS set)."""
        return TaggerModelConfig(encoder=config_to_dict(encoder), num_tags=labels)


@register_task_config
@dataclass
class MaskedLmTaskConfig(_EncoderTaskBase):
    """Encoder pretraining by masked-LM (BERT; seeds 002, 003): 15% of tokens chosen, of
    those 80% [MASK], 10% a random token, 10% kept; the loss on the chosen tokens only."""

    name: ClassVar[str] = "masked_lm"
    file_needs: ClassVar[str] = "a text file"
    counted_labels: ClassVar[int] = 0  # the head predicts the vocabulary
    title: ClassVar[str] = "Masked-LM pretraining"
    short_title: ClassVar[str] = "Masked LM"
    io_shape: ClassVar[str] = "masked"
    needs_corpus: ClassVar[bool] = False
    curves: ClassVar[tuple[Curve, ...]] = (
        Curve("val_loss", "Loss (nats per chosen token)", train="loss"),
        Curve("accuracy", "Chosen tokens recovered", log_ok=False, unit="percent",
              short="recovered"),
        # only a run with next-sentence prediction logs this one
        Curve("nsp_accuracy", "Next sentence told right (IsNext / NotNext)", log_ok=False,
              unit="percent", short="next sentence", optional=True),
    )
    inspectors: ClassVar[tuple[str, ...]] = ("fill_mask", *ENCODER_INSPECTORS)

    dataset: str = param("shakespeare", "Data", "shakespeare: the shipped plays, one line a "
                         "sentence. file: your text, one sentence a line (a file or folder).",
                         choices=("shakespeare", "file"))
    path: str = param("", "Data file", "Data = file: one sentence a line.")
    min_words: int = param(3, "Shortest line (words)", "Lines with fewer words (speaker names, "
                           "stage directions) are left out.", min=1, max=100)
    mask_rate: float = param(0.15, "Chosen share", "Share of tokens chosen for prediction "
                             "(BERT: 15%).", min=0.01, max=0.5, step=0.01)
    next_sentence: bool = param(False, "Next-sentence prediction", "BERT's second pretraining "
                                "task (Devlin et al. 2019, sec. 3.1; the course's BERT "
                                "lecture): each example is a pair [CLS] A [SEP] B [SEP], B the "
                                "sentence after A half the time (IsNext) and a random sentence "
                                "of the same split otherwise (NotNext); segment embeddings tell "
                                "A from B, a head on the [CLS] state says which, and its loss "
                                "adds to the masked-LM loss. Needs the transformer encoder.")
    sentence_lines: int = param(1, "Lines per sentence", "Next-sentence prediction: how many "
                                "consecutive lines make one sentence A or B. BERT's "
                                "'sentences' are spans of contiguous text (Devlin et al. 2019, "
                                "sec. 3.1): a longer span gives more to tell a continuation by.",
                                min=1, max=16, advanced=True)
    val_fraction: float = _val_fraction()
    max_length: int = _max_length()
    # a BERT model folder to fine-tune (its sizes, weights and tokenizer replace the panel's
    # encoder and the trained tokenizer)
    start_from: str = _start_from()

    def model_for_counts(self, encoder: ModelConfig, labels: int = 0) -> MaskedLmModelConfig:
        """The whole model the Architecture panel counts (the head predicts the vocabulary)."""
        return masked_lm_model(config_to_dict(encoder), self.next_sentence)


def masked_lm_model(encoder: dict, next_sentence: bool = False) -> MaskedLmModelConfig:
    """The masked-LM model around `encoder`; with next-sentence prediction, its encoder gets
    the two-row segment table (A, B) and the model the [CLS] head."""
    if not next_sentence:
        return MaskedLmModelConfig(encoder=encoder)
    if encoder.get("arch") == "transformer_encoder":  # another encoder: its problems say so
        encoder = {**encoder, "segments": max(2, int(encoder.get("segments", 0)))}
    return MaskedLmModelConfig(encoder=encoder, next_sentence=True)
