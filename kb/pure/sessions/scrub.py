"""Scrubbing secrets out of text before `kb capture` (or `kb handoff`) writes it anywhere, and
before a question or a message is counted in one of kb's logs.

Rules of this module:
- Text with no secret in it comes back unchanged, byte for byte: no whitespace is
  collapsed, nothing is re-cased, no punctuation moves. Only the secret itself is replaced.
- A secret is replaced by a marker that says what kind it was and never any of its
  characters: `[REDACTED_PRIVATE_KEY]` (a PEM, SSH2, PuTTY or OpenVPN key block),
  `[REDACTED_SECRET]` (a value after a secret-looking name, a password in a URL),
  `[REDACTED_TOKEN]` (a bearer or authorization credential, a JWT), `[REDACTED_KEY]` (a
  provider key recognised by its shape).
- Rules run in a fixed order, each over the output of the one before: key blocks (they
  span lines, so they go first), base64-wrapped keys, YAML block values, passwords and
  tokens in URLs, command-line flags, `-u user:pass` and `set NAME VALUE`, `.netrc`
  entries, percent-encoded assignments, markup elements and key/value attributes,
  authorization headers, bearer tokens, secret assignments, credential-looking values after
  key-like names, quoted name/value pairs, passwords named in a sentence, an AWS secret
  beside its key id, then provider keys by shape. A value
  already replaced by a marker is never replaced again, so scrubbing twice gives what
  scrubbing once gave.
- No rule takes the *name* of another assignment as its value (`token:` then
  `password: x`; `bearer` then `access_token:`): the name is what tells the later rule a
  secret follows, and replacing it would leave that secret in plain sight.
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
from collections.abc import Callable, Iterable

from attrs import frozen

from kb.pure.sessions.keyshapes import KEY as KEY
from kb.pure.sessions.keyshapes import SHAPES as SHAPES
from kb.pure.sessions.keyshapes import TOKEN as TOKEN

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
    """One rule: its regex (compiled on first use, and only for a text holding one of
    `needs`), and what a match becomes. `needs` lists strings of which the pattern cannot
    match without one (a `:` or `=` for an assignment); empty means any text is tried. With
    `fold`, the needs are lower case and looked for in the lower-cased text, and the pattern
    is compiled with `re.ASCII`, so that its case-insensitive letters are ASCII letters only
    (under full Unicode folding the Kelvin sign would match a `k` that `.lower()` does not
    give). A test holds every rule's `needs` to its pattern."""

    name: str
    source: str
    replace: Callable[[re.Match[str]], str]
    flags: int = 0
    needs: tuple[str, ...] = ()
    fold: bool = False
    # For a rule made of many alternatives (the provider shapes): the source of the smaller
    # pattern that can match a given text, or None when none of them can. It must match
    # what `source` matches in that text.
    select: Callable[[str], str | None] | None = None

    @property
    def pattern(self) -> re.Pattern[str]:
        return self._compiled(self.source)

    def _compiled(self, source: str) -> re.Pattern[str]:
        flags = self.flags | re.ASCII if self.fold else self.flags
        return re.compile(source, flags)  # re keeps what it compiled

    def may_match(self, text: str, lowered: str) -> bool:
        """False only when the pattern cannot match `text` (`lowered` is `text.lower()`)."""
        if not self.needs:
            return True
        where = lowered if self.fold else text
        return any(n in where for n in self.needs)

    def pattern_for(self, text: str, lowered: str) -> re.Pattern[str] | None:
        """The pattern to scrub `text` with, or None when this rule cannot match it."""
        if not self.may_match(text, lowered):
            return None
        if self.select is None:
            return self.pattern
        source = self.select(text)
        return None if source is None else self._compiled(source)


def _nbytes(text: str) -> int:
    return len(text.encode("utf-8"))


def _is_marker(text: str) -> bool:
    # Opening punctuation, `[` included, may stand before the marker's own `[`: a value
    # written `[default]` is scrubbed to `[[REDACTED_SECRET]]`, which must stay as it is.
    body = text.lstrip("\"'`(<{[")
    return body.startswith(MARKER_START[1:]) and text[: len(text) - len(body)].endswith("[")


# -- private key blocks ----------------------------------------------------------------------

