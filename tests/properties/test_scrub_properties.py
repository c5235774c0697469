"""Properties of the secret scrubber (kb.pure.sessions.scrub, docs/secrets.md):

- no secret of a generated corpus survives: every provider's key shape with a random body,
  bearer and authorization credentials, JWTs, passwords in URLs and in assignments, PEM
  private key blocks, several at once, embedded in random prose with random punctuation;
- text that holds no secret comes back unchanged, byte for byte, whether it is random text
  over an alphabet that cannot spell a secret or prose made of the very words the rules
  look for (`token`, `password`, `bearer`, `secret` ...) used as words;
- scrubbing twice gives what scrubbing once gave, for any text at all;
- docs/secrets.md names every rule and every provider shape.

Why the corpus can be checked by substring: every secret body generated here holds at least
one upper-case letter and one digit, the prose holds no upper-case letter, and the markers
hold no digit, so a body can only be found in the output if the scrubber left it there.
"""

from __future__ import annotations

import re
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from kb.pure.sessions.scrub import RULES, SHAPES, _shape_source, scrub, shapes_for
from kb.pure.sessions.scrubgate import FOLDED_NEEDS, NEEDS, could_hold_secret
from tests.conftest import REPO
from tests.properties.strategies import capped

ALNUM = string.ascii_letters + string.digits
B64URL = ALNUM + "-_"
B64 = ALNUM + "+/"
# what a password may hold inside a URL or an assignment value
PASSWORD_CHARS = ALNUM + "!#$%^&*+-_~."

PROVERBS = settings(max_examples=capped(300), deadline=None)


@st.composite
def body(draw: st.DrawFn, alphabet: str, min_size: int, max_size: int) -> str:
    """Random text over `alphabet` holding at least one upper-case letter and one digit,
    starting and ending with a letter or digit."""
    inner = draw(st.text(alphabet=alphabet, min_size=max(0, min_size - 4), max_size=max_size - 4))
    upper = draw(st.sampled_from(string.ascii_uppercase))
    digit = draw(st.sampled_from(string.digits))
    first = draw(st.sampled_from(ALNUM))
    last = draw(st.sampled_from(ALNUM))
    chars = list(inner)
    chars.insert(draw(st.integers(0, len(chars))), upper)
    chars.insert(draw(st.integers(0, len(chars))), digit)
    return first + "".join(chars) + last


# Each strategy gives (the secret as it appears in text, the parts that must not survive).
Secret = tuple[str, tuple[str, ...]]


@st.composite
def provider_key(draw: st.DrawFn) -> Secret:
    kind = draw(
        st.sampled_from(
            [
                "openai",
                "openai-proj",
                "anthropic",
                "github",
                "github-pat",
                "gitlab",
                "slack",
                "google",
                "stripe",
                "aws",
                "npm",
                "huggingface",
            ]
        )
    )
    if kind == "openai":
        b = draw(body(B64URL, 20, 60))
        return f"sk-{b}", (b,)
    if kind == "openai-proj":
        b = draw(body(B64URL, 40, 120))
        return f"sk-proj-{b}", (b,)
    if kind == "anthropic":
        b = draw(body(B64URL, 40, 95))
        return f"sk-ant-api03-{b}", (b,)
    if kind == "github":
        b = draw(body(ALNUM, 36, 36))
        return f"gh{draw(st.sampled_from('pousr'))}_{b}", (b,)
    if kind == "github-pat":
        b = draw(body(ALNUM + "_", 30, 82))
        return f"github_pat_{b}", (b,)
    if kind == "gitlab":
        b = draw(body(B64URL, 20, 20))
        return f"glpat-{b}", (b,)
    if kind == "slack":
        team = draw(st.text(alphabet=string.digits, min_size=8, max_size=13))
        b = draw(body(ALNUM, 16, 32))
        return f"xox{draw(st.sampled_from('baprs'))}-{team}-{b}", (b,)
    if kind == "google":
        b = draw(body(B64URL, 35, 35))
        return f"AIza{b}", (b,)
    if kind == "stripe":
        b = draw(body(ALNUM, 24, 99))
        prefix = draw(st.sampled_from(["sk_live_", "rk_live_", "sk_test_", "rk_test_"]))
        return prefix + b, (b,)
    if kind == "aws":
        b = draw(body(string.ascii_uppercase + string.digits, 16, 16))
        return f"{draw(st.sampled_from(['AKIA', 'ASIA']))}{b}", (b,)
    if kind == "npm":
        b = draw(body(ALNUM, 36, 36))
        return f"npm_{b}", (b,)
    b = draw(body(ALNUM, 34, 34))
    return f"hf_{b}", (b,)


