"""Make the sample models the app ships in resources/models/, from the presets, with their
fixed seeds: python scripts/make_sample_models.py [--steps N] [--only NAME ...] [--device D]

Each preset in resources/recipes/ (char-lstm, char-gru, char-rnn, char-transformer) is
trained headless for --steps steps (the preset's own seed and settings otherwise), and the
best checkpoint's weights are kept as float16 in resources/models/<preset>/latest.*, with the
recipe, steps and validation loss in the metadata. Word vectors: word2vec (skip-gram, 50
dimensions, a fixed window of 5) on all 42 Shakespeare works, words seen 10 times or more,
written as resources/models/shakespeare-word2vec.bin (word2vec binary).

Takes some 10-30 minutes a model on one CPU core, or a few minutes on a GPU (`--device cuda`;
the metadata records the device). Deterministic for the same machine and library versions (one
torch thread, one gensim worker).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workbench.core.config.embeddings import EmbeddingConfig  # noqa: E402
from workbench.core.events import EvalLogged, JobFailed, JobFinished  # noqa: E402
from workbench.core.jobs import JobControl, drive, run_to_end  # noqa: E402

PRESETS = ("char-lstm", "char-gru", "char-rnn", "char-transformer")
MODELS = ROOT / "resources" / "models"
VECTORS = EmbeddingConfig(architecture="skip-gram", vector_size=50, window=5,
                          window_kind="fixed", min_count=10, epochs=5, workers=1, seed=1,
                          evaluate=False)


def make_model(preset: str, steps: int, device: str = "cpu") -> dict:
    from workbench.core.training.model_files import write_model_checkpoint
    from workbench.core.training.recipe import load_recipe
    from workbench.core.training_loop.recipe_run import recipe_train_steps

    recipe = load_recipe(ROOT / "resources" / "recipes" / f"{preset}.toml")
    # minutes=0: the schedule is fitted to the steps, so the models do not depend on how fast
    # the machine that makes them is
    recipe.training = dataclasses.replace(recipe.training, max_steps=steps, minutes=0.0,
                                          threads=1, device=device, sample_every=0,
                                          checkpoint_every=steps)
    started, last = time.monotonic(), None
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = Path(tmp) / preset
        events = drive(_job(lambda control: recipe_train_steps(recipe, control, run_dir,
                                                               gui=False)), JobControl())
        for event in events:
            if isinstance(event, EvalLogged):
                last = event
                print(f"  {preset} step {event.step}: validation {event.val_loss:.3f}",
                      flush=True)
            if isinstance(event, JobFailed):
                raise SystemExit(f"{preset} failed: {event.message}")
        extra = {"sample": {"recipe": f"recipes/{preset}.toml", "steps": steps,
                            "seed": recipe.seed, "device": device,
                            "made_by": "scripts/make_sample_models.py"}}
        write_model_checkpoint(run_dir / "checkpoints" / "best.json", MODELS / preset,
                               preset, extra=extra)
    size = sum(p.stat().st_size for p in (MODELS / preset).iterdir())
    return {"name": preset, "steps": steps, "val_loss": round(last.val_loss, 4),
            "bytes": size, "minutes": round((time.monotonic() - started) / 60, 1)}


def make_vectors() -> dict:
    from workbench.core.corpus.loading import load_corpus_steps
    from workbench.core.embeddings.interchange import save_vectors
    from workbench.core.embeddings.training import train_embeddings_job
    from workbench.core.resources import full_corpus_path

    started = time.monotonic()
    corpus = run_to_end(load_corpus_steps(full_corpus_path()))
    vectors = _run(train_embeddings_job(corpus.text, VECTORS, "Shakespeare (42 works)").job)
    path = MODELS / "shakespeare-word2vec.bin"
    save_vectors(vectors, path, "word2vec-binary")
    return {"name": path.name, "words": len(vectors), "bytes": path.stat().st_size,
            "minutes": round((time.monotonic() - started) / 60, 1)}


def _job(steps):
    from workbench.core.jobs import JobSpec

    return JobSpec("sample", steps)


def _run(steps):
    result = None
    for event in drive(_job(steps), JobControl()):
        if isinstance(event, JobFailed):
            raise SystemExit(event.message)
        if isinstance(event, JobFinished):
            result = event.result
    return result


def main() -> int:
    import torch

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=1500, help="training steps per preset")
    parser.add_argument("--only", nargs="*", default=None,
                        help=f"some of {', '.join(PRESETS)} and 'vectors'")
    parser.add_argument("--device", default="cpu", help="cpu (the default) or cuda")
    args = parser.parse_args()
    torch.set_num_threads(1)
    wanted = args.only or [*PRESETS, "vectors"]
    MODELS.mkdir(parents=True, exist_ok=True)
    report = []
    for name in wanted:
        print(f"making {name}…", flush=True)
        report.append(make_vectors() if name == "vectors" else make_model(name, args.steps,
                                                                                args.device))
        print(json.dumps(report[-1]), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
