"""The inspection and generation facade: probes, generation and checkpoint loading as queries.

Every request works on a `Snapshot` (numpy weights), never on the model being trained: the
facade rebuilds a private CPU model with `model_from_snapshot` and keeps the last few rebuilt
models and probe traces, so the inspectors probing the same new snapshot with the same text
rebuild it once and trace it once (a trace with gradients also serves a request without).
torch is imported inside the jobs (on the query thread), so nothing here slows the start.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from workbench.core.config.encoder_tasks import ENCODER_INSPECTORS
from workbench.core.config.generation import GenerationConfig, clamp_problems
from workbench.core.config.tasks import DEFAULT_TASK, TASK_CONFIGS
from workbench.core.corpus.tokenizers import tokenizer_from_dict
from workbench.core.events import Event, JobFinished
from workbench.core.jobs import JobControl, JobSpec, UserFacingError
from workbench.core.snapshot import Snapshot

CACHED_MODELS = 3
CACHED_PROBES = 8


class InspectionBackend:
    def __init__(self) -> None:
        self._models: OrderedDict[int, tuple[Snapshot, Any]] = OrderedDict()
        # the inspectors probe the same snapshot with the same text: one trace serves them all
        self._probes: OrderedDict[tuple, tuple[Snapshot, Any]] = OrderedDict()
        self._lock = threading.Lock()
        self.rebuilds = 0  # how many models were rebuilt (the cache test reads it)

    # --- models from snapshots ----------------------------------------------------------------

    def model_for(self, snapshot: Snapshot) -> Any:
        """The CPU model of `snapshot`, rebuilt once and cached (keyed by the snapshot object)."""
        key = id(snapshot)
        with self._lock:
            cached = self._models.get(key)
            if cached is not None and cached[0] is snapshot:
                self._models.move_to_end(key)
                return cached[1]
        from workbench.core.snapshot.rebuild import model_from_snapshot

        model = model_from_snapshot(snapshot)
        model.eval()
        with self._lock:
            self.rebuilds += 1
            self._models[key] = (snapshot, model)  # holding the snapshot keeps its id unique
            while len(self._models) > CACHED_MODELS:
                self._models.popitem(last=False)
        return model

    def _cached_probe(self, snapshot, text, gradients, top_k):
        wanted = (True,) if gradients else (False, True)  # gradients serve a request without
        with self._lock:
            for key in ((id(snapshot), text, g, top_k) for g in wanted):
                hit = self._probes.get(key)
                if hit is not None and hit[0] is snapshot:
                    return hit[1]
        return None

    def _remember_probe(self, snapshot, text, gradients, top_k, trace) -> None:
        with self._lock:
            self._probes[(id(snapshot), text, gradients, top_k)] = (snapshot, trace)
            while len(self._probes) > CACHED_PROBES:
                self._probes.popitem(last=False)

    @staticmethod
    def tokenizer_for(snapshot: Snapshot, encoders: bool = False) -> Any:
        """The tokenizer a language model's views read; with `encoders`, also an encoder
        task's (a masked LM, classifier or tagger), whose probe goes through the same trace
        for the views its task lists (attention, gates, gradients), never generation."""
        task = TASK_CONFIGS.get(snapshot.task_name)
        probed = encoders and bool(set(getattr(task, "inspectors", ())) & set(ENCODER_INSPECTORS))
        if snapshot.task_name != DEFAULT_TASK and not probed:
            title = task.title if task else snapshot.task_name
            views = ", ".join(getattr(task, "inspectors", ())) or "none yet"
            raise UserFacingError(f"{snapshot.label} is a '{title}' model; this view reads "
                                  f"language models. Views for its task: {views}.")
        if not snapshot.tokenizer:
            raise UserFacingError("This snapshot has no tokenizer; it cannot read a probe. "
                                  "Take a snapshot from a training run or open a checkpoint.")
        return tokenizer_from_dict(snapshot.tokenizer)

    # --- queries ------------------------------------------------------------------------------

    def probe_job(self, snapshot: Snapshot, text: str, gradients: bool = True,
                  top_k: int = 5) -> JobSpec:
        """A query whose result is the probe's `Trace` with the inspectors' extras."""
        from workbench.core.inspection.probes import encode_probe, gradient_norms, probe_job

        tokenizer = self.tokenizer_for(snapshot, encoders=True)
        gradients = bool(gradients)
        # a masked LM's [MASK]: the app's vocabularies keep it beside the tokenizer (one id
        # past its last entry), a BERT folder's tokenizer has its own
        mask_id = snapshot.tokenizer.get("mask_id") if snapshot.task_name == "masked_lm" \
            else None
        encode_probe(tokenizer, text, mask_id)  # refuse an empty or long probe at once

        def job(control: JobControl) -> Iterator[Event]:
            cached = self._cached_probe(snapshot, text, gradients, top_k)
            if cached is not None:  # another inspector probed the same text already
                yield JobFinished(result=cached)
                return
            model = self.model_for(snapshot)
            plain = self._cached_probe(snapshot, text, False, top_k) if gradients else None
            if plain is not None:  # the trace exists: only the gradients are missing
                norms = gradient_norms(model, [int(i) for i in plain.tokens], mask_id)
                trace = dataclasses.replace(plain, extras={**plain.extras, **norms})
                self._remember_probe(snapshot, text, True, top_k, trace)
                yield JobFinished(result=trace)
                return
            spec = probe_job(model, tokenizer, text, snapshot.step, top_k, gradients, mask_id)
            for event in spec.job(control):
                if isinstance(event, JobFinished):
                    self._remember_probe(snapshot, text, gradients, top_k, event.result)
                yield event

        return JobSpec(f"Probe {snapshot.label}", job)

    def generation_job(self, snapshot: Snapshot, prompt: str, config: GenerationConfig,
                       clamp: dict | None = None) -> JobSpec:
        """A query streaming `TokenGenerated`; its result is a `GenerationResult`."""
        from workbench.core.generation.generate import generation_job

        problems = config.problems()
        if problems:
            raise UserFacingError("Generation settings: " + " ".join(problems))
        problems = clamp_problems(snapshot.model_config, clamp)
        if problems:
            raise UserFacingError("Clamp refused: " + " ".join(problems))
        tokenizer = self.tokenizer_for(snapshot)

        def job(control: JobControl) -> Iterator[Event]:
            model = self.model_for(snapshot)
            yield from generation_job(model, tokenizer, prompt, config, clamp).job(control)

        return JobSpec(f"Generate from {snapshot.label}", job)

    def answer_job(self, snapshot: Snapshot, texts: list[str] | str,
                   settings: Any = None) -> JobSpec:
        """A query whose result is the snapshot's task answering each text (its `predict`
        job on a private model, with the task's `settings`): a label with per-token
        contributions, tags, filled blanks. One text gives one answer, a list a list."""
        single = isinstance(texts, str)
        items = [texts] if single else list(texts)
        if not any(t.strip() for t in items):
            raise UserFacingError("Type a sentence first.")
        name = getattr(snapshot, "task_name", "") or "language_model"

        def job(control: JobControl) -> Iterator[Event]:
            from workbench.core.tasks import task_class

            model = self.model_for(snapshot)
            answers = []
            for text in items:
                spec = task_class(name).predict(model, snapshot.tokenizer, text, settings)
                for event in spec.job(control):
                    if isinstance(event, JobFinished):
                        answers.append(event.result)
            yield JobFinished(result=answers[0] if single else answers)

        return JobSpec(f"Ask {snapshot.label}", job)

    def test_sentence_job(self, snapshot: Snapshot, seed: int) -> JobSpec:
        """A query whose result is (words, gold tags) of a sentence of the snapshot's tagging
        data (its test file, or the data when it has none): for the tagging view."""

        def job(control: JobControl) -> Iterator[Event]:
            from workbench.core.config.tasks import task_config_from_dict
            from workbench.core.tasks.tag import read_sources

            config = task_config_from_dict(snapshot.task)
            if config.name != "tag":
                raise UserFacingError("This model was not trained to tag: there are no gold "
                                      "tags to show.")
            data, test = read_sources(config)
            sentences = (test or data).sentences
            sentence = sentences[seed % len(sentences)]
            yield JobFinished(result=(list(sentence.words), list(sentence.tags)))

        return JobSpec("Reading a test sentence", job)

    def export_hf_job(self, snapshot: Snapshot, folder: str | Path) -> JobSpec:
        """A query writing the snapshot as a Hugging Face folder (File ▸ Export)."""
        return export_hf_job(snapshot, folder)

    def load_checkpoint_job(self, path: str | Path) -> JobSpec:
        """A query reading a checkpoint (file, checkpoints folder or run directory) into a
        `Snapshot`."""
        path = Path(path)
        if not path.exists():
            raise UserFacingError(f"{path} does not exist. Choose a checkpoint file or a run "
                                  "directory.")

        def job(control: JobControl) -> Iterator[Event]:
            yield JobFinished(result=snapshot_from_checkpoint(path, control.check))

        return JobSpec(f"Open {path.name}", job)


def export_hf_job(snapshot: Snapshot, folder: str | Path) -> JobSpec:
    """A job writing the snapshot as a Hugging Face folder of its family (GPT-2, Llama or
    BERT); its result is the folder's path."""

    def job(control: JobControl) -> Iterator[Event]:
        from workbench.core.pretrained.export import export_hf

        yield JobFinished(result=str(export_hf(snapshot, Path(folder))))

    return JobSpec(f"Export {Path(folder).name}", job)