@st.composite
def jwt(draw: st.DrawFn) -> Secret:
    header = draw(body(B64URL, 10, 40))
    payload = draw(body(B64URL, 10, 120))
    signature = draw(body(B64URL, 16, 86))
    return f"eyJ{header}.eyJ{payload}.{signature}", (header, payload, signature)


@st.composite
def bearer(draw: st.DrawFn) -> Secret:
    token = draw(body(B64URL + "._~+/", 16, 80))
    lead = draw(
        st.sampled_from(
            ["Bearer ", "bearer ", "BEARER  ", "Bearer: ", "Authorization: Bearer ", "bearer\n"]
        )
    )
    return lead + token, (token,)


@st.composite
def authorization(draw: st.DrawFn) -> Secret:
    credential = draw(body(B64 + "=", 12, 60))
    scheme = draw(st.sampled_from(["Basic", "basic", "Digest", "token"]))
    sep = draw(st.sampled_from([": ", ":", " = ", "="]))
    return f"Authorization{sep}{scheme} {credential}", (credential,)


@st.composite
def url_password(draw: st.DrawFn) -> Secret:
    scheme = draw(st.sampled_from(["https", "http", "postgres", "mongodb+srv", "redis", "ftp"]))
    user = draw(st.text(alphabet=string.ascii_lowercase + string.digits, max_size=12))
    password = draw(body(PASSWORD_CHARS + "@:?", 6, 40))
    host = draw(st.sampled_from(["db.example.com", "localhost:5432", "10.0.0.7", "nas.local"]))
    path = draw(st.sampled_from(["", "/", "/prod", "/path?q=1", "#frag"]))
    return f"{scheme}://{user}:{password}@{host}{path}", (password,)


NAMES = [
    "password",
    "PASSWORD",
    "passwd",
    "db_password",
    "secret",
    "client_secret",
    "token",
    "access_token",
    "auth_token",
    "api_key",
    "apikey",
    "api-key",
    "API_KEY",
    "aws_secret_access_key",
    "AWS_SESSION_TOKEN",
    "private_key",
    "passphrase",
    "DB_PASS",
    "pass",
]


@st.composite
def assignment(draw: st.DrawFn) -> Secret:
    name = draw(st.sampled_from(NAMES))
    if draw(st.booleans()):
        value = draw(body(PASSWORD_CHARS, 6, 40))
        sep = draw(st.sampled_from(["=", ": ", " = ", ":", ":=", " => ", "\t=\t"]))
        return f"{name}{sep}{value}", (value,)
    # quoted, as in JSON, YAML or a shell: the value may hold spaces
    quote = draw(st.sampled_from(['"', "'"]))
    value = draw(body(PASSWORD_CHARS + " ", 6, 40))
    key = draw(st.sampled_from([name, f"{quote}{name}{quote}"]))
    sep = draw(st.sampled_from([": ", "=", " = "]))
    return f"{key}{sep}{quote}{value}{quote}", (value,)


@st.composite
def aws_secret(draw: st.DrawFn) -> Secret:
    value = draw(body(B64, 40, 40))
    name = draw(st.sampled_from(["aws_secret_access_key", "AWS_SECRET_ACCESS_KEY"]))
    sep = draw(st.sampled_from(["=", " = ", ": "]))
    return f"{name}{sep}{value}", (value,)


