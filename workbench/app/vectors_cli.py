"""`workbench vectors CORPUS [--model word2vec|fasttext] [--epochs N] [--min-count N]
[--out FILE] [--map pca|tsne|umap] [--map-out FILE.csv]`: word vectors without the window.

Trains the Embeddings panel's model on a corpus file or folder (loaded and cleaned as the
window loads it), printing each epoch's loss and evaluation scores (analogies, WordSim353,
SimLex-999) on stderr, and writes the vectors as word2vec text, which the panel's "Load
vectors…" opens. With --map it also computes the panel's 2-D map and writes it as CSV
(word,x,y). A teacher can prepare vectors for a class this way; the installer check
(packaging/check_linux.py) uses it to show gensim, the evaluation sets and t-SNE work in the
bundle. Exit status: 0 done, 1 failed, 2 bad arguments.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import sys
from pathlib import Path

from workbench.app.cli_failures import failure_text
from workbench.core.config.embeddings import EmbeddingConfig
from workbench.core.events import EpochEnded, JobFailed, JobFinished, Notice, Progress
from workbench.core.files.destination import write_kept
from workbench.core.jobs import JobControl, JobSpec, UserFacingError, drive

SHOWN_METRICS = ("loss", "analogy_accuracy", "wordsim353", "simlex999")


class JobFailedError(Exception):
    """A job ended with JobFailed; its message is for the user."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="workbench vectors",
                                     description="Train word vectors without the window.")
    parser.add_argument("corpus", help="a corpus file or folder (as the window opens it)")
    parser.add_argument("--model", choices=("word2vec", "fasttext"),
                        default=EmbeddingConfig.model)
    parser.add_argument("--epochs", type=int, default=EmbeddingConfig.epochs, metavar="N")
    parser.add_argument("--min-count", type=int, default=EmbeddingConfig.min_count,
                        metavar="N", help="drop words rarer than this")
    parser.add_argument("--out", metavar="FILE", help="write the vectors here (word2vec text; "
                        "default: CORPUS-NAME.vectors.txt in the current folder)")
    parser.add_argument("--map", choices=("pca", "tsne", "umap"), help="also compute a 2-D map")
    parser.add_argument("--map-out", metavar="FILE.csv",
                        help="where the map goes (default: beside the vectors, .map.csv)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        config = dataclasses.replace(EmbeddingConfig(), model=args.model, epochs=args.epochs,
                                     min_count=args.min_count)
        from workbench.core.corpus.loading import load_corpus
        from workbench.core.embeddings.interchange import save_vectors
        from workbench.core.embeddings.maps import unavailable_methods
        from workbench.core.embeddings.training import train_embeddings_job
        from workbench.core.files.destination import check_destination

        if args.map in unavailable_methods():  # say so before minutes of training
            raise UserFacingError(unavailable_methods()[args.map])

        corpus = load_corpus(args.corpus)
        # where the results go is checked before minutes of training (destination.py)
        out = check_destination(Path(args.out or f"{corpus.name}.vectors.txt"), "vectors")
        map_out = check_destination(Path(args.map_out or out.with_suffix(".map.csv")),
                                    "map") if args.map else None
        vectors = _run(train_embeddings_job(corpus.text, config, corpus.name))
    except UserFacingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except JobFailedError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    try:  # trained: from here on a failed write keeps the result elsewhere and says where
        out, note = write_kept(lambda target: save_vectors(vectors, target, "word2vec-text"),
                               out, "vectors")
        _say(note)
        print(out)
        if map_out is not None:
            from workbench.core.embeddings.maps import map_job

            coords = _run(map_job(vectors, args.map))
            map_out, map_note = write_kept(
                lambda target: _write_map(target, vectors.words, coords), map_out, "map")
            _say(map_note)
            note = note or map_note
            print(map_out)
    except (UserFacingError, JobFailedError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 1 if note else 0


def _say(note: str) -> None:
    if note:
        print(f"error: {note}", file=sys.stderr)


def _run(spec: JobSpec):
    """Drive a job to its end, reporting its stages, epochs and notices on stderr (a UMAP
    map's first use says it is compiling); its result."""
    print(spec.title, file=sys.stderr, flush=True)
    stage = ""
    for event in drive(spec, JobControl()):
        if isinstance(event, Progress) and event.message not in ("", stage):
            stage = event.message
            print(f"  {stage}", file=sys.stderr, flush=True)
        elif isinstance(event, EpochEnded):
            shown = "  ".join(f"{name} {event.metrics[name]:.3f}" for name in SHOWN_METRICS
                              if name in event.metrics)
            print(f"epoch {event.epoch}  {shown}", file=sys.stderr, flush=True)
        elif isinstance(event, Notice):
            print(f"note: {event.text}", file=sys.stderr, flush=True)
        elif isinstance(event, JobFailed):
            raise JobFailedError(failure_text(event))
        elif isinstance(event, JobFinished):
            return event.result
    raise JobFailedError(f"{spec.title} was cancelled")


def _write_map(path: Path, words: list[str], coords) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(("word", "x", "y"))
        for word, (x, y) in zip(words, coords, strict=True):
            writer.writerow((word, f"{x:.5g}", f"{y:.5g}"))
