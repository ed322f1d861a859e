"""Word-vector training settings (torch- and gensim-free, so the Qt form can show them)."""

from __future__ import annotations

from dataclasses import dataclass

from workbench.core.config.fields import param, range_problems


@dataclass
class EmbeddingConfig:
    model: str = param("word2vec", "Model", "word2vec learns one vector per word; fastText adds "
                       "character n-grams, so it also has vectors for unseen words.",
                       choices=("word2vec", "fasttext"))
    architecture: str = param("skip-gram", "Architecture", "Skip-gram predicts the context "
                              "from the centre word; CBOW predicts the centre word from the "
                              "averaged context (Mikolov et al. 2013; SLP3 ch. 6, sec. 6.8).",
                              choices=("skip-gram", "cbow"))
    objective: str = param("negative", "Output layer", "Negative sampling (k noise words per "
                           "pair) or hierarchical softmax (a Huffman tree over the vocabulary).",
                           choices=("negative", "hierarchical"))
    negative: int = param(5, "Negative samples k", "Noise words drawn per positive pair, from "
                          "the unigram distribution raised to 3/4.", min=1, max=50)
    vector_size: int = param(100, "Vector size", "Dimensions of each word vector.",
                             min=2, max=1000, step=10)
    window: int = param(5, "Window", "Context words on each side of the centre word (m): "
                        "at most m with a shrinking window, exactly m with a fixed one.",
                        min=1, max=30)
    window_kind: str = param("shrinking", "Window kind",
                             "shrinking: for each centre word the window is drawn at random "
                             "from 1..m, so near words count more often (word2vec's C code and "
                             "gensim's default, shrink_windows=True). fixed: always m words on "
                             "each side, as SLP3 ch. 6 and most course notes describe it.",
                             choices=("shrinking", "fixed"))
    min_count: int = param(5, "Minimum count", "Words rarer than this are dropped.",
                           min=1, max=10_000)
    sample: float = param(1e-3, "Sub-sampling", "Frequent words are dropped at random with "
                          "this threshold (0 = keep all).", min=0.0, max=0.1, step=1e-4)
    epochs: int = param(5, "Epochs", "Passes over the corpus. Progress and cancel act between "
                        "epochs: gensim reports nothing inside one.", min=1, max=200)
    alpha: float = param(0.025, "Learning rate", "Starting learning rate, decayed linearly to "
                         "1e-4 over all epochs.", min=1e-5, max=1.0, step=0.005)
    workers: int = param(2, "Workers", "Training threads.", min=1, max=64)
    seed: int = param(1, "Seed", "Random seed (one worker gives fully repeatable vectors).",
                      min=0, max=2**31 - 1)
    lowercase: bool = param(True, "Lowercase", "Fold case before training (King = king).")
    min_n: int = param(3, "Shortest n-gram", "fastText: shortest character n-gram.",
                       min=1, max=10, advanced=True)
    max_n: int = param(6, "Longest n-gram", "fastText: longest character n-gram.",
                       min=1, max=12, advanced=True)
    evaluate: bool = param(True, "Evaluate each epoch", "Analogy accuracy (questions-words) and "
                           "similarity Spearman (WordSim353, SimLex-999) after every epoch.")

    def problems(self) -> list[str]:
        problems = range_problems(self)
        if self.max_n < self.min_n:
            problems.append("The longest n-gram must be at least the shortest.")
        return problems
