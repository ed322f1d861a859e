"""Dockable panels, one per file (or one folder per family). Panels never import each other."""
