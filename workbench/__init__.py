"""Sequence Workbench: learn and experiment with sequence models of text."""

__version__ = "0.1.0"
