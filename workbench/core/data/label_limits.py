"""How many classes a classifier or tagger may learn, checked before anything is built.

Every class costs a row of the output layer and a row and a column of the confusion matrix
kept at each validation; 20,000 labels ran out of memory at 4 GB. And a label column with
nearly as many values as lines is almost never a label set: the shipped sentiment file with
its columns swapped trained silently on 1,000 "labels" that were its sentences. Both are
refused here with what to do.
"""

from __future__ import annotations

from workbench.core.jobs import UserFacingError

MAX_CLASSES = 1000  # labels (classification) or tags (tagging) one run may learn
TEXT_LIKE_SHARE = 0.5  # distinct values above this share of the lines: text, not labels
TEXT_LIKE_MIN = 50  # a small set may have a label a line (a toy file of 6 moods)


def check_class_count(values: list[str], what: str = "label", column: str = "",
                      text_like: bool = True) -> None:
    """Refuse a label (or tag) column whose values cannot be a set of classes; `text_like`
    False for tags (one per word: a tagset is small but its words are not checked here)."""
    distinct = len(set(values))
    where = f"column {column}" if column else f"the {what} column"
    if text_like and distinct >= TEXT_LIKE_MIN and distinct > TEXT_LIKE_SHARE * len(values):
        raise UserFacingError(
            f"{where[0].upper()}{where[1:]} has {distinct:,} distinct values in {len(values):,} "
            f"lines: is it the text? Swap the text and {what} columns (a {what} repeats: a "
            "few classes, many examples each).")
    if distinct > MAX_CLASSES:
        raise UserFacingError(
            f"{where[0].upper()}{where[1:]} has {distinct:,} distinct {what}s; at most "
            f"{MAX_CLASSES:,} can be learned (each one is an output of the model and a row "
            "and a column of the confusion matrix). Merge rare ones into a class such as "
            "'other', or choose another column.")
