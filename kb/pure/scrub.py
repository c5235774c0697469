"""Scrubbing secrets out of text before `kb capture` (or `kb handoff`) writes it anywhere.

Rules of this module:
- Text with no secret in it comes back unchanged, byte for byte: no whitespace is
  collapsed, nothing is re-cased, no punctuation moves. Only the secret itself is replaced.
- A secret is replaced by a marker that says what kind it was and never any of its
  characters: `[REDACTED_PRIVATE_KEY]` (a PEM block), `[REDACTED_SECRET]` (a value after a
  secret-looking name, a password in a URL), `[REDACTED_TOKEN]` (a bearer or authorization
  credential, a JWT), `[REDACTED_KEY]` (a provider key recognised by its shape).
- Rules run in a fixed order, each over the output of the one before: PEM blocks (they
  span lines, so they go first), base64-wrapped PEM, YAML block values, passwords in URLs,
  command-line flags and `-u user:pass`, percent-encoded assignments, markup elements and
  key/value attributes, authorization headers, bearer tokens, secret assignments,
  credential-looking values after key-like names, then provider keys by shape. A value
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
    """One rule: its regex (compiled on first use, and only for a text holding one of
    `needs`), and what a match becomes. `needs` lists strings of which the pattern cannot
    match without one (a `:` or `=` for an assignment); empty means any text is tried. A
    test holds every rule's `needs` to its pattern."""

    name: str
    source: str
    replace: Callable[[re.Match[str]], str]
    flags: int = 0
    needs: tuple[str, ...] = ()

    @property
    def pattern(self) -> re.Pattern[str]:
        return re.compile(self.source, self.flags)  # re keeps what it compiled


def _nbytes(text: str) -> int:
    return len(text.encode("utf-8"))


def _is_marker(text: str) -> bool:
    # Opening punctuation, `[` included, may stand before the marker's own `[`: a value
    # written `[default]` is scrubbed to `[[REDACTED_SECRET]]`, which must stay as it is.
    body = text.lstrip("\"'`(<{[")
    return body.startswith(MARKER_START[1:]) and text[: len(text) - len(body)].endswith("[")


# -- PEM private key blocks ------------------------------------------------------------------

_PEM = (
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
    r".*?"
    # an unterminated block is redacted to the end of the text: half a key is still a key
    r"(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)"
)


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


# -- authorization headers and bearer tokens -------------------------------------------------

# `-` may come before the name: `Proxy-Authorization: Basic ...` carries a credential too.
_AUTHORIZATION = (
    r"(?i)(?<![A-Za-z0-9_])(authorization\s*[:=]\s*(?:basic|digest|token|negotiate)\s+)(\S+)"
)


def _authorization(m: re.Match[str]) -> str:
    if _is_marker(m.group(2)):
        return m.group(0)
    return m.group(1) + TOKEN


# The credential is an RFC 6750 b64token: a word that does not start like one
# (`{"access_token": ...`) is not taken. Nor is a secret-looking name being assigned
# (`BEARER aws_secret_access_key = ...`, or `access_token:` on the line after
# `token_type: bearer`): replacing the name would hide from the assignment rules that a
# secret follows it.
_BEARER = r"(?i)" + _START + r"(bearer:?\s+)([A-Za-z0-9\-._~+/]+=*)"
_ASSIGNED = r"[ \t]*(?::=|=>|[:=])"


def _bearer(m: re.Match[str]) -> str:
    word = m.group(2)
    if _nbytes(word) < BEARER_MIN_BYTES:
        return m.group(0)
    name = word.rstrip("=")
    # `=` right before more text is the assignment's own separator, not base64 padding
    glued = name != word and m.end() < len(m.string) and not m.string[m.end()].isspace()
    assigned = glued or re.compile(_ASSIGNED).match(m.string, m.end()) is not None
    if assigned and re.fullmatch(_SECRETISH_NAME, name):
        return m.group(0)
    return m.group(1) + TOKEN


# -- secret assignments ----------------------------------------------------------------------

