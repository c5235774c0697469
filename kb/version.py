"""The package version, and the build sha stamped at release time (never asked of git)."""

__version__ = "0.1.0"

# What pip knows this project by, and where a user finds its docs: `kb` on the public index
# is another project, so the distribution is kb-fleet while the command stays `kb`. No web
# address until the repository is published (a placeholder would point at someone else's
# page): the docs travel with the source. A unit test holds the name equal to pyproject.toml.
DISTRIBUTION = "kb-fleet"
DOCS_WHERE = "docs/README.md in kb's source checkout; `kb help <verb>` for one verb"


def build_sha() -> str:
    """The sha a release build wrote into kb/_build.py from KB_BUILD_SHA, else `unknown`."""
    try:
        # __import__, not importlib: `kb doctor` and `kb --version` ask this
        module = __import__("kb._build", fromlist=["BUILD_SHA"])
    except ImportError:
        return "unknown"
    return str(getattr(module, "BUILD_SHA", "unknown"))
