"""Scrubbing secrets out of text before `kb capture` (or `kb handoff`) writes it anywhere.

Rules of this module:
- Text with no secret in it comes back unchanged, byte for byte: no whitespace is
  collapsed, nothing is re-cased, no punctuation moves. Only the secret itself is replaced.
- A secret is replaced by a marker that says what kind it was and never any of its
  characters: `[REDACTED_PRIVATE_KEY]` (a PEM block), `[REDACTED_SECRET]` (a value after a
  secret-looking name, a password in a URL), `[REDACTED_TOKEN]` (a bearer or authorization
  credential, a JWT), `[REDACTED_KEY]` (a provider key recognised by its shape).
- Rules run in a fixed order, each over the output of the one before: PEM blocks (they
  span lines, so they go first), passwords in URLs, authorization headers, bearer tokens,
  secret assignments, then provider keys by shape. A value already replaced by a marker is
  never replaced again, so scrubbing twice gives what scrubbing once gave.
- When in doubt it redacts: a value after `token:` in prose is replaced even if it was an
  ordinary word. Losing a word of a conclusion is cheap; a key in a markdown file that is
  indexed, served to models and maybe committed is not.
- A provider key is recognised at the start of a word (not after a letter, digit, `_` or
  `-`) and the whole rest of the word goes with it (up to whitespace, a quote or a bracket,
  giving back trailing `, . ; : ! ?`), as the original's word-by-word scrubber did. Lengths
  are UTF-8 bytes, as the original measured them.
- A secret value after a name gives back only a trailing `,` `;` or closing quote or
  bracket; a password may well end in `.` or `!`, and that character is redacted with it.
- The list of rules is `RULES`; docs/secrets.md describes each one and a test holds the two
  together.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from attrs import frozen

KEY = "[REDACTED_KEY]"
TOKEN = "[REDACTED_TOKEN]"
SECRET = "[REDACTED_SECRET]"
PRIVATE_KEY = "[REDACTED_PRIVATE_KEY]"
MARKER_START = "[REDACTED_"

# A word boundary that `\b` does not give: `_` and `-` are part of a key's word here.
_START = r"(?<![A-Za-z0-9_\-])"
# The rest of a word: up to whitespace, a quote or a bracket.
_WORD_REST = r"[^\s\"'`<>()\[\]{}]*"
_TRAILING = ",.;:!?"
_OPENING = "\"'`(<[{"
# What a value gives back as the sentence's punctuation. `.`, `:`, `!`, `?` are not given
# back: a password ending in one would leak its last character.
_CLOSING = ",;\"'`)>]}"
# A bearer credential shorter than this many bytes is left alone: `bearer of bad news` is
# prose, and every real token scheme is longer (the original's threshold).
BEARER_MIN_BYTES = 13


@frozen
class Rule:
    name: str
    pattern: re.Pattern[str]
    replace: Callable[[re.Match[str]], str]


def _nbytes(text: str) -> int:
    return len(text.encode("utf-8"))


def _is_marker(text: str) -> bool:
    # `[` opens the marker itself, so it is not stripped as punctuation here
    return text.lstrip("\"'`(<{").startswith(MARKER_START)


# -- PEM private key blocks ------------------------------------------------------------------

_PEM = re.compile(
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
    r".*?"
    # an unterminated block is redacted to the end of the text: half a key is still a key
    r"(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
    re.DOTALL,
)


def _pem(_m: re.Match[str]) -> str:
    return PRIVATE_KEY


# -- passwords in URLs -----------------------------------------------------------------------

# scheme://user:password@host. The password runs to the LAST `@` before the path, so a
# password holding a raw `@`, `:`, `?` or `#` (all of which a URL should percent-encode, and
# people paste anyway) is still covered; only whitespace and `/` end it.
_URL = re.compile(
    r"(?<![A-Za-z0-9+.\-])([A-Za-z][A-Za-z0-9+.\-]*://[^\s:/?#@]*):([^\s/]+)@",
)


def _url(m: re.Match[str]) -> str:
    if m.group(2).startswith(MARKER_START):
        return m.group(0)
    return f"{m.group(1)}:{SECRET}@"


# -- authorization headers and bearer tokens -------------------------------------------------

_AUTHORIZATION = re.compile(
    r"(?i)(?<![A-Za-z0-9_\-])(authorization\s*[:=]\s*(?:basic|digest|token|negotiate)\s+)(\S+)"
)


def _authorization(m: re.Match[str]) -> str:
    if _is_marker(m.group(2)):
        return m.group(0)
    return m.group(1) + TOKEN


_BEARER = re.compile(r"(?i)" + _START + r"(bearer:?\s+)(\S+)")


def _bearer(m: re.Match[str]) -> str:
    word = m.group(2)
    if _is_marker(word) or _nbytes(word) < BEARER_MIN_BYTES:
        return m.group(0)
    return m.group(1) + TOKEN


# -- secret assignments ----------------------------------------------------------------------

# A name that says its value is a secret: it ends in one of these (so `client_secret`,
# `AWS_SECRET_ACCESS_KEY`, `access_token`, `db_password` all count), or it is `pass` or ends
# in `_pass`/`-pass`. It must end there: `tokenizer`, `max_tokens`, `secretary` do not count.
SECRET_NAMES = (
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "api_key",
    "apikey",
    "api-key",
    "access_key",
    "private_key",
    "secret_key",
    "credential",
    "credentials",
)
_NAME = (
    r"(?:[A-Za-z0-9_\-]*?(?:password|passwd|passphrase|secret|token|credentials?"
    r"|api[_\-]?key|access[_\-]?key|private[_\-]?key|secret[_\-]?key)"
    r"|(?:[A-Za-z0-9_\-]*[_\-])?pass)"
)
_ASSIGNMENT = re.compile(
    r"(?i)" + _START + r"([\"']?)(" + _NAME + r")(?![A-Za-z0-9_\-])\1"
    # `:`, `=`, `:=` or `=>`, but not `==` (a comparison in code is not an assignment)
    r"(\s*(?::=|=>|[:=])\s*)(?![=>])"
    r"(\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|\S+)"
)


def _assignment(m: re.Match[str]) -> str:
    head = m.group(0)[: m.start(4) - m.start(0)]
    value = m.group(4)
    if value[:1] in "\"'" and len(value) >= 2 and value[-1] == value[0]:
        inner = value[1:-1]
        if not inner or inner.startswith(MARKER_START):
            return m.group(0)
        return f"{head}{value[0]}{SECRET}{value[0]}"
    if _is_marker(value):
        return m.group(0)
    core, opening, closing = _split_word(value)
    if not core:
        return m.group(0)
    return f"{head}{opening}{SECRET}{closing}"


def _split_word(word: str) -> tuple[str, str, str]:
    """(core, leading punctuation, trailing punctuation), as the original split a word."""
    body = word.lstrip(_OPENING)
    opening = word[: len(word) - len(body)]
    core = body.rstrip(_CLOSING)
    return core, opening, body[len(core) :]


# -- provider keys by shape ------------------------------------------------------------------


@frozen
class Shape:
    """A key recognised by how it starts; `min_bytes` is the shortest word that counts."""

    provider: str
    start: str  # a regex for the opening of the key
    min_bytes: int
    marker: str = KEY


SHAPES = (
    # OpenAI (`sk-`, `sk-proj-`, `sk-svcacct-`) and Anthropic (`sk-ant-api03-`).
    Shape("openai-anthropic", r"sk-", 17),
    Shape("stripe", r"(?:sk|rk)_(?:live|test)_", 8),
    Shape("github", r"gh[pousr]_", 11),
    Shape("github-fine-grained", r"github_pat_", 11),
    Shape("gitlab", r"glpat-[A-Za-z0-9_\-]{20}", 26),
    Shape("slack", r"xox[abeprs]-|xapp-", 15),
    Shape("google", r"AIza", 17),
    Shape("aws-access-key-id", r"A(?:KIA|SIA)", 16),
    # npm and Hugging Face: their prefixes are common words in code (`npm_config_cache`,
    # `hf_hub`), so the body's own shape is part of the rule.
    Shape("npm", r"npm_[A-Za-z0-9]{36}", 40),
    Shape("huggingface", r"hf_[A-Za-z0-9]{30,}", 33),
    Shape("jwt", r"eyJ[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]{4,}\.", 0, TOKEN),
)

_SHAPE_RE = re.compile(
    _START
    + r"(?:"
    + "|".join(f"(?P<s{i}>{s.start})" for i, s in enumerate(SHAPES))
    + r")"
    + _WORD_REST
)


def _shape(m: re.Match[str]) -> str:
    word = m.group(0)
    core = word.rstrip(_TRAILING)
    index = next(int(name[1:]) for name, v in m.groupdict().items() if v is not None)
    shape = SHAPES[index]
    if _nbytes(core) < shape.min_bytes:
        return word
    return shape.marker + word[len(core) :]


RULES = (
    Rule("private-key-block", _PEM, _pem),
    Rule("url-password", _URL, _url),
    Rule("authorization-header", _AUTHORIZATION, _authorization),
    Rule("bearer-token", _BEARER, _bearer),
    Rule("secret-assignment", _ASSIGNMENT, _assignment),
    Rule("provider-key", _SHAPE_RE, _shape),
)


def scrub(text: str) -> str:
    for rule in RULES:
        text = rule.pattern.sub(rule.replace, text)
    return text
