"""A tokenizer's table (what `Tokenizer.to_dict` writes) checked before one is built from it.

Checkpoints and snapshots carry the tokenizer as JSON. An edited or damaged table reached the
constructors as raw errors: a KeyError for a missing `symbols` or `pattern`, a TypeError for
`symbols = 5` or a symbol of two characters, the `tokenizers` library's bare Exception for
garbage BPE JSON; a table whose size differs from the model's output layer failed only while
writing (an index past the end). `table_problem` says what is wrong in one phrase;
`tokenizer_from_dict` and `check_meta` turn it into a `UserFacingError`.
"""

from __future__ import annotations

from typing import Any

MAX_SYMBOLS = 2_000_000  # far above any vocabulary the app trains (word vocabularies cap lower)
MAX_BPE_JSON = 200 * 1024 * 1024  # characters; the bounded reader caps the file before this


def shown(value: Any) -> str:
    """A value as a table key would show it, cut short."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def table_problem(table: Any) -> str | None:
    """What is wrong with a tokenizer table, or None when a tokenizer can be built from it."""
    if not isinstance(table, dict):
        return f"the tokenizer table is {shown(table)}, not a table"
    kind = table.get("kind")
    if kind not in ("char", "word", "bpe", "pretrained"):
        return f"its tokenizer kind is {shown(kind)}, not one of char, word, bpe, pretrained"
    if not isinstance(table.get("boundaries", "none"), str):
        return f"the tokenizer's 'boundaries' is {shown(table['boundaries'])}, not text"
    if kind == "pretrained":
        ids = [table.get(key) for key in ("bos_id", "eos_id")]
        if not all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
            return f"the pretrained tokenizer's bos_id and eos_id are {shown(ids)}, not ids"
    if kind in ("bpe", "pretrained"):
        text = table.get("tokenizer_json")
        if not isinstance(text, str):
            return ("the BPE tokenizer has no 'tokenizer_json' text" if text is None else
                    f"the BPE tokenizer's 'tokenizer_json' is {shown(text)}, not text")
        if len(text) > MAX_BPE_JSON:
            return f"the BPE tokenizer's JSON is {len(text):,} characters long"
        return None
    return _symbols_problem(table.get("symbols"), kind) or (
        _word_problem(table) if kind == "word" else None)


def _symbols_problem(symbols: Any, kind: str) -> str | None:
    if symbols is None:
        return f"the {kind} tokenizer has no 'symbols' list"
    if not isinstance(symbols, list):
        return f"the {kind} tokenizer's 'symbols' is {shown(symbols)}, not a list"
    if len(symbols) > MAX_SYMBOLS:
        return f"the {kind} tokenizer has {len(symbols):,} symbols (at most {MAX_SYMBOLS:,})"
    for index, symbol in enumerate(symbols):
        if not isinstance(symbol, str) or not symbol:
            return f"symbol {index} of the {kind} tokenizer is {shown(symbol)}, not text"
        if kind == "char" and len(symbol) != 1:
            return (f"symbol {index} of the char tokenizer is {shown(symbol)}: "
                    f"{len(symbol)} characters, not one")
        if any("\ud800" <= c <= "\udfff" for c in symbol):
            return f"symbol {index} of the {kind} tokenizer is a lone surrogate {shown(symbol)}"
    if len(set(symbols)) != len(symbols):
        seen: set[str] = set()
        twice = next(s for s in symbols if s in seen or seen.add(s))
        return f"the {kind} tokenizer lists the symbol {shown(twice)} twice"
    return None


def _word_problem(table: dict) -> str | None:
    pattern = table.get("pattern")
    if pattern is None:
        return "the word tokenizer has no 'pattern'"
    if not isinstance(pattern, str) or not pattern:
        return f"the word tokenizer's 'pattern' is {shown(pattern)}, not a regular expression"
    if not isinstance(table.get("lowercase", False), bool):
        return f"the word tokenizer's 'lowercase' is {shown(table['lowercase'])}, not true/false"
    return None
