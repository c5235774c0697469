"""`blocks.txt`: an agent's constitution as labelled blocks, what each costs, and the text sent.

Rules of this module:
- Grammar: everything from the first `#` on a line is a comment; the rest is trimmed and an
  empty line is nothing. `[name]tail` opens a block (on-demand when the tail is
  `on-demand`, any ASCII case; otherwise resident); a `[` line without `]` is nothing. Any
  other line is a file path relative to the base, added to the latest block; paths before
  the first block belong to none and are dropped. So a file name with `#` cannot be listed.
- What the model is sent is the file with its keyword lines removed: a line whose trimmed
  text is labelled `Search for:`/`Buscar por:` (the header parser's own `labelled` rule, so
  `**Search for:**` qualifies and a sentence quoting it does not), plus the backticked
  continuation lines of a label line that ends in a comma. The router reads those lines; the
  model does not need them, and they were half of a map's bytes (49.3% measured upstream).
  Text without such a line comes back byte-identical.
- Tokens are estimated, not counted: 3.99 bytes per token of prose and 2.96 per token of
  fenced code, both measured with a real tokenizer over a thirteen-base resident corpus
  (prose 340,553 bytes = 85,282 tokens; code 772 bytes = 261 tokens). Rounding is half away
  from zero, as the original's `f64::round`. Markup files (html, xml, svg) price at the code
  rate: measured 2.62 to 2.99 bytes per token.
- Changing resident block i invalidates the prompt-cache prefix from block i on, so its
  worst-case cost is the tokens of resident blocks i..n. Nothing here invents a block or a
  file: a listed file that cannot be read is reported as missing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from attrs import frozen

from kb.pure.notes.header import SEARCH_LABELS, labelled

Mode = Literal["resident", "on-demand"]

PROSE_BYTES_PER_TOKEN = 3.99
CODE_BYTES_PER_TOKEN = 2.96
MARKUP_EXTENSIONS = frozenset({"html", "htm", "xml", "svg", "xhtml"})
STRIPPED_NOTE = " (`Search for:` lines removed: the router matches those, not you)"


@frozen
class BlockSpec:
    """One block as declared: its name, its mode and the paths listed under it."""

    name: str
    mode: Mode
    paths: tuple[str, ...]


def parse_blocks(text: str) -> tuple[BlockSpec, ...]:
    blocks: list[tuple[str, Mode, list[str]]] = []
    for raw in text.split("\n"):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("["):
            name, bracket, tail = line[1:].partition("]")
            if not bracket:
                continue
            mode: Mode = "on-demand" if tail.strip().lower() == "on-demand" else "resident"
            blocks.append((name.strip(), mode, []))
        elif blocks:
            blocks[-1][2].append(line)
    return tuple(BlockSpec(name, mode, tuple(paths)) for name, mode, paths in blocks)


# -- what the model is sent ---------------------------------------------------------------


def _is_keyword_line(line: str) -> bool:
    return labelled(line.strip(), SEARCH_LABELS) is not None


def strip_keyword_lines(text: str) -> str:
    """The text with its `Search for:` lines (and their backticked continuations) removed."""
    # Only LF ends a line (a CR before it is part of the line and trimmed when tested).
    lines = _split_lf(text)
    if not any(_is_keyword_line(line) for line in lines):
        return text
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not _is_keyword_line(line):
            out.append(line)
            i += 1
            continue
        dropped = line
        i += 1
        while (
            i < len(lines) and dropped.rstrip().endswith(",") and lines[i].strip().startswith("`")
        ):
            dropped = lines[i]
            i += 1
    return "".join(out)


def _split_lf(text: str) -> list[str]:
    """Lines with their own `\\n` kept; the last line may have none."""
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


# -- token estimates ----------------------------------------------------------------------


def round_half_up(x: float) -> int:
    """Rust's `f64::round` for the non-negative quantities here (Python's round is banker's)."""
    return math.floor(x + 0.5)


def _fence(line: str) -> tuple[str, int] | None:
    """(fence character, run length) when `line` is a CommonMark fence line, else None."""
    body = line.rstrip("\n").rstrip("\r")
    indent = len(body) - len(body.lstrip(" "))
    if indent > 3:
        return None
    rest = body[indent:]
    if not rest or rest[0] not in "`~":
        return None
    char = rest[0]
    run = len(rest) - len(rest.lstrip(char))
    if run < 3:
        return None
    if char == "`" and "`" in rest[run:]:
        return None
    return char, run


def code_bytes(text: str) -> int:
    """UTF-8 bytes inside fenced code blocks, fence lines included; unclosed runs to the end."""
    total = 0
    open_fence: tuple[str, int] | None = None
    for line in _split_lf(text):
        fence = _fence(line)
        if open_fence is None:
            if fence is not None:
                open_fence = fence
                total += len(line.encode("utf-8"))
            continue
        total += len(line.encode("utf-8"))
        if fence is not None and fence[0] == open_fence[0] and fence[1] >= open_fence[1]:
            open_fence = None
    return total


def tokens(n_bytes: int) -> int:
    return round_half_up(n_bytes / PROSE_BYTES_PER_TOKEN)


