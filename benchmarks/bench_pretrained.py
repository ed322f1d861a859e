"""A GPT-2-small-shaped folder in the workbench against `transformers` (issue 34).

    .venv/bin/python -m benchmarks.bench_pretrained [--repeats 3] [--tokens 200] [--layers 12]

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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tokens", type=int, default=200)
    parser.add_argument("--layers", type=int, default=12)
    args = parser.parse_args(argv)
    import torch
    from transformers import GPT2LMHeadModel

    from workbench.app.inspection_backend import snapshot_from_checkpoint
    from workbench.core.corpus.tokenizers import tokenizer_from_dict
    from workbench.core.snapshot.rebuild import model_from_snapshot

    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        folder = make_folder(Path(tmp) / "gpt2-shaped", args.layers)
        opened = measure_open(folder)
        print(f"open: {opened['seconds']:.2f} s, peak RSS added {opened['added'] / 2**20:.0f} MB"
              f" for {opened['weights'] / 2**20:.0f} MB of weights: {opened['ratio']:.2f}x")
        snapshot = snapshot_from_checkpoint(folder)
        model = model_from_snapshot(snapshot).eval()
        tokenizer = tokenizer_from_dict(snapshot.tokenizer)
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
        probe = torch.randint(0, tokenizer.vocab_size, (1, 256))
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            trace = model.trace(probe)
            times.append(time.perf_counter() - start)
        heads = sum(layer.values["attn"].shape[0] for layer in trace.layers)
        print(f"attention of a 256-token probe, {len(trace.layers)} layers, {heads} heads: "
              f"median {statistics.median(times):.3f} s")


if __name__ == "__main__":
    main()
