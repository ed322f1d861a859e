"""A GPT-2-small-shaped folder in the workbench against `transformers` (issue 34).

    .venv/bin/python -m benchmarks.bench_pretrained [--repeats 3] [--tokens 200] [--layers 12]
        [--only open generate attention lora] [--lora-rounds 8]

The model: GPT-2 small's shape (12 layers, width 768, 12 heads, 50,257 tokens, 1,024
positions) with random weights (seed 0), saved by `transformers` as a model folder beside a
small byte-level BPE tokenizer.json, so nothing is downloaded. One torch thread everywhere.

- **open**: `snapshot_from_checkpoint(folder)` then the model the inspectors and the console
  build from the snapshot, in a fresh process: wall time, and the peak resident memory it
  added over the weights file's size (goal <= 1.3).
- **generate**: greedy, `--tokens` new tokens after a 10-token prompt; the console's
  `generation_job` (its key-value cache) against `transformers`' own `generate` with its
  cache, alternated A B B A; ratio = transformers' time / the console's (goal >= 0.95); and
  the console's first token (goal <= 300 ms).
- **attention**: every layer's and head's attention (the inspectors' trace) for a 256-token
  probe (goal <= 1 s).
- **lora**: a LoRA fine-tuning step (r 8, alpha 16, LoRA dropout 0.05 on W_Q W_K W_V and W_O;
  the model's dropout 0.1 as GPT-2's; AdamW lr 1e-4, weight decay 0.01; clip 1.0; `--batch`
  8 x `--seq-len` 128 tokens). The workbench: its `Trainer` on a recipe that starts from the
  folder (the model opened from it, wrapped by `training/lora.py`; the trainer's own step with
  its optimizer, clipping, loss, guard and run log), timed from one `StepLogged` to the next.
  The reference: `GPT2LMHeadModel.from_pretrained` + `peft.get_peft_model` on attn.c_attn and
  attn.c_proj, AdamW on the trainable factors, `clip_grad_norm_`, the same batches. Rounds
  A B B A of `--lora-steps` steps a turn, after `--lora-warmup` rounds left out; steps/s of
  each, ratio workbench / peft (goal >= 0.95). Select measures with `--only`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

# the peak from /proc (VmHWM, reset by exec), not ru_maxrss: a child's ru_maxrss starts at its
# parent's high-water mark, here the parent that built and saved the model
OPEN_CHILD = """
import json, sys, time, torch
torch.set_num_threads(1)
from pathlib import Path
from workbench.app.inspection_backend import snapshot_from_checkpoint
from workbench.core.snapshot.rebuild import model_from_snapshot
def peak():
    line = next(x for x in open("/proc/self/status") if x.startswith("VmHWM"))
    return int(line.split()[1]) * 1024
before = peak()
start = time.perf_counter()
snapshot = snapshot_from_checkpoint(Path(sys.argv[1]))
model = model_from_snapshot(snapshot)
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "added": peak() - before}))
"""


def make_folder(folder: Path, layers: int) -> Path:
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    from tests.core.pretrained_folders import gpt2_tokenizer_json

    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(n_layer=layers))  # GPT-2 small's sizes otherwise
    model.save_pretrained(folder)
    (folder / "tokenizer.json").write_text(gpt2_tokenizer_json(), encoding="utf-8")
    return folder


def measure_open(folder: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", OPEN_CHILD, str(folder)], capture_output=True,
                         text=True, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    size = (folder / "model.safetensors").stat().st_size
    return {**result, "weights": size, "ratio": result["added"] / size}


def console_generate(model, tokenizer, prompt_ids, tokens: int) -> tuple[float, float]:
    """(seconds for all tokens, seconds to the first token event) of the console's job."""
    from workbench.core.config.generation import GenerationConfig
    from workbench.core.events import TokensGenerated
    from workbench.core.generation.generate import generation_job
    from workbench.core.jobs import JobControl, drive

    prompt = tokenizer.decode(prompt_ids)
    config = GenerationConfig(strategy="greedy", max_tokens=tokens)
    start, first, written = time.perf_counter(), None, 0
    for event in drive(generation_job(model, tokenizer, prompt, config), JobControl()):
        if isinstance(event, TokensGenerated):
            first = first if first is not None else time.perf_counter() - start
            written += len(event.tokens)
    seconds = time.perf_counter() - start
    if written != tokens:  # an end token drawn: not the same work as the library's
        raise SystemExit(f"the console stopped after {written} of {tokens} tokens")
    return seconds, first or 0.0


