"""Word tokens back into text, spaced as the text they were split from was (issue 29, item 6).

The word tokenizer's pattern (config/tokenizer.py: `\\w+(?:'\\w+)*|[^\\w\\s]|\\n`) drops the
whitespace between tokens. Two word tokens in a row always had whitespace between them (else
the pattern would have read them as one word); only where a punctuation token stands is the
spacing a question: "Faites-le." has none around its hyphen, French puts a space before "?"
("Qui es-tu ?"), English does not. So the spacing is learnt from the training texts, by the
same pattern, and kept with the vocabulary:
- for each pair of adjacent tokens with a punctuation token in it, whether the text joined them
  (the majority of its occurrences);
- for each punctuation token, whether it was mostly joined to what came before and after.
`Detokenizer.join` puts a space between two tokens unless the pair, or failing that the
punctuation token, was joined in the training texts; a token never seen next to anything is
spaced by the tokenizer's own rule (`WordTokenizer.decode`). A line break is never spaced.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from workbench.core.corpus.tokenizers import (
    SPECIAL_IDS,
    SPECIAL_TOKENS,
    UNK,
    Tokenizer,
    compile_word_pattern,
    tokenizer_from_dict,
)

MAX_PAIRS = 20_000  # the most frequent pairs kept: a vocabulary's entry stays small


def _is_word(token: str) -> bool:
    return bool(token) and (token[0].isalnum() or token[0] == "_")


@dataclass
class Detokenizer:
    pairs: dict[tuple[str, str], bool] = field(default_factory=dict)  # joined or spaced
    before: dict[str, bool] = field(default_factory=dict)  # punctuation: joined to the left
    after: dict[str, bool] = field(default_factory=dict)  # punctuation: joined to the right

    @classmethod
    def learn(cls, pattern: str, texts: Iterable[str], lowercase: bool = False) -> Detokenizer:
        regex = compile_word_pattern(pattern)
        pair_counts: Counter = Counter()
        pair_joined: Counter = Counter()
        side_counts: Counter = Counter()
        side_joined: Counter = Counter()
        for text in texts:
            text = text.lower() if lowercase else text
            spans = [(m.group(), m.start(), m.end()) for m in regex.finditer(text)]
            for (a, _, end), (b, start, _) in zip(spans, spans[1:], strict=False):
                if _is_word(a) and _is_word(b):
                    continue  # always spaced: nothing to learn
                joined = end == start
                pair_counts[a, b] += 1
                pair_joined[a, b] += joined
                if not _is_word(a):
                    side_counts["after", a] += 1
                    side_joined["after", a] += joined
                if not _is_word(b):
                    side_counts["before", b] += 1
                    side_joined["before", b] += joined
        pairs = {pair: 2 * pair_joined[pair] > n
                 for pair, n in pair_counts.most_common(MAX_PAIRS)}
        sides = {key: 2 * side_joined[key] > n for key, n in side_counts.items()}
        return cls(pairs, {t: j for (s, t), j in sides.items() if s == "before"},
                   {t: j for (s, t), j in sides.items() if s == "after"})

    def joined(self, a: str, b: str) -> bool | None:
        """Whether `a` and `b` are written without a space; None: nothing learnt about them."""
        if a == "\n" or b == "\n":
            return True
        if _is_word(a) and _is_word(b):
            return False
        if (a, b) in self.pairs:
            return self.pairs[a, b]
        known = [v for v in (self.after.get(a), self.before.get(b)) if v is not None]
        return any(known) if known else None

    def join(self, tokens: list[str], fallback: Callable[[list[str]], str]) -> str:
        """The tokens as text; `fallback(pair)` spaces a pair nothing was learnt about."""
        if not tokens:
            return ""
        out = [tokens[0]]
        for a, b in zip(tokens, tokens[1:], strict=False):
            joined = self.joined(a, b)
            if joined is None:
                out.append(fallback([a, b])[len(a):])  # the rule's spacing of the pair
            else:
                out.append(b if joined else " " + b)
        return "".join(out)

    def to_dict(self) -> dict:
        return {"pairs": [[a, b, int(j)] for (a, b), j in self.pairs.items()],
                "before": {t: int(j) for t, j in self.before.items()},
                "after": {t: int(j) for t, j in self.after.items()}}

    @classmethod
    def from_dict(cls, data: dict) -> Detokenizer:
        return cls({(str(a), str(b)): bool(j) for a, b, j in data.get("pairs", [])},
                   {str(t): bool(j) for t, j in data.get("before", {}).items()},
                   {str(t): bool(j) for t, j in data.get("after", {}).items()})


def learn_spacing(tokenizer: Tokenizer, texts: Iterable[str]) -> dict | None:
    """The spacing of `texts` as a vocabulary entry; None for a tokenizer that keeps its
    spaces (characters, BPE)."""
    if tokenizer.kind != "word":
        return None
    return Detokenizer.learn(tokenizer.pattern, texts, tokenizer.lowercase).to_dict()


def text_decoder(tokenizer: Tokenizer, spacing: dict | None) -> Callable[[Iterable[int]], str]:
    """ids -> text: a word tokenizer's tokens spaced as learnt (`learn_spacing`), anything
    else (or a vocabulary saved before spacing was learnt) by the tokenizer's own decode."""
    if tokenizer.kind != "word" or not spacing:
        return tokenizer.decode
    detokenizer = Detokenizer.from_dict(spacing)

    def fallback(pair: list[str]) -> str:
        return tokenizer.decode([tokenizer.stoi.get(t, UNK) for t in pair])

    def decode(ids: Iterable[int]) -> str:
        tokens = []
        for i in ids:
            i = int(i)
            if i == UNK:
                tokens.append(SPECIAL_TOKENS[UNK])
            elif i not in SPECIAL_IDS:
                tokens.append(tokenizer.itos[i])
        return detokenizer.join(tokens, fallback)

    return decode


def target_decoder(vocabulary: dict) -> Callable[[Iterable[int]], str]:
    """The target side's ids -> text of a sequence-to-sequence vocabulary."""
    return text_decoder(tokenizer_from_dict(vocabulary["target"]),
                        vocabulary.get("target_spacing"))
