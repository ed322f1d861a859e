"""The composition root: parses argv, builds the core backend and the Qt window, wires them."""
