"""`workbench vectors CORPUS`: word vectors and their map without the window (the installer
check uses it to show gensim, the evaluation sets and t-SNE work in the bundle)."""

from __future__ import annotations

import csv

from workbench.app.main import main as workbench
from workbench.core.embeddings.interchange import load_vectors

SENTENCES = ("the king spoke to the queen . the queen answered the king .\n"
             "a man and a woman walked to the castle . the castle was old .\n")


def test_trains_vectors_and_writes_them_with_their_map(tmp_path, capsys):
    corpus = tmp_path / "tiny.txt"
    corpus.write_text(SENTENCES * 40)
    out = tmp_path / "tiny.vectors.txt"
    code = workbench(["vectors", str(corpus), "--epochs", "2", "--min-count", "2",
                      "--out", str(out), "--map", "pca"])
    said = capsys.readouterr()
    assert code == 0, said.err
    assert "epoch 2" in said.err and "loss" in said.err and "wordsim353" in said.err
    vectors = load_vectors(out, "word2vec-text")  # what the panel's "Load vectors…" reads
    assert {"king", "queen", "castle"} <= set(vectors.words) and vectors.size == 100
    map_file = tmp_path / "tiny.vectors.map.csv"
    assert said.out.split() == [str(out), str(map_file)]
    with map_file.open(encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["word", "x", "y"]
    assert [row[0] for row in rows[1:]] == vectors.words
    assert len({(row[1], row[2]) for row in rows[1:]}) == len(vectors.words)  # spread out


def test_bad_input_is_named(tmp_path, capsys):
    assert workbench(["vectors", str(tmp_path / "absent.txt")]) == 2
    assert "does not exist" in capsys.readouterr().err
    corpus = tmp_path / "tiny.txt"
    corpus.write_text(SENTENCES)
    assert workbench(["vectors", str(corpus), "--epochs", "0"]) == 2
    assert "Invalid word-vector settings" in capsys.readouterr().err
    # every word rarer than the minimum: the job fails with the panel's advice
    assert workbench(["vectors", str(corpus), "--min-count", "1000",
                      "--out", str(tmp_path / "v.txt")]) == 1
    assert "Lower the minimum count" in capsys.readouterr().err
    assert not (tmp_path / "v.txt").exists()


def test_a_map_the_installation_lacks_is_refused_before_training(tmp_path, capsys, monkeypatch):
    from workbench.core.embeddings import maps

    monkeypatch.setattr(maps, "unavailable_methods", lambda: {"umap": "UMAP is not here."})
    corpus = tmp_path / "tiny.txt"
    corpus.write_text(SENTENCES * 40)
    out = tmp_path / "v.txt"
    assert workbench(["vectors", str(corpus), "--out", str(out), "--map", "umap"]) == 2
    said = capsys.readouterr().err
    assert "UMAP is not here." in said and "Training" not in said and not out.exists()