def library_generate(reference, prompt_ids, tokens: int, eos: int) -> float:
    import torch

    ids = torch.tensor([prompt_ids])
    start = time.perf_counter()
    with torch.no_grad():
        reference.generate(ids, max_new_tokens=tokens, min_new_tokens=tokens, do_sample=False,
                           use_cache=True, pad_token_id=eos)
    return time.perf_counter() - start


LORA_RECIPE = """name = "lora-bench"
seed = 0
[corpus]
path = "{corpus}"
[tokenizer]
kind = "char"
val_fraction = 0.05
test_fraction = 0.0
[model]
arch = "transformer"
dropout = {dropout}
[task]
name = "language_model"
start_from = "{folder}"
[training]
max_steps = 1000000
batch_size = {batch}
seq_len = {seq_len}
lr = {lr}
weight_decay = {weight_decay}
grad_clip = {clip}
schedule = "constant"
warmup_steps = 0
eval_every = 1000000
eval_batches = 1
log_every = {steps}
sample_every = 0
checkpoint_every = 1000000
threads = 1
lora_rank = {rank}
lora_alpha = {alpha}
lora_dropout = {lora_dropout}
"""


def lora_trainer(folder: Path, work: Path, settings: dict):
    """The app's own run of a LoRA fine-tuning recipe that starts from `folder`: the corpus
    read with the folder's tokenizer, the model opened from the folder and wrapped by
    `training/lora.py`, and the `Trainer` that the window and the CLI run (its optimizer,
    clipping, loss, guard and run log)."""
    from tests.core.pretrained_folders import TEXT
    from workbench.core.jobs import JobControl
    from workbench.core.training.recipe import load_recipe, recipe_to_toml, run_name
    from workbench.core.training_loop.recipe_run import task_data_steps
    from workbench.core.training_loop.trainer import Trainer, TrainRequest

    corpus = work / "corpus.txt"
    corpus.write_text("\n".join(TEXT * 40), encoding="utf-8")
    path = work / "lora.toml"
    path.write_text(LORA_RECIPE.format(corpus=corpus, folder=folder, **settings),
                    encoding="utf-8")
    recipe = load_recipe(path)
    data_steps = task_data_steps(recipe, JobControl())
    try:
        while True:
            next(data_steps)
    except StopIteration as done:
        data = done.value
    request = TrainRequest(data, recipe.model, recipe.training, run_dir=work / "run",
                           run_name=run_name(recipe), recipe_toml=recipe_to_toml(recipe),
                           gui=False, task=recipe.task)
    return Trainer(request)


