"""The package version, and the build sha stamped at release time (never asked of git)."""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

# What pip knows this project by, and where a pip user finds its docs: `kb` on the public
# index is another project, so the distribution is kb-fleet while the command stays `kb`.
# A unit test holds these equal to pyproject.toml.
DISTRIBUTION = "kb-fleet"
DOCS_URL = "https://github.com/kb-fleet/kb-fleet/tree/main/docs"


def build_sha() -> str:
    """The sha a release build wrote into kb/_build.py from KB_BUILD_SHA, else `unknown`."""
    try:
        module = importlib.import_module("kb._build")
    except ImportError:
        return "unknown"
    return str(getattr(module, "BUILD_SHA", "unknown"))
