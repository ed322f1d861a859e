"""Qt widgets shared by several panels (plot export, small helpers)."""
