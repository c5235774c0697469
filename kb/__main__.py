"""`python -m kb ...`: the same command as `kb ...`, for an environment whose scripts folder
is not on PATH (a venv that was never activated, a hook that runs a bare interpreter), with
the same entry point, which asks the fleet's daemon first."""

from kb.client import run

run()
