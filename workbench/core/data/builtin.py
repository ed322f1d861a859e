"""Seed 002's ten restaurant reviews (002:L624-697): the smallest sentiment example there is.

The seed codes the five complaints as 1 and the five compliments as 0 (`labels =
array([1,1,1,1,1,0,0,0,0,0])`); here the labels are named for what they mean. The seed puts
"poor work" among the compliments (label 0); it is kept as the seed has it, so a model that
learns the words must get that one "wrong".
"""

from __future__ import annotations

from workbench.core.data.labelled import LabelledData, LabelledExample

RESTAURANT_REVIEWS = (
    ("Never coming back!", "negative"),
    ("horrible service", "negative"),
    ("rude waitress", "negative"),
    ("cold food", "negative"),
    ("horrible food!", "negative"),
    ("awesome", "positive"),
    ("awesome services!", "positive"),
    ("rocks", "positive"),
    ("poor work", "positive"),
    ("couldn't have done better", "positive"),
)


def restaurant_reviews() -> LabelledData:
    examples = tuple(LabelledExample(text, label, f"seed 002 review {i + 1}")
                     for i, (text, label) in enumerate(RESTAURANT_REVIEWS))
    return LabelledData(examples, ("review", "label"), 0, 1)
