"""Torch-free configuration dataclasses: what the Qt forms edit and recipes store.

Each field carries form metadata (`label`, `tooltip`, `min`, `max`, `step`, `choices`) so a panel
can generate its form from the dataclass alone. Validation lives in each config's `problems()`
method, which returns readable messages (an empty list means valid).
"""
