"""`kb misroute`, `kb misroutes` and `kb abstentions` on a copy of the example fleet.

Misroutes are filed through the real CLI (dates are today's and masked by check_golden);
the abstention log is written by hand in the format `kb boot` writes, with fixed dates.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from kb.pure.logs import routelogs
from kb.shell.cli.table import usage_of
from tests.conftest import RunKb, check_golden

# (message, chose, owner, why): the first fault is filed three times, once with the names in
# other cases (the same agents, so the same fault) and once without a why.
FILINGS: list[tuple[str, str, str, str | None]] = [
    ("quanto tempo deixar o feijão de molho", "ada", "bruno", "feijão is cooking, not servers"),
    ("preciso de visto para o Japão", "bruno", "clara", "visas are Clara's"),
    ("quanto tempo deixar o feijão de molho", "Ada", "Bruno", None),
    ("who won the 1970 world cup", "clara", "none", "nobody here follows football"),
    ("quanto tempo deixar o feijão de molho", "ada", "bruno", "soaking beans is Bruno's"),
    ("the grafana\talert fires\nevery night", "bruno", "ada", None),
    ("what goes in the carry-on bag", "ada", "clara", "luggage"),
    ("preciso de visto para o Japão", "bruno", "clara", ""),
    ("how do I store fresh basil", "clara", "-", None),
]


def _file(kb: RunKb, fleet: Path, message: str, chose: str, owner: str, why: str | None) -> None:
    args = ["misroute", message, "--chose", chose, "--owner", owner]
    if why is not None:
        args += ["--why", why]
    out = kb(args, cwd=fleet)
    assert out.code == 0, out.stderr
    assert out.stderr == ""


def _tree_digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def filed(example_fleet: Path, kb: RunKb) -> Path:
    for message, chose, owner, why in FILINGS:
        _file(kb, example_fleet, message, chose, owner, why)
    return example_fleet


def test_recorded_output(example_fleet: Path, kb: RunKb) -> None:
    out = kb(
        ["misroute", "how long do leftovers keep", "--chose", "Clara", "--owner", "NONE"],
        cwd=example_fleet,
    )
    assert out.code == 0, out.stderr
    assert out.stdout.startswith(
        "recorded: Clara was handed a message that belongs to nobody\n  kb-misroutes.txt\n\n"
    )
    check_golden("example/misroute-recorded.txt", out.stdout)
    row = (example_fleet / "kb-misroutes.txt").read_text(encoding="utf-8").splitlines()[-1]
    assert row.split("\t")[3:] == ["Clara", "-", "how long do leftovers keep", ""]


def test_misroute_never_edits_a_base(example_fleet: Path, kb: RunKb) -> None:
    before = _tree_digest(example_fleet / "fleet")
    _file(kb, example_fleet, "quanto tempo deixar o feijão de molho", "ada", "bruno", "beans")
    assert _tree_digest(example_fleet / "fleet") == before
    assert not list(example_fleet.rglob(".kb"))  # no index was opened, let alone built
    originals = {"fleet", "fleet.txt", "README.md", "gold.tsv", "models"}
    assert {p.name for p in example_fleet.iterdir()} - originals == {"kb-misroutes.txt"}


def test_log_file(filed: Path) -> None:
    text = (filed / "kb-misroutes.txt").read_text(encoding="utf-8")
    rows = routelogs.parse_misroutes(text)
    assert [(r.count, r.chose, r.owner) for r in rows[:2]] == [
        (3, "ada", "bruno"),
        (2, "bruno", "clara"),
    ]
    # a repeat keeps the newest non-empty why, never an empty one
    assert rows[0].why == "soaking beans is Bruno's"
    assert rows[1].why == "visas are Clara's"
    # every row is one line of seven fields: the tab and newline in a message were flattened
    body = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert all(line.count("\t") == 6 for line in body)
    assert "the grafana alert fires every night" in text
    check_golden("example/kb-misroutes.txt", text)


def test_misroutes_report(filed: Path, kb: RunKb) -> None:
    out = kb(["misroutes"], cwd=filed)
    assert out.code == 0, out.stderr
    assert out.stdout.startswith(
        "log:      kb-misroutes.txt\nreported: 6 distinct, 9 in total\n\n   3x  ada to bruno  ("
    )
    assert "   1x  clara to nobody  (" in out.stdout
    check_golden("example/misroutes.txt", out.stdout)


def test_misroutes_top_bounds_rows(filed: Path, kb: RunKb) -> None:
    out = kb(["misroutes", "--top", "1"], cwd=filed)
    assert out.code == 0, out.stderr
    assert out.stdout.count("x  ") == 4  # max(1, 1) * 4 rows of 6
    assert "reported: 6 distinct, 9 in total\n" in out.stdout
    check_golden("example/misroutes-top1.txt", out.stdout)
    zero = kb(["misroutes", "--top", "0"], cwd=filed)
    assert zero.stdout == out.stdout


def test_misroutes_read_from_another_directory(filed: Path, kb: RunKb) -> None:
    out = kb(["misroutes", str(filed)], cwd=filed.parent)
    assert out.stdout.startswith(f"log:      {filed / 'kb-misroutes.txt'}\n")


def test_misroutes_absent_log(example_fleet: Path, kb: RunKb) -> None:
    out = kb(["misroutes"], cwd=example_fleet)
    assert out.code == 0
    assert out.stderr == ""
    lines = out.stdout.splitlines()
    assert lines[:2] == ["log:      kb-misroutes.txt", ""]
    assert len(lines) == 5  # the path, a blank line, a three-line note
    assert not (example_fleet / "kb-misroutes.txt").exists()


REFUSALS: list[tuple[list[str], int, str]] = [
    (["misroute", "soak the beans", "--owner", "bruno"], 2, "kb: misroute needs --chose"),
    (["misroute", "soak the beans", "--chose", "ada"], 2, "kb: misroute needs --chose"),
    (["misroute", "--chose", "ada", "--owner", "bruno"], 2, "kb: misroute needs the message"),
    (["misroute"], 2, "kb: misroute needs --chose"),
    (["misroute", " \t ", "--chose", "ada", "--owner", "bruno"], 2, "kb: misroute needs the mess"),
    (
        ["misroute", "soak the beans", "--chose", "dora", "--owner", "bruno"],
        2,
        "kb: no routable agent named `dora`. The fleet: ada, bruno, clara",
    ),
    (
        ["misroute", "soak the beans", "--chose", "ada", "--owner", "dora"],
        2,
        "kb: no routable agent named `dora`. The fleet: ada, bruno, clara. Use `none`",
    ),
    (
        # the person's base is read by the router and can never be elected
        ["misroute", "my birthday", "--chose", "person", "--owner", "none"],
        2,
        "kb: no routable agent named `person`.",
    ),
    (
        ["misroute", "soak the beans", "--chose", "bruno", "--owner", "Bruno"],
        2,
        "kb: `bruno` was chosen and is named as the owner, so nothing was wrong.",
    ),
    (["misroute", "soak the beans", "--chose"], 2, "kb misroute: "),
    (["misroute", "soak", "--chose", "ada", "--owner", "bruno", ".", "x"], 2, "kb misroute: "),
    (
        ["misroute", "soak the beans", "--chose", "ada", "--owner", "bruno", "no-such-root"],
        1,
        "kb: cannot read no-such-root",
    ),
]


@pytest.mark.parametrize("args,code,start", REFUSALS, ids=[" ".join(r[0]) for r in REFUSALS])
def test_refusals(example_fleet: Path, kb: RunKb, args: list[str], code: int, start: str) -> None:
    log = example_fleet / "kb-misroutes.txt"
    before = _tree_digest(example_fleet)
    out = kb(args, cwd=example_fleet)
    assert out.code == code
    # a command line the parser refuses gets the verb's own usage on stdout (issue 26)
    assert out.stdout == (usage_of("misroute") if out.stderr.startswith("kb misroute: ") else "")
    assert out.stderr.startswith(start), out.stderr
    assert out.stderr.count("\n") == 1 and out.stderr.endswith("\n")
    assert "Traceback" not in out.stderr
    assert not log.exists()
    assert _tree_digest(example_fleet) == before


def test_refusal_leaves_an_existing_log_alone(filed: Path, kb: RunKb) -> None:
    log = filed / "kb-misroutes.txt"
    before = log.read_bytes()
    out = kb(["misroute", "x", "--chose", "ada", "--owner", "ADA"], cwd=filed)
    assert out.code == 2
    assert log.read_bytes() == before


def test_torn_last_line_is_repaired(example_fleet: Path, kb: RunKb) -> None:
    log = example_fleet / "kb-misroutes.txt"
    log.write_text(
        "# a log a crashed writer left behind\n"
        "2\t2026-11-01\t2026-11-02\tada\tbruno\tsoak the beans\tbeans\n"
        "1\t2026-11-03\t2026-1",
        encoding="utf-8",
    )
    assert kb(["misroutes"], cwd=example_fleet).code == 0
    _file(kb, example_fleet, "soak the beans", "ada", "bruno", None)
    text = log.read_text(encoding="utf-8")
    assert text.endswith("\n")
    body = [line for line in text.splitlines() if line and not line.startswith("#")]
    today = time.strftime("%Y-%m-%d", time.gmtime())
    assert body == [f"3\t2026-11-01\t{today}\tada\tbruno\tsoak the beans\tbeans"]


# -- concurrency ----------------------------------------------------------------------------

WRITER = textwrap.dedent(
    """
    import sys, time
    from kb.shell.cli.main import run
    root, who, start = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    faults = [("soak the beans", "ada", "bruno"), ("visa for japan", "bruno", "clara"),
              ("world cup 1970", "clara", "none")]
    while time.time() < start:
        time.sleep(0.001)
    for j in range(5):
        message, chose, owner = faults[j % 3]
        out = run(["misroute", message, "--chose", chose, "--owner", owner,
                   "--why", f"writer {who} filing {j}", root])
        if out.code != 0:
            sys.stderr.write(out.stderr)
            sys.exit(out.code)
    """
)


def test_concurrent_filings_are_all_counted(example_fleet: Path) -> None:
    start = time.time() + 1.5  # every writer imports kb first, then all start together
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(example_fleet), str(i), str(start)],
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(8)
    ]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    text = (example_fleet / "kb-misroutes.txt").read_text(encoding="utf-8")
    assert text.endswith("\n")
    body = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert all(line.count("\t") == 6 for line in body), body  # no torn or merged line
    rows = routelogs.parse_misroutes(text)
    assert sum(r.count for r in rows) == 40
    assert [(r.message, r.count) for r in rows] == [
        ("soak the beans", 16),
        ("visa for japan", 16),
        ("world cup 1970", 8),
    ]
    leftovers = [p.name for p in example_fleet.iterdir() if p.name.startswith((".kb-", "kb-"))]
    assert leftovers == ["kb-misroutes.txt"]  # no lock file, no temp file


# -- abstentions ----------------------------------------------------------------------------

# The §17.4 row as `kb boot` writes it; the quillfeather subject lives only in ada's private
# records/ folder, so today it scores only with --all. Two rows share a subject in another
# case (an appending writer's log): they fold into one row of count 3.
ABSTENTIONS = (
    "# written by hand in kb boot's format\n"
    "2\t2026-11-01\t2026-11-20\tadjacent\tada\tContract penalties\t"
    "what is the sla credit in the quillfeather penalty clause\t"
    "contracts are decided by the owner, not by an agent.\tada 3.2\n"
    "1\t2026-11-05\t2026-11-05\tuncovered\t-\tastronomy\t"
    "how far away is the andromeda galaxy\tno agent studies the sky.\t\n"
    "1\t2026-11-06\t2026-11-06\tuncovered\t-\t\twho won the 1970 world cup\t\t\n"
    "1\t2026-11-21\t2026-11-22\tadjacent\tbruno\tcontract penalties\t"
    "does the quillfeather penalty clause cover the kitchen\tthe nearest is a cook.\t"
    "bruno 2.0, ada 1.5\n"
    "1\t2026-11-09\t2026-11-09\tadjacent\tclara\tluggage insurance\t"
    "is my suitcase insured on a layover\ttravel insurance is not Clara's.\t"
    "clara 41.7, ada 0.4\n"
    "x\t2026-11-09\t2026-11-09\tadjacent\tclara\tbroken count\tskipped\t\t\n"
    "1\t2026-11-10\t2026-11-10\tuncovered\t-\ttorn subject\ttorn mess"
)


@pytest.fixture
def abstained(example_fleet: Path) -> Path:
    (example_fleet / "kb-abstentions.txt").write_text(ABSTENTIONS, encoding="utf-8")
    return example_fleet


def _row_of(text: str, subject: str) -> str:
    block = next(b for b in text.split("\n\n") if f"subject: {subject}\n" in b)
    return block


def test_abstentions_public(abstained: Path, kb: RunKb) -> None:
    out = kb(["abstentions"], cwd=abstained)
    assert out.code == 0, out.stderr
    text = out.stdout
    assert text.startswith(
        "log:      kb-abstentions.txt\n"
        "recorded: 5 distinct subjects, 7 abstentions in total\n"
        "\n   3x  adjacent, nearest bruno  (2026-11-01 to 2026-11-22)\n"
        "        subject: Contract penalties\n"
    )
    contract = _row_of(text, "Contract penalties")
    assert "scored then: bruno 2.0, ada 1.5" in contract
    assert "scored now:  nothing at all" in contract  # the private note stays out
    assert "scored now:  clara " in _row_of(text, "luggage insurance")
    assert "subject: (unnamed)" in text
    assert "broken count" not in text
    check_golden("example/abstentions.txt", text)


def test_abstentions_all(abstained: Path, kb: RunKb) -> None:
    out = kb(["abstentions", "--all"], cwd=abstained)
    assert out.code == 0, out.stderr
    contract = _row_of(out.stdout, "Contract penalties")
    assert "scored now:  ada " in contract
    check_golden("example/abstentions-all.txt", out.stdout)
    public = kb(["abstentions"], cwd=abstained).stdout.splitlines()
    # the same rows in the same order; only scores differ (the private entries also change
    # every key's rarity, so other subjects' numbers move a little with --all)
    subjects = [line for line in public if line.startswith("        subject: ")]
    assert subjects == [line for line in out.stdout.splitlines() if line in subjects]
    assert "scored now:  nothing at all" in _row_of("\n".join(public), "Contract penalties")


def test_abstentions_top_bounds_rows(abstained: Path, kb: RunKb) -> None:
    out = kb(["abstentions", "--top", "1"], cwd=abstained)
    assert out.code == 0
    assert out.stdout.count("        subject: ") == 4
    assert "recorded: 5 distinct subjects, 7 abstentions in total\n" in out.stdout


def test_abstentions_write_nothing(abstained: Path, kb: RunKb) -> None:
    log = abstained / "kb-abstentions.txt"
    before = log.read_bytes()
    assert kb(["abstentions", "--all"], cwd=abstained).code == 0
    assert log.read_bytes() == before
    assert not (abstained / "kb-misses.txt").exists()  # re-asking never logs a miss


def test_abstentions_absent_log(example_fleet: Path, kb: RunKb) -> None:
    out = kb(["abstentions"], cwd=example_fleet)
    assert out.code == 0
    lines = out.stdout.splitlines()
    assert lines[:2] == ["log:      kb-abstentions.txt", ""]
    assert len(lines) == 8  # the path, a blank line, a six-line note


def test_abstentions_memory_open_failure(abstained: Path, kb: RunKb) -> None:
    with (abstained / "fleet.txt").open("a", encoding="utf-8") as fh:
        fh.write("attach = no-such-base\n")
    # Issue 24, part 7: a base that cannot be read is skipped by name; the rest answers
    out = kb(["abstentions"], cwd=abstained)
    assert out.code == 0 and out.stdout
    assert out.stderr == (
        "kb: cannot read no-such-base: no such directory; this base was skipped and the rest "
        "answered\n"
    )


def test_abstention_line_is_what_the_reader_reads() -> None:
    line = routelogs.abstention_line(
        "adjacent",
        "ada",
        "Contract\tpenalties",
        "what is the sla credit\nin the contract",
        "",
        [("ada", 12.345), ("bruno", 4.0), ("clara", 1.0), ("dora", 0.5)],
        "2026-11-29",
    )
    assert line == (
        "1\t2026-11-29\t2026-11-29\tadjacent\tada\tContract penalties\t"
        "what is the sla credit in the contract\t\tada 12.3, bruno 4.0, clara 1.0\n"
    )
    with pytest.raises(ValueError):
        routelogs.abstention_line("covered", None, "", "m", "", (), "2026-11-29")
