"""Words drawn with a colour per token: attention weights (one-sided) or signed contributions.

Colours are Okabe–Ito blue and orange blended with white, so they stay apart for the common
colour-vision deficiencies: a one-sided scale (weights ≥ 0) runs white → blue; a signed one
runs blue (against) → white (0) → orange (for). Each token's value is in its tooltip.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np

BLUE = (0x00, 0x72, 0xB2)
ORANGE = (0xE6, 0x9F, 0x00)


def blend(colour: tuple[int, int, int], share: float) -> str:
    share = float(np.clip(share, 0.0, 1.0))
    r, g, b = (round(255 + (c - 255) * share) for c in colour)
    return f"#{r:02x}{g:02x}{b:02x}"


def token_colour(value: float, scale: float, signed: bool) -> str:
    if scale <= 0:
        return "#ffffff"
    if signed:
        return blend(ORANGE if value >= 0 else BLUE, abs(value) / scale)
    return blend(BLUE, value / scale)


def coloured_tokens_html(tokens: Sequence[str], values: np.ndarray, signed: bool,
                         size: str = "x-large") -> str:
    """The tokens as rich text, each on a background coloured by its value (`size`: a CSS
    keyword, relative to the widget's font, so the text grows with the zoom)."""
    values = np.asarray(values, dtype=np.float64)
    scale = float(np.abs(values).max()) if values.size else 0.0
    parts = []
    for token, value in zip(tokens, values, strict=True):
        background = token_colour(value, scale, signed)
        strong = abs(value) > 0.6 * scale
        text_colour = "white" if strong and not signed else "black"
        shown = html.escape(token).replace(" ", "&nbsp;") or "∅"
        parts.append(f'<span style="background:{background}; color:{text_colour}" '
                     f'title="{value:+.4f}">&nbsp;{shown}&nbsp;</span>')
    return (f"<div style='font-size:{size}; line-height:160%'>" + " ".join(parts)
            + "</div>")


def legend_html(signed: bool) -> str:
    if signed:
        return (f'<span style="background:{blend(BLUE, 1)}; color:white">&nbsp;against&nbsp;'
                f'</span> <span style="background:#ffffff">&nbsp;0&nbsp;</span> '
                f'<span style="background:{blend(ORANGE, 1)}">&nbsp;for&nbsp;</span>')
    return (f'<span style="background:#ffffff">&nbsp;0&nbsp;</span> '
            f'<span style="background:{blend(BLUE, 0.5)}">&nbsp;…&nbsp;</span> '
            f'<span style="background:{blend(BLUE, 1)}; color:white">&nbsp;largest weight'
            '&nbsp;</span>')


def token_line(inner_html: str, size: str) -> str:
    """A line of coloured tokens in monospace at a CSS font `size` ("large", "x-large")."""
    return f"<div style='font-family: monospace; font-size: {size}'>{inner_html}</div>"


def waiting_line(text: str, size: str) -> str:
    """What a token line says before the first probe, grey, in the probed line's font: a line
    that grew at the first probe laid the whole window out again as training began. The text is
    a span, as the tokens are: bare text in the div sets the line lower."""
    return token_line(f"<span style='color: #666'>{html.escape(text)}</span>", size)
