"""The line syntax shared by fleet.txt, agent.txt and kb-aliases.txt.

Rules of this module:
- A `#` starts a comment anywhere on a line; what is left is trimmed.
- A line is `key = value`, split at the first `=`, both sides trimmed.
- Manifests ignore lines with an empty value; alias files also ignore an empty left side.
- Nothing here refuses a line: a line that is not `key = value` is not a declaration, and
  `kb check` is where a person is told about it.
"""

from __future__ import annotations

from attrs import frozen


@frozen
class Manifest:
    """Declarations in file order; repeatable keys (`attach`, `disable`) keep every value."""

    pairs: tuple[tuple[str, str], ...] = ()

    def first(self, key: str) -> str | None:
        for k, v in self.pairs:
            if k == key:
                return v
        return None

    def every(self, key: str) -> tuple[str, ...]:
        return tuple(v for k, v in self.pairs if k == key)


def _declarations(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for raw in text.split("\n"):
        line = raw.split("#", 1)[0].strip()
        key, eq, value = line.partition("=")
        if eq:
            out.append((key.strip(), value.strip()))
    return out


def parse_manifest(text: str) -> Manifest:
    return Manifest(tuple((k, v) for k, v in _declarations(text) if v))


def parse_aliases(text: str) -> tuple[tuple[str, str], ...]:
    """`alias = canonical` pairs; a side left empty makes the line nothing."""
    return tuple((k, v) for k, v in _declarations(text) if k and v)


@frozen
class PrivateLayer:
    """Which part of a base is private: the whole base, or a set of top folders."""

    whole: bool
    folders: tuple[str, ...]

    def covers(self, rel: str) -> bool:
        if self.whole:
            return True
        return any(rel == f or rel.startswith(f + "/") for f in self.folders)


DEFAULT_PRIVATE_FOLDERS = ("profile", "projects", "records")


def private_layer(agent_txt: str | None, dir_name: str) -> PrivateLayer:
    """The private layer a base declares, or the default for its directory name.

    The first `private =` line decides, even when its value is empty (then nothing is
    private): an explicit declaration always beats the default.
    """
    if agent_txt is not None:
        for key, value in _declarations(agent_txt):
            if key != "private":
                continue
            if value == ".":
                return PrivateLayer(whole=True, folders=())
            folders = tuple(f for f in (p.strip().rstrip("/") for p in value.split(",")) if f)
            return PrivateLayer(whole=False, folders=folders)
    if dir_name.lower() == "person":
        return PrivateLayer(whole=True, folders=())
    return PrivateLayer(whole=False, folders=DEFAULT_PRIVATE_FOLDERS)
