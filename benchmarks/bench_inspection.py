"""Inspector and generation speed (issue 6).

    .venv/bin/python -m benchmarks.bench_inspection [--quick]

1. `trace` of a 256-token probe on a 2-layer, 512-unit LSTM (target < 150 ms), against the
   same model's fused forward on the same tokens as the reference.
2. A 512 × 512 attention heatmap set and painted (target < 30 ms), against a bare pyqtgraph
   ImageItem of the same array.
3. First generated token after pressing Generate on a small model (target < 100 ms): from the
   button's click to the first `TokensGenerated` batch reaching the GUI thread, through the real
   controller, query thread and `InspectionBackend` (cold: the snapshot's model is rebuilt;
   warm: cached).
4. Probe overhead on training: tokens/s of a training run on the default corpus with and
   without the four inspectors probing its snapshots on a second thread as the app does (at
   most every AUTO_INTERVAL_S, never two at once), alternated, median of repeats (target:
   < 5 % slower), at the default validation interval and at five times that rate.

Wall-clock numbers on a shared machine are noisy: every measurement is a median of repeats and
the reference runs interleaved in the same process.
"""

from __future__ import annotations

import argparse
import os
import statistics
import threading
import time

import numpy as np

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
AUTO_INTERVAL_S = 2.0  # workbench.qt.widgets.probe_bar.AUTO_INTERVAL_S (no Qt import here)


