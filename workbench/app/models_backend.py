"""The model-zoo facade: the architectures on offer, summaries and matched sizes as queries.

torch is imported inside the jobs (on the query thread): the first summary pays the import
(~1-2 s) without freezing the window.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from workbench.core.config.models import MODEL_CONFIGS, settings_problems
from workbench.core.config.summary import MatchedSize
from workbench.core.events import Event, JobFinished
from workbench.core.jobs import JobControl, JobSpec, UserFacingError


def _checked(config: Any) -> None:
    problems = settings_problems(config)
    if problems:
        raise UserFacingError(f"{config.title}: " + " ".join(problems))


class ModelsBackend:
    def architectures(self) -> list[tuple[str, str, type]]:
        """(arch, title, config type) for every registered configuration, in registry order."""
        return [(arch, cls.title, cls) for arch, cls in MODEL_CONFIGS.items()]

    def describe_job(self, config: Any, batch_size: int = 32,
                     seq_len: int | None = None) -> JobSpec:
        """A query whose result is the `ModelSummary` of `config` (vocab_size set)."""
        _checked(config)

        def job(control: JobControl) -> Iterator[Event]:
            from workbench.core.models.summary import summarize

            yield JobFinished(result=summarize(config, batch_size, seq_len))

        return JobSpec(f"Describe {config.title}", job)

    def matched_size_job(self, config: Any, target: Any) -> JobSpec:
        """A query proposing the width of `config` that matches `target`'s parameter count;
        its result is a `MatchedSize`."""
        _checked(config)
        _checked(target)

        def job(control: JobControl) -> Iterator[Event]:
            from workbench.core.models.summary import matched_size, parameter_count, size_fields

            goal = parameter_count(target)
            control.check()
            width, params = matched_size(config, goal)
            yield JobFinished(result=MatchedSize(config.arch, size_fields(config), width, params,
                                                 target.arch, goal))

        return JobSpec(f"Match {config.title} to {target.title}", job)

    def folder_config_job(self, path: str, task: str = "language_model") -> JobSpec:
        """A query whose result is the model config of a Hugging Face model folder (what a
        run of `task` that starts from it trains: a language model's whole model, an encoder
        task's encoder), read from its config.json."""

        def job(control: JobControl) -> Iterator[Event]:
            from pathlib import Path

            from workbench.core.pretrained import model_folder_of
            from workbench.core.tasks.pretrained_start import ENCODER_TASKS, folder_config

            folder = model_folder_of(Path(path).expanduser())
            if folder is None:
                raise UserFacingError(f"{path} is not a model folder (a folder with "
                                      "config.json, model.safetensors and tokenizer.json).")
            config = folder_config(folder, task)  # a folder of the other kind: refused
            # an encoder task's panel designs the encoder; the task adds its head
            yield JobFinished(result=config.encoder_config() if task in ENCODER_TASKS
                              else config)

        return JobSpec("Read the model folder's settings", job)

    def matched_size(self, config: Any, target: Any) -> int:
        """The proposed width, computed here (for scripts and tests; the panel uses the job)."""
        from workbench.core.jobs import drive

        for event in drive(self.matched_size_job(config, target), JobControl()):
            if isinstance(event, JobFinished):
                return event.result.width
        raise UserFacingError("The matched-size search did not finish.")
