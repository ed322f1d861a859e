"""Word vectors: training on a planted structure, per-epoch loss, evaluation against gensim,
queries, maps, import/export round trips, malformed files, the bridge to language models."""

from __future__ import annotations

import random

import numpy as np
import pytest

from workbench.core.config.embeddings import EmbeddingConfig
from workbench.core.embeddings import evaluation, queries
from workbench.core.embeddings.bridge import embedding_init
from workbench.core.embeddings.interchange import load_vectors, save_vectors
from workbench.core.embeddings.maps import map_job, pca_2d
from workbench.core.embeddings.training import train_embeddings_job
from workbench.core.embeddings.vectors import WordVectors
from workbench.core.events import EpochEnded, JobFinished, Notice
from workbench.core.jobs import JobControl, UserFacingError, drive

ANIMALS = ["cat", "dog", "horse", "cow", "sheep", "goat"]
FRUITS = ["apple", "pear", "plum", "cherry", "grape", "lemon"]


def planted_corpus(lines: int = 3000, seed: int = 0) -> str:
    """Animals share contexts (feed, barn, runs) and fruits share theirs (eat, tree, ripe)."""
    rng = random.Random(seed)
    out = []
    for _ in range(lines):
        if rng.random() < 0.5:
            out.append(f"the {rng.choice(ANIMALS)} {rng.choice(['runs', 'sleeps', 'eats'])} in "
                       f"the {rng.choice(['barn', 'field', 'stable'])}")
        else:
            out.append(f"a {rng.choice(['ripe', 'sweet', 'sour'])} {rng.choice(FRUITS)} hangs "
                       f"on the {rng.choice(['tree', 'branch', 'vine'])}")
    return "\n".join(out)


def train(config: EmbeddingConfig, text: str | None = None):
    events = list(drive(train_embeddings_job(text or planted_corpus(), config, "planted"),
                        JobControl()))
    assert isinstance(events[-1], JobFinished), events[-1]
    return events, events[-1].result


CONFIG = EmbeddingConfig(vector_size=16, window=3, min_count=1, epochs=6, workers=1, seed=3,
                         sample=0.0, evaluate=False)


def test_neighbours_come_from_the_planted_group():
    _, vectors = train(CONFIG)
    for group in (ANIMALS, FRUITS):
        for word in group[:3]:
            near = [w for w, _ in vectors.neighbours(word, 4) if w in ANIMALS + FRUITS]
            assert near and all(w in group for w in near), (word, near)


def test_loss_is_per_epoch_positive_and_not_cumulative():
    events, _ = train(CONFIG)
    losses = [e.metrics["loss"] for e in events if isinstance(e, EpochEnded)]
    assert len(losses) == CONFIG.epochs and all(loss > 0 for loss in losses)
    # a cumulative total would grow by about one epoch's loss each time
    assert losses[-1] < 1.5 * losses[0]


@pytest.mark.slow
def test_fasttext_says_it_reports_no_loss_and_answers_unseen_words():
    from dataclasses import replace

    events, vectors = train(replace(CONFIG, model="fasttext", epochs=3))
    assert any(isinstance(e, Notice) and "no training loss" in e.text for e in events)
    assert all("loss" not in e.metrics for e in events if isinstance(e, EpochEnded))
    assert "cats" not in vectors and vectors.neighbours("cats", 3)


def test_bad_settings_and_empty_vocabulary_are_explained():
    from dataclasses import replace

    with pytest.raises(UserFacingError, match="longest n-gram"):
        train_embeddings_job("a b", replace(CONFIG, min_n=5, max_n=3))
    events = list(drive(train_embeddings_job("one two", replace(CONFIG, min_count=50), "tiny"),
                        JobControl()))
    assert "No word occurs 50 times in tiny" in events[-1].message


def small_vectors(seed: int = 0, n: int = 300, d: int = 12) -> WordVectors:
    rng = np.random.default_rng(seed)
    import gensim.test.utils as gtu
    from gensim.models import KeyedVectors  # noqa: F401 - gensim is needed below anyway

    words = []
    with open(gtu.datapath("questions-words.txt"), encoding="utf-8") as handle:
        for line in handle:
            if not line.startswith(":"):
                words.extend(w.lower() for w in line.split())
    unique = list(dict.fromkeys(words))[:n]
    return WordVectors(unique, rng.normal(size=(len(unique), d)).astype(np.float32))


def keyed(vectors: WordVectors):
    from gensim.models import KeyedVectors

    wv = KeyedVectors(vectors.size)
    wv.add_vectors(vectors.words, vectors.vectors)
    return wv


