"""Corpora: loading files and folders with encoding detection, statistics, tokenizers, splits."""
