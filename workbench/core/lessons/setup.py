"""The whole state a lesson step relies on, whatever the student did before (torch-free).

A step's own keys say only what changes at that step ("now type 0 1 0", "now T = 1.6"); the
state it relies on was set by the steps before it in the same lesson. A student who clicks
step 5 straight after another lesson saw that lesson's leftovers (a masked-LM's 5,000-word
table where an 80 × 64 embedding was asked about). So "Set up" applies the state in force at
the step: each kind of state from the last step (up to this one) that set it, merged where a
step only changes part of it (generation settings, an example's inputs). What the step shows
(its panels, tab and highlight) stays its own.

Kinds of state, and how a later step's key replaces an earlier one's:
- the model: the last step naming any of checkpoint / pretrained / recipe / model gives all
  of them;
- task, tokenizer, vectors, probe, prompt: the last value;
- example and inputs: the last example, with the inputs typed since it was chosen;
- generation: every step's settings merged, later over earlier.
"""

from __future__ import annotations

from typing import Any

from workbench.core.lessons import Lesson

MODEL_KEYS = ("checkpoint", "pretrained", "recipe", "model")
LAST_VALUE_KEYS = ("task", "tokenizer", "vectors", "probe", "prompt")
SHOWN_KEYS = ("panel", "tab", "highlight")  # what a step shows: never inherited
# the order the runner applies them in: the task before the model (a recipe sets its own
# task), the tokenizer before the model (the vocabulary it counts), the model before the
# probe and the generation settings that act on it
APPLY_ORDER = ("task", "tokenizer", "recipe", "checkpoint", "pretrained", "model", "vectors",
               "example",
               "inputs", "probe", "generation", "prompt")


def step_setup(lesson: Lesson, index: int) -> dict[str, Any]:
    """The actions that set up step `index` (0-based) of `lesson` whole, in APPLY_ORDER,
    followed by the step's own panel / tab / highlight."""
    steps = lesson.steps[: index + 1]
    state: dict[str, Any] = {}
    for step in steps:
        actions = step.actions
        if any(key in actions for key in MODEL_KEYS):
            for key in MODEL_KEYS:
                state.pop(key, None)
                if key in actions:
                    state[key] = actions[key]
        for key in LAST_VALUE_KEYS:
            if key in actions:
                state[key] = actions[key]
        if "example" in actions:
            state["example"] = actions["example"]
            state.pop("inputs", None)
        if "inputs" in actions:
            state["inputs"] = {**state.get("inputs", {}), **dict(actions["inputs"])}
        if "generation" in actions:
            state["generation"] = {**state.get("generation", {}), **dict(actions["generation"])}
    setup = {key: state[key] for key in APPLY_ORDER if key in state}
    own = lesson.steps[index].actions
    setup.update({key: own[key] for key in SHOWN_KEYS if key in own})
    return setup


def inherited(lesson: Lesson, index: int) -> set[str]:
    """The keys of step `index`'s setup that come from an earlier step."""
    own = lesson.steps[index].actions
    return {key for key, value in step_setup(lesson, index).items()
            if key not in own or own[key] != value}