@pytest.mark.slow
def test_analogy_counts_match_gensims_own_evaluation():
    vectors = small_vectors()
    wv = keyed(vectors)
    report = evaluation.analogy_report(wv)
    score, sections = wv.evaluate_word_analogies(evaluation.dataset("questions-words.txt"),
                                                 case_insensitive=True)
    total = sections[-1]
    assert report.correct == len(total["correct"])
    assert report.scored == len(total["correct"]) + len(total["incorrect"])
    assert report.oov == report.total - report.scored and report.total == 19544
    assert report.accuracy == pytest.approx(score)


def test_our_3cosadd_agrees_with_gensim_most_similar():
    vectors = small_vectors(1)
    wv = keyed(vectors)
    for a, b, c in [vectors.words[i:i + 3] for i in range(0, 60, 3)]:
        ours = vectors.analogy(a, b, c, k=3)
        theirs = wv.most_similar(positive=[b, c], negative=[a], topn=3)
        assert [w for w, _ in ours] == [w for w, _ in theirs]
        assert ours[0][1] == pytest.approx(theirs[0][1], abs=1e-5)
    word = vectors.words[5]
    assert [w for w, _ in vectors.neighbours(word, 5)] == [
        w for w, _ in wv.most_similar(word, topn=5)]
    assert vectors.similarity(word, vectors.words[9]) == pytest.approx(
        wv.similarity(word, vectors.words[9]), abs=1e-6)


def test_3cosmul_and_odd_one_out_and_axes():
    vectors = WordVectors(["a", "b", "c", "d", "x"], np.array(
        [[1, 0, 0], [1, 1, 0], [0, 0, 1], [0, 1, 1], [-1, -1, -1]], dtype=np.float32))
    assert vectors.analogy("a", "b", "c", k=1, method="3cosmul")[0][0] == "d"
    assert vectors.analogy("a", "b", "c", k=1)[0][0] == "d"
    assert vectors.odd_one_out(["a", "b", "d", "x"]) == "x"
    axes = vectors.project_on_axes(("a", "b"), ("a", "c"))
    assert axes.shape == (5, 2) and axes[3, 0] > 0 and axes[3, 1] > 0
    with pytest.raises(UserFacingError, match="'zzz' is not in the vocabulary"):
        vectors.neighbours("zzz")


def test_user_analogies_are_scored_and_malformed_lines_named():
    vectors = WordVectors(["a", "b", "c", "d"], np.array(
        [[1, 0, 0], [1, 1, 0], [0, 0, 1], [0, 1, 1]], dtype=np.float32))
    rows = queries.user_analogies(vectors, "a b c d\na b c q\n")
    assert rows[0][2] is True and "not in vocabulary: q" in rows[1][1]
    with pytest.raises(UserFacingError, match="Line 2 has 3 words"):
        queries.user_analogies(vectors, "a b c d\na b c\n")


@pytest.mark.parametrize("offset", [0.0, 0.5, 100.0])  # centred by Gram, or explicitly
def test_pca_matches_svd_of_the_centred_matrix(offset):
    rng = np.random.default_rng(3)
    matrix = (rng.normal(size=(400, 20)) * np.linspace(3, 0.1, 20) + offset).astype("f4")
    coords = pca_2d(matrix)
    centred = matrix.astype(np.float64) - matrix.mean(0, dtype=np.float64)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    expected = centred @ vt[:2].T
    assert np.allclose(np.abs(coords), np.abs(expected), atol=2e-3 * np.abs(expected).max())