@st.composite
def pem(draw: st.DrawFn) -> Secret:
    kind = draw(st.sampled_from(["", "RSA ", "EC ", "DSA ", "OPENSSH ", "ENCRYPTED "]))
    lines = draw(st.lists(body(B64, 64, 64), min_size=1, max_size=5))
    last = draw(body(B64, 8, 60)) + draw(st.sampled_from(["", "=", "=="]))
    block = "\n".join(
        [f"-----BEGIN {kind}PRIVATE KEY-----", *lines, last, f"-----END {kind}PRIVATE KEY-----"]
    )
    return block, (*lines, last.rstrip("="))


SECRETS = st.one_of(
    provider_key(), jwt(), bearer(), authorization(), url_password(), assignment(),
    aws_secret(), pem(),
)  # fmt: skip

# Prose that cannot hold a secret and cannot hold any secret body (no upper case at all).
PROSE = st.text(alphabet=string.ascii_lowercase + string.digits + " \n.,!?'()é中", max_size=40)
LEFT = st.sampled_from([" ", "\n", "(", '"', "'", "`", "<", "[", "{", ": ", "= ", ""])
RIGHT = st.sampled_from([" ", "\n", ".", ",", ";", ":", "!", "?", ")", '"', "'", "`", ">", ""])


@st.composite
def corpus(draw: st.DrawFn) -> tuple[str, list[str]]:
    pieces = [draw(PROSE)]
    sensitive: list[str] = []
    for _ in range(draw(st.integers(1, 4))):
        secret, parts = draw(SECRETS)
        sensitive.extend(parts)
        # a separator keeps the secret from fusing with the prose before it
        pieces += [draw(LEFT) if pieces[-1][-1:].isspace() else " ", secret, draw(RIGHT)]
        pieces += [" ", draw(PROSE)]
    return "".join(pieces), sensitive


@PROVERBS
@given(corpus())
def test_no_secret_survives(case: tuple[str, list[str]]) -> None:
    text, sensitive = case
    out = scrub(text)
    for part in sensitive:
        assert part not in out, (part, out)
    assert "[REDACTED_" in out


@PROVERBS
@given(SECRETS)
def test_each_secret_alone_is_replaced(case: Secret) -> None:
    secret, sensitive = case
    out = scrub(secret)
    for part in sensitive:
        assert part not in out


# An alphabet that cannot spell any rule's opening: no `-`, `_`, `:`, `=`, `@`, `/`, no `b`
# or `B` (bearer, basic), no `A` (AKIA, ASIA, AIza), no `J` (eyJ), no `S` (Twilio's SK,
# SendGrid's SG.), no `Q` (Azure's `Q~`), no `y` (Google's ya29.).
SAFE_ALPHABET = (
    "acdefghijklmnopqrstuvwxz"
    + "CDEFGHIKLMNOPRTUVWXYZ"
    + string.digits
    + " \t\n\r.,;!?'\"()[]{}<>*#%&+|~`"
    + "éçãüßñ中文日本—–…"
)


@PROVERBS
@given(st.text(alphabet=SAFE_ALPHABET, max_size=300))
def test_text_without_secrets_is_unchanged(text: str) -> None:
    assert scrub(text) == text


# The rules' own words, used as words: none of them is followed by `:` or `=`, and none of
# the words is longer than the 12 bytes a bearer credential needs.
WORDS = [
    "the", "token", "tokens", "password", "passwords", "secret", "secretary", "bearer",
    "key", "api", "keys", "sk", "github", "aws", "pass", "bypass", "authorize",
    "private", "begin", "end", "basic", "restic", "rotated", "expires", "is", "a", "of",
    "news", "Token", "Password", "Bearer", "AKIA", "AIza", "ghp", "xoxb", "eyJ", "npm",
    "hf", "glpat", "rsa", "kubernetes", "Tokenizer", "max", "digest",
]  # fmt: skip
SEPARATORS = [" ", " ", " ", ", ", ". ", "\n", " (", ") ", "; ", "? ", "! "]


@PROVERBS
@given(st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from(SEPARATORS)), max_size=40))
def test_prose_about_secrets_is_unchanged(words: list[tuple[str, str]]) -> None:
    text = "".join(w + s for w, s in words)
    assert scrub(text) == text


