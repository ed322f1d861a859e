"""Plain-text maths of the lessons and worked steps as rich text: h_{t−1} -> h<sub>t−1</sub>.

Lesson files and the worked computations write maths as text (h_t, h_{t−1}, Kᵀ, α_{23,19});
the lesson panel printed it escaped, so "h_{t−1}" appeared with its braces, and the modifier
letter ᵀ, which the default fonts lack, came out as another glyph ("Kˢ" in the X walk of
issue 31). Here the TeX-like marks become <sub>/<sup> and ᵀ a superscript T.
"""

from __future__ import annotations

import html
import re

# x_{...} / x^{...}: a braced group (no nesting in our texts)
_BRACED = re.compile(r"(?<=[\w)\]′·])([_^])\{([^{}]*)\}")
# x_t, α_ij, W_2, x^T: a one-letter symbol with one or two letters or a number, so snake_case
# names in prose (max_steps, hidden_size) stay as written
_SINGLE = re.compile(r"(?<![\w])([^\W_])([_^])([A-Za-z]{1,2}|\d+)(?![\w])")


def math_html(text: str) -> str:
    """`text` escaped for rich text, with its sub- and superscripts rendered."""
    escaped = html.escape(text).replace("ᵀ", "<sup>T</sup>")
    escaped = _BRACED.sub(lambda m: _tag(m.group(1), m.group(2)), escaped)
    return _SINGLE.sub(lambda m: m.group(1) + _tag(m.group(2), m.group(3)), escaped)


def _tag(mark: str, inner: str) -> str:
    name = "sub" if mark == "_" else "sup"
    return f"<{name}>{inner}</{name}>"
