"""End to end in the real window: choose the task "Sequence to sequence" and an attentive RNN
encoder-decoder, press Train on generated dates, watch the curves and the alignment fill from
the snapshots, then decode in the console with the trained model."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from workbench.app.backend import Backend
from workbench.app.window import build_window
from workbench.core.config.seq2seq import RnnSeq2seqConfig, Seq2seqTaskConfig
from workbench.core.config.training import TrainingConfig
from workbench.core.corpus.tokenizers import EOS, UNK
from workbench.core.events import JobFailed
from workbench.qt.widgets import probe_bar


@pytest.mark.slow
def test_train_a_date_model_in_the_window_and_decode_with_it(qtbot, settings, tmp_path,
                                                             monkeypatch):
    monkeypatch.setenv("WORKBENCH_RUNS_DIR", str(tmp_path / "runs"))
    monkeypatch.setattr(probe_bar, "AUTO_INTERVAL_S", 0.0)  # probe every snapshot
    backend = Backend()
    window = build_window(settings, backend)
    qtbot.addWidget(window)
    window.show()
    controller = window.controller
    architecture = window.panels["architecture"]
    architecture.task_picker.set_config(Seq2seqTaskConfig(size=2500, length=1, held_out=200))
    controller.set_model_config(RnnSeq2seqConfig(embedding_size=16, hidden_size=32,
                                                 attention="additive"))
    training = window.panels["training"]
    assert "RNN encoder-decoder" in training.controls.what.text()
    training.controls.form.set_config(TrainingConfig(
        max_steps=150, batch_size=32, eval_every=50, log_every=10, sample_every=50,
        warmup_steps=10, lr=1e-2, checkpoint_every=1000, threads=1))
    alignment = window.panels["alignment"]
    window.show_panel("alignment")
    failures = []
    controller.job_event.connect(lambda e: failures.append(e) if isinstance(e, JobFailed)
                                 else None)
    training.controls.start.click()
    qtbot.waitUntil(lambda: bool(failures) or (not controller.jobs.busy
                                               and len(alignment.history) >= 3
                                               and not controller.queries.busy),
                    timeout=600_000)
    assert not failures, failures[0].message
    run = next(iter(training.series.values()))
    assert run.task == "seq2seq" and "exact_match" in training.curves.plots
    assert run.val["token_accuracy"][-1] > run.val["token_accuracy"][0]
    assert "accuracy_by_length" in run.results[-1][1]
    assert "→" in training.samples.toPlainText()

    # the matrix is the trace of the snapshot it came from, and it changed while training
    snapshot = controller.snapshot
    model = backend.inspection.model_for(snapshot)
    source_tokenizer, target_tokenizer = backend.seq2seq.tokenizers(snapshot)
    shown = alignment.history[-1]
    assert shown.step == snapshot.step
    probe_source, probe_target = alignment.probe_bar.text.text().split(" → ")
    assert UNK not in source_tokenizer.encode(probe_source)  # a date this model's data has
    source = torch.tensor([source_tokenizer.encode(probe_source)])
    outputs = torch.tensor([target_tokenizer.encode(probe_target) + [EOS]])
    assert shown.target_tokens.tolist() == outputs[0].tolist()  # teacher forced
    expected = model.trace(source, outputs).alignment
    np.testing.assert_allclose(alignment.heatmap.image_values(), expected, rtol=1e-5,
                               atol=1e-6)
    assert not np.allclose(alignment.history[0].alignment, alignment.history[-1].alignment)

    # the console decodes with the trained model, as greedy decoding does
    console = window.panels["seq2seq"]
    window.show_panel("seq2seq")
    console.input.setText("14/07/1979")
    assert console.decode()
    qtbot.waitUntil(lambda: console.result is not None, timeout=60_000)
    from workbench.core.generation.seq2seq_decoding import greedy_steps

    ids = torch.tensor([source_tokenizer.encode("14/07/1979")])
    greedy = list(greedy_steps(model, ids, 64))[-1]
    assert console.output_text() == target_tokenizer.decode(greedy.ids())
    assert len(console.tokens[0].attention) == len("14/07/1979")
