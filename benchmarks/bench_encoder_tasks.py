"""Encoder tasks: quality of the presets against baselines trained in the same run, masked-LM
fine-tuning against the same encoder from scratch, and the trainer's step time against a plain
PyTorch loop of the same model.

Run (one torch thread, headless):
  .venv/bin/python -m benchmarks.bench_encoder_tasks --quality      # tagging + sentiment
  .venv/bin/python -m benchmarks.bench_encoder_tasks --finetune     # MLM then fine-tune/scratch
  .venv/bin/python -m benchmarks.bench_encoder_tasks --speed [--steps 200 --repeats 5]
      [--only sentiment-bilstm sentiment-transformer upos-bilstm mlm-shakespeare]

- tagging: token accuracy of the upos-bilstm preset on the EWT test file, against the
  most-frequent-tag baselines computed here on the same training sentences: each word's most
  frequent training tag (unknown words: the most frequent tag overall), and that tag overall;
- sentiment: test accuracy of the sentiment-bilstm and sentiment-transformer presets against a
  bag-of-words logistic regression (token counts over the preset's own tokenizer, L2 strength
  chosen on the validation split, full-batch L-BFGS) on the same train/validation/test split;
- fine-tuning: mlm-shakespeare is pretrained, then sentiment-finetune starts from it (encoder
  trained, and frozen), against the same recipe with no pretrained encoder (same tokenizer,
  architecture, steps and seed);
- speed: seconds per step of the trainer against a plain PyTorch loop of the same model, for
  each encoder preset (encoder_step_time.py says what each side does).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import tempfile
import time
from pathlib import Path

from benchmarks.encoder_step_time import PRESETS, speed

RECIPES = Path(__file__).resolve().parent.parent / "resources" / "recipes"


def load(name: str, **training):
    from workbench.core.training.recipe import load_recipe

    recipe = load_recipe(RECIPES / f"{name}.toml")
    changes = {"threads": 1, **training}
    recipe.training = dataclasses.replace(recipe.training, **changes)
    return recipe


def train(recipe, task=None):
    """Train a recipe headless; returns (trainer, seconds of training)."""
    from workbench.core.jobs import JobControl, run_to_end
    from workbench.core.training.recipe import recipe_to_toml
    from workbench.core.training_loop.recipe_run import task_data_steps
    from workbench.core.training_loop.trainer import Trainer, TrainRequest

    if task is not None:
        recipe.task = task
    data = run_to_end(task_data_steps(recipe, JobControl()))
    trainer = Trainer(TrainRequest(data, recipe.model, recipe.training, run_name=recipe.name,
                                   recipe_toml=recipe_to_toml(recipe), task=recipe.task,
                                   gui=False))
    start = time.perf_counter()
    trainer.events = list(trainer.run())
    return trainer, time.perf_counter() - start


def test_accuracy(trainer) -> float:
    return trainer.task.test(trainer.model).metrics["accuracy"]


# --- baselines ---------------------------------------------------------------------------------

def tagging_baselines(recipe) -> dict[str, float]:
    from workbench.core.data.splits import split_indices
    from workbench.core.metrics import most_frequent_baseline, per_word_majority_baseline
    from workbench.core.tasks.tag import read_sources

    data, test = read_sources(recipe.task)
    train_rows, _, _ = split_indices(len(data.sentences), recipe.task.val_fraction, 0.0,
                                     recipe.training.seed)
    train = [data.sentences[i] for i in train_rows]
    words = [w for s in train for w in s.words]
    tags = [t for s in train for t in s.tags]
    test_words = [w for s in test.sentences for w in s.words]
    test_tags = [t for s in test.sentences for t in s.tags]
    return {"per-word most frequent tag": per_word_majority_baseline(words, tags, test_words,
                                                                     test_tags),
            "most frequent tag overall": most_frequent_baseline(tags, test_tags)}


def bag_of_words(split, size: int):
    import torch

    counts = torch.zeros(len(split), size)
    for row, ids in enumerate(split.ids):
        counts[row].index_add_(0, torch.from_numpy(ids), torch.ones(len(ids)))
    return counts, torch.tensor(split.targets)


def logistic_regression_baseline(data) -> tuple[float, float]:
    """(test accuracy, chosen L2) of multinomial logistic regression on token counts."""
    import torch
    import torch.nn.functional as F

    size = data.vocabulary.size
    (x, y), (xv, yv), (xt, yt) = (bag_of_words(s, size) for s in (data.train, data.val,
                                                                   data.test))
    classes = len(data.names)
    best = (-1.0, 0.0, None)
    for l2 in (1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1):
        w = torch.zeros(size, classes, requires_grad=True)
        b = torch.zeros(classes, requires_grad=True)
        optimizer = torch.optim.LBFGS([w, b], max_iter=200, line_search_fn="strong_wolfe")

        def closure(w=w, b=b, optimizer=optimizer, l2=l2):
            optimizer.zero_grad()
            loss = F.cross_entropy(x @ w + b, y) + l2 * (w * w).sum()
            loss.backward()
            return loss

        optimizer.step(closure)
        with torch.no_grad():
            val = float(((xv @ w + b).argmax(1) == yv).float().mean())
            if val > best[0]:
                test = float(((xt @ w + b).argmax(1) == yt).float().mean())
                best = (val, l2, test)
    return best[2], best[1]


# --- the sections ------------------------------------------------------------------------------

def quality() -> None:
    recipe = load("upos-bilstm")
    trainer, seconds = train(recipe)
    print(f"upos-bilstm: {recipe.training.max_steps} steps in {seconds:.0f} s")
    print(f"  test token accuracy {test_accuracy(trainer):.4f}")
    for name, value in tagging_baselines(recipe).items():
        print(f"  baseline, {name}: {value:.4f}")
    for name in ("sentiment-bilstm", "sentiment-transformer"):
        recipe = load(name)
        trainer, seconds = train(recipe)
        baseline, l2 = logistic_regression_baseline(trainer.task.data)
        print(f"{name}: {recipe.training.max_steps} steps in {seconds:.0f} s; test accuracy "
              f"{test_accuracy(trainer):.4f}; bag-of-words logistic regression "
              f"{baseline:.4f} (L2 {l2:g}, same split and tokens)")


def finetune() -> None:
    pretrain = load("mlm-shakespeare")
    trainer, seconds = train(pretrain)
    print(f"mlm-shakespeare: {pretrain.training.max_steps} steps in {seconds:.0f} s; "
          f"validation loss {trainer.best_val:.3f}")
    run = str(trainer.run_dir)
    results = {}
    for label, changes in (("fine-tuned (encoder trained)", {"pretrained": run}),
                           ("feature-based (encoder frozen)", {"pretrained": run,
                                                               "encoder_state": "frozen"}),
                           ("from scratch", {})):
        recipe = load("sentiment-finetune")
        task = dataclasses.replace(recipe.task, **{"pretrained": "", **changes})
        if not changes:  # the same tokenizer as the pretrained run, no pretrained weights
            task = dataclasses.replace(task, pretrained=run)
            tuned, seconds = train_from_scratch(recipe, task)
        else:
            tuned, seconds = train(recipe, task)
        results[label] = test_accuracy(tuned)
        print(f"  {label}: test accuracy {results[label]:.4f} ({seconds:.0f} s)")


def train_from_scratch(recipe, task):
    """The fine-tuning recipe with the pretrained run's tokenizer but fresh weights."""
    from workbench.core.jobs import JobControl, run_to_end
    from workbench.core.training_loop.recipe_run import task_data_steps
    from workbench.core.training_loop.trainer import Trainer, TrainRequest

    recipe.task = task
    data = run_to_end(task_data_steps(recipe, JobControl()))
    data.encoder = data.pretrained.encoder  # same encoder settings ...
    data.pretrained = None  # ... and no pretrained weights
    recipe.task = dataclasses.replace(task, pretrained="")
    trainer = Trainer(TrainRequest(data, recipe.model, recipe.training, run_name="scratch",
                                   task=recipe.task, gui=False))
    start = time.perf_counter()
    trainer.events = list(trainer.run())
    return trainer, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quality", action="store_true")
    parser.add_argument("--finetune", action="store_true")
    parser.add_argument("--speed", action="store_true")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", nargs="+", choices=PRESETS, default=PRESETS,
                        help="--speed: these presets only")
    args = parser.parse_args()
    runs = tempfile.mkdtemp(prefix="bench-encoder-runs-")
    os.environ["WORKBENCH_RUNS_DIR"] = runs
    print(f"runs in {runs}; load: {os.getloadavg()}")
    if args.quality:
        quality()
    if args.finetune:
        finetune()
    if args.speed:
        speed(load, args.steps, args.repeats, args.only)
    print(f"load at the end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