def snapshot_from_checkpoint(path: Path, check: Callable[[], object] | None = None
                             ) -> Snapshot:
    """A checkpoint as a snapshot, once its metadata passed its schema, the model it
    describes matched its tensors (built on the meta device: nothing allocated) and fits in
    memory. A Hugging Face model folder (or a file of one) opens as the app's own family.
    `check` is called while large files are read (a stopped query stops there)."""
    from workbench.core.config.models import config_from_dict
    from workbench.core.models import build_model
    from workbench.core.pretrained import model_folder_of, snapshot_from_folder
    from workbench.core.training import model_budget
    from workbench.core.training.checkpoint_meta import check_meta
    from workbench.core.training.checkpoints import load_checkpoint

    folder = model_folder_of(path)
    if folder is not None:  # a Hugging Face model folder (GPT-2 family) or one of its files
        return snapshot_from_folder(folder, check)
    if path.is_dir() and (path / "checkpoints").is_dir():
        path = path / "checkpoints"
    checkpoint = load_checkpoint(path)
    meta = checkpoint.meta
    where = f"The checkpoint {path.name}"
    check_meta(meta, where)
    shapes = model_budget.shapes_on_meta(lambda: build_model(config_from_dict(
        meta["model_config"])))
    model_budget.check_fits(shapes, checkpoint.model, where)
    model_budget.check_memory(shapes, model_budget.INFERENCE_BYTES, f"Opening {path.name}")
    weights = {k: v.detach().cpu().numpy() for k, v in checkpoint.model.items()}
    folder = path if path.is_dir() else path.parent  # .../run/checkpoints
    run_dir = folder.parent if (folder.parent / "metrics.jsonl").is_file() else folder
    return Snapshot(model_config=meta["model_config"], weights=weights,
                    tokenizer=meta.get("tokenizer", {}), step=checkpoint.step,
                    metrics=dict(meta.get("metrics", {})),
                    run_name=str(meta.get("run_name", path.parent.name)),
                    task=dict(meta.get("task", {})),
                    run_dir=str(run_dir.resolve()))
