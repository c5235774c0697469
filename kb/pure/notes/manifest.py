"""The line syntax shared by fleet.txt, agent.txt and kb-aliases.txt.

Rules of this module:
- A `#` starts a comment anywhere on a line; what is left is trimmed.
- A line is `key = value`, split at the first `=`, both sides trimmed.
- Manifests ignore lines with an empty value; alias files also ignore an empty left side.
- Nothing here refuses a line: a line that is not `key = value` is not a declaration, and
  `kb check` is where a person is told about it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from attrs import frozen

from kb.pure.notes.lookalike import path_skeleton, skeleton, spelled_alike


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
    declared: bool = False  # from a `private =` line, not the default for the folder name
    # The default folders kept private beside a declaration that names nothing on disk
    # (`fail_closed`): covered, though never declared (W08 asks only about `folders`).
    kept: tuple[str, ...] = ()

    def covers(self, rel: str) -> bool:
        """Whether `rel` (a path relative to the base) is private: its first segments look
        like a private folder's, compared as people see names (kb.pure.notes.lookalike), so
        `Records/x.md` and `rеcords/x.md` (a Cyrillic `е`) are covered by `records`."""
        if self.whole:
            return True
        folders = [path_skeleton(f) for f in self.folders + self.kept]
        if not folders:
            return False
        # Only the segments a folder can match: the file's own name was a skeleton made
        # (and missed in its cache) on every read of every note.
        deepest = max(len(wanted) for wanted in folders)
        parts = tuple(map(skeleton, rel.split("/", deepest)[:deepest]))
        return any(parts[: len(wanted)] == wanted for wanted in folders)

    def cover_test(self) -> Callable[[str], bool]:
        """`covers` as one test to apply to every path of a walk."""
        return self.cover_memo()[0]

    def cover_memo(self) -> tuple[Callable[[str], bool], dict[str, bool] | None]:
        """`covers` as one test to apply to every path of a walk, and the answers it gave
        per first segment. When no folder is nested (the usual layer: a `private =` value
        holds no `/` in any fleet we have seen), a path is covered exactly when its first
        segment looks like a folder of the layer: one dict lookup per path after the first
        of each segment. A nested layer gets the loop, and no memo (None)."""
        if self.whole:
            return _always, None
        folders = self.folders + self.kept
        if any("/" in f for f in folders):
            return self.covers, None
        tops = frozenset(skeleton(f) for f in folders)
        memo: dict[str, bool] = {}

        def test(rel: str, memo: dict[str, bool] = memo) -> bool:
            top = rel.partition("/")[0]
            try:
                return memo[top]  # the common case: a segment seen before (no call made)
            except KeyError:
                hit = memo[top] = skeleton(top) in tops
                return hit

        return test, memo

    def lookalikes(self, rels: Iterable[str]) -> tuple[tuple[str, str], ...]:
        """(private folder, folder on disk) for every folder among the first segments of
        `rels` that is covered by a private folder it is not spelled as (other case, other
        script): kept private, and worth a warning. A spelling that differs only in Unicode
        form is the same spelling (kb.pure.notes.lookalike.spelled_alike)."""
        if self.whole:
            return ()
        out: dict[tuple[str, str], None] = {}
        for f in self.folders + self.kept:
            wanted = path_skeleton(f)
            depth = len(wanted)
            for rel in rels:
                parts = rel.split("/")
                if len(parts) < depth:
                    continue
                found = "/".join(parts[:depth])
                if path_skeleton(found) == wanted and not spelled_alike(found, f):
                    out[(f, found)] = None
        return tuple(sorted(out))


def _always(rel: str) -> bool:
    return True


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
            entries = [private_entry(p) for p in value.split(",")]
            if "." in entries:
                return PrivateLayer(whole=True, folders=(), declared=True)
            folders = tuple(dict.fromkeys(e for e in entries if e))
            return PrivateLayer(whole=False, folders=folders, declared=True)
    if skeleton(dir_name) == "person":
        return PrivateLayer(whole=True, folders=())
    return PrivateLayer(whole=False, folders=DEFAULT_PRIVATE_FOLDERS)


def private_entry(raw: str) -> str:
    """One `private =` entry as a folder relative to the base: `records`, `records/`,
    `./records`, `/records` and `records/*` all name `records`; `.`, `./`, `/` and `*` name
    the whole base (returned as `.`). Case is kept: the disk's folders are compared with it
    as people see names (`PrivateLayer.covers`)."""
    entry = raw.strip()
    while entry.startswith("./"):
        entry = entry[2:]
    entry = entry.strip("/")
    for tail in ("/**", "/*"):
        if entry.endswith(tail):
            entry = entry[: -len(tail)]
    entry = entry.strip("/")
    if entry in ("", ".", "*", "**"):
        return "." if raw.strip() else ""
    return entry


def fail_closed(layer: PrivateLayer, unmatched: tuple[str, ...]) -> PrivateLayer:
    """The layer a base gets when some declared folders name nothing on disk: the default
    private folders stay private beside the declared ones, so a mistyped line
    (`private = Records`) never makes `records/` public."""
    if layer.whole or not unmatched:
        return layer
    kept = tuple(f for f in DEFAULT_PRIVATE_FOLDERS if f not in layer.folders)
    return PrivateLayer(whole=False, folders=layer.folders, declared=True, kept=kept)


def unmatched_private_message(base: str, unmatched: tuple[str, ...]) -> str | None:
    if not unmatched:
        return None
    names = ", ".join(f"`{u}`" for u in unmatched)
    return (
        f"{base}/agent.txt: private {names} names no folder in this base, so "
        f"{', '.join(DEFAULT_PRIVATE_FOLDERS)} stay private as well; write each private "
        "folder as the base spells it, relative to the base (`records`, `notes/secret`), or "
        "`.` for the whole base"
    )
