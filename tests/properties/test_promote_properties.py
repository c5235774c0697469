"""Properties of the promotion path, at the pure level (kb.pure.promotion.promote,
kb.pure.promotion.promoterun, kb.pure.roles.consolidate, kb.pure.roles.ingest), driven through fake
effects:

- promote writes a proposal if and only if all three lenses read as accept, over generated
  verdict triples, decorated verdicts, contradictory verdict lines, malformed replies and
  reviewers that do not answer; and a refusal is recorded exactly when something refused;
- `--max N` admits at most N proposals, and a run stopped by the cap admitted exactly N;
- consolidation never lets a candidate through that cites fewer than two distinct sessions,
  or any session that was not gathered;
- nothing promote, consolidate or ingest writes lands outside a memory folder: a note's
  folder is always `knowledge` or `decisions` and its name a usable slug, and ingest's
  staged names never leave `inbox/` or `inbox/raw/`;
- kb-rejections.txt reads back what was recorded, most refused first;
- a rendered proposal parses back to itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from attrs import frozen
from hypothesis import given, settings
from hypothesis import strategies as st

from kb.pure.notes.names import is_usable_name
from kb.pure.promotion import rejections
from kb.pure.promotion.promote import LENSES, Proposal, parse_proposals, read_verdict
from kb.pure.promotion.promoterun import (
    Deposit,
    Effects,
    Failed,
    Settings,
    WriteResult,
    Written,
    decide,
    run,
)
from kb.pure.promotion.rejections import Row
from kb.pure.roles import consolidate, ingest

FAST = settings(max_examples=200, deadline=None)

# -- generated replies ------------------------------------------------------------------------

ACCEPTS = (
    "VERDICT: accept\nREASON: fine.",
    "**Verdict:** Accepted.\nReason: it adds the restore time.",
    "- verdict: ACCEPT\n- reason: nothing against it",
    "> VERDICT: `accept`",
    "accept",
    "Accepted.",
    "I read it twice.\nVERDICT: accept\nVERDICT: accepted",
)
REJECTS = (
    "VERDICT: reject\nREASON: ada/knowledge/backups.md holds it.",
    "**VERDICT:** Reject\nREASON: belongs to bruno",
    "VERDICT: accept\nVERDICT: reject",
    "VERDICT: reject\nVERDICT: accept",
    "VERDICT: rejected, see backups.md",
    "VERDICT: maybe",
    "VERDICT: unacceptable",
    "VERDICT:",
    "rejected",
    "accept\nreject",
)
# Text with no verdict in it at all: letters and punctuation that can never spell one.
MALFORMED = st.text(alphabet="bdfghilmnoqsuvwxyz .,:\n*-#>", max_size=60)

Reply = tuple[str, str]  # (kind, text): kind is accept, reject, malformed or silent

replies: st.SearchStrategy[Reply] = st.one_of(
    st.sampled_from(ACCEPTS).map(lambda t: ("accept", t)),
    st.sampled_from(REJECTS).map(lambda t: ("reject", t)),
    MALFORMED.map(lambda t: ("malformed", t)),
    st.just(("silent", "")),
)


def good(slug: str = "restore-drill", folder: str = "knowledge") -> Proposal:
    return Proposal(slug, folder, "How long a restore drill takes", ("restore drill",), "Body.")


class Fake:
    """Effects in memory: scripted reviewer replies, a record of every write and refusal."""

    def __init__(
        self,
        verdicts: Sequence[Reply] = (),
        proposals: str = "",
        rows: tuple[Row, ...] = (),
        accept_all: bool = False,
    ) -> None:
        self.verdicts = list(verdicts)
        self.proposals = proposals
        self.rows = rows
        self.accept_all = accept_all
        self.written: list[tuple[str, str]] = []
        self.recorded: list[tuple[str, str, str]] = []
        self.reviews = 0

    def read(self, deposit: Deposit) -> str | Failed:
        return "some deposit text"

    def propose(self, prompt: str) -> str | Failed:
        return self.proposals

    def review(self, prompt: str) -> str | Failed:
        self.reviews += 1
        if self.accept_all:
            return "VERDICT: accept"
        kind, text = self.verdicts.pop(0)
        return Failed("timed out") if kind == "silent" else text

    def evidence(self, keys: tuple[str, ...]) -> str:
        return "EVIDENCE\n"

    def existing(self, deposit: Deposit, folder: str, slug: str) -> str | None:
        return f"{folder}/{slug}.md" if (folder, slug) in self.written else None

    def write(self, deposit: Deposit, p: Proposal, folder: str, captured_from: str) -> WriteResult:
        self.written.append((folder, p.slug))
        return Written(f"{deposit.base}/{folder}/{p.slug}.md")

    def rejections(self) -> tuple[Row, ...]:
        return self.rows

    def record(self, agent: str, slug: str, lens: str, reason: str) -> str | None:
        self.recorded.append((agent, slug, lens))
        return None

    def progress(self, line: str) -> None:
        return None


def _effects(fake: Fake) -> Effects:
    return fake  # the Protocol is structural: this line is the type checker's proof


DEPOSIT = Deposit("ada", "ada/inbox/x.md", None, None, "fleet/ada", "fleet/ada/inbox/x.md")


@FAST
@given(st.tuples(replies, replies, replies))
def test_writes_iff_all_three_lenses_accept(triple: tuple[Reply, Reply, Reply]) -> None:
    fake = Fake(verdicts=triple)
    step = decide(DEPOSIT, good(), DEPOSIT.source, _effects(fake), Settings())
    kinds = [k for k, _ in triple]
    silent_at = kinds.index("silent") if "silent" in kinds else None
    if silent_at is not None and all(k != "silent" for k in kinds[:silent_at]):
        # a lens that does not answer abandons the proposal: nothing written or recorded
        assert step.decided is None and not fake.written and not fake.recorded
        assert step.unreachable == (f"reviewer {LENSES[silent_at]}, on restore-drill (timed out)",)
        return
    all_accept = kinds == ["accept"] * 3
    assert (len(fake.written) == 1) == all_accept
    assert step.admitted == all_accept
    assert step.decided is not None
    assert (step.decided.written is not None) == all_accept
    assert (len(fake.recorded) == 1) == (not all_accept)
    if not all_accept:
        first = next(i for i, k in enumerate(kinds) if k != "accept")
        assert fake.recorded[0][2] == LENSES[first]


@FAST
@given(replies)
def test_a_verdict_reads_as_accept_only_when_it_is_one(reply: Reply) -> None:
    kind, text = reply
    review = read_verdict("scope", text)
    assert review.accept == (kind == "accept")
    assert "\n" not in review.reason and review.reason


@FAST
@given(st.tuples(replies, replies, replies))
def test_a_dry_run_decides_the_same_and_touches_nothing(
    triple: tuple[Reply, Reply, Reply],
) -> None:
    real, dry = Fake(verdicts=triple), Fake(verdicts=triple)
    a = decide(DEPOSIT, good(), DEPOSIT.source, _effects(real), Settings())
    b = decide(DEPOSIT, good(), DEPOSIT.source, _effects(dry), Settings(dry_run=True))
    assert not dry.written and not dry.recorded
    assert a.admitted == b.admitted
    assert (a.decided is None) == (b.decided is None)


def _blocks(slugs: Sequence[str]) -> str:
    return "".join(
        f"PROPOSAL\nslug: {s}\nfolder: knowledge\nsummary: s\nkeys: restore drill\nbody:\nb\nEND\n"
        for s in slugs
    )


@settings(max_examples=150, deadline=None)
@given(
    files=st.integers(0, 5),
    per_file=st.integers(0, 4),
    cap=st.one_of(st.none(), st.integers(0, 8)),
    dry=st.booleans(),
)
def test_max_admits_at_most_n(files: int, per_file: int, cap: int | None, dry: bool) -> None:
    deposits = [
        Deposit("ada", f"ada/inbox/{i}.md", None, None, "fleet/ada", f"fleet/ada/inbox/{i}.md")
        for i in range(files)
    ]

    class PerFile(Fake):
        def __init__(self) -> None:
            super().__init__(accept_all=True)
            self.calls = 0

        def propose(self, prompt: str) -> str | Failed:
            self.calls += 1
            return _blocks([f"note-{self.calls}-{j}" for j in range(per_file)])

    fake = PerFile()
    report = run(deposits, _effects(fake), Settings(dry_run=dry, cap=cap))
    admitted = sum(1 for d in report.decided if d.admitted)
    total = files * per_file
    if cap is None:
        assert admitted == total and report.stopped_at is None
    else:
        assert admitted <= cap
        assert len(fake.written) <= cap
        if report.stopped_at is not None:
            assert admitted == cap == report.stopped_at
        else:
            assert admitted == total <= cap
    if dry:
        assert not fake.written


# -- consolidation's evidence rule ------------------------------------------------------------

SESSION_IDS = st.text(alphabet="abcs0123-", min_size=1, max_size=6)


@FAST
@given(
    known=st.lists(SESSION_IDS, max_size=5, unique=True),
    cited=st.lists(st.one_of(SESSION_IDS, st.sampled_from(["ghost", "s1", "s1 "])), max_size=5),
    folder=st.sampled_from(["knowledge", "decisions", "tools", "skills/x", "inbox", "../x"]),
)
def test_consolidation_needs_two_existing_sessions(
    known: list[str], cited: list[str], folder: str
) -> None:
    p = Proposal("recurring", folder, "s", ("k",), "b", tuple(cited))
    refusal = consolidate.evidence_refusal(p, known)
    distinct = set(cited)
    if refusal is None:
        assert len(distinct) >= 2
        assert distinct <= set(known)
        assert folder in ("knowledge", "decisions")
    if len(distinct) < 2 or not distinct <= set(known):
        assert refusal is not None


# -- nothing lands outside a memory folder ----------------------------------------------------

FOLDERS = st.one_of(
    st.sampled_from(
        [
            "knowledge", "decisions", "knowledge/", "inbox", "tools", "skills", "protocols",
            "templates", "../knowledge", "/etc", "knowledge/sub", "./knowledge", "Knowledge",
            " knowledge ", "knowledge/../../x", "decisions/..", "ferramentas", "records",
            "knowledge\\..\\x", "",
        ]
    ),
    st.text(alphabet="abcdefghiknowlds./\\-_ ", max_size=20),
)  # fmt: skip
SLUGS = st.one_of(
    st.sampled_from(["note", "../escape", "a/b", "UPPER", "-lead", "x" * 41, "ok-2", ".."]),
    st.text(alphabet="abz09-./_ ", min_size=1, max_size=45),
)


@FAST
@given(folder=FOLDERS, slug=SLUGS)
def test_a_note_is_only_ever_written_into_a_memory_folder(folder: str, slug: str) -> None:
    fake = Fake(accept_all=True)
    p = Proposal(slug, folder, "s", ("restore drill",), "b")
    decide(DEPOSIT, p, DEPOSIT.source, _effects(fake), Settings())
    for written_folder, written_slug in fake.written:
        assert written_folder in ("knowledge", "decisions")
        assert is_usable_name(written_slug)  # no `/`, no `.`: the name stays in its folder


@FAST
@given(
    name=st.text(min_size=1, max_size=40).filter(lambda n: "/" not in n and "\0" not in n),
    pid=st.integers(1, 2**22),
)
def test_ingest_stages_only_inside_the_inbox(name: str, pid: int) -> None:
    stem, ext = ingest.split_name(name)
    slug = ingest.document_slug(stem)
    assert slug and "/" not in slug and "\\" not in slug and not slug.startswith(".")
    for staged in list(ingest.free_names(f"2026-11-29-{slug}", ext, pid))[:3]:
        assert "/" not in staged
        assert staged not in (".", "..") and not staged.startswith(".")


# -- the log and the parser -------------------------------------------------------------------

TEXT = st.text(alphabet=st.characters(exclude_categories=["Cs"]), min_size=1, max_size=20)


@frozen
class Refusal:
    agent: str
    slug: str
    lens: str
    reason: str


REFUSALS = st.builds(
    Refusal,
    st.sampled_from(["ada", "bruno"]),
    st.sampled_from(["a", "b", "c"]),
    st.sampled_from(LENSES),
    TEXT,
)


@FAST
@given(st.lists(REFUSALS, max_size=12))
def test_the_log_counts_every_refusal_most_refused_first(recorded: list[Refusal]) -> None:
    rows: tuple[Row, ...] = ()
    for r in recorded:
        text = rejections.render(rows)
        rows = rejections.record(rejections.parse(text), r.agent, r.slug, r.lens, r.reason, "d")
    back = rejections.parse(rejections.render(rows))
    assert sum(row.count for row in back) == len(recorded)
    assert [row.count for row in back] == sorted((row.count for row in back), reverse=True)
    assert len({(row.agent, row.slug, row.lens) for row in back}) == len(back)


@FAST
@given(
    slug=st.from_regex(r"[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?", fullmatch=True),
    keys=st.lists(st.from_regex(r"[a-z]{2,8}( [a-z]{2,8})?", fullmatch=True), min_size=1),
    body=st.lists(st.text(alphabet="abc #-*:\t", max_size=20), min_size=1, max_size=4).filter(
        lambda lines: "\n".join(lines).strip() and all(ln.strip() != "END" for ln in lines)
    ),
)
def test_a_rendered_proposal_parses_back(slug: str, keys: list[str], body: list[str]) -> None:
    text = "\n".join(body)
    reply = (
        f"Some preamble.\nPROPOSAL\nslug: {slug}\nfolder: decisions\nsummary: What it is..\n"
        f"keys: {', '.join(keys)}\nbody:\n{text}\nEND\ntrailing words\n"
    )
    (p,) = parse_proposals(reply)
    assert (p.slug, p.folder, p.summary) == (slug, "decisions", "What it is")
    assert p.keys == tuple(keys)
    assert p.body == text.strip()
