"""One skip-gram pair's negative-sampling loss, from a trained word2vec's own vectors: the noise
distribution P_n(w) ∝ count(w)^0.75 (gensim's `ns_exponent`), k noise words drawn from it, and
each term of

    L = −log σ(u_O · v_I) − Σ_k log σ(−u_{w_k} · v_I)

with v_I the input word's vector (the embedding the explorer shows) and u the output vectors
gensim trains beside them (`syn1neg`), u_O that of a word of its window. Skip-gram trains every
pair of a window both ways (gensim reads the window word's v and the centre's u); CBOW's input
is the mean of the window's vectors, so with CBOW vectors one input word stands in for it.
Mikolov et al. 2013, "Distributed Representations of Words and Phrases and their
Compositionality", eq. 4; the seed (002) names the idea only. A noise word equal to the output
word is drawn again, as word2vec's C code skips it."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from workbench.core.worked.records import (
    Curve,
    Figure,
    Line,
    WorkedComputation,
    num,
    products,
    sigmoid,
)

SOURCE = ("Mikolov et al. 2013, “Distributed Representations of Words and Phrases and their "
          "Compositionality”, eq. 4 (the 3/4 power: sec. 2.2); gensim's Word2Vec (syn1neg, "
          "ns_exponent)")
RANKS_DRAWN = 30  # the most frequent words whose unigram and noise shares are drawn


def noise_distribution(counts: np.ndarray, exponent: float) -> np.ndarray:
    weights = np.asarray(counts, dtype=np.float64) ** exponent
    return weights / weights.sum()


def negative_sampling_example(words: Sequence[str], counts: np.ndarray, inputs: np.ndarray,
                              outputs: np.ndarray, input_word: str, output_word: str, k: int,
                              seed: int = 0, exponent: float = 0.75) -> WorkedComputation:
    index = {word: i for i, word in enumerate(words)}
    for role, word in (("input", input_word), ("output", output_word)):
        if word not in index:
            raise ValueError(f"The {role} word '{word}' is not in the vocabulary.")
    if not 1 <= k <= 50:
        raise ValueError(f"k = {k}: draw between 1 and 50 noise words.")
    c, o = index[input_word], index[output_word]
    unigram = np.asarray(counts, dtype=np.float64) / np.sum(counts)
    noise = noise_distribution(counts, exponent)
    rng = np.random.default_rng(seed)
    drawn: list[int] = []
    while len(drawn) < k:
        word = int(rng.choice(len(words), p=noise))
        if word != o:
            drawn.append(word)
    v_c = np.asarray(inputs[c], dtype=np.float64)
    top = np.argsort(-unigram)[:3]
    shares = "; ".join(f"'{words[i]}' {num(unigram[i] * 100, 2)} % → {num(noise[i] * 100, 2)} %"
                       for i in top)
    lines = [Line("noise distribution", f"P_n(w) = count(w)^{exponent:g} / Σ count^{exponent:g}",
                  f"the most frequent words lose share, rare ones gain: {shares}", noise),
             Line(f"{k} noise words", f"w_1 … w_{k} ~ P_n (seed {seed})",
                  ", ".join(f"'{words[i]}' (P_n {num(noise[i] * 100, 3)} %)" for i in drawn),
                  np.array(drawn))]
    positive = float(np.asarray(outputs[o], np.float64) @ v_c)
    p_positive = float(sigmoid(positive))
    lines += [Line("positive score", f"u_'{output_word}' · v_'{input_word}'",
                   f"{products(outputs[o], v_c)} = {num(positive)}", positive),
              Line("positive term", "−log σ(u_O · v_I)",
                   f"σ({num(positive)}) = {num(p_positive)}; −log = {num(-np.log(p_positive))}",
                   -np.log(p_positive))]
    terms = []
    for i in drawn:
        score = float(np.asarray(outputs[i], np.float64) @ v_c)
        term = float(-np.log(sigmoid(-score)))
        terms.append(term)
        lines.append(Line(f"noise term '{words[i]}'", f"−log σ(−u_'{words[i]}' · v_I)",
                          f"score {num(score)}; σ({num(-score)}) = {num(sigmoid(-score))}; "
                          f"−log = {num(term)}", term))
    loss = float(-np.log(p_positive) + sum(terms))
    lines.append(Line("loss of this pair", "L = −log σ(u_O·v_I) − Σ_k log σ(−u_k·v_I)",
                      f"{num(-np.log(p_positive))} + " + " + ".join(num(t) for t in terms)
                      + f" = {num(loss)}", loss))
    ranks = np.argsort(-unigram)[:RANKS_DRAWN]
    x = np.arange(1, len(ranks) + 1, dtype=float)
    figure = Figure(f"Unigram share and noise share (count^{exponent:g}) of the "
                    f"{len(ranks)} most frequent words", "frequency rank", "share (%)",
                    (Curve("unigram P(w)", x, unigram[ranks] * 100),
                     Curve(f"noise P_n(w) ∝ count^{exponent:g}", x, noise[ranks] * 100)))
    return WorkedComputation(
        f"Negative sampling for the pair ('{input_word}', '{output_word}'), k = {k}",
        tuple(lines),
        SOURCE, values={"loss": loss, "positive": positive, "noise": [words[i] for i in drawn],
                        "terms": terms},
        note="Training makes σ(u_O·v_I) large for pairs seen in the text and σ(u_k·v_I) small "
             "for the noise words: k + 1 dot products instead of a softmax over the whole "
             "vocabulary.", figure=figure)
