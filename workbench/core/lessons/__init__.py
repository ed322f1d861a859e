"""Lessons: one TOML file per lesson in `resources/lessons/`, read and checked here (torch-free).

A teacher edits or adds a file like this (every key of a step is optional but `do`):

```toml
title = "Self-attention step by step"
order = 9                      # place in the list
minutes = 4                    # measured: walking the steps on a 2-core laptop
goal = "What the lesson is for."
look = "What to look at."
expect = "What the student should see."
questions = ["…", "…"]
sources = "Public references (a textbook chapter, a paper)."
needs = ["seq2seq"]            # tasks the app must have (else the lesson says it waits)

[[step]]
do = "The instruction the student reads."
panel = "attention"            # show this panel (or a list: ["training", "gradients"])
checkpoint = "models/char-transformer"   # open this model in the inspectors (resources/)
pretrained = "gpt2"                      # open this model folder (the user's models folder)
recipe = "lessons/recipes/no-mask.toml"  # open this recipe in the Training panel
model = { arch = "rnn", nonlinearity = "relu" }  # choose this architecture and settings
tokenizer = { boundaries = "lines" }     # tokenize the corpus with these settings
probe = "To be, or not to be"            # the inspectors' probe sentence
example = "lookup"                       # the Worked examples panel shows this example
inputs = { x = "0 1 0" }                 # ... with these inputs typed in
vectors = "models/shakespeare-word2vec.bin"   # load these word vectors
generation = { strategy = "sample", temperature = 0.5 }   # the Generate panel's settings
prompt = "Romeo.\n"                      # the Generate panel's prompt
highlight = "attention:head_box"         # point at a control: panel:objectName or attribute
task = "language_model"                  # the Architecture panel's task (before the model)
tab = "attention:heatmap"                # show the tab (or page) this control lies on
```

A step inherits the state the steps before it in its lesson set (core/lessons/setup.py), so
"Set up" of any step, after any other lesson, gives the whole state it relies on.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.core.files import bounded
from workbench.core.resources import resource_path

ACTIONS = ("panel", "checkpoint", "pretrained", "recipe", "model", "tokenizer", "probe",
           "example", "inputs", "vectors", "generation", "prompt", "highlight", "task", "tab")
RESOURCE_ACTIONS = ("checkpoint", "recipe", "vectors")  # paths inside resources/
# the panel an action fills, shown when a step names no panel itself (a step that only opens
# a checkpoint or types a probe keeps the panels of the step before)
ACTION_PANELS = {"recipe": "training", "model": "architecture", "tokenizer": "corpus",
                 "example": "worked", "inputs": "worked", "vectors": "embeddings",
                 "generation": "generate", "prompt": "generate"}


@dataclass(frozen=True)
class LessonStep:
    do: str
    actions: dict[str, Any] = field(default_factory=dict)  # action name -> value, file order

    @property
    def highlight(self) -> tuple[str, str] | None:
        """(panel, control) of the step's highlight, or None."""
        target = self.actions.get("highlight")
        if not target:
            return None
        panel, _, control = str(target).partition(":")
        return panel, control

    @property
    def panels(self) -> tuple[str, ...]:
        """The panels a student needs for this step, in order, the last one in front: those it
        names (`panel`, then the highlight's), else those its actions fill; () when it names
        none (the window keeps the panels it has)."""
        named = self.actions.get("panel", ())
        names = [named] if isinstance(named, str) else [str(n) for n in named]
        if self.highlight:
            names.append(self.highlight[0])
        if not names:
            names = [ACTION_PANELS[a] for a in self.actions if a in ACTION_PANELS]
        return tuple(dict.fromkeys(names))


def pretrained_folders(lesson: Lesson) -> list[str]:
    """The model folders (names in the user's models folder) a lesson's steps open."""
    names = [str(step.actions["pretrained"]) for step in lesson.steps
             if "pretrained" in step.actions]
    return list(dict.fromkeys(names))


@dataclass(frozen=True)
class Lesson:
    key: str  # the file name without .toml
    title: str
    order: int
    minutes: float
    goal: str
    steps: tuple[LessonStep, ...]
    look: str = ""
    expect: str = ""
    questions: tuple[str, ...] = ()
    sources: str = ""
    needs: tuple[str, ...] = ()
    path: Path | None = None


class LessonError(ValueError):
    """A lesson file that cannot be read; the message names the file and what to fix."""