@pytest.mark.slow
def test_pca_and_tsne_maps(monkeypatch):
    from openTSNE import affinity

    # Asked to choose a neighbour index itself, openTSNE imports pynndescent, whose numba code
    # compiles for minutes (a first map waited past 4 minutes); the map never lets it choose.
    def no_package_lookup(name):
        raise AssertionError(f"openTSNE looked for {name}: the map waits for its import")

    monkeypatch.setattr(affinity, "is_package_installed", no_package_lookup)
    vectors = small_vectors(2, n=120)
    coords = pca_2d(vectors.vectors)
    centred = vectors.vectors - vectors.vectors.mean(0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    expected = centred @ vt[:2].T
    assert np.allclose(np.abs(coords), np.abs(expected), atol=1e-3)
    events = list(drive(map_job(vectors, "tsne", seed=1), JobControl()))
    result = events[-1].result
    assert result.shape == (120, 2) and np.all(np.isfinite(result))
    assert sum(1 for e in events if type(e).__name__ == "Progress") > 5


@pytest.mark.parametrize("fmt", ["word2vec-text", "word2vec-binary"])
def test_export_then_import_round_trips(tmp_path, fmt):
    vectors = small_vectors(3, n=50)
    [path] = save_vectors(vectors, tmp_path / "v.out", fmt)
    loaded = load_vectors(path, fmt)
    assert loaded.words == vectors.words
    np.testing.assert_allclose(loaded.vectors, vectors.vectors, rtol=1e-5, atol=1e-6)


def test_glove_and_vec_and_tensorboard(tmp_path):
    glove = tmp_path / "glove.txt"
    glove.write_text("the 0.1 0.2 0.3\nking 1 2 3\n", encoding="utf-8")
    loaded = load_vectors(glove, "glove")
    assert loaded.words == ["the", "king"] and loaded.size == 3
    vec = tmp_path / "wiki.vec"
    vec.write_text("2 3\nthe 0.1 0.2 0.3\nking 1 2 3\n", encoding="utf-8")
    assert load_vectors(vec, "fasttext-vec").words == ["the", "king"]
    files = save_vectors(loaded, tmp_path / "proj", "tensorboard")
    assert files[1].read_text().split() == ["the", "king"]
    assert np.loadtxt(files[0], delimiter="\t").shape == (2, 3)


@pytest.mark.parametrize("content, fmt, message", [
    ("3 x\nthe 1 2 3\n", "word2vec-text", "line 1: the header"),
    ("2 3\nthe 1 2 3\nking 1 2\n", "word2vec-text", "line 3: 2 numbers where the vectors "
                                                     "have 3"),
    ("the 1 2 3\nking 1 two 3\n", "glove", "line 2: 'two' is not a number"),
    ("3 3\nthe 1 2 3\nking 1 2 3\n", "word2vec-text", "header: it promises 3 words"),
])
def test_malformed_text_files_name_the_line(tmp_path, content, fmt, message):
    path = tmp_path / "bad.txt"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(UserFacingError, match=message):
        load_vectors(path, fmt)


def test_truncated_binary_names_the_entry(tmp_path):
    vectors = small_vectors(4, n=10)
    [path] = save_vectors(vectors, tmp_path / "v.bin", "word2vec-binary")
    path.write_bytes(path.read_bytes()[:-30])
    with pytest.raises(UserFacingError, match="entry 10 of 10: the file ends early"):
        load_vectors(path, "word2vec-binary")


def test_bridge_reports_coverage_and_refuses_characters():
    from workbench.core.config.tokenizer import DEFAULT_WORD_PATTERN
    from workbench.core.corpus.tokenizers import CharTokenizer, WordTokenizer

    vectors = WordVectors(["the", "king"], np.ones((2, 4), dtype=np.float32))
    words = WordTokenizer.train("the king and the queen", DEFAULT_WORD_PATTERN)
    init = embedding_init(vectors, words, freeze=True)
    assert sorted(init.found) == ["king", "the"] and "queen" in init.missing
    assert init.matrix.shape == (words.vocab_size, 4) and init.freeze
    np.testing.assert_array_equal(init.matrix[:4], 0.0)
    with pytest.raises(UserFacingError, match="character-level"):
        embedding_init(vectors, CharTokenizer.train("the king"))


def test_sentences_spell_words_like_the_word_tokenizer():
    from workbench.core.config.tokenizer import DEFAULT_WORD_PATTERN
    from workbench.core.corpus.tokenizers import WordTokenizer
    from workbench.core.embeddings.sentences import sentences_of

    text = "O Romeo, Romeo! wherefore art thou Romeo?\nI'll deny thy name.\n\n"
    sentences = sentences_of(text, lowercase=True)
    assert sentences == [["o", "romeo", "romeo", "wherefore", "art", "thou", "romeo"],
                         ["i'll", "deny", "thy", "name"]]
    tokenizer = WordTokenizer.train(text, DEFAULT_WORD_PATTERN, lowercase=True)
    words = {tokenizer.token(i) for i in range(4, tokenizer.vocab_size)}
    assert {w for s in sentences for w in s} <= words


def test_gensim_native_files_load_with_counts_and_other_files_are_refused(tmp_path):
    from gensim.models import KeyedVectors

    keyed = KeyedVectors(4)
    keyed.add_vectors(["the", "king", "queen"], np.eye(3, 4, dtype=np.float32))
    keyed.set_vecattr("king", "count", 7)
    keyed.save(str(tmp_path / "v.kv"))
    loaded = load_vectors(tmp_path / "v.kv", "gensim", trust_code=True)
    assert loaded.words == ["the", "king", "queen"]
    np.testing.assert_array_equal(loaded.vector("queen"), keyed["queen"])
    assert loaded.counts is not None and loaded.counts[1] == 7  # the map colours by them
    from gensim.models import Word2Vec

    model = Word2Vec([["a", "b", "c"]] * 20, vector_size=4, min_count=1, workers=1)
    model.save(str(tmp_path / "w2v.model"))  # a whole model, not just its KeyedVectors
    whole = load_vectors(tmp_path / "w2v.model", "gensim", trust_code=True)
    assert sorted(whole.words) == ["a", "b", "c"] and list(whole.counts) == [20, 20, 20]
    text = tmp_path / "not.kv"
    text.write_text("2 3\nthe 1 2 3\n", encoding="utf-8")
    with pytest.raises(UserFacingError, match="not a gensim KeyedVectors file"):
        load_vectors(text, "gensim", trust_code=True)