# What an armour line may name: any words, then a private key (PEM, PKCS#8, OpenSSH, PGP's
# `PRIVATE KEY BLOCK`, SSH2's `ENCRYPTED PRIVATE KEY`) or an OpenVPN key (`Static key V1`,
# `tls-crypt-v2 client key`). Any case: `-----begin rsa private key-----` is still a key.
_ARMOUR = r"[A-Z0-9 \-]*?(?:PRIVATE KEY(?: BLOCK)?|STATIC KEY V[0-9]+|(?:CLIENT|SERVER) KEY)"
_PEM = (
    # five dashes (PEM, OpenVPN) or four and a space (SSH2, RFC 4716)
    rf"-{{4,5}} ?BEGIN {_ARMOUR} ?-{{4,5}}"
    r".*?"
    # an unterminated block is redacted to the end of the text: half a key is still a key
    rf"(?:-{{4,5}} ?END {_ARMOUR} ?-{{4,5}}|\Z)"
)
# A PuTTY key file (`.ppk`, versions 1 to 3): its header line through its `Private-MAC:` (or
# the older `Private-Hash:`) line, or to the end of the text.
_PUTTY = r"PuTTY-User-Key-File-[0-9]+:.*?(?:Private-(?:MAC|Hash):[ \t]*[0-9A-Fa-f]*|\Z)"


def _pem(_m: re.Match[str]) -> str:
    return PRIVATE_KEY


# -- passwords in URLs -----------------------------------------------------------------------

# scheme://user:password@host. The password runs to the LAST `@` before the path, so a
# password holding a raw `@`, `:`, `?` or `#` (all of which a URL should percent-encode, and
# people paste anyway) is still covered; only whitespace and `/` end it.
_URL = r"(?<![A-Za-z0-9+.\-])([A-Za-z][A-Za-z0-9+.\-]*://[^\s:/?#@]*):([^\s/]+)@"


def _url(m: re.Match[str]) -> str:
    if m.group(2).startswith(MARKER_START):
        return m.group(0)
    return f"{m.group(1)}:{SECRET}@"


# scheme://TOKEN@host: a token given as the user name alone (GitHub and GitLab take one
# there, a Sentry DSN carries its key there). Only a user name of 20 or more characters
# holding a digit counts: `git@`, `alice@`, `john.doe@` are people.
URL_TOKEN_MIN_CHARS = 20
_URL_TOKEN = (
    r"(?<![A-Za-z0-9+.\-])([A-Za-z][A-Za-z0-9+.\-]*://)"
    rf"(?=[^\s:/?#@]*[0-9])([A-Za-z0-9_\-.~%]{{{URL_TOKEN_MIN_CHARS},}})@"
)


def _url_token(m: re.Match[str]) -> str:
    return f"{m.group(1)}{SECRET}@"


# -- authorization headers and bearer tokens -------------------------------------------------

# `-` may come before the name: `Proxy-Authorization: Basic ...` carries a credential too.
# The schemes in use besides `Bearer` (the next rule's): HTTP's own, GitHub's `token`, Okta's
# `SSWS`, Discord's `Bot`, Splunk's, Opsgenie's `GenieKey`, and the `ApiKey`/`Key` many APIs
# take. After any other word, or with no scheme at all, the word is taken only when it looks
# like a credential (`_looks_like_credential`): `Authorization: required` is prose.
_AUTH_SCHEMES = (
    r"basic|digest|token|negotiate|ssws|apikey|api-key|key|bot|oauth|splunk|geniekey|hawk"
)
# The second word is never the next header's name: taking it would hide that header's
# credential from this rule (one pass matches no text twice).
_AUTHORIZATION = (
    r"(?i)(?<![A-Za-z0-9_])(authorization\s*[:=]\s*)(?P<first>\S+)"
    r"(?:(?P<gap>\s+)(?!\S*?authorization\s*[:=])(?P<second>\S+))?"
)


def _authorization(m: re.Match[str]) -> str:
    head, first, second = m.group(1), m.group("first"), m.group("second")
    gap = m.group("gap") or ""
    if _is_marker(first):
        return m.group(0)
    if re.fullmatch(_AUTH_SCHEMES, first, re.IGNORECASE):
        if second is None or _is_marker(second):
            return m.group(0)
        return head + first + gap + TOKEN
    if first.lower() == "bearer":
        return m.group(0)  # the bearer rule's
    core = first.rstrip(_CLOSING)
    if _looks_like_credential(core):  # no scheme: the credential itself
        return head + TOKEN + first[len(core) :] + gap + (second or "")
    if second is not None and not _is_marker(second):
        core = second.rstrip(_CLOSING)
        if _looks_like_credential(core):  # a scheme of its own
            return head + first + gap + TOKEN + second[len(core) :]
    return m.group(0)


