"""The catalogue of toy examples: what a student types (prefilled with the course's worked
example), how it is computed, and the result the course prints, with where it is printed.

`compute(example, texts)` parses the typed inputs and returns the `WorkedComputation`;
`matches_printed(example, computation)` says whether it reproduces the printed numbers at the
precision they are printed with.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from workbench.core.worked import activations, bert_input, padding, representations, toy
from workbench.core.worked.parse import parse_int, parse_matrix, parse_number, parse_vector
from workbench.core.worked.records import WorkedComputation


@dataclass(frozen=True)
class ToyInput:
    key: str
    label: str
    default: str
    kind: str = "matrix"  # "matrix" | "vector" | "number" | "int" | "text" | "flag"


@dataclass(frozen=True)
class ToyExample:
    key: str
    title: str
    inputs: tuple[ToyInput, ...]
    run: Callable[[dict], WorkedComputation]
    printed: np.ndarray | None  # the course's printed result for the default inputs
    decimals: int  # the precision it is printed with
    source: str  # where the example is printed (a public reference)
    explain: str = ""


def _read(item: ToyInput, text: str):
    name = item.label
    if item.kind == "matrix":
        return parse_matrix(text, name)
    if item.kind == "vector":
        return parse_vector(text, name)
    if item.kind == "number":
        return parse_number(text, name)
    if item.kind == "int":
        return parse_int(text, name, 1, 512)
    if item.kind == "flag":
        return text.strip().lower() in ("1", "yes", "true", "on")
    return text


def compute(example: ToyExample, texts: dict[str, str]) -> WorkedComputation:
    """Parse each input (`InputError` names the bad one) and run the example."""
    values = {item.key: _read(item, texts.get(item.key, item.default))
              for item in example.inputs}
    return example.run(values)


def matches_printed(example: ToyExample, computation: WorkedComputation) -> bool:
    if example.printed is None:
        return True
    result = np.asarray(computation.values["result"], dtype=np.float64)
    return result.shape == example.printed.shape and bool(
        np.all(np.round(result, example.decimals) == np.round(example.printed,
                                                              example.decimals)))


M_002 = ("0.29572738 0.88443109 0.21831979\n0.03157878 0.71250614 0.22703532\n"
         "0.12386669 0.74266196 0.91580261")
HELLO = "0.8 0.1 0.05 0.05\n0.1 0.6 0.2 0.1\n0.05 0.2 0.65 0.1\n0.2 0.1 0.1 0.6"

EXAMPLES: tuple[ToyExample, ...] = (
    ToyExample(
        "softmax", "Softmax and argmax of a few logits",
        (ToyInput("z", "logits z", "1 3 2", "vector"),
         ToyInput("t", "temperature T", "1", "number")),
        lambda v: toy.softmax_example(v["z"], v["t"]),
        np.array([0.0900, 0.6652, 0.2447]), 4,
        "softmax([1, 3, 2]) and argmax [0, 1, 0], the example of A. Ng's Sequence Models "
        "course (Coursera); softmax as in Jurafsky & Martin, SLP3 ch. 9, eq. 9.5",
        "Raise T above 1 and the distribution flattens; below 1 it sharpens towards argmax."),
    ToyExample(
        "lookup", "Embedding lookup M x",
        (ToyInput("m", "embedding matrix M", M_002),
         ToyInput("x", "one-hot x", "0 0 1", "vector")),
        lambda v: toy.lookup_example(v["m"], v["x"]),
        np.array([0.21831979, 0.22703532, 0.91580261]), 8,
        "J. Vitrià, “Deep Sequential Models & Embeddings” (lecture, Universitat de Barcelona): "
        "the product printed there as [0,0,1]ᵀ·M is M's third column, i.e. M x; e_t = E x_t "
        "is SLP3 ch. 9, eq. 9.6",
        "A one-hot vector only selects: the lookup table of an Embedding layer is this."),
    ToyExample(
        "cbow", "CBOW input lookup 𝒱 x",
        (ToyInput("m", "input word matrix 𝒱", "17 23 4 10 11\n24 5 6 12 18\n1 7 13 19 25"),
         ToyInput("x", "one-hot x", "0 0 0 1 0", "vector")),
        lambda v: toy.lookup_example(v["m"], v["x"]),
        np.array([10.0, 12.0, 19.0]), 0,
        "Stanford CS224n lecture notes, part I (word vectors), CBOW: v = 𝒱 x",
        "Column 4 of 𝒱 is the input vector of word 4."),
    ToyExample(
        "layernorm", "Layer normalisation",
        (ToyInput("x", "vector x", "1 2 3 4", "vector"),
         ToyInput("gamma", "gain γ", "1", "number"),
         ToyInput("beta", "offset β", "0", "number"),
         ToyInput("eps", "ε under the root", "0", "number")),
        lambda v: toy.layer_norm_example(v["x"], v["gamma"], v["beta"], v["eps"]),
        np.array([-1.3416, -0.4472, 0.4472, 1.3416]), 4,
        "Jurafsky & Martin, SLP3 ch. 9, eqs. 9.39–9.42 (population σ); Ba et al. 2016",
        "PyTorch's LayerNorm puts ε = 0.00001 under the root: type it to see the difference."),
    ToyExample(
        "positions", "Sinusoidal positional encoding",
        (ToyInput("d", "width d", "4", "int"), ToyInput("n", "positions", "4", "int")),
        lambda v: toy.positional_example(v["d"], v["n"]),
        np.array([[0, 1, 0, 1], [0.8415, 0.5403, 0.0100, 1.0000],
                  [0.9093, -0.4161, 0.0200, 0.9998], [0.1411, -0.9900, 0.0300, 0.9996]]), 4,
        "Vaswani et al. 2017, sec. 3.5, at the toy width d = 4 of M. Erlihson, “Recurrent "
        "Neural Nets & Transformers: Intro” (slides, 2021)",
        "Try d = 20 and 50 positions: each column is a wave of its own frequency."),
    ToyExample(
        "activations", "Activation functions and their derivatives",
        (ToyInput("x", "point x", "0", "number"), ToyInput("low", "from", "-5", "number"),
         ToyInput("high", "to", "5", "number"), ToyInput("leak", "Leaky ReLU slope", "0.1",
                                                          "number"),
         ToyInput("alpha", "ELU α", "1", "number")),
        lambda v: activations.activation_example(v["x"], v["low"], v["high"], v["leak"],
                                                 v["alpha"]),
        None, 4,
        "The course's activation functions (seed 001, L156–198; Leaky ReLU max(0.1x, x)); the "
        "derivatives by the chain rule",
        "Move x: where is each slope largest, and where is it zero?"),
    ToyExample(
        "padding", "Padding and masks of a batch",
        (ToyInput("text", "sentences, one a line",
                  "the cat sat\nthe old man saw the boats\na dog", "text"),
         ToyInput("row", "row whose attention mask to show (1 first)", "1", "int"),
         ToyInput("causal", "a decoder (causal mask too)", "no", "flag")),
        lambda v: padding.padding_example(v["text"], v["row"] - 1, bool(v["causal"])),
        None, 0,
        "Keras pad_sequences and masking (the course's seed 002); the encoder tasks' own "
        "padding (core/data/padding.py)",
        "Change the sentences or the row; tick 'a decoder' to add the causal mask."),
    ToyExample(
        "bert-input", "BERT's input: a sentence pair, masked LM and next sentence",
        (ToyInput("a", "sentence A", "the man went to the store", "text"),
         ToyInput("b", "sentence B", "he bought a gallon of milk", "text"),
         ToyInput("next", "B follows A (IsNext)", "yes", "flag"),
         ToyInput("d", "width d of the toy tables", "4", "int"),
         ToyInput("seed", "seed of the masking", "1", "int")),
        lambda v: bert_input.bert_input_example(v["a"], v["b"], bool(v["next"]), v["d"],
                                                v["seed"]),
        None, 0,
        "Devlin et al. 2019, fig. 2; the course's NSP example (seed 003: “[CLS] the man went "
        "to [MASK] store [SEP] he bought a gallon [MASK] milk [SEP]”, IsNext)",
        "Type 'penguins are flightless birds' as B and untick IsNext: the course's NotNext."),
    ToyExample(
        "one-hot", "One-hot against dense vectors",
        (ToyInput("words", "words", "hotel motel cat", "text"),
         ToyInput("dense", "dense vectors (one row a word)",
                  "0.9 0.1 0.3\n0.8 0.2 0.35\n-0.2 0.9 0.1")),
        lambda v: representations.one_hot_vs_dense(v["words"].split(), v["dense"]),
        np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1]]), 0,
        "The course's one-hot example (seed 002: (w^hotel)ᵀ w^motel = (w^hotel)ᵀ w^cat = 0); "
        "the dense rows are typed, not the course's",
        "Type vectors of your own: one-hot stays the identity, the cosines follow the rows."),
    ToyExample(
        "pooling", "Pooling hidden states for a classifier",
        (ToyInput("states", "hidden states h_1 … h_n (one row a token)",
                  "0.1 0.9 -0.2\n0.5 0.3 0.4\n-0.3 0.6 0.8\n0.2 -0.1 0.5"),),
        lambda v: representations.pooling_example(v["states"]),
        None, 0, "Jurafsky & Martin, SLP3 sec. 9.4.2, eq. 9.14 (pooling); the course's "
        "sentence classification (seed 004)",
        "Last, mean or max: which keeps a strong signal from the middle of the sentence?"),
    ToyExample(
        "attention-matrix", "An attention matrix (“Hello I love you”)",
        (ToyInput("a", "weights A (rows: queries Hello, I, love, you)", HELLO),
         ToyInput("v", "values V (one row per key; identity: outputs = weights)",
                  "1 0 0 0\n0 1 0 0\n0 0 1 0\n0 0 0 1")),
        lambda v: toy.attention_matrix_example(v["a"], v["v"]),
        np.array([1.0, 1.0, 1.0, 1.0]), 2,
        "M. Erlihson, “Recurrent Neural Nets & Transformers: Intro” (slides, 2021), the "
        "Hello / I / love / you matrix",
        "Rows sum to 1, columns need not (here 1.15, 1, 1, 0.85)."),
    ToyExample(
        "masked", "Masked self-attention from Q, K and V",
        (ToyInput("q", "queries Q (one row per token)",
                  "1 0\n0 1\n1 1\n0.5 -1\n2 0"),
         ToyInput("k", "keys K", "1 0\n0 1\n1 1\n0.5 -1\n2 0"),
         ToyInput("v", "values V", "1 0\n0 1\n1 1\n0 2\n3 1"),
         ToyInput("causal", "causal mask (yes/no)", "yes", "flag"),
         ToyInput("scaled", "divide by √d_k (yes/no)", "yes", "flag")),
        lambda v: toy.self_attention_example(v["q"], v["k"], v["v"], v["causal"], v["scaled"]),
        None, 4,
        "Jurafsky & Martin, SLP3 ch. 9, Fig. 9.17 and eq. 9.34; Vaswani et al. 2017, eq. 1",
        "With the mask, row 1 can only attend to itself: its weights are [1, 0, 0, 0, 0]."),
    ToyExample(
        "window", "word2vec context window",
        (ToyInput("sentence", "sentence", "I will have orange juice and eggs for breakfast",
                  "text"),
         ToyInput("centre", "centre word", "juice", "text"),
         ToyInput("m", "window m", "2", "int")),
        lambda v: toy.window_example(v["sentence"], v["centre"], v["m"]),
        None, 0,
        "A. Ng's Sequence Models course (Coursera), word2vec: (juice, have), (juice, orange), "
        "(juice, and), (juice, eggs); Mikolov et al. 2013",
        "gensim's default draws each window's size from 1..m; the Embeddings panel offers both."),
)


def example(key: str) -> ToyExample:
    for item in EXAMPLES:
        if item.key == key:
            return item
    raise KeyError(key)
