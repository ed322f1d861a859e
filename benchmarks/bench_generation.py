"""Generation console speed against a plain torch loop of the same model (issue 18, item 5).

    .venv/bin/python -m benchmarks.bench_generation [--repeats 5] [--lengths 200,5000]
        [--models lstm,transformer] [--parts headless,window,first,beam]

Models: the char-lstm and char-transformer presets' sizes on the default corpus's characters,
random weights with the special tokens' logits pushed far down (a trained model never emits
them; an untrained one would stop early at the end token). One torch thread everywhere, as in
the window.

- **plain**: the loop anyone would write: model step, top-k softmax, `torch.multinomial`, the
  text decoded once at the end (a stateful model reads one token with its state; a transformer
  keeps its keys and values through the model's `forward_cached` while the window has room,
  as the console does since 28 Nov, and re-reads its last `context_length` tokens after).
- **headless**: `generation_job` driven as the query thread drives it (`drive`, every event).
- **window**: the Generate panel in an offscreen window: Generate clicked until the finished
  text is on screen.
- **first**: from the click to the first token reaching the GUI thread (goal <= 100 ms).
- **beam**: width 4, the console's beam search (headless) against a plain batched torch beam
  search over the same model (all beams one batch per token).

Ratio = plain time / console time (goal >= 0.9), the two alternated A B B A and the ratio taken
per pair; medians of the repeats. Wall-clock times on a shared machine swing with the load; the
ratios are what to read.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("OMP_NUM_THREADS", "1")

PROMPT = "ROMEO:\nBut soft, what light through yonder window breaks?\n"
TOP_K = 40
BEAM_WIDTH = 4


def preset_model(kind: str, tokenizer):
    """The preset's model with random weights (seed 0) and the specials' logits at -1e4."""
    import dataclasses

    import torch

    from workbench.core.models import build_model
    from workbench.core.resources import resources_root
    from workbench.core.training.recipe import load_recipe

    recipe = load_recipe(resources_root() / "recipes" / f"char-{kind}.toml")
    torch.manual_seed(0)
    model = build_model(dataclasses.replace(recipe.model, vocab_size=tokenizer.vocab_size))
    with torch.no_grad():
        if model.head.bias is not None:
            model.head.bias[:4] = -1e4  # <pad> <unk> <bos> <eos>
    return model.eval()


def char_tokenizer():
    from workbench.core.corpus.tokenizers import CharTokenizer
    from workbench.core.resources import default_corpus_path

    text = "".join(p.read_text(encoding="utf-8") for p in sorted(
        default_corpus_path().glob("*.txt")))
    return CharTokenizer.train(text)


# --- plain torch references ------------------------------------------------------------------

def plain_sample(model, tokenizer, length: int, seed: int) -> str:
    import torch

    context = getattr(model.config, "context_length", 0) or 256
    stateful = bool(getattr(model, "supports_state", False))
    generator = torch.Generator().manual_seed(seed)
    ids = tokenizer.encode(PROMPT)
    out = []
    cached = hasattr(model, "forward_cached")
    with torch.no_grad():
        if cached:
            logits, state = model.forward_cached(torch.tensor([ids[-context:]]), None)
        else:
            logits, state = model(torch.tensor([ids[-context:]]), None)
        for _ in range(length):
            values, index = torch.topk(logits[0, -1], TOP_K)
            token = int(index[torch.multinomial(torch.softmax(values, -1), 1,
                                                generator=generator)])
            out.append(token)
            ids.append(token)
            if cached:
                room = state.length < context
                logits, state = model.forward_cached(
                    torch.tensor([[token]] if room else [ids[-context:]]), state if room else None)
            elif stateful:
                logits, state = model(torch.tensor([[token]]), state)
            else:
                logits, _ = model(torch.tensor([ids[-context:]]), None)
    return tokenizer.decode(out)


def plain_beam(model, tokenizer, length: int, width: int = BEAM_WIDTH) -> str:
    """Beam search the way one writes it in torch: the beams are one batch; each token, the
    width best of width x V extensions; recurrent states follow their parents."""
    import torch

    context = getattr(model.config, "context_length", 0) or 256
    stateful = bool(getattr(model, "supports_state", False))
    prompt = tokenizer.encode(PROMPT)[-context:]
    cached = hasattr(model, "forward_cached")
    with torch.no_grad():
        if cached:
            logits, state = model.forward_cached(torch.tensor([prompt]), None)
        else:
            logits, state = model(torch.tensor([prompt]), None)
        logits = logits[:, -1]  # (1, V)
        scores = torch.zeros(1)
        history = torch.tensor([prompt])  # (beams, T)
        for _ in range(length):
            total = (scores[:, None] + torch.log_softmax(logits, -1)).reshape(-1)
            scores, flat = torch.topk(total, min(width, total.numel()))
            parents, tokens = flat // logits.shape[-1], flat % logits.shape[-1]
            history = torch.cat([history[parents], tokens[:, None]], dim=1)
            if cached and state.length < context:
                logits, state = model.forward_cached(tokens[:, None], state.select(parents))
            elif cached:
                logits, state = model.forward_cached(history[:, -context:], None)
            elif stateful:
                state = tuple(s[:, parents] for s in state) if isinstance(state, tuple) \
                    else state[:, parents]
                logits, state = model(tokens[:, None], state)
            else:
                logits, _ = model(history[:, -context:], None)
            logits = logits[:, -1]
    return tokenizer.decode(history[0, len(prompt):].tolist())


# --- the console -----------------------------------------------------------------------------

def console_config(length: int, strategy: str = "top-k"):
    from workbench.core.config.generation import GenerationConfig

    return GenerationConfig(strategy=strategy, max_tokens=length, top_k=TOP_K,
                            beam_width=BEAM_WIDTH, length_penalty=0.0, seed=1)


def headless(model, tokenizer, length: int, strategy: str = "top-k") -> str:
    from workbench.core.events import JobFailed, JobFinished
    from workbench.core.generation.generate import generation_job
    from workbench.core.jobs import JobControl, drive

    for event in drive(generation_job(model, tokenizer, PROMPT, console_config(length, strategy)),
                       JobControl()):
        if isinstance(event, JobFailed):
            raise RuntimeError(event.message)
        if isinstance(event, JobFinished):
            return event.result.text
    raise RuntimeError("the generation job ended without a result")


class Window:
    """The Generate panel with the real controller and query thread, offscreen."""

    def __init__(self, snapshot) -> None:
        from PySide6.QtCore import QEventLoop
        from PySide6.QtWidgets import QApplication

        from workbench.app.backend import Backend
        from workbench.qt.controller import WorkbenchController
        from workbench.qt.panels.generate import GeneratePanel

        self.app = QApplication.instance() or QApplication([])
        self.controller = WorkbenchController(Backend())
        self.panel = GeneratePanel(self.controller)
        self.panel.resize(1366, 768)
        self.panel.show()
        self.controller.set_snapshot(snapshot)
        self.loop = QEventLoop()
        self.controller.query_queue.state_changed.connect(self._state)
        self.first: list[float] = []
        on_event = self.panel._on_event  # the panel's own handler, timed on the GUI thread

        def timed_event(event) -> None:
            from workbench.core.events import TokensGenerated

            if isinstance(event, TokensGenerated) and not self.first:
                self.first.append(time.perf_counter())
            on_event(event)

        self.panel._on_event = timed_event  # generate() hands the queue self._on_event

    def _state(self, caller: str, state: str) -> None:
        if caller == "generate" and state == "":
            self.loop.quit()

    def generate(self, length: int, strategy: str = "top-k") -> tuple[str, float]:
        """(text on screen, seconds to the first token)."""
        self.panel.form.set_config(console_config(length, strategy))
        self.first.clear()
        start = time.perf_counter()
        self.panel.generate_button.click()
        self.loop.exec()  # the GUI thread waits in its event loop, as in the app
        self.app.processEvents()  # the last redraw
        if not self.panel.history:
            raise RuntimeError(f"generation failed: {self.controller.last_error}")
        return self.panel.output.toPlainText(), self.first[0] - start

    def close(self) -> None:
        self.controller.shutdown()
        self.panel.close()


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def abba(plain, console, repeats: int) -> dict:
    """Alternate A B B A; ratio plain/console per pair; medians."""
    plains, consoles, ratios = [], [], []
    for i in range(repeats):
        if i % 2 == 0:
            p, c = timed(plain), timed(console)
        else:
            c, p = timed(console), timed(plain)
        plains.append(p)
        consoles.append(c)
        ratios.append(p / c)
    return {"plain_s": statistics.median(plains), "console_s": statistics.median(consoles),
            "ratio": statistics.median(ratios), "ratios": ratios}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--lengths", default="200,5000")
    parser.add_argument("--models", default="lstm,transformer")
    parser.add_argument("--parts", default="headless,window,first,beam")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)
    lengths = [int(n) for n in args.lengths.split(",")]
    parts = set(args.parts.split(","))
    tokenizer = char_tokenizer()
    print(f"load average {os.getloadavg()[0]:.1f}, torch {torch.__version__}, 1 thread")
    for kind in args.models.split(","):
        model = preset_model(kind, tokenizer)
        name = f"char-{kind}"
        for length in lengths:
            measure(name, model, tokenizer, length, parts, args.repeats)
        if "first" in parts:
            from workbench.core.snapshot.rebuild import snapshot_of

            firsts = []
            for step in range(args.repeats):
                window = Window(snapshot_of(model, tokenizer.to_dict(), step, {}, "bench"))
                cold = window.generate(50)[1]
                warm = window.generate(50)[1]
                firsts.append((cold, warm))
                window.close()
            print(f"{name}: first token after Generate: cold (model rebuilt) "
                  f"{statistics.median(c for c, _ in firsts) * 1000:.1f} ms, warm "
                  f"{statistics.median(w for _, w in firsts) * 1000:.1f} ms (median of "
                  f"{args.repeats})")
    print(f"load average {os.getloadavg()[0]:.1f}")


def measure(name: str, model, tokenizer, length: int, parts: set, repeats: int) -> None:
    from functools import partial

    plain = partial(plain_sample, model, tokenizer, length, 1)
    if "headless" in parts:
        r = abba(plain, partial(headless, model, tokenizer, length), repeats)
        report(name, length, "headless top-k", r)
    if "window" in parts:
        from workbench.core.snapshot.rebuild import snapshot_of

        window = Window(snapshot_of(model, tokenizer.to_dict(), 0, {}, "bench"))
        window.generate(20)  # build the snapshot's model once (the cold start)
        r = abba(plain, partial(window.generate, length), repeats)
        report(name, length, "window top-k", r)
        window.close()
    if "beam" in parts:
        r = abba(partial(plain_beam, model, tokenizer, length),
                 partial(headless, model, tokenizer, length, "beam"), repeats)
        report(name, length, f"beam width {BEAM_WIDTH}", r)


def report(name: str, length: int, what: str, r: dict) -> None:
    per_token = 1e6 / length
    print(f"{name} {length:>5} tokens, {what}: plain {r['plain_s'] * per_token:.0f} us/token, "
          f"console {r['console_s'] * per_token:.0f} us/token, plain/console "
          f"{r['ratio']:.3f} (per pair {', '.join(f'{x:.2f}' for x in r['ratios'])})",
          flush=True)


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
