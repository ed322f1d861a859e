"""Task configurations (torch-free) and the registry of task names to config types.

A task says what a model learns to do (DESIGN.md section 3b): next-token language modelling,
sequence-to-sequence, classification... Its config is a dataclass whose form fields are declared
with `param(...)`, like the model configs, so the Qt room builds a form from it; recipes keep it
as their `[task]` table (`name = "..."` plus the fields). The class also declares, as ClassVars,
what the window needs to know without importing torch:

- `name`, `title`: registry key and the name a user reads;
- `curves`: the validation metrics the Training panel plots for this task (`Curve`), so the
  panel draws task metrics without knowing the task;
- `result_plots` (optional): structured validation results to plot (`ResultPlot`), such as
  accuracy by input length;
- `inspectors`: the names of the panels that apply to a model trained on it;
- `needs_corpus`: whether the task reads the session's tokenized corpus (language modelling)
  or brings its own data (a generator or a file named in the config).

The torch side (`workbench.core.tasks`) registers a `Task` class under the same name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from workbench.core.config.base import (  # Curve and ResultPlot: read from here too
    Curve,
    ResultPlot,
    TaskConfig,
)
from workbench.core.config.fields import from_dict, param, range_problems, to_dict

TASK_CONFIGS: dict[str, type[TaskConfig]] = {}
T = TypeVar("T", bound=type[TaskConfig])
DEFAULT_TASK = "language_model"


def register_task_config(cls: T) -> T:
    """Class decorator: make a task config available under its `name`."""
    TASK_CONFIGS[cls.name] = cls
    return cls


def task_names() -> list[str]:
    return list(TASK_CONFIGS)


def task_config_type(name: str) -> type[TaskConfig]:
    if name not in TASK_CONFIGS:
        known = ", ".join(TASK_CONFIGS)
        raise ValueError(f"Unknown task '{name}'. Known: {known}.")
    return TASK_CONFIGS[name]


def task_config_to_dict(config: TaskConfig) -> dict[str, Any]:
    return {"name": config.name, **to_dict(config)}


def task_config_from_dict(data: dict[str, Any] | None) -> TaskConfig:
    """The config a `[task]` table (or checkpoint entry) describes; none = language model."""
    data = dict(data or {})
    return from_dict(task_config_type(str(data.get("name", DEFAULT_TASK))), data)


def curves_of(task_name: str) -> tuple[Curve, ...]:
    """The curves a run of `task_name` plots (a language model's for unknown names, so a run
    folder from a newer version still shows its loss). The first is always the loss."""
    cls = TASK_CONFIGS.get(task_name) or TASK_CONFIGS[DEFAULT_TASK]
    return cls.curves


def result_plots_of(task_name: str) -> tuple[ResultPlot, ...]:
    cls = TASK_CONFIGS.get(task_name) or TASK_CONFIGS[DEFAULT_TASK]
    return cls.result_plots


def headline(task_name: str, metrics: dict[str, float]) -> str:
    """The task's headline metrics in a few words ("2.743 bits", "exact match 97.5%"), for
    the CLI's progress line and status texts."""
    cls = TASK_CONFIGS.get(task_name) or TASK_CONFIGS[DEFAULT_TASK]
    parts = []
    for curve in cls.curves:
        if curve.short and curve.metric in metrics:
            value = metrics[curve.metric]
            parts.append(f"{curve.short} {value:.1%}" if curve.unit == "percent"
                         else f"{value:.3f} {curve.short}")
    return ", ".join(parts)


@register_task_config
@dataclass
class LanguageModelTaskConfig(TaskConfig):
    """Next-token prediction on the tokenized corpus (the workbench's first task)."""

    name: ClassVar[str] = "language_model"
    title: ClassVar[str] = "Language model (next token)"
    short_title: ClassVar[str] = "Next token"
    io_shape: ClassVar[str] = "next"
    needs_corpus: ClassVar[bool] = True
    curves: ClassVar[tuple[Curve, ...]] = (
        Curve("val_loss", "Loss (nats per token)", train="loss"),
        Curve("perplexity", "Perplexity (e^loss, per token)", train="perplexity"),
        Curve("bits", "Bits per token", train="bits", short="bits"),
    )
    inspectors: ClassVar[tuple[str, ...]] = ("gates", "attention", "nexttoken", "gradients",
                                             "generate")
    teacher_forcing: float = param(
        1.0, "Teacher forcing", "Share of the input tokens that are the true text while "
        "training. 1: teacher forcing, the model always reads the correct history (SLP3 ch. 9, "
        "sec. 9.3). 0: free running, after the first token it reads its own most likely "
        "predictions, one step at a time (slower). In between: each position is the true "
        "token with this probability (scheduled sampling, Bengio et al. 2015). Validation "
        "always reads the true text.", min=0.0, max=1.0, step=0.1)

    start_from: str = param(
        "", "Start from", "A Hugging Face GPT-2 model folder to fine-tune on the corpus (File ▸ "
        "Open model reads the same folders). Its sizes, weights and tokenizer replace the "
        "Architecture panel's model and the corpus tokenizer; the held-out text stays the "
        "same. Empty: a new model.")

    def problems(self) -> list[str]:
        return range_problems(self)
