"""Corpus cleaning settings (torch-free: the Corpus panel's form edits them, recipes keep them).

What each rule removes is said in `workbench.core.corpus.cleaning`. A recipe records the
settings its corpus was cleaned with (`[corpus] cleaning = {...}`), so a run trained on a
cleaned corpus is trained on the same text again when the recipe is run or resumed.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.core.config.fields import from_dict, param, to_dict


@dataclass
class CleaningConfig:
    gutenberg: bool = param(False, "Project Gutenberg header and footer",
                            "Remove the licence header (up to the '*** START OF THE PROJECT "
                            "GUTENBERG EBOOK' line) and the footer (from '*** END OF').")
    markup: bool = param(False, "_italic_ and ~bold~ marks",
                         "Remove the underscores or tildes around marked words; the words "
                         "stay.")
    control: bool = param(False, "Control characters",
                          "Remove C0 control characters (such as the DOS end-of-file byte "
                          "0x1A) except newline and tab.")
    exclude: str = param("", "Exclude (regular expression)",
                         "Remove every match, for example ^\\[.*\\]$ for stage directions or "
                         "(?s)^INTRODUCTION$.*?^ACT I\\.$ for a section (multi-line mode: ^ "
                         "and $ match at line ends; (?s) lets . cross lines).")

    @property
    def active(self) -> bool:
        return self.gutenberg or self.markup or self.control or bool(self.exclude)

    def problems(self) -> list[str]:
        if self.exclude:
            import regex  # the module the cleaning runs it in (with its time limit)

            try:
                regex.compile(self.exclude, regex.MULTILINE)
            except regex.error as exc:
                return [f"The exclude pattern is not a valid regular expression: {exc}."]
        return []


def cleaning_to_dict(config: CleaningConfig) -> dict:
    return to_dict(config)


def cleaning_from_dict(data: dict) -> CleaningConfig:
    return from_dict(CleaningConfig, data)
