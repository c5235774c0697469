"""`python -m kb ...`: the same command as `kb ...`, for an environment whose scripts folder
is not on PATH (a venv that was never activated, a hook that runs a bare interpreter)."""

from kb.shell.main import main

raise SystemExit(main())
