"""Reading files the app did not write itself: bounded, regular files only (bounded.py)."""
