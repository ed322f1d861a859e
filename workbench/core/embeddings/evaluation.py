"""Evaluation of word vectors: analogy accuracy and word-similarity correlation.

The test sets ship inside gensim (questions-words from Mikolov et al., WordSim353, SimLex-999),
so nothing is downloaded. Questions with a word outside the vocabulary are not scored by gensim;
we count them and show them, so a small corpus's accuracy is read with its coverage.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from workbench.core.jobs import UserFacingError


def dataset(name: str) -> str:
    """The path of one of gensim's evaluation sets. Not through gensim.test.utils: importing
    it reads gensim's test corpora, which the installers leave out (only these sets ship)."""
    import gensim

    return str(Path(gensim.__file__).parent / "test" / "test_data" / name)


@dataclass(frozen=True)
class AnalogyReport:
    accuracy: float  # over the questions that could be scored
    correct: int
    scored: int
    oov: int  # questions with a word outside the vocabulary
    total: int
    sections: list[tuple[str, int, int]]  # (name, correct, scored)


def count_questions(path: str) -> int:
    with open(path, encoding="utf-8") as handle:
        return sum(1 for line in handle if line.strip() and not line.startswith(":"))


def analogy_report(wv, path: str | None = None) -> AnalogyReport:
    """gensim's own 3CosAdd evaluation, with the out-of-vocabulary questions counted."""
    path = path or dataset("questions-words.txt")
    if not Path(path).is_file():
        raise UserFacingError(f"The analogy file {path} does not exist.")
    total = count_questions(path)
    if total == 0:
        raise UserFacingError(
            f"{path} has no analogy questions. Each line needs four words 'a b c d' "
            "(a is to b as c is to d); lines starting with ':' name sections.")
    _, sections = wv.evaluate_word_analogies(path, case_insensitive=True)
    parts = [(s["section"], len(s["correct"]), len(s["correct"]) + len(s["incorrect"]))
             for s in sections if s["section"] != "Total accuracy"]
    correct = sum(c for _, c, _ in parts)
    scored = sum(n for _, _, n in parts)
    return AnalogyReport(correct / scored if scored else 0.0, correct, scored, total - scored,
                         total, parts)


def similarity_spearman(wv, name: str) -> tuple[float, float]:
    """(Spearman ρ, share of pairs out of vocabulary) on a gensim word-pair set."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # gensim warns when most pairs are unknown
        try:
            _, spearman, oov_percent = wv.evaluate_word_pairs(dataset(name),
                                                              case_insensitive=True)
        except ValueError:  # scipy's correlations refuse fewer than two known pairs
            return 0.0, unknown_pair_share(wv, dataset(name))
    rho = float(spearman[0]) if spearman[0] == spearman[0] else 0.0  # NaN when nothing scored
    return rho, float(oov_percent) / 100.0


def unknown_pair_share(wv, path: str) -> float:
    """Share of a word-pair set's pairs with a word outside the vocabulary, counted as gensim
    counts them: '#' lines and lines without a numeric score are not pairs."""
    known = {word.lower() for word in wv.index_to_key}
    pairs = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            fields = line.rstrip("\n").split("\t")
            if line.startswith("#") or len(fields) != 3:
                continue
            try:
                float(fields[2])
            except ValueError:
                continue
            pairs.append((fields[0].lower(), fields[1].lower()))
    unknown = sum(1 for a, b in pairs if a not in known or b not in known)
    return unknown / len(pairs) if pairs else 1.0



def standard_scores(wv) -> dict[str, float]:
    """The per-epoch numbers the panel plots."""
    report = analogy_report(wv)
    ws_rho, ws_oov = similarity_spearman(wv, "wordsim353.tsv")
    sl_rho, sl_oov = similarity_spearman(wv, "simlex999.txt")
    return {"analogy_accuracy": report.accuracy, "analogy_scored": float(report.scored),
            "analogy_oov": float(report.oov), "wordsim353": ws_rho, "wordsim353_oov": ws_oov,
            "simlex999": sl_rho, "simlex999_oov": sl_oov}
