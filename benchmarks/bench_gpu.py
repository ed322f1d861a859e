"""GPU (issue 18, item 6): the trainer with bf16 autocast against a plain loop of the same model,
and a transformer sized like nanoGPT's shakespeare_char GPU run trained to its 5,000 steps.

    .venv/bin/python -m benchmarks.bench_gpu [--parts throughput,quality] [--steps 300]
        [--repeats 3]

Without a CUDA GPU it says so and exits (CI and the 2-core development machine have none).

**Throughput** (`throughput`): the model of benchmarks/recipes/char-transformer-gpu.toml (6
layers, 6 heads, 384 wide, context 256, dropout 0.2; batch 64 x 256). The headless trainer runs
the recipe as the window would (bf16 autocast, validations and checkpoints as configured, token
counts from its logged steps after the 20th, wall time), and a plain loop trains the same model
(`build_model`) with the same optimizer settings under the same autocast on random ids,
synchronising the GPU before each clock read. Repeats alternate; ratio = trainer / plain tokens
per second, median of the repeats (goal ≥ 0.9).

**Quality** (`quality`): the recipe trained to its 5,000 steps: the best and last validation
loss (nats/char) and the wall time, beside nanoGPT's published 1.4697 (its README, on its own
split of tinyshakespeare). The best checkpoint (chosen on validation) is then scored on the test
split, which neither training nor the choice saw, in consecutive fresh 256-character blocks
(nanoGPT's own measure is the mean over random 256-character blocks of its validation text).
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import tempfile
import time
from pathlib import Path

import torch
import torch.nn.functional as F

RECIPE = Path(__file__).parent / "recipes" / "char-transformer-gpu.toml"
NANOGPT_VAL_LOSS = 1.4697
DEVICE = "cuda"  # a test of the script itself sets "cpu"


def recipe(steps: int | None = None):
    from workbench.core.training.recipe import load_recipe

    loaded = load_recipe(RECIPE)
    if steps is not None:  # a throughput run: no validation or checkpoint inside it
        loaded.training = dataclasses.replace(loaded.training, max_steps=steps,
                                              eval_every=steps, checkpoint_every=steps,
                                              sample_every=0)
    return loaded


def train(loaded, on_eval=None, on_done=None) -> tuple[float, float]:
    """Tokens per second of the headless trainer after its 20th step, and its wall time.
    `on_done(best)` gets the path of the best checkpoint before the run folder goes."""
    from workbench.core.events import CheckpointSaved, EvalLogged, StepLogged
    from workbench.core.jobs import JobControl
    from workbench.core.training_loop.recipe_run import recipe_train_steps

    first = last = best = None
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-gpu-") as folder:
        for event in recipe_train_steps(loaded, JobControl(), Path(folder), gui=False):
            if isinstance(event, StepLogged) and event.step > 20:
                last = (event.tokens_seen, time.perf_counter())  # a logged loss has synced
                first = first or last
            elif isinstance(event, EvalLogged) and on_eval is not None:
                on_eval(event)
            elif isinstance(event, CheckpointSaved) and event.kind == "best":
                best = event.path
        seconds = time.perf_counter() - start
        if on_done is not None and best is not None:
            on_done(best)
    return (last[0] - first[0]) / (last[1] - first[1]), seconds


def plain_tokens_per_s(loaded, vocab: int, steps: int) -> float:
    from workbench.core.models import build_model

    device = torch.device(DEVICE)
    torch.manual_seed(0)
    model = build_model(dataclasses.replace(loaded.model, vocab_size=vocab)).to(device).train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=loaded.training.lr,
                                  weight_decay=loaded.training.weight_decay)
    batch, seq = loaded.training.batch_size, loaded.training.seq_len

    def step() -> None:
        data = torch.randint(0, vocab, (batch, seq + 1), device=device)
        with torch.autocast(DEVICE, dtype=torch.bfloat16):
            logits, _ = model(data[:, :-1], None)
            loss = F.cross_entropy(logits.reshape(-1, vocab).float(), data[:, 1:].reshape(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), loaded.training.grad_clip)
        optimizer.step()

    for _ in range(20):
        step()
    synchronize()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    synchronize()
    return steps * batch * seq / (time.perf_counter() - start)


def synchronize() -> None:
    if DEVICE == "cuda":
        torch.cuda.synchronize()


def vocab_size() -> int:
    from workbench.core.corpus.loading import load_corpus

    return len(set(load_corpus(recipe().corpus_location()).text))


def throughput(steps: int, repeats: int) -> None:
    vocab = vocab_size()
    ratios = []
    for repeat in range(repeats):
        pair = [None, None]
        for side in ((0, 1) if repeat % 2 == 0 else (1, 0)):  # alternate who goes first
            pair[side] = (train(recipe(steps))[0] if side == 0
                          else plain_tokens_per_s(recipe(), vocab, steps))
        ratios.append(pair[0] / pair[1])
        print(f"repeat {repeat + 1}: trainer {pair[0]:,.0f} tok/s, plain loop "
              f"{pair[1]:,.0f} tok/s, ratio {ratios[-1]:.3f}", flush=True)
    print(f"bf16 autocast, trainer ÷ plain loop: median {statistics.median(ratios):.3f} "
          "(goal ≥ 0.9)")


def test_loss(checkpoint_path: str) -> tuple[int, float, int]:
    """(step, loss on the test split's fresh 256-character blocks, number of blocks) of a
    checkpoint of the recipe."""
    from benchmarks import heldout
    from workbench.core.config.models import config_from_dict
    from workbench.core.jobs import JobControl, run_to_end
    from workbench.core.models import build_model
    from workbench.core.tasks.language_model import corpus_tokens_steps
    from workbench.core.training.checkpoints import load_checkpoint, load_weights_into

    loaded = recipe()
    corpus = run_to_end(corpus_tokens_steps(loaded, JobControl()))
    pieces = heldout.corpus_test_pieces(corpus)
    block = loaded.training.seq_len
    inputs, targets = heldout.heldout_blocks(corpus.ids, pieces, block)
    saved = load_checkpoint(checkpoint_path)
    model = build_model(config_from_dict(saved.meta["model_config"]))
    load_weights_into(model, saved)
    model = model.to(DEVICE).eval()

    def logits_of(x, _targets):  # the scorer takes the loss on the CPU
        with torch.autocast(DEVICE, dtype=torch.bfloat16):
            return model(x.to(DEVICE), None)[0].float().cpu()

    return saved.step, heldout.score(logits_of, inputs, targets), len(inputs)


def quality() -> None:
    losses, tested, start = [], [], time.perf_counter()
    _, seconds = train(recipe(), on_eval=lambda e: (losses.append(e.val_loss), print(
        f"step {e.step}: validation {e.val_loss:.4f} ({time.perf_counter() - start:.0f} s)",
        flush=True)),
        on_done=lambda best: tested.append(test_loss(best)))
    print(f"{recipe().training.max_steps:,} steps in {seconds / 60:.1f} min: validation best "
          f"{min(losses):.4f}, last {losses[-1]:.4f} nats/char (nanoGPT's published "
          f"{NANOGPT_VAL_LOSS})")
    if tested:
        step, loss, blocks = tested[0]
        print(f"best checkpoint (step {step}) on the test split: {loss:.4f} nats/char over "
              f"{blocks:,} fresh blocks of {recipe().training.seq_len} characters")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default="throughput,quality")
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("No CUDA GPU here: the GPU benchmark needs one (torch "
              f"{torch.__version__}, built {'with' if torch.version.cuda else 'without'} "
              "CUDA). Skipped.")
        return
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    parts = args.parts.split(",")
    if "throughput" in parts:
        throughput(args.steps, args.repeats)
    if "quality" in parts:
        quality()


if __name__ == "__main__":
    main()
