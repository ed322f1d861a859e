"""`python -m workbench` runs the same entry point as the `workbench` script."""

from workbench.app.main import main

raise SystemExit(main())
