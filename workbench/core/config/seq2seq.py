"""Sequence-to-sequence (torch-free): the task's config and the encoder-decoder model configs.

The task reads source -> target pairs (a built-in generated task or a tab-separated file),
tokenizes each side by characters or words, and trains with teacher forcing. The models:

- `RnnSeq2seqConfig` ("rnn_seq2seq"): an RNN encoder (Elman, LSTM or GRU; stacked; optionally
  bidirectional) whose final states are bridged to an RNN decoder of the same family, with an
  attention score over the encoder states: none (the plain encoder-decoder and its
  bottleneck), dot, scaled dot, general or additive, and input feeding or not.
- `TransformerSeq2seqConfig` ("transformer_seq2seq"): encoder blocks without the causal mask,
  decoder blocks with masked self-attention and cross-attention.

Model configs declare `tasks = ("seq2seq",)`, so the Architecture panel offers them for this
task only (see `architectures_for`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from workbench.core.config.attention_scores import SCORES, form_help
from workbench.core.config.base import ModelConfig, TaskConfig
from workbench.core.config.fields import param, range_problems
from workbench.core.config.models import register_config
from workbench.core.config.tasks import Curve, ResultPlot, register_task_config
from workbench.core.recurrent_cells import CELLS as RECURRENT_CELLS

GENERATED = ("dates", "reverse", "sort", "addition", "copy")
DATA_SOURCES = GENERATED + ("file",)
SIDE_TOKENS = ("char", "word")
ATTENTION_SCORES = tuple(SCORES)  # the one table: config/attention_scores.py
# the encoder and decoder cells: those of core/recurrent_cells with a fused module (a padded
# batch of sources is packed for it)
CELLS = tuple(name for name, cell in RECURRENT_CELLS.items() if cell.fused)


@register_task_config
@dataclass
class Seq2seqTaskConfig(TaskConfig):
    """Read one sequence, write another: source -> target pairs, teacher forcing."""

    name: ClassVar[str] = "seq2seq"
    title: ClassVar[str] = "Sequence to sequence"
    short_title: ClassVar[str] = "Seq2seq"
    io_shape: ClassVar[str] = "pairs"
    needs_corpus: ClassVar[bool] = False
    curves: ClassVar[tuple[Curve, ...]] = (
        Curve("val_loss", "Loss (nats per target token)", train="loss"),
        Curve("token_accuracy", "Token accuracy (teacher forced)", log_ok=False,
              unit="percent", short="tokens"),
        Curve("exact_match", "Exact match (greedy decoding)", log_ok=False, unit="percent",
              short="exact match"),
        Curve("bleu", "BLEU (greedy decoding, 0-100)", log_ok=False, short="BLEU"),
        Curve("chrf", "chrF (greedy decoding, 0-100)", log_ok=False, short="chrF"),
    )
    result_plots: ClassVar[tuple[ResultPlot, ...]] = (
        ResultPlot("accuracy_by_length", "length", "exact_match",
                   "Exact match by input length (last validation)", "input length (tokens)",
                   "percent"),
    )
    inspectors: ClassVar[tuple[str, ...]] = ("alignment", "attention", "seq2seq")

    data: str = param("dates", "Data", "A built-in generated task (no download) or a file of "
                      "tab-separated pairs.", choices=DATA_SOURCES)
    size: int = param(30000, "Examples", "Generated tasks: pairs generated, held-out ones "
                      "included.", min=100, max=2_000_000, step=1000)
    length: int = param(3, "Difficulty / length", "dates: 1 numeric formats, 2 adds month "
                        "names, 3 adds weekdays, ordinals and two-digit years. Other generated "
                        "tasks: the longest input (in characters or digits).", min=1, max=200)
    data_seed: int = param(0, "Data seed", "Seeds the generated pairs and the held-out "
                           "choice: the same seed gives the same data.", min=0,
                           max=2**31 - 1, advanced=True)
    path: str = param("", "File of pairs", "A UTF-8 text file, one pair per line, columns "
                      "separated by tabs (used when Data is 'file').")
    source_column: int = param(1, "Source column", "Column of the source in the file "
                               "(1 = first). Tatoeba exports: 2.", min=1, max=64, advanced=True)
    target_column: int = param(2, "Target column", "Column of the target in the file. "
                               "Tatoeba exports: 4.", min=1, max=64, advanced=True)
    skip_header: bool = param(False, "Skip header line", "The file's first line names the "
                              "columns.", advanced=True)
    source_tokens: str = param("char", "Source tokens", "Split the source into characters or "
                               "words.", choices=SIDE_TOKENS, advanced=True)
    target_tokens: str = param("char", "Target tokens", "Split the target into characters or "
                               "words.", choices=SIDE_TOKENS, advanced=True)
    max_source_length: int = param(64, "Longest source", "Pairs with a longer source (in "
                                   "tokens) are dropped, and counted.", min=1, max=4096,
                                   advanced=True)
    max_target_length: int = param(64, "Longest target", "Pairs with a longer target (in "
                                   "tokens, <eos> included) are dropped, and counted.",
                                   min=2, max=4096, advanced=True)
    held_out: int = param(2000, "Held-out examples", "Validation pairs never trained on (for "
                          "dates: dates never trained on, in any format).", min=1,
                          max=1_000_000, step=100)
    teacher_forcing: float = param(1.0, "Teacher forcing", "Share of decoder steps that read "
                                   "the true previous token; the others read the model's own "
                                   "greedy prediction (scheduled sampling). 1 = always.",
                                   min=0.0, max=1.0, step=0.05)

    def data_name(self) -> str:
        return self.data

    def data_summary(self) -> str:
        """The data in a few words, for the Training panel."""
        if self.data == "file":
            return (self.path.strip().replace("\\", "/").rsplit("/", 1)[-1]
                    or "no file chosen yet")
        return f"{self.data} ({self.size:,} generated pairs, {self.held_out:,} held out)"

    def problems(self) -> list[str]:
        problems = range_problems(self)
        if self.data == "file" and not self.path.strip():
            problems.append("Data 'file' needs a file of pairs: set 'File of pairs'.")
        if self.data == "file" and self.source_column == self.target_column:
            problems.append("Source and target column must differ.")
        if self.data != "file" and self.held_out >= self.size:
            problems.append(f"Held-out examples ({self.held_out}) must be fewer than the "
                            f"examples ({self.size}).")
        return problems


@register_config
@dataclass
class RnnSeq2seqConfig(ModelConfig):
    """RNN encoder-decoder with an attention score (SEEDS.md 2.3 R12, 2.4 T1-T3)."""

    arch: ClassVar[str] = "rnn_seq2seq"
    title: ClassVar[str] = "RNN encoder-decoder"
    tasks: ClassVar[tuple[str, ...]] = ("seq2seq",)
    language_model: ClassVar[bool] = False
    source_vocab_size: int = 0
    target_vocab_size: int = 0
    cell: str = param("gru", "Cell", "The recurrent family of encoder and decoder.",
                      choices=CELLS)
    embedding_size: int = param(64, "Embedding size", "Width of source and target token "
                                "embeddings.", min=2, max=4096, step=8)
    hidden_size: int = param(128, "Hidden size", "Units per encoder layer and direction "
                             "(d_h). The decoder has d_h units, or 2·d_h with a bidirectional "
                             "encoder, so s_i and h_j = [h_j^f; h_j^b] have the same width.",
                             min=2, max=8192, step=16)
    num_layers: int = param(1, "Layers", "Stacked layers in the encoder and in the decoder.",
                            min=1, max=8)
    bidirectional: bool = param(True, "Bidirectional encoder", "Read the source both ways; "
                                "h_j = [h_j^f; h_j^b] (Jurafsky & Martin, SLP3 eq. 9.17).")
    attention: str = param("additive", "Attention", form_help(), choices=ATTENTION_SCORES)
    input_feeding: bool = param(False, "Input feeding", "Feed the attentional state h̃_{i-1} "
                                "into the next decoder step beside the token embedding (Luong "
                                "et al. 2015), so step i knows where step i-1 looked.")
    bridge: str = param("linear", "Bridge", "How the encoder's final states start the "
                        "decoder: linear s_0 = tanh(W_b [h_S^f; h_1^b] + b_b), or copy the "
                        "final states as they are.", choices=("linear", "copy"))
    dropout: float = param(0.0, "Dropout", "Dropout on embeddings and before the output layer.",
                           min=0.0, max=0.9, step=0.05)

    @property
    def decoder_size(self) -> int:
        return self.hidden_size * (2 if self.bidirectional else 1)

    def problems(self) -> list[str]:
        problems = range_problems(self)
        if self.input_feeding and self.attention == "none":
            problems.append("Input feeding feeds the attentional state: choose an attention "
                            "score, or turn input feeding off.")
        return problems


@register_config
@dataclass
class TransformerSeq2seqConfig(ModelConfig):
    """Transformer encoder-decoder (SEEDS.md 2.5 T12-T13; Vaswani et al.)."""

    arch: ClassVar[str] = "transformer_seq2seq"
    title: ClassVar[str] = "Transformer encoder-decoder"
    tasks: ClassVar[tuple[str, ...]] = ("seq2seq",)
    language_model: ClassVar[bool] = False
    source_vocab_size: int = 0
    target_vocab_size: int = 0
    d_model: int = param(64, "Width d_model", "Width of tokens, attention and residual stream.",
                         min=8, max=4096, step=8)
    num_heads: int = param(4, "Heads", "Attention heads per layer; must divide d_model.",
                           min=1, max=64)
    encoder_layers: int = param(2, "Encoder layers", "Encoder blocks (self-attention without "
                                "the causal mask).", min=1, max=24)
    decoder_layers: int = param(2, "Decoder layers", "Decoder blocks (masked self-attention, "
                                "cross-attention over the encoder output).", min=1, max=24)
    d_ff: int = param(256, "Feed-forward width", "Hidden width of the position-wise FFN.",
                      min=8, max=16384, step=8)
    max_length: int = param(128, "Longest sequence", "Positions the model can read, on either "
                            "side.", min=2, max=8192, step=8)
    dropout: float = param(0.1, "Dropout", "Dropout on attention weights, residual branches "
                           "and embeddings.", min=0.0, max=0.9, step=0.05)
    positional: str = param("sinusoidal", "Positions", "Sinusoidal encoding (Vaswani et al. "
                            "2017) or learned position embeddings.",
                            choices=("sinusoidal", "learned"))
    norm_placement: str = param("post", "LayerNorm", "post-LN as Vaswani et al. 2017 write it "
                                "(x + Sublayer(x), then norm) or pre-LN.",
                                choices=("post", "pre"))

    def longest_sequence(self) -> int | None:
        return self.max_length

    def problems(self) -> list[str]:
        problems = range_problems(self)
        if self.num_heads > 0 and self.d_model % self.num_heads:
            problems.append(f"Heads ({self.num_heads}) must divide the width d_model "
                            f"({self.d_model}).")
        return problems


@dataclass
class Seq2seqDecodeConfig:
    """How the console decodes: greedy or beam search (beam search is [NOT IN SEEDS])."""

    strategy: str = param("greedy", "Decoding", "greedy: the most likely token at each step. "
                          "beam: keep the best prefixes by log-probability (Sutskever et al. "
                          "2014).", choices=("greedy", "beam"))
    beam_width: int = param(4, "Beam width", "Prefixes kept at each step (beam search).",
                            min=1, max=64)
    length_penalty: float = param(1.0, "Length penalty α", "Finished beams are ranked by "
                                  "log p / length^α (0 = raw log-probability).", min=0.0,
                                  max=3.0, step=0.1)
    max_length: int = param(64, "Longest output", "Stop here if <eos> has not come.",
                            min=1, max=4096)
    alternatives: int = param(5, "Alternatives", "Top tokens shown per output token.",
                              min=1, max=50)

    def problems(self) -> list[str]:
        return range_problems(self)