def median_ms(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def char_tokens(limit_chars: int = 400_000):
    from workbench.core.corpus.dataset import TokenizedCorpus
    from workbench.core.corpus.tokenizers import CharTokenizer
    from workbench.core.resources import default_corpus_path

    text = "".join(p.read_text(encoding="utf-8") for p in sorted(
        default_corpus_path().glob("*.txt")))[:limit_chars]
    tokenizer = CharTokenizer.train(text)
    ids = np.asarray(tokenizer.encode(text), dtype=np.int64)
    n = len(ids)
    return TokenizedCorpus(tokenizer, ids, ids[: int(n * 0.9)], ids[int(n * 0.9):], ids[n:])


def bench_trace(repeats: int) -> dict:
    import torch

    from workbench.core.config.models import LstmConfig
    from workbench.core.models import build_model

    torch.manual_seed(0)
    model = build_model(LstmConfig(vocab_size=80, embedding_size=64, hidden_size=512,
                                   num_layers=2)).eval()
    tokens = torch.randint(4, 80, (256,))
    with torch.no_grad():
        model.trace(tokens)  # warm-up
        forward = median_ms(lambda: model(tokens[None]), repeats)
        trace = median_ms(lambda: model.trace(tokens), repeats)
    return {"trace_ms": trace, "forward_ms": forward, "ratio": trace / forward}


def bench_heatmap(app, repeats: int) -> dict:
    import pyqtgraph as pg

    from workbench.qt.widgets.heatmap import Heatmap

    values = np.random.default_rng(0).random((512, 512)).astype(np.float32)
    values[np.triu_indices(512, 1)] = np.nan
    labels = [f"t{i}" for i in range(512)]
    heatmap = Heatmap("attention", "key", "query")
    heatmap.resize(800, 800)
    heatmap.show()
    bare = pg.GraphicsLayoutWidget()
    bare.resize(800, 800)
    item = pg.ImageItem(axisOrder="row-major")
    bare.addPlot().addItem(item)
    bare.show()
    app.processEvents()

    def ours():
        heatmap.set_data(values, labels, labels, levels=(0.0, 1.0))
        heatmap.view.viewport().repaint()

    def reference():
        item.setImage(values, levels=(0.0, 1.0))
        bare.viewport().repaint()

    results = {"heatmap_ms": [], "bare_ms": []}
    for _ in range(3):  # alternate, so both see the same machine load
        results["heatmap_ms"].append(median_ms(ours, repeats))
        results["bare_ms"].append(median_ms(reference, repeats))
    heatmap.close()
    bare.close()
    return {k: statistics.median(v) for k, v in results.items()}


def small_snapshot(tokens, hidden: int = 256, step: int = 0):
    import torch

    from workbench.core.config.models import LstmConfig
    from workbench.core.models import build_model
    from workbench.core.snapshot.rebuild import snapshot_of

    torch.manual_seed(0)
    model = build_model(LstmConfig(vocab_size=tokens.vocab_size, hidden_size=hidden))
    return snapshot_of(model, tokens.tokenizer.to_dict(), step, {}, "bench")


def bench_first_token(app, tokens, repeats: int) -> dict:
    from workbench.app.backend import Backend
    from workbench.core.events import TokensGenerated
    from workbench.qt.controller import WorkbenchController
    from workbench.qt.panels.generate import GeneratePanel

    controller = WorkbenchController(Backend())
    panel = GeneratePanel(controller)
    panel.form.set_config(dataclasses_replace(panel.form.config(), max_tokens=20))
    latencies: dict[str, list[float]] = {"cold": [], "warm": []}
    first: list[float] = []

    def on_event(event) -> None:
        if isinstance(event, TokensGenerated) and not first:
            first.append(time.perf_counter())

    controller.queries.event.connect(on_event)
    for index in range(repeats):
        kind = "warm"
        if index == 0 or index == repeats // 2:
            controller.set_snapshot(small_snapshot(tokens, step=index))  # a new model
            kind = "cold"
        first.clear()
        start = time.perf_counter()
        panel.generate_button.click()
        while (not first or controller.queries.busy) and time.perf_counter() - start < 60:
            app.processEvents()
        if not first:
            raise RuntimeError(f"no token within 60 s: {controller.last_error}")
        latencies[kind].append((first[0] - start) * 1000)
    controller.shutdown()
    return {"cold_ms": statistics.median(latencies["cold"]),
            "warm_ms": statistics.median(latencies["warm"])}


def dataclasses_replace(config, **changes):
    import dataclasses

    return dataclasses.replace(config, **changes)


def bench_probe_overhead(tokens, steps: int, repeats: int, eval_every: int = 20) -> dict:
    import tempfile
    from pathlib import Path

    from workbench.app.inspection_backend import InspectionBackend
    from workbench.core.config.models import LstmConfig
    from workbench.core.config.training import TrainingConfig
    from workbench.core.events import JobFailed, SnapshotReady, StepLogged
    from workbench.core.jobs import JobControl, drive
    from workbench.core.training_loop.trainer import TrainRequest, train_job

    def run(probe: bool, folder: Path) -> float:
        folder.mkdir(parents=True)
        backend = InspectionBackend()
        config = TrainingConfig(max_steps=steps, batch_size=16, seq_len=64,
                                eval_every=eval_every, device="cpu",
                                eval_batches=2, sample_every=10_000, log_every=5,
                                checkpoint_every=10_000, warmup_steps=10, threads=1)
        request = TrainRequest(tokens, LstmConfig(hidden_size=256), config, run_dir=folder)
        rates, workers, last_start = [], [], [-AUTO_INTERVAL_S]
        for event in drive(train_job(request), JobControl()):
            if isinstance(event, JobFailed):
                raise RuntimeError(event.message)
            if isinstance(event, StepLogged) and event.step > steps // 5:
                rates.append(event.tokens_per_s)
            busy = bool(workers) and workers[-1].is_alive()
            recent = time.monotonic() - last_start[0] < AUTO_INTERVAL_S
            if probe and isinstance(event, SnapshotReady) and not busy and not recent:
                # as in the app (ProbeBar): probes start at most every AUTO_INTERVAL_S and
                # never while the last ones run; the latest snapshot is the one probed
                last_start[0] = time.monotonic()

                def probe_all(snapshot=event.snapshot):
                    began = time.perf_counter()
                    for gradients in (False, False, True, False):  # the four inspectors
                        list(drive(backend.probe_job(snapshot, "To be, or not to be, that is "
                                                     "the question:", gradients), JobControl()))
                    cycles.append((time.perf_counter() - began) * 1000)
                worker = threading.Thread(target=probe_all)
                worker.start()
                workers.append(worker)
        for worker in workers:
            worker.join()
        return statistics.median(rates)

    plain, probed, cycles = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        run(False, Path(tmp) / "warm-up")  # first runs pay for imports and allocator growth
        for i in range(repeats):
            plain.append(run(False, Path(tmp) / f"plain{i}"))
            probed.append(run(True, Path(tmp) / f"probed{i}"))
    p, q = statistics.median(plain), statistics.median(probed)
    return {"plain_tok_s": p, "probed_tok_s": q, "overhead": 1 - q / p,
            "probe_cycle_ms": statistics.median(cycles) if cycles else float("nan"),
            "plain_spread": (min(plain) / p, max(plain) / p)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    args = parser.parse_args()
    repeats = 3 if args.quick else 9
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    tokens = char_tokens()
    t = bench_trace(repeats)
    print(f"trace 256 tokens, LSTM 2x512: {t['trace_ms']:.1f} ms (target < 150); fused "
          f"forward {t['forward_ms']:.1f} ms; ratio {t['ratio']:.1f}")
    h = bench_heatmap(app, repeats)
    print(f"512x512 heatmap set + paint: {h['heatmap_ms']:.1f} ms (target < 30); bare "
          f"ImageItem {h['bare_ms']:.1f} ms")
    g = bench_first_token(app, tokens, max(repeats, 4))
    print(f"first token after Generate, LSTM 1x256: warm {g['warm_ms']:.1f} ms, cold (model "
          f"rebuilt) {g['cold_ms']:.1f} ms (target < 100)")
    for every in (100, 20):  # the default validation interval, and five times as often
        o = bench_probe_overhead(tokens, 60 if args.quick else 300, 1 if args.quick else 4,
                                 every)
        print(f"training (LSTM 1x256, CPU, 1 thread, batch 16x64, snapshot every {every} "
              f"steps) while four inspectors probe: {o['probed_tok_s']:.0f} tok/s vs "
              f"{o['plain_tok_s']:.0f} tok/s without; overhead {o['overhead']:.1%} "
              f"(target < 5%); one probe round {o['probe_cycle_ms']:.0f} ms per "
              f"{AUTO_INTERVAL_S:.0f} s; runs without probes spread "
              f"{o['plain_spread'][0]:.2f}-{o['plain_spread'][1]:.2f} of their median")


if __name__ == "__main__":
    main()