# The credential is an RFC 6750 b64token: a word that does not start like one
# (`{"access_token": ...`) is not taken. Nor is a secret-looking name being assigned
# (`BEARER aws_secret_access_key = ...`, or `access_token:` on the line after
# `token_type: bearer`): replacing the name would hide from the assignment rules that a
# secret follows it.
# A `:` glued to more text after the token is taken with it (`bearer 2/1204...:9f3a...`, a
# token whose own alphabet holds a `:`): stopping at the `:` would leave the rest behind.
_BEARER = r"(?i)" + _START + r"(bearer:?\s+)([A-Za-z0-9\-._~+/]+=*)(?P<rest>:[^\s\"'`<>()\[\]{}]+)?"
_ASSIGNED = r"[ \t]*(?::=|=>|[:=])"


def _bearer(m: re.Match[str]) -> str:
    word = m.group(2)
    if _nbytes(word) < BEARER_MIN_BYTES:
        return m.group(0)
    name = word.rstrip("=")
    end = m.end(2)
    # `=` right before more text is the assignment's own separator, not base64 padding
    glued = name != word and end < len(m.string) and not m.string[end].isspace()
    assigned = glued or re.compile(_ASSIGNED).match(m.string, end) is not None
    if assigned and re.fullmatch(_SECRETISH_NAME, name):
        return m.group(0)
    return m.group(1) + TOKEN


# -- secret assignments ----------------------------------------------------------------------

