"""Frozen-app entry point (PyInstaller needs a script, not a console-script entry)."""

from workbench.app.main import main

raise SystemExit(main())