def peft_reference(folder: Path, settings: dict):
    """The plain loop's model and optimizer, as a practitioner writes them: the folder through
    `transformers`, LoRA through `get_peft_model` on the same projections as the app's qkv and
    proj (GPT-2's attn.c_attn and attn.c_proj; a bare "c_proj" would take the MLP's too)."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import GPT2LMHeadModel

    model = GPT2LMHeadModel.from_pretrained(folder, local_files_only=True)
    config = LoraConfig(r=settings["rank"], lora_alpha=settings["alpha"],
                        lora_dropout=settings["lora_dropout"], bias="none",
                        target_modules=["attn.c_attn", "attn.c_proj"], fan_in_fan_out=True)
    model = get_peft_model(model, config)
    model.train()
    trained = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trained, lr=settings["lr"],
                                  weight_decay=settings["weight_decay"])
    return model, trained, optimizer


def reference_steps(model, trained, optimizer, batches, clip: float) -> float:
    """Seconds for the plain loop's steps over `batches` ((inputs, targets) tensors)."""
    import torch
    import torch.nn.functional as F

    start = time.perf_counter()
    for inputs, targets in batches:
        logits = model(input_ids=inputs).logits
        loss = F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]),
                               targets.reshape(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(trained, clip)
        optimizer.step()
        loss.item()
    return time.perf_counter() - start


def workbench_steps(events) -> float:
    """Seconds until the trainer logs its next window of `log_every` steps."""
    from workbench.core.events import DivergenceHandled, StepLogged

    start = time.perf_counter()
    for event in events:
        if isinstance(event, DivergenceHandled):
            raise SystemExit(f"the guard rolled back a step ({event}): not a plain step")
        if isinstance(event, StepLogged):
            return time.perf_counter() - start
    raise SystemExit("the run ended before its steps")


def measure_lora(folder: Path, work: Path, steps: int, rounds: int, warmup: int,
                 batch: int = 8, seq_len: int = 128, rank: int = 8, alpha: float = 16.0
                 ) -> dict:
    """Steps/s of the workbench's LoRA step and of the plain peft loop in rounds A B B A (A: the
    trainer's next `steps` steps, B: as many of the plain loop's), after `warmup` such rounds
    left out; a round's ratio is B's time over A's."""
    import dataclasses
    import math

    import torch

    settings = dict(batch=batch, seq_len=seq_len, rank=rank, alpha=alpha, lora_dropout=0.05,
                    dropout=0.1, lr=1e-4, weight_decay=0.01, clip=1.0, steps=steps)
    trainer = lora_trainer(folder, work, settings)
    # The folder's small tokenizer (321 pieces) reads the corpus, so the task takes ln 321 for
    # the loss of a uniform guess, while the model still has GPT-2's 50,257 outputs and a
    # random model's loss starts near 8.5: the guard would call that divergence at step 20
    # and roll back. Its check still runs every step, against the outputs' own uniform loss.
    trainer.guard.uniform_loss = math.log(trainer.model_config.vocab_size)
    events = trainer.run()
    model, trained, optimizer = peft_reference(folder, settings)
    # the same batches as the app's task: its windows are pure functions of the step number
    windows = [trainer.task.batch(step).to(torch.device("cpu")) for step in range(steps)]
    batches = [(w["inputs"].long(), w["targets"].long()) for w in windows]
    if batches[0][0].shape != (batch, seq_len):
        raise SystemExit(f"the app's batches are {tuple(batches[0][0].shape)}")
    ours_trained = sum(p.numel() for p in trainer.model.parameters() if p.requires_grad)
    if ours_trained != sum(p.numel() for p in trained):
        raise SystemExit(f"trained values differ: {ours_trained} against "
                         f"{sum(p.numel() for p in trained)}")

    def plain() -> float:
        return reference_steps(model, trained, optimizer, batches, settings["clip"])

    ours, theirs = [], []
    try:
        for index in range(warmup + rounds):
            a1 = workbench_steps(events)
            b1, b2 = plain(), plain()
            a2 = workbench_steps(events)
            if index >= warmup:
                ours.append(2 * steps / (a1 + a2))
                theirs.append(2 * steps / (b1 + b2))
                print(f"  round {len(ours)}: workbench {ours[-1]:.4f} steps/s, peft "
                      f"{theirs[-1]:.4f} steps/s, ratio {ours[-1] / theirs[-1]:.3f}",
                      flush=True)
    finally:  # no checkpoint of the interrupted run (it would write the whole model)
        trainer.config = dataclasses.replace(trainer.config, max_steps=trainer.step)
        events.close()
    ratios = [o / t for o, t in zip(ours, theirs, strict=True)]
    return {"ours": ours, "theirs": theirs, "ratios": ratios, "trained": ours_trained,
            "settings": settings}


def inspect(folder: Path, args) -> None:
    """The generate and attention measures (the inspectors' and the console's model)."""
    import torch
    from transformers import GPT2LMHeadModel

    from workbench.app.inspection_backend import snapshot_from_checkpoint
    from workbench.core.corpus.tokenizers import tokenizer_from_dict
    from workbench.core.snapshot.rebuild import model_from_snapshot

    snapshot = snapshot_from_checkpoint(folder)
    model = model_from_snapshot(snapshot).eval()
    tokenizer = tokenizer_from_dict(snapshot.tokenizer)
    if "generate" in args.only:
        reference = GPT2LMHeadModel.from_pretrained(folder, local_files_only=True).eval()
        prompt = tokenizer.encode("But soft, what light through yonder window breaks")[:10]
        ratios, firsts, ours_times, theirs_times = [], [], [], []
        for _ in range(args.repeats):
            a, first_a = console_generate(model, tokenizer, prompt, args.tokens)
            b = library_generate(reference, prompt, args.tokens, tokenizer.eos_id)
            c = library_generate(reference, prompt, args.tokens, tokenizer.eos_id)
            d, first_d = console_generate(model, tokenizer, prompt, args.tokens)
            ratios.append((b + c) / (a + d))
            firsts += [first_a, first_d]
            ours_times += [a, d]
            theirs_times += [b, c]
        print(f"generate {args.tokens} greedy: console {statistics.median(ours_times):.2f} s, "
              f"transformers {statistics.median(theirs_times):.2f} s, ratio "
              f"{statistics.median(ratios):.3f} (pairs: {', '.join(f'{r:.3f}' for r in ratios)});"
              f" first token {statistics.median(firsts) * 1000:.0f} ms")
    if "attention" in args.only:
        probe = torch.randint(0, tokenizer.vocab_size, (1, 256))
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            trace = model.trace(probe)
            times.append(time.perf_counter() - start)
        heads = sum(layer.values["attn"].shape[0] for layer in trace.layers)
        print(f"attention of a 256-token probe, {len(trace.layers)} layers, {heads} heads: "
              f"median {statistics.median(times):.3f} s")


MEASURES = ("open", "generate", "attention", "lora")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tokens", type=int, default=200)
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--only", nargs="+", choices=MEASURES, default=list(MEASURES),
                        help="the measures to run (default: all)")
    parser.add_argument("--lora-steps", type=int, default=1,
                        help="steps of each of a round's four turns, A B B A")
    parser.add_argument("--lora-rounds", type=int, default=8, help="rounds measured")
    parser.add_argument("--lora-warmup", type=int, default=1, help="rounds left out first")
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--seq-len", type=int, default=128)
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        folder = make_folder(Path(tmp) / "gpt2-shaped", args.layers)
        if "open" in args.only:
            opened = measure_open(folder)
            print(f"open: {opened['seconds']:.2f} s, peak RSS added "
                  f"{opened['added'] / 2**20:.0f} MB for {opened['weights'] / 2**20:.0f} MB of "
                  f"weights: {opened['ratio']:.2f}x")
        if {"generate", "attention"} & set(args.only):
            inspect(folder, args)
        if "lora" in args.only:
            print(f"LoRA steps, batch {args.batch} x {args.seq_len} tokens, rounds A B B A of "
                  f"{args.lora_steps} step(s) a turn (A workbench, B peft):", flush=True)
            result = measure_lora(folder, Path(tmp), args.lora_steps, args.lora_rounds,
                                  args.lora_warmup, args.batch, args.seq_len)
            ours, theirs = statistics.median(result["ours"]), statistics.median(result["theirs"])
            ratios = result["ratios"]
            print(f"LoRA step ({result['trained']:,} values trained): workbench {ours:.4f} "
                  f"steps/s (range {min(result['ours']):.4f}-{max(result['ours']):.4f}), peft "
                  f"{theirs:.4f} steps/s (range {min(result['theirs']):.4f}-"
                  f"{max(result['theirs']):.4f}); ratio workbench / peft, median of rounds "
                  f"{statistics.median(ratios):.3f} (range {min(ratios):.3f}-{max(ratios):.3f})")

if __name__ == "__main__":
    main()