# A name that says its value is a secret: it ends in one of these (so `client_secret`,
# `AWS_SECRET_ACCESS_KEY`, `access_token`, `db_password` all count), or it is `pass`, `pwd`,
# `pw` or `clave` or ends in `_pass`/`-pass`/`_pwd`/`_pw` (`DB_PASS`, ODBC's `Pwd=`). It must
# end there: `tokenizer`, `max_tokens`, `secretary` do not count. The password's own word in
# Portuguese (`senha`, `palavra-passe`), German (`Passwort`, `Kennwort`), Spanish
# (`contraseña`, also written `contrasena`, and `clave`) and French (`mot_de_passe`) counts
# as `password` does. `clave` only whole or after `_`/`-`: `enclave: true` is no secret.
SECRET_NAMES = (
    "password",
    "passwd",
    "passphrase",
    "passwort",
    "kennwort",
    "senha",
    "palavra-passe",
    "contraseña",
    "contrasena",
    "mot_de_passe",
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
_PASSWORD_WORDS = (
    r"password|passwd|passphrase|passwort|kennwort|senha|palavra[_\-]passe"
    r"|contrase(?:ñ|n)a|mot[_\-]?de[_\-]?passe"
)
_NAME = (
    rf"(?:[A-Za-z0-9_\-]*?(?:{_PASSWORD_WORDS}|secret|token|credentials?"
    r"|api[_\-]?key|access[_\-]?key|private[_\-]?key|secret[_\-]?key)"
    r"|(?:[A-Za-z0-9_\-]*[_\-])?(?:pass|pwd|pw|clave))"
)
# A name that does not say "secret" outright but usually holds one (`credential-assignment`):
# it ends in `key`, `auth`, `sig` or `signature` (`ENCRYPTION_KEY`, Azure's `AccountKey` and
# `SharedAccessKey`, Docker's `"auth"`, a SAS token's `sig`) or is a session cookie's name
# (`sessionid`, `JSESSIONID`, `PHPSESSID`, Rails' `_app_session`, `connect.sid`: the cookie is
# a login; a `session_id` or a `session:` field is not taken, they are mostly ids of other
# things), or it has a secret word inside it (`SECRET_KEY_BASE`, `private_key_id`,
# `password_hash`). Such names also hold ordinary values (`sort_key = title`, `auth:
# required`), so the value must look like a credential too.
_KEYISH = (
    r"(?:[A-Za-z0-9_\-]*(?:key|auth|sig|signature|sessionid|sessid|_session|sid)"
    rf"|[A-Za-z0-9_\-]*(?:{_PASSWORD_WORDS}|secret|token|credential|private[_\-]?key"
    r"|api[_\-]?key|access[_\-]?key)[A-Za-z0-9_\-]*)"
)
# A credential-looking value: 16 or more characters of base64, base64url, hex or
# percent-encoding, holding a digit or both cases of letters. `user_profile_settings` is a
# value, `3f2a9c1d4e5b6a7f8091` and `dXNlcjpwYXNzd29yZA==` are credentials. It stops at `;`
# and `&`, which separate the fields of connection strings and query strings.
CREDENTIAL_MIN_CHARS = 16
_CREDENTIAL_CHARS = r"[A-Za-z0-9+/=_\-.~%]"
_C = _CREDENTIAL_CHARS
# The same test as a lookahead (the letters' case checked even in a case-insensitive pattern).
_CREDENTIAL_AHEAD = (
    rf"(?={_C}{{{CREDENTIAL_MIN_CHARS}}})"
    rf"(?-i:(?={_C}*?[0-9]|{_C}*?[a-z]{_C}*?[A-Z]|{_C}*?[A-Z]{_C}*?[a-z]))"
)
# `:`, `=`, `:=` or `=>`
_SEP = r"(?::=|=>|[:=])"
# A value that is itself the next assignment's name and separator (`token:` then
# `password: x`, YAML nesting, a label before a line of config or a JSON object, even behind
# opening brackets and quotes) is not taken: that assignment redacts its own value, and
# taking its name here would leave the value unseen. A key-like name counts only when its
# value looks like a credential (or was one, and is a marker now).
_NEXT_ASSIGNMENT = (
    rf"(?![{{\[(<`\"']*{_NAME}[\"']?[ \t]*{_SEP})"
    rf"(?![{{\[(<`\"']*{_KEYISH}[\"']?[ \t]*{_SEP}[ \t]*[\"']?"
    rf"(?:{_CREDENTIAL_AHEAD}|\[REDACTED_))"
    # nor a call's quoted pair (`token: define('DB_PASSWORD', '...')`), which `quoted-pair` redacts
    rf"(?![^\s\"']*[\"']{_NAME}[\"'][ \t]*,)"
)
_ASSIGNMENT = (
    rf"(?i){_START}([\"']?)({_NAME})(?![A-Za-z0-9_\-])\1"
    # the separator, but not `==` (a comparison in code is not an assignment)
    rf"(\s*{_SEP}\s*)(?![=>]){_NEXT_ASSIGNMENT}"
    r"(\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|\S+)"
)


# A value that says where the secret is kept, not what it is: an environment variable read
# (`os.environ[...]`, `os.getenv(`, `process.env.`, `ENV[`, `System.getenv(`, `${NAME}`) or a
# template (`{{ ... }}`, GitHub Actions' `${{ secrets.X }}`). And a type, not a value:
# `password: str`, `token: string;`, `password: Optional[str]`, or an empty one (`None`,
# `null`, `nil`, `undefined`). Code and configuration that show how a secret is handled keep
# their text.
_REFERENCE = (
    r"(?:\$\{[A-Za-z_][A-Za-z0-9_]*\}$|\$\{\{|\{\{|os\.environ[\[.]|os\.getenv\("
    r"|process\.env\.|ENV\[|System\.getenv\()"
)
TYPE_WORDS = frozenset(
    ("str", "string", "String", "bytes", "SecretStr", "Optional[str]", "str|None")
) | frozenset(("None", "null", "nil", "undefined"))


def _not_a_secret(value: str) -> bool:
    """True when an assigned value names a reference, a type or nothing (`_REFERENCE`)."""
    return value in TYPE_WORDS or re.match(_REFERENCE, value) is not None


def _assignment(m: re.Match[str]) -> str:
    head = m.group(0)[: m.start(4) - m.start(0)]
    value = m.group(4)
    if value[:1] in "\"'" and len(value) >= 2 and value[-1] == value[0]:
        inner = value[1:-1]
        if not inner or inner.startswith(MARKER_START) or _not_a_secret(inner):
            return m.group(0)
        return f"{head}{value[0]}{SECRET}{value[0]}"
    if _is_marker(value):
        return m.group(0)
    core, opening, closing = _split_word(value)
    if not core or _not_a_secret(core) or _not_a_secret(value):
        return m.group(0)
    return f"{head}{opening}{SECRET}{closing}"


# -- credential-looking values after key-like names -------------------------------------------

# `_KEYISH` and the credential-looking value are defined with the secret names above.
# The value may hold a `:` between runs of those characters (an Asana token's `2/12.../...:9f3a`):
# stopping at it would leave the rest of the credential behind.
_CREDENTIAL_VALUE = rf"{_C}+(?::{_C}+)*"
_CREDENTIAL = (
    rf"(?i){_START}([\"']?)({_KEYISH})(?![A-Za-z0-9_\-])\1"
    rf"(\s*{_SEP}\s*)(?![=>]){_NEXT_ASSIGNMENT}"
    rf"(\"{_CREDENTIAL_VALUE}\"|'{_CREDENTIAL_VALUE}'|{_CREDENTIAL_VALUE})"
)


# Either rule's name, alone: the bearer rule leaves such a name to them.
_SECRETISH_NAME = r"(?i)" + _NAME + r"|" + _KEYISH


def _looks_like_credential(value: str) -> bool:
    if len(value) < CREDENTIAL_MIN_CHARS:
        return False
    has_case = any(c.islower() for c in value) and any(c.isupper() for c in value)
    return has_case or any(c.isdigit() for c in value)


def _credential(m: re.Match[str]) -> str:
    head = m.group(0)[: m.start(4) - m.start(0)]
    value = m.group(4)
    quote = value[0] if value[0] in "\"'" else ""
    inner = value[1:-1] if quote else value
    if not _looks_like_credential(inner) or _not_a_secret(inner):
        return m.group(0)
    return f"{head}{quote}{SECRET}{quote}"


def _split_word(word: str) -> tuple[str, str, str]:
    """(core, leading punctuation, trailing punctuation), as the original split a word."""
    body = word.lstrip(_OPENING)
    opening = word[: len(word) - len(body)]
    core = body.rstrip(_CLOSING)
    return core, opening, body[len(core) :]


# -- provider keys by shape (the table is kb.pure.sessions.keyshapes)
# ---------------------------------


def _shape_source(indices: Iterable[int]) -> str:
    """The provider-key pattern made of the shapes at `indices`, in SHAPES order."""
    shapes = "|".join(f"(?P<s{i}>{SHAPES[i].start})" for i in indices)
    return _START + "(?:" + shapes + ")" + _WORD_REST


_SHAPE_RE = _shape_source(range(len(SHAPES)))


def shapes_for(text: str) -> tuple[int, ...]:
    """The indices of the shapes whose `needs` `text` holds: the only ones that can match."""
    return tuple(i for i, s in enumerate(SHAPES) if any(n in text for n in s.needs))


def _shapes_source(text: str) -> str | None:
    # Compiling all of them costs ~10 ms; a question holds the needs of none or a few, and the
    # smaller pattern is compiled once per set of shapes (re keeps what it compiled).
    indices = shapes_for(text)
    return _shape_source(indices) if indices else None


def _shape(m: re.Match[str]) -> str:
    word = m.group(0)
    core = word.rstrip(_TRAILING)
    index = next(int(name[1:]) for name, v in m.groupdict().items() if v is not None)
    shape = SHAPES[index]
    if _nbytes(core) < shape.min_bytes:
        return word
    kept = m.group(f"s{index}") if shape.keep_start else ""
    return kept + shape.marker + word[len(core) :]


# -- YAML block scalars under a secret name -----------------------------------------------------

# `password: |` (or `>`, `|-`, `>+2`) and then the value on the more-indented lines below: the
# assignment rule would only see the `|`. Every line of the block is replaced, its indent kept.
_YAML_BLOCK = (
    rf"(?im)^([ \t]*)([\"']?)(?:{_NAME}|{_KEYISH})\2[ \t]*:[ \t]*[|>][+\-]?[0-9]?[ \t]*\r?\n"
    r"((?:\1[ \t]+\S[^\n]*(?:\n|$))+)"
)


# The same block after something flattened its lines (`password: | Hunter2 more`): what follows
# the indicator up to the next `name:` or the end of the line is the value.
_YAML_FLAT = (
    rf"(?i){_START}([\"']?)(?:{_NAME}|{_KEYISH})\1[ \t]*:[ \t]*[|>][+\-]?[0-9]?[ \t]+"
    # the value starts at its first character: were it to start at a space the indicator's
    # blanks gave back, a marker behind two blanks would be taken again (`>-  [REDACTED_...`)
    r"(?![ \t]|\[REDACTED_)([^\n]+?)"
    r"(?=[ \t]+[\"']?[A-Za-z_][A-Za-z0-9_\-]*[\"']?[ \t]*:(?:\s|$)|[ \t]*$)"
)


def _yaml_flat(m: re.Match[str]) -> str:
    return m.group(0)[: m.start(2) - m.start(0)] + SECRET


def _yaml_block(m: re.Match[str]) -> str:
    head = m.group(0)[: m.start(3) - m.start(0)]
    lines = m.group(3).splitlines(keepends=True)
    out = []
    for line in lines:
        body = line.rstrip("\r\n")
        indent = body[: len(body) - len(body.lstrip())]
        out.append(indent + SECRET + line[len(body) :])
    return head + "".join(out)


# -- secrets on a command line -------------------------------------------------------------------

# `--password X`, `--password=X`, `--api-key X`, `--token=X`: a flag named like a secret.
_FLAG = rf"(?i)(?<![A-Za-z0-9_\-])(--(?:{_NAME})[ =])(?!-)(\"[^\"\n]*\"|'[^'\n]*'|[^\s\"']+)"
# `-pSecret99` or `-p Secret99` (mysql and friends): only when what follows looks like a
# password (8 or more characters holding a digit, no `/`, `.` or `-` of a path or a name),
# since `-p` is also `mkdir -p some-dir` and `ssh -p 22` (a port has at most 5 digits).
_SHORT_P = r"(?<![A-Za-z0-9_\-])(-p[ ]?)(?=[^\s/.\-]*[0-9])([^\s/.\-\"']{8,})(?=[\s\"',;)]|$)"
# `curl -u user:secret`, `--user user:secret`: what follows the first `:` is the password.
_USER = r"(?<![A-Za-z0-9_\-])((?:-u|--user)[ =]?[^\s:\"']+:)([^\s\"']+)"


def _flag(m: re.Match[str]) -> str:
    value = m.group(2)
    if _is_marker(value) or value.strip("\"'").startswith(MARKER_START):
        return m.group(0)
    quote = value[0] if value[:1] in "\"'" else ""
    return f"{m.group(1)}{quote}{SECRET}{quote}"


def _after_group_one(m: re.Match[str]) -> str:
    if m.group(2).startswith(MARKER_START):
        return m.group(0)
    return m.group(1) + SECRET


# -- secrets in markup and encodings -----------------------------------------------------------

# `password%3DHunter2` (a query string encoded once more): the `=` percent-encoded.
_ENCODED = rf"(?i)(?<![A-Za-z0-9_\-])((?:{_NAME})%3D)([^&\s\"']+)"
# `<password>Hunter2</password>`: an element named like a secret.
_ELEMENT = rf"(?i)(<((?:{_NAME}|{_KEYISH}))(?:\s[^>]*)?>)([^<]+)(</\2\s*>)"
# `<add key="ApiKey" value="..."/>` (.NET config, and any key/value attribute pair).
_KEY_VALUE = (
    rf"(?i)((?:key|name)\s*=\s*\"(?:{_NAME}|{_KEYISH})\"[^>]*?\bvalue\s*=\s*\")([^\"]*)(\")"
)
# A private key wrapped in base64 once more (a Kubernetes secret, an env var): base64 of
# `-----BEGIN` begins `LS0tLS1CRUdJTi`, of `-----begin` `LS0tLS1iZWdpbi`, of SSH2's
# `---- BEGIN` `LS0tLSBCRUdJTi`, of `PuTTY-User-Key-File-` `UHVUVFktVXNlci1LZXktRmlsZS`; the
# whole base64 run goes.
_B64_OPENINGS = ("LS0tLS1CRUdJTi", "LS0tLS1iZWdpbi", "LS0tLSBCRUdJTi", "UHVUVFktVXNlci1LZXktRmlsZS")
_B64_PEM = "(?:" + "|".join(_B64_OPENINGS) + r")[A-Za-z0-9+/=]*"


def _element(m: re.Match[str]) -> str:
    if m.group(3).strip().startswith(MARKER_START) or not m.group(3).strip():
        return m.group(0)
    return m.group(1) + SECRET + m.group(4)


def _key_value(m: re.Match[str]) -> str:
    if not m.group(2) or m.group(2).startswith(MARKER_START):
        return m.group(0)
    return m.group(1) + SECRET + m.group(3)


def _b64_pem(_m: re.Match[str]) -> str:
    return PRIVATE_KEY


# -- secrets without a separator ----------------------------------------------------------------

# A `.netrc` entry: `machine HOST login USER password PASS` (on one line or several; `account`
# and `port` may come between), and the `default login USER password PASS` entry. The login
# must be there, before or after the password, so prose about a machine's password (or `the
# default password is in the vault`) is left alone.
_NETRC = (
    r"(?i)(?<![A-Za-z0-9_\-])("
    r"(?:machine[ \t]+\S+|default)"
    r"(?:\s+(?:account|port)\s+\S+)*"
    r"(?:\s+login\s+\S+(?:\s+(?:account|port)\s+\S+)*\s+password\s+"
    r"|\s+password\s+(?=\S+\s+login\s))"
    r")(\S+)"
)

# `aws configure set aws_secret_access_key X`, `git config --global user.password X`,
# `yarn config set npmAuthToken X`, Windows' `setx API_TOKEN X`: a secret-looking name and
# its value after a space, as a command that sets a setting takes them. The name must be an
# identifier (it holds `_ . - : /` or a capital after its first letter): `set token limits`
# is prose.
_SET_NAME = (
    rf"[A-Za-z0-9_.:/@\-]*?(?:{_PASSWORD_WORDS}|secret|token|credentials?|auth"
    r"|api[_\-]?key|access[_\-]?key|private[_\-]?key|secret[_\-]?key)"
)
_SET = (
    r"(?i)(?<![A-Za-z0-9_\-])((?:set|setx|config|configure)"
    r"(?:[ \t]+--?[A-Za-z][A-Za-z0-9_\-]*)*[ \t]+"
    rf"([\"']?)({_SET_NAME})\2[ \t]+)(?!=|--)(\"[^\"\n]*\"|'[^'\n]*'|[^\s\"']+)"
)


def _set(m: re.Match[str]) -> str:
    name, value = m.group(3), m.group(4)
    identifier = any(c in name for c in "_.-:/@") or any(c.isupper() for c in name[1:])
    if not identifier or _is_marker(value) or value.strip("\"'").startswith(MARKER_START):
        return m.group(0)
    quote = value[0] if value[:1] in "\"'" and len(value) > 1 else ""
    if quote:
        return f"{m.group(1)}{quote}{SECRET}{quote}"
    core, opening, closing = _split_word(value)
    return f"{m.group(1)}{opening}{SECRET}{closing}" if core else m.group(0)


# `the password is X`, `das Passwort ist X`, `a senha é X`, `la contraseña es X`, `the
# password for the db was X`: a password named in a sentence. Only a value that looks like
# one (6 or more characters holding a digit) is taken, or anything quoted: `the password is
# in the vault` stays.
PROSE_PASSWORD_MIN_CHARS = 6
_PROSE_PASSWORD = (
    rf"(?i)(?<![A-Za-z0-9_\-])((?:{_PASSWORD_WORDS}|passcode|pin)"
    r"(?:[ \t]+(?:for|of|to|de|do|da|del|für|zum|zur|pour|du|para)(?:[ \t]+\S+){1,3}?)?"
    r"[ \t]+(?:is|was|will be|ist|war|lautet|é|era|es|est|était|sera)[ \t]*:?[ \t]+)"
    r"(\"[^\"\n]+\"|'[^'\n]+'|`[^`\n]+`|[^\s\"'`]+)"
)


def _prose_password(m: re.Match[str]) -> str:
    value = m.group(2)
    if _is_marker(value) or value.strip("\"'`").startswith(MARKER_START):
        return m.group(0)
    if value[0] in "\"'`":
        return f"{m.group(1)}{value[0]}{SECRET}{value[0]}"
    core = value.rstrip(_CLOSING)
    if len(core) < PROSE_PASSWORD_MIN_CHARS or not any(c.isdigit() for c in core):
        return m.group(0)
    return m.group(1) + SECRET + value[len(core) :]


# `define('DB_PASSWORD', 'X')`, `os.environ.setdefault("API_TOKEN", "X")`, `setenv("SECRET",
# "X")`: a quoted secret name, a comma, and the quoted value beside it.
_PAIR = (
    rf"(?i)([\"'])({_NAME})\1([ \t]*,[ \t]*)"
    r"(?:\"((?:[^\"\\\n]|\\.)+)\"|'((?:[^'\\\n]|\\.)+)')"
)


def _pair(m: re.Match[str]) -> str:
    value = m.group(4) if m.group(4) is not None else m.group(5)
    if value.startswith(MARKER_START):
        return m.group(0)
    quote = '"' if m.group(4) is not None else "'"
    return f"{m.group(1)}{m.group(2)}{m.group(1)}{m.group(3)}{quote}{SECRET}{quote}"


# An AWS secret access key has no shape of its own (40 characters of base64), but pasted on the
# line of its key id (`AKIA... wJalr...`, a credentials CSV) it is recognised by its company.
_AWS_PAIR = (
    r"(A(?:KIA|SIA)[A-Z0-9]{16}(?![A-Za-z0-9])[^\n]{0,80}?)"
    r"(?<![A-Za-z0-9+/=])([A-Za-z0-9+/]{40})(?![A-Za-z0-9+/=])"
)


def _aws_pair(m: re.Match[str]) -> str:
    if not _looks_like_credential(m.group(2)):
        return m.group(0)
    return m.group(1) + SECRET


# The patterns are compiled when first used, not at import (all of them cost ~35 ms, in a
# `kb boot` or a `kb route` that only scrubs a refused question), and a rule whose `needs`
# the text lacks is not compiled at all: an ordinary question holds no `:`, `=`, `--`,
# `</` or `bearer`, and the needs of none or a few of the provider shapes.
ASSIGNS = (":", "=")
RULES = (
    Rule(
        "private-key-block",
        _PEM,
        _pem,
        re.DOTALL | re.IGNORECASE,
        ("----begin", "---- begin"),
        fold=True,
    ),
    Rule("putty-private-key", _PUTTY, _pem, re.DOTALL, ("PuTTY-User-Key-File-",)),
    Rule("base64-private-key", _B64_PEM, _b64_pem, needs=_B64_OPENINGS),
    Rule("aws-secret-beside-key-id", _AWS_PAIR, _aws_pair, needs=("AKIA", "ASIA")),
    Rule("yaml-block-secret", _YAML_BLOCK, _yaml_block, needs=(":",)),
    Rule("yaml-block-secret-flattened", _YAML_FLAT, _yaml_flat, re.MULTILINE, (":",)),
    Rule("url-password", _URL, _url, needs=("://",)),
    Rule("url-token-user", _URL_TOKEN, _url_token, needs=("://",)),
    Rule("command-line-flag", _FLAG, _flag, needs=("--",)),
    Rule("command-line-short-password", _SHORT_P, _after_group_one, needs=("-p",)),
    Rule("command-line-user", _USER, _after_group_one, needs=("-u",)),
    Rule("command-line-set", _SET, _set, needs=("set", "config"), fold=True),
    Rule("netrc-password", _NETRC, _after_group_one, needs=("password",), fold=True),
    Rule("percent-encoded-assignment", _ENCODED, _after_group_one, needs=("%3",)),
    Rule("markup-element", _ELEMENT, _element, needs=("</",)),
    Rule("markup-key-value", _KEY_VALUE, _key_value, needs=("=",)),
    Rule("authorization-header", _AUTHORIZATION, _authorization, needs=ASSIGNS),
    Rule("bearer-token", _BEARER, _bearer, needs=("bearer",), fold=True),
    Rule("secret-assignment", _ASSIGNMENT, _assignment, needs=ASSIGNS),
    Rule("credential-assignment", _CREDENTIAL, _credential, needs=ASSIGNS),
    Rule("quoted-pair", _PAIR, _pair, needs=(",",)),
    Rule(
        "password-in-prose",
        _PROSE_PASSWORD,
        _prose_password,
        needs=("pass", "senha", "kennwort", "contrase", "pin"),
        fold=True,
    ),
    Rule("provider-key", _SHAPE_RE, _shape, select=_shapes_source),
)


def scrub(text: str) -> str:
    lowered = text.lower()
    for rule in RULES:
        pattern = rule.pattern_for(text, lowered)
        if pattern is None:
            continue  # the pattern cannot match: not even compiled
        before = text
        text = pattern.sub(rule.replace, text)
        if text != before:
            lowered = text.lower()
    return text