# A name that says its value is a secret: it ends in one of these (so `client_secret`,
# `AWS_SECRET_ACCESS_KEY`, `access_token`, `db_password` all count), or it is `pass` or `pwd`
# or ends in `_pass`/`-pass`/`_pwd` (`DB_PASS`, ODBC's `Pwd=`). It must end there:
# `tokenizer`, `max_tokens`, `secretary` do not count.
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
    r"|(?:[A-Za-z0-9_\-]*[_\-])?(?:pass|pwd))"
)
# A name that does not say "secret" outright but usually holds one (rule 6): it ends in `key`,
# `auth`, `sig` or `signature` (`ENCRYPTION_KEY`, Azure's `AccountKey` and `SharedAccessKey`,
# Docker's `"auth"`, a SAS token's `sig`), or it has a secret word inside it
# (`SECRET_KEY_BASE`, `private_key_id`, `password_hash`). Such names also hold ordinary values
# (`sort_key = title`, `auth: required`), so the value must look like a credential too.
_KEYISH = (
    r"(?:[A-Za-z0-9_\-]*(?:key|auth|sig|signature)"
    r"|[A-Za-z0-9_\-]*(?:password|passwd|secret|token|credential|private[_\-]?key"
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
)
_ASSIGNMENT = (
    rf"(?i){_START}([\"']?)({_NAME})(?![A-Za-z0-9_\-])\1"
    # the separator, but not `==` (a comparison in code is not an assignment)
    rf"(\s*{_SEP}\s*)(?![=>]){_NEXT_ASSIGNMENT}"
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


# -- credential-looking values after key-like names -------------------------------------------

# `_KEYISH` and the credential-looking value are defined with the secret names above.
_CREDENTIAL = (
    rf"(?i){_START}([\"']?)({_KEYISH})(?![A-Za-z0-9_\-])\1"
    rf"(\s*{_SEP}\s*)(?![=>]){_NEXT_ASSIGNMENT}"
    rf"(\"{_C}+\"|'{_C}+'|{_C}+)"
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
    if not _looks_like_credential(inner):
        return m.group(0)
    return f"{head}{quote}{SECRET}{quote}"


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
    # Keep what `start` matched and replace only the rest (a webhook URL keeps its host, so
    # the reader still sees whose webhook it was).
    keep_start: bool = False


SHAPES = (
    # OpenAI (`sk-`, `sk-proj-`, `sk-svcacct-`) and Anthropic (`sk-ant-api03-`).
    Shape("openai-anthropic", r"sk-", 17),
    # Stripe secret and restricted keys; `whsec_` is a webhook signing secret.
    Shape("stripe", r"(?:sk|rk)_(?:live|test)_|whsec_[A-Za-z0-9]{16}", 8),
    Shape("github", r"gh[pousr]_", 11),
    Shape("github-fine-grained", r"github_pat_", 11),
    # GitLab personal, pipeline-trigger, deploy, runner, OAuth-app and feed tokens.
    Shape("gitlab", r"gl(?:pat|ptt|dt|rt|soat|cbt|ft|imt|agent)-[A-Za-z0-9_\-]{20}", 25),
    Shape("slack", r"xox[abeprs]-|xapp-", 15),
    # Slack and Discord incoming webhooks: the URL itself is the credential.
    Shape(
        "webhook-url",
        r"https://(?:hooks\.slack\.com/(?:services|workflows)/"
        r"|(?:canary\.|ptb\.)?discord(?:app)?\.com/api/webhooks/)",
        50,
        keep_start=True,
    ),
    Shape("google", r"AIza", 17),
    # Google OAuth: a client secret (`GOCSPX-`) and an access token (`ya29.`).
    Shape("google-oauth", r"GOCSPX-[A-Za-z0-9_\-]{20}|ya29\.[A-Za-z0-9_\-]{20}", 25),
    Shape("aws-access-key-id", r"A(?:KIA|SIA)", 16),
    # Azure AD (Entra) client secrets: three characters, a digit, `Q~`, then 31 to 34 more.
    Shape("azure-ad-client-secret", r"[A-Za-z0-9_~.\-]{3}[0-9]Q~[A-Za-z0-9_~.\-]{31}", 37),
    # Twilio API key: `SK` and 32 hex digits (the account SID, `AC...`, is no secret).
    Shape("twilio", r"SK[0-9a-fA-F]{32}", 34),
    # SendGrid: `SG.`, 22 characters, `.`, 43 characters.
    Shape("sendgrid", r"SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}", 69),
    # Mailgun's older API keys: `key-` and 32 hex digits.
    Shape("mailgun", r"key-[0-9a-f]{32}", 36),
    # Heroku platform API tokens (the older UUID keys are caught by name: HEROKU_API_KEY=).
    Shape("heroku", r"HRKU-[A-Za-z0-9_\-]{20}", 25),
    # Docker Hub personal access tokens.
    Shape("docker-hub", r"dckr_pat_[A-Za-z0-9_\-]{20}", 29),
    # PyPI upload tokens: a macaroon whose first bytes always encode to `AgE`.
    Shape("pypi", r"pypi-AgE[A-Za-z0-9_\-]{20}", 28),
    # DigitalOcean personal, OAuth and refresh tokens.
    Shape("digitalocean", r"do[opr]_v1_[0-9a-f]{64}", 71),
    # Shopify access, custom-app, private-app and shared-secret tokens.
    Shape("shopify", r"shp(?:at|ca|pa|ss)_[0-9a-fA-F]{32}", 38),
    # age encryption secret keys (Bech32, upper case).
    Shape("age", r"AGE-SECRET-KEY-1[0-9A-Z]{58}", 74),
    # npm and Hugging Face: their prefixes are common words in code (`npm_config_cache`,
    # `hf_hub`), so the body's own shape is part of the rule.
    Shape("npm", r"npm_[A-Za-z0-9]{36}", 40),
    Shape("huggingface", r"hf_[A-Za-z0-9]{30,}", 33),
    Shape("jwt", r"eyJ[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]{4,}\.", 0, TOKEN),
)

_SHAPE_RE = (
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
    r"(?!\[REDACTED_)([^\n]+?)"
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
# `-----BEGIN` is `LS0tLS1CRUdJTi`; the whole base64 run goes.
_B64_PEM = r"LS0tLS1CRUdJTi[A-Za-z0-9+/=]*"


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


# The patterns are compiled when first used, not at import (all of them cost ~35 ms, in a
# `kb boot` that only scrubs a refused question), and a rule whose `needs` the text lacks
# is not compiled at all: an ordinary question holds no `:`, `=`, `--` or `</`.
ASSIGNS = (":", "=")
RULES = (
    Rule("private-key-block", _PEM, _pem, re.DOTALL, ("-----BEGIN ",)),
    Rule("base64-private-key", _B64_PEM, _b64_pem, needs=("LS0tLS1CRUdJTi",)),
    Rule("yaml-block-secret", _YAML_BLOCK, _yaml_block, needs=(":",)),
    Rule("yaml-block-secret-flattened", _YAML_FLAT, _yaml_flat, re.MULTILINE, (":",)),
    Rule("url-password", _URL, _url, needs=("://",)),
    Rule("command-line-flag", _FLAG, _flag, needs=("--",)),
    Rule("command-line-short-password", _SHORT_P, _after_group_one, needs=("-p",)),
    Rule("command-line-user", _USER, _after_group_one, needs=("-u",)),
    Rule("percent-encoded-assignment", _ENCODED, _after_group_one, needs=("%3",)),
    Rule("markup-element", _ELEMENT, _element, needs=("</",)),
    Rule("markup-key-value", _KEY_VALUE, _key_value, needs=("=",)),
    Rule("authorization-header", _AUTHORIZATION, _authorization, needs=ASSIGNS),
    Rule("bearer-token", _BEARER, _bearer),
    Rule("secret-assignment", _ASSIGNMENT, _assignment, needs=ASSIGNS),
    Rule("credential-assignment", _CREDENTIAL, _credential, needs=ASSIGNS),
    Rule("provider-key", _SHAPE_RE, _shape),
)


def scrub(text: str) -> str:
    for rule in RULES:
        if rule.needs and not any(n in text for n in rule.needs):
            continue  # the pattern cannot match: not even compiled
        text = rule.pattern.sub(rule.replace, text)
    return text