def parse_lesson(text: str, key: str, path: Path | None = None) -> Lesson:
    name = path.name if path else key
    try:
        data = bounded.parse_toml(text)  # deep nesting refused as bad TOML, a BOM dropped
    except tomllib.TOMLDecodeError as exc:
        raise LessonError(f"{name} is not valid TOML: {exc}.") from None
    for required in ("title", "goal"):
        if not str(data.get(required, "")).strip():
            raise LessonError(f"{name} has no {required} = \"…\"; every lesson needs one.")
    raw_steps = data.get("step", [])
    if not isinstance(raw_steps, list) or not raw_steps:
        raise LessonError(f"{name} has no [[step]] tables; add at least one step.")
    steps = []
    for number, raw in enumerate(raw_steps, 1):
        if not isinstance(raw, dict) or not str(raw.get("do", "")).strip():
            raise LessonError(f"{name}, step {number}: a step needs do = \"…\" (what to do).")
        unknown = [k for k in raw if k != "do" and k not in ACTIONS]
        if unknown:
            raise LessonError(f"{name}, step {number}: unknown key '{unknown[0]}'. Known: do, "
                              + ", ".join(ACTIONS) + ".")
        panel = raw.get("panel", "")
        if not (isinstance(panel, str) or (isinstance(panel, list)
                                           and all(isinstance(n, str) for n in panel))):
            raise LessonError(f"{name}, step {number}: panel must be a panel's name or a list "
                              "of names, e.g. panel = [\"training\", \"gradients\"].")
        folder = raw.get("pretrained", "x")
        if not isinstance(folder, str) or not folder or "/" in folder or "\\" in folder:
            raise LessonError(f"{name}, step {number}: pretrained must be the name of a folder "
                              "in the models folder, such as pretrained = \"gpt2\".")
        steps.append(LessonStep(str(raw["do"]).strip(),
                                {k: v for k, v in raw.items() if k != "do"}))
    questions = data.get("questions", [])
    if not isinstance(questions, list):
        raise LessonError(f"{name}: questions must be a list of strings.")
    order, minutes, needs = data.get("order", 999), data.get("minutes", 0), data.get("needs", [])
    if not isinstance(order, int) or isinstance(order, bool):
        raise LessonError(f"{name}: order must be a whole number (its place in the list), "
                          f"not {order!r}.")
    if (not isinstance(minutes, (int, float)) or isinstance(minutes, bool)
            or not math.isfinite(minutes) or minutes < 0):
        raise LessonError(f"{name}: minutes must be a number of minutes ≥ 0, such as 4 or "
                          f"4.5, not {minutes!r}.")
    if not isinstance(needs, list) or not all(isinstance(n, str) for n in needs):
        raise LessonError(f"{name}: needs must be a list of task names, such as "
                          f"needs = [\"seq2seq\"], not {needs!r}.")
    return Lesson(key=key, title=str(data["title"]).strip(), order=order,
                  minutes=float(minutes), goal=str(data["goal"]).strip(),
                  steps=tuple(steps), look=str(data.get("look", "")).strip(),
                  expect=str(data.get("expect", "")).strip(),
                  questions=tuple(str(q).strip() for q in questions),
                  sources=str(data.get("sources", "")).strip(),
                  needs=tuple(needs), path=path)


def lessons_folder() -> Path:
    return resource_path("lessons")


def load_lessons(folder: Path | None = None) -> tuple[list[Lesson], list[str]]:
    """Every lesson in `folder` (resources/lessons by default) in their order, and a message
    for each file that could not be read (the others still load)."""
    folder = folder or lessons_folder()
    lessons, problems = [], []
    for path in sorted(folder.glob("*.toml")):
        try:  # a regular file of lesson size only: a FIFO here would hang the start-up
            lessons.append(parse_lesson(bounded.read_text(path, "lesson"), path.stem, path))
        except UnicodeDecodeError as exc:
            problems.append(f"{path.name} is not UTF-8 text ({exc.reason}); save it as UTF-8.")
        except OSError as exc:
            problems.append(f"{path.name} cannot be read: {exc.strerror or exc}.")
        except LessonError as exc:
            problems.append(str(exc))
    lessons.sort(key=lambda lesson: (lesson.order, lesson.key))
    return lessons, problems


def lesson_problems(lesson: Lesson, panels: set[str], examples: set[str]) -> list[str]:
    """What in `lesson` names something that does not exist: a panel, a shipped file, an
    example, a model or setting that would be refused. (Controls are checked in the window.)"""
    from workbench.core.config.fields import from_dict
    from workbench.core.config.generation import GenerationConfig
    from workbench.core.config.models import config_from_dict
    from workbench.core.config.tasks import TASK_CONFIGS
    from workbench.core.config.tokenizer import TokenizerConfig

    problems = []
    for number, step in enumerate(lesson.steps, 1):
        where = f"{lesson.key}, step {number}"
        actions = step.actions
        for panel in step.panels:
            if panel not in panels:
                problems.append(f"{where}: no panel named '{panel}'.")
        for action in RESOURCE_ACTIONS:
            if action in actions and not resource_path(str(actions[action])).exists():
                problems.append(f"{where}: {action} '{actions[action]}' is not in resources/.")
        if "task" in actions and str(actions["task"]) not in TASK_CONFIGS:
            problems.append(f"{where}: no task '{actions['task']}'.")
        if "example" in actions and actions["example"] not in examples:
            problems.append(f"{where}: no worked example '{actions['example']}'.")
        checks = (("model", lambda v: config_from_dict(dict(v))),
                  ("tokenizer", lambda v: from_dict(TokenizerConfig, dict(v))),
                  ("generation", lambda v: from_dict(GenerationConfig, dict(v))))
        for action, build in checks:
            if action in actions:
                try:
                    config = build(actions[action])
                    problems += [f"{where}, {action}: {p}" for p in config.problems()]
                except (TypeError, ValueError) as exc:
                    problems.append(f"{where}, {action}: {exc}")
    return problems
