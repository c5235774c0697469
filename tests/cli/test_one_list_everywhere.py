"""One list on every surface (decision 0029): `kb route` in the terminal, `kb route --json`,
the MCP `kb_route` tool over a real `kb serve`, `kb boot`'s briefing and the reading room's
route API list the same files, in the order of `--json`'s `results`, under the same verdict.

Four questions on a fresh, indexed copy of the example fleet, one of each kind: found by the
keyword scorer only, by the text scorer only, by both, and by neither (and a second text-only
question, which the verdict serves as a `hit` with no agent elected). Each question's kind is
asserted from `--json` first, so the test fails when the fleet drifts instead of passing on
a question that no longer exercises its case. The verdict is whatever `--json` says: every
surface must say the same, and list the same files (none, under `nothing`).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.conftest import EXAMPLE_FLEET, _copy

# case -> (the scorers that find it, the question)
QUESTIONS: dict[str, tuple[str, str]] = {
    "keywords": ("keywords", "sourdough starter"),
    "text": ("text", "kubernets crashloop"),
    "both": ("both", "how often should I run a backup restore test"),
    "neither": ("neither", "quantum chromodynamics lattice"),
    "text-no-agent": ("text", "row counts throwaway instance"),
}
# Refused although the text scorer ranked files: `--json` keeps them unserved, and no surface
# lists them as an answer or says that nothing matched.
CLOSEST = "how far away is the andromeda galaxy"

VERDICT = re.compile(r"^verdict:  (hit|guess|nothing): ", re.M)
TERMINAL_FILE = re.compile(r"^  +\d+\.\d{3}  (\S+) +(\S+) ", re.M)
NUMBERED_FILE = re.compile(r"^\d+\. (\S+)", re.M)
BRIEFED_FILE = re.compile(r"^  (\S+/\S+\.md)$", re.M)
VOUCHED = re.compile(r"[Tt]he router vouches for (\S+?), ")


def _env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    env["KB_MISSES_PATH"] = str(tmp / "misses.txt")
    return env


def _kb(tmp: Path, args: list[str], stdin: str | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "kb.shell.cli.main", *args],
        cwd=tmp,
        env=_env(tmp),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, (args, done.stderr)
    return done.stdout


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = _copy(EXAMPLE_FLEET, tmp_path_factory.mktemp("one-list") / "fleet")
    _kb(root.parent, ["index", str(root)])
    return root


def kind_of(results: list[dict[str, Any]]) -> str:
    """Which scorers found the question's files: `keywords` or `text` when only that one
    ranked every file, `both` when both ranked the first, `neither` when nothing ranked."""
    if not results:
        return "neither"
    scorers = [{w.split(" #")[0] for w in r["why"]} for r in results]
    if all(s == {"keywords"} for s in scorers):
        return "keywords"
    if all(s == {"text"} for s in scorers):
        return "text"
    return "both" if scorers[0] == {"keywords", "text"} else "mixed"


def paths_of(results: list[dict[str, Any]]) -> list[str]:
    return [f"{r['base']}/{r['path']}" for r in results]


@pytest.fixture(scope="module")
def cli_json(fleet: Path) -> dict[str, Any]:
    return {
        case: json.loads(_kb(fleet.parent, ["route", q, str(fleet), "--json"]))
        for case, q in _asked().items()
    }


def _asked() -> dict[str, str]:
    return {**{case: q for case, (_, q) in QUESTIONS.items()}, "closest": CLOSEST}


@pytest.fixture(scope="module")
def mcp_replies(fleet: Path) -> dict[str, tuple[str, dict[str, Any]]]:
    """case -> (text, structuredContent) of kb_route, from one real `kb serve`."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    async def drive() -> dict[str, tuple[str, dict[str, Any]]]:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "kb.shell.cli.main", "serve", str(fleet)],
            env=_env(fleet.parent),
        )
        out: dict[str, tuple[str, dict[str, Any]]] = {}
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            for case, q in _asked().items():
                result = await session.call_tool("kb_route", {"question": q})
                assert result.is_error is False
                text = result.content[0].text  # type: ignore[union-attr]
                assert result.structured_content is not None
                out[case] = (text, result.structured_content)
        return out

    return anyio.run(drive)


@pytest.fixture(scope="module")
def room(fleet: Path) -> Iterator[Any]:
    from starlette.testclient import TestClient

    from kb.shell.ui.room import Reader
    from kb.shell.ui.server import build_app

    reader = Reader([str(fleet)], False)
    reader.open_now()
    try:
        app = build_app(reader, "0123456789abcdef0123456789abcdef")
        with TestClient(app, base_url="http://127.0.0.1:4114") as client:
            yield client
    finally:
        reader.close()


