"""The Attention inspector: the panel (panel.py) and the matrices it reads from a trace
(views.py)."""

from workbench.qt.panels.attention.panel import AttentionPanel

__all__ = ["AttentionPanel"]
