"""One held-out text and one scorer for every model bench_nanogpt compares (issue 18, item 1).

The held-out text is the corpus's test split as the workbench cuts it (core/corpus/dataset.py:
its held-out test documents or stretches, or for an old striped split the last
`test_fraction` of each stripe; text neither trainer sees): the workbench
trains on its training split, and nanoGPT gets the same training split as its train.bin and
the validation split as its val.bin. Scoring cuts every test piece into fresh blocks of
`block` + 1 characters (never across the seam between two pieces), gives each model the first
`block` as input from a fresh start (no state carried in, so a recurrent model and a
transformer with a 64-character context are read alike) and averages the cross-entropy of
the next characters: nats per character over every block.

A recurrent model is used with its state carried: the console generates that way, and the
app's validation carries it through 10 consecutive windows. `score_carried` reads it so: each
test piece whole, in one pass from a fresh start, every character after the piece's first
predicted with all of the piece before it. bench_nanogpt gives both figures for such a model:
fresh blocks to compare with nanoGPT's 64-character context like for like, carried state to
compare with the app's own validation (issue 18, item 2).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from pathlib import Path

import numpy as np

from workbench.core.evaluation import lm_scoring

BLOCK = 64  # the context of nanoGPT's CPU recipe and of the workbench's transformer preset


def test_pieces(n_tokens: int, val_fraction: float, test_fraction: float, stripes: int
                ) -> list[tuple[int, int]]:
    """(start, end) of every test piece of the workbench's split of `n_tokens` ids."""
    from workbench.core.corpus.dataset import split_bounds

    return [(test, end) for _, _, test, end in
            split_bounds(n_tokens, val_fraction, test_fraction, stripes) if end > test]


def corpus_test_pieces(corpus) -> list[tuple[int, int]]:
    """(start, end) in `corpus.ids` of every test piece of a TokenizedCorpus, whichever split
    it was cut with."""
    return corpus.split_ranges("test")


def heldout_blocks(ids: np.ndarray, pieces: list[tuple[int, int]], block: int = BLOCK
                   ) -> tuple[np.ndarray, np.ndarray]:
    """core/evaluation/lm_scoring.py's blocks, nanoGPT's 64-character context by default."""
    return lm_scoring.heldout_blocks(ids, pieces, block)


# the scorers live in the workbench, where `workbench evaluate` reads models with them too
score = lm_scoring.score
score_carried = lm_scoring.score_carried


def write_nanogpt_data(folder: Path, train: np.ndarray, val: np.ndarray, vocab_size: int
                       ) -> None:
    """nanoGPT's char-level data set (train.bin, val.bin of uint16 ids, meta.pkl with the
    vocabulary size) made of the workbench's own ids, so both read the same numbers."""
    if vocab_size > np.iinfo(np.uint16).max:
        raise ValueError("nanoGPT's data files hold uint16 ids")
    folder.mkdir(parents=True, exist_ok=True)
    np.asarray(train, dtype=np.uint16).tofile(folder / "train.bin")
    np.asarray(val, dtype=np.uint16).tofile(folder / "val.bin")
    with open(folder / "meta.pkl", "wb") as f:
        pickle.dump({"vocab_size": int(vocab_size)}, f)


def workbench_model(saved: dict):
    """The workbench model a mark file holds, in eval mode."""
    from workbench.core.config.models import config_from_dict
    from workbench.core.models import build_model

    model = build_model(config_from_dict(saved["config"]))
    model.load_state_dict(saved["state"])
    return model.eval()


def nanogpt_model(saved: dict, nanogpt: Path):
    """nanoGPT's GPT (its own model.py) with the weights a mark file holds, in eval mode."""
    import importlib
    import sys

    sys.path.insert(0, str(nanogpt))
    try:
        gpt = importlib.import_module("model")
    finally:
        sys.path.remove(str(nanogpt))
    model = gpt.GPT(gpt.GPTConfig(**saved["model_args"]))
    model.load_state_dict(saved["state"])
    return model.eval()


def logits_function(model, nanogpt: bool) -> Callable:
    if nanogpt:  # with targets nanoGPT returns the logits of every position
        return lambda x, y: model(x, y)[0]
    return lambda x, y: model(x, None)[0]