@pytest.mark.parametrize("case", list(QUESTIONS))
def test_every_surface_lists_the_json_results_under_the_same_verdict(
    case: str,
    fleet: Path,
    cli_json: dict[str, Any],
    mcp_replies: dict[str, tuple[str, dict[str, Any]]],
    room: Any,
) -> None:
    kind, question = QUESTIONS[case]
    payload = cli_json[case]
    assert kind_of(payload["results"]) == kind, (question, payload["results"])
    verdict = payload["verdict"]
    if kind == "neither":
        assert verdict == "nothing"
    expected = paths_of(payload["results"])
    refused = verdict == "nothing"
    # A refusal lists no file as an answer; `--json` keeps what the scorers ranked, unserved.
    served = [] if refused else expected
    nothing_matched = refused and not expected  # else "the closest files ... not enough"

    # The terminal: the verdict line first, then the fused list in the --hybrid format.
    text = _kb(fleet.parent, ["route", question, str(fleet)])
    assert VERDICT.findall(text) == [verdict] and text.startswith(f"verdict:  {verdict}: ")
    assert [f"{b}/{p}" for b, p in TERMINAL_FILE.findall(text)] == served
    matched = [] if refused else [r for r in payload["results"] if r["matched"]]
    assert text.count("         matched: ") == len(matched)  # none for a file found by text
    for r in matched:
        assert f"         matched: {', '.join(r['matched'])}\n" in text
    assert ("nothing matched" in text) == nothing_matched
    assert ("no file covers enough of the question" in text) == (refused and not nothing_matched)
    assert _kb(fleet.parent, ["route", question, str(fleet), "--hybrid"]) == text

    # The MCP tool: the verdict first in the text, the same files in text and JSON.
    mcp_text, data = mcp_replies[case]
    assert mcp_text.startswith(f"verdict:  {verdict}: ")
    assert NUMBERED_FILE.findall(mcp_text) == served
    assert data["verdict"] == verdict
    assert paths_of(data["results"]) == served
    if not refused:
        assert data["results"] == [{**r, "passages": []} for r in payload["results"]]
    assert ("Nothing matched" in mcp_text) == nothing_matched

    # kb boot: the verdict line over the list it judged, the vouched file first on a hit.
    briefing = _kb(fleet.parent, ["boot", str(fleet), "--text"], stdin=question)
    assert briefing.startswith("VESTA: ")
    assert VERDICT.findall(briefing) == [verdict]
    listed = VOUCHED.findall(briefing) + BRIEFED_FILE.findall(briefing)
    assert listed == served, briefing
    assert ("does not appear to cover it" in briefing) == refused

    # The reading room: the verdict first, then `found`, the --json results in their order
    # (under `nothing` the page shows them apart, as not served).
    body = room.get("/api/route", params={"q": question}).json()
    assert list(body)[:2] == ["question", "verdict"] and body["verdict"] == verdict
    assert [f"{f['base']}/{f['rel']}" for f in body["found"]] == expected


def test_a_refusal_with_ranked_files_lists_none_and_does_not_say_nothing_matched(
    fleet: Path,
    cli_json: dict[str, Any],
    mcp_replies: dict[str, tuple[str, dict[str, Any]]],
    room: Any,
) -> None:
    payload = cli_json["closest"]
    assert payload["verdict"] == "nothing" and payload["results"], payload
    assert payload["gate"]["served"] is False and payload["gate"]["ranked_by_text_only"] is True

    text = _kb(fleet.parent, ["route", CLOSEST, str(fleet)])
    assert text.startswith("verdict:  nothing: ") and TERMINAL_FILE.findall(text) == []
    assert "nothing matched" not in text
    assert "no file covers enough of the question" in text

    mcp_text, data = mcp_replies["closest"]
    assert mcp_text.startswith("verdict:  nothing: ") and NUMBERED_FILE.findall(mcp_text) == []
    assert data["results"] == [] and data["gate"]["served"] is False
    assert "Nothing matched" not in mcp_text and "No file covers enough of" in mcp_text

    briefing = _kb(fleet.parent, ["boot", str(fleet), "--text"], stdin=CLOSEST)
    assert VERDICT.findall(briefing) == ["nothing"]
    assert VOUCHED.findall(briefing) + BRIEFED_FILE.findall(briefing) == []
    assert "does not appear to cover it" in briefing

    # The page shows them under "not served as an answer", as `--json` carries them.
    body = room.get("/api/route", params={"q": CLOSEST}).json()
    assert body["verdict"] == "nothing"
    assert [f"{f['base']}/{f['rel']}" for f in body["found"]] == paths_of(payload["results"])