@PROVERBS
@given(st.one_of(st.text(max_size=200), corpus().map(lambda c: c[0])))
def test_scrubbing_twice_changes_nothing_more(text: str) -> None:
    once = scrub(text)
    assert scrub(once) == once


def test_docs_name_every_rule_and_shape() -> None:
    doc = (REPO / "docs" / "secrets.md").read_text(encoding="utf-8")
    for rule in RULES:
        assert f"`{rule.name}`" in doc, rule.name
    for shape in SHAPES:
        assert f"`{shape.provider}`" in doc, shape.provider


# Text near every rule's trigger: the characters and words its pattern needs, in any order.
NEAR_MISSES = [
    ":", "=", ":=", "=>", "--", "-p", "-u", "%3D", "%3d", "<", "</", ">", "://", "@", '"',
    "'", "password", "token", "secret", "Bearer ", "authorization", "-----BEGIN ",
    "LS0tLS1CRUdJTi", "key", "auth", "sk-", "AKIA", " ", "\n", "\t", "|", "a1B2c3D4e5F6g7H8",
    "----begin", "---- BEGIN", "PuTTY-User-Key-File-", "machine", "login", "set", "config",
    ",", ".", ":AA", "Q~", "-us", "pat", "api-", "A" * 22, "eyJ", "sk_", "EAA", "/", "$",
]  # fmt: skip


@PROVERBS
@given(
    st.one_of(
        corpus().map(lambda c: c[0]),
        st.lists(st.one_of(st.sampled_from(NEAR_MISSES), st.text(max_size=6)), max_size=16).map(
            "".join
        ),
    )
)
def test_a_rule_skipped_for_what_the_text_lacks_could_not_have_matched(text: str) -> None:
    # scrub() neither compiles nor runs a rule whose `needs` are all absent (issue 15: the
    # rules cost ~35 ms to compile, and a `kb boot` refusal scrubs a plain question).
    for rule in RULES:
        if not rule.may_match(text, text.lower()):
            assert rule.pattern.search(text) is None, rule.name


@PROVERBS
@given(
    st.one_of(
        corpus().map(lambda c: c[0]),
        st.lists(st.one_of(st.sampled_from(NEAR_MISSES), st.text(max_size=6)), max_size=16).map(
            "".join
        ),
    )
)
def test_the_shapes_a_text_lacks_the_needs_of_could_not_have_matched(text: str) -> None:
    # The provider-key rule is compiled from the shapes whose `needs` the text holds (issue
    # 24: all 89 of them cost ~10 ms to compile, on a refusal's path): a shape left out could
    # not have matched, and the smaller pattern scrubs exactly as the whole one does.
    chosen = set(shapes_for(text))
    for i, shape in enumerate(SHAPES):
        if i not in chosen:
            assert re.search(_shape_source([i]), text) is None, shape.provider
    (rule,) = (r for r in RULES if r.name == "provider-key")
    smaller = rule.pattern_for(text, text.lower())
    whole = rule.pattern.sub(rule.replace, text)
    assert (smaller.sub(rule.replace, text) if smaller else text) == whole


def test_the_gate_knows_every_need_of_every_rule_and_shape() -> None:
    # kb.pure.sessions.scrubgate decides, without importing the scrubber, that a refused question
    # need not be scrubbed (issue 24): every need of a rule or a shape must contain one of
    # its strings, or a text holding only that need would go unscrubbed.
    for rule in RULES:
        assert rule.needs or rule.select is not None, rule.name
        gate = FOLDED_NEEDS if rule.fold else NEEDS
        for need in rule.needs:
            assert any(g in need for g in gate), (rule.name, need)
    for shape in SHAPES:
        assert shape.needs, shape.provider
        for need in shape.needs:
            assert any(g in need for g in NEEDS), (shape.provider, need)


@PROVERBS
@given(
    st.one_of(
        corpus().map(lambda c: c[0]),
        st.lists(st.one_of(st.sampled_from(NEAR_MISSES), st.text(max_size=6)), max_size=16).map(
            "".join
        ),
    )
)
def test_a_text_the_gate_passes_over_is_left_unchanged(text: str) -> None:
    if not could_hold_secret(text):
        assert scrub(text) == text
