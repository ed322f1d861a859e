"""Scoring a trained model on data: the figures the trainer logs and `workbench evaluate`
prints, computed by the same functions (issue 29, items 5 and 6)."""