def priced(n_bytes: int, n_code: int) -> int:
    """Tokens of `n_bytes` of which `n_code` are fenced code."""
    return round_half_up((n_bytes - n_code) / PROSE_BYTES_PER_TOKEN + n_code / CODE_BYTES_PER_TOKEN)


def tokens_of(text: str) -> int:
    return priced(len(text.encode("utf-8")), code_bytes(text))


def tokens_of_artifact(path: str, text: str) -> int:
    """A file's tokens; markup files price whole at the code rate."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    _, dot, ext = name.rpartition(".")
    if dot and ext.lower() in MARKUP_EXTENSIONS:
        return round_half_up(len(text.encode("utf-8")) / CODE_BYTES_PER_TOKEN)
    return tokens_of(text)


# -- measured blocks ----------------------------------------------------------------------


@frozen
class BlockFile:
    """One listed file: its path as listed, and its text (None when it cannot be read)."""

    path: str
    text: str | None


@frozen
class Block:
    name: str
    mode: Mode
    files: tuple[str, ...]  # the readable ones, in listed order
    sent: tuple[str, ...]  # their stripped texts, same order
    file_bytes: int  # on disk
    bytes: int  # after stripping
    code_bytes: int  # fenced code within the stripped text
    missing: tuple[str, ...]
    stripped: bool  # some file of this block lost bytes to stripping

    @property
    def resident(self) -> bool:
        return self.mode == "resident"

    @property
    def tokens(self) -> int:
        return priced(self.bytes, self.code_bytes)


def measure(spec: BlockSpec, files: Sequence[BlockFile]) -> Block:
    readable = [f for f in files if f.text is not None]
    raw = [f.text for f in readable if f.text is not None]
    sent = tuple(strip_keyword_lines(t) for t in raw)
    on_disk = [len(t.encode("utf-8")) for t in raw]
    after = [len(t.encode("utf-8")) for t in sent]
    return Block(
        name=spec.name,
        mode=spec.mode,
        files=tuple(f.path for f in readable),
        sent=sent,
        file_bytes=sum(on_disk),
        bytes=sum(after),
        code_bytes=sum(code_bytes(t) for t in sent),
        missing=tuple(f.path for f in files if f.text is None),
        stripped=any(a < d for a, d in zip(after, on_disk, strict=True)),
    )


def resident_tokens(blocks: Sequence[Block]) -> int:
    return sum(b.tokens for b in blocks if b.resident)


def invalidation_costs(blocks: Sequence[Block]) -> tuple[tuple[str, int], ...]:
    """Per resident block, the tokens prefilled again when it changes: itself and every
    resident block after it."""
    resident = [b for b in blocks if b.resident]
    return tuple(
        (b.name, sum(later.tokens for later in resident[i:])) for i, b in enumerate(resident)
    )


# -- output -------------------------------------------------------------------------------


def assemble(blocks: Sequence[Block]) -> str:
    """The resident constitution as the model receives it (`kb blocks --emit`)."""
    out: list[str] = []
    for b in blocks:
        if not b.resident:
            continue
        note = STRIPPED_NOTE if b.stripped else ""
        out.append(f"\n<!-- block: {b.name}{note} -->\n\n")
        for text in b.sent:
            out.append(text if text.endswith("\n") else text + "\n")
            out.append("\n")
    return "".join(out)


_ROW = "  {:<3} {:<10} {:<10} {:>5} {:>9} {:>9} {:>9} {:>11}"


def render_report(where: str, blocks: Sequence[Block]) -> str:
    """The `kb blocks` report; `where` is the blocks.txt path as the user named it."""
    lines = [
        where,
        "",
        _ROW.format("#", "block", "mode", "files", "on disk", "sent", "~tokens", "cumulative"),
    ]
    cumulative = 0
    for i, b in enumerate(blocks, start=1):
        if b.resident:
            cumulative += b.tokens
        lines.append(
            _ROW.format(
                i,
                b.name,
                b.mode,
                len(b.files),
                b.file_bytes,
                b.bytes,
                b.tokens,
                cumulative if b.resident else "-",
            )
        )
        lines.extend(f"      missing file: {m}" for m in b.missing)
    stripped = sum(b.file_bytes - b.bytes for b in blocks if b.resident)
    lines += ["", f"  resident total: about {cumulative} tokens"]
    if stripped > 0:
        lines += [
            f"  of the resident files, {stripped} bytes (about {tokens(stripped)} tokens) are "
            "`Search for:`",
            "  lines, kept on disk for `kb check` and stripped out of the prompt.",
        ]
    lines += ["", "  worst case cost of changing a block, in tokens prefilled again:"]
    lines.extend(f"    {name:<10} {cost:>7}" for name, cost in invalidation_costs(blocks))
    lines += [
        "",
        "  A change to a block invalidates that block and every block after it, because a",
        "  prompt cache reuses a prompt only up to its first differing token. That is why",
        "  blocks are ordered by stability: what changes least goes first.",
        "",
        "  These are worst cases. A cache breaks at the first differing byte, not at the",
        "  block's start, so an edit late in a block costs less: a new map entry was",
        "  measured landing with about 48% of the map behind it.",
    ]
    return "\n".join(lines) + "\n"
