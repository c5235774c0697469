"""The private layer across every surface (issue 8, item 6; ADR-0034, spec §0.4 and §2.2).

Over generated fleets whose bases have private layers of every kind (the default folders
`profile/ projects/ records/`, explicit `private =` lists, `private = .`, the person base,
and `sources` declared private), every private markdown file carries a unique marker word
in its path, its title, its keys and its body, every private source record in its title,
and every private note links to a public note and to a note that does not exist. Then
every surface is asked, with the private chunks already in the text index (an earlier
`kb index --all`), so only each surface's own scope keeps them out:

- every read verb of the command table, text and `--json`, in-process: each verb's run
  function on its typed input (what the CLI runs after parsing; a cyclopts parse costs about
  60 ms), and the `--all` checks through kb.shell.cli.main.run, parsing included;
- the MCP tools, through the server's dispatcher (kb.shell.mcp.mcp_server.Server.handle);
- the reading room's HTTP API, through Starlette's TestClient on the real app;
- the library, kb.Memory and what it exposes;
- the verbs that call a model (answer in all three modes, boot's classifier, promote,
  consolidate, ingest), with every prompt recorded by a stand-in model;

and no output without `--all` (or the surface's equivalent: `Memory.open(all=...)`,
`Reader(include_private=...)`) holds the marker or a private path. With `--all`, the
surfaces that offer it serve them. A handful of real `kb` subprocesses close the loop.

What a surface echoes of the caller's own input (a question, a claim, a note name) is
removed before the check; every question that carries the marker carries other words too,
so removing it cannot hide a marker that leaked on its own.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from kb.io.answering.memory import Memory
from kb.shell.cli.main import run
from kb.shell.cli.outcome import Outcome
from kb.shell.cli.table import BY_NAME
from kb.shell.mcp.mcp_server import Server
from kb.shell.ui.room import Reader
from kb.shell.ui.server import build_app
from tests.properties.strategies import (
    NOTE_STEMS,
    BaseSpec,
    FileFact,
    FleetSpec,
    NoteSpec,
    add_private_note,
    examples,
    expected_files,
    fleets,
    markers,
    notes,
    with_marker,
    write_fleet,
)

# -- which surfaces ---------------------------------------------------------------------------

# Every verb of the command table is asked here, or left out for the reason given. A test
# below holds this list to kb.shell.cli.table, so a new verb cannot slip past unasked.
ASKED = frozenset(
    {
        "index", "list", "route", "fleet", "remember", "sources", "check", "eval", "misses",
        "abstentions", "links", "graph", "boot", "answer", "ui", "serve", "misroute",
        "misroutes", "panel", "promote", "ingest", "consolidate", "doctor",
    }
)  # fmt: skip
LEFT_OUT = {
    # Writers whose output is only what they were handed and what they wrote: they read no
    # note and serve no passage.
    "init": "writes a skeleton; reads nothing of the fleet",
    "write": "writes the note it was handed; prints its own path and map line",
    "source": "mints one record from its own flags; prints that record's line",
    "capture": "turns the session's own events into a deposit; reads no note",
    "handoff": "saves and shows the session's own baton record; reads no note",
    "commit": "commits the paths the caller names through git; it is git's view of the "
    "caller's own working tree, not a served view of the fleet, and has no --all",
    "rejections": "reads back kb-rejections.txt, which holds only what promote wrote from "
    "the deposits it was allowed to read (checked under promote)",
    # The one reader without --all, by the spec (§6): it prices and prints exactly the files
    # the base's own blocks.txt names, for the person who writes that file. What a model is
    # handed of it goes through kb boot and the reading room, both checked (files listed
    # in the private layer are withheld there without --all).
    "blocks": "prints the files its own blocks.txt names; served through boot and the "
    "reading room, which are checked",
    "sync": "commits kb's own logs and maps through git and prints their paths; it is git's "
    "replication of the caller's own checkout, not a served view of the fleet",
    "merge-driver": "merges the three files git hands it into the second; reads no fleet",
    "trust": "prints fleet.txt's model command lines and the paths and digests of the files "
    "they name; reads no note and serves no passage",
    "daemon": "starts, stops or describes the resident kb and prints no note; what it answers "
    "is the verbs above, run by the same table, and tests/daemon holds --all per request",
}


def test_every_verb_is_asked_or_left_out_with_a_reason() -> None:
    assert set(BY_NAME) == ASKED | set(LEFT_OUT), set(BY_NAME) ^ (ASKED | set(LEFT_OUT))
    assert not ASKED & set(LEFT_OUT)


# -- the generated fleet ----------------------------------------------------------------------

ANCHOR = "anchor"


@dataclass(frozen=True)
class World:
    fleet: FleetSpec
    marker: str
    private_sources: frozenset[str]  # bases whose private layer covers sources/
    anchors: tuple[tuple[str, str], ...]  # (base, the anchor's stem): marked in a private base
    # (kind, public name): links into the private layer made after the fleet is written, so
    # privacy is judged on what a file is, never on the name it was reached by (issue 14)
    links: tuple[tuple[str, str], ...] = ()

    def anchor(self, base: str) -> str:
        return f"{base}/knowledge/{dict(self.anchors)[base]}.md"

    def anchor_key(self, base: str) -> str:
        return f"anchor{base.lower()}"


def _anchor(base: BaseSpec) -> NoteSpec:
    """A public note in every base (private only when the base is private whole), for the
    private notes to link to and for kb boot to route by."""
    return NoteSpec(
        folder="knowledge",
        stem=ANCHOR,
        ext=".md",
        key_line="valid",
        label="**Search for:** {}",
        keys=(f"anchor{base.name.lower()}", "floor"),
        title=f"Anchor of {base.name}",
        purpose="hold the links",
        body=("anchor floor text",),
        front=True,
        invalid_utf8=False,
    )


def _covers_sources(base: BaseSpec) -> bool:
    return base.is_private("sources/x.txt")


@st.composite
def worlds(draw: st.DrawFn, private_deposit: bool = False) -> World:
    """A generated fleet as the module docstring describes it. `private_deposit`: the first
    agent also holds a deposit in its inbox/, declared private, for `kb promote --all`."""
    fleet = draw(fleets())
    marker = draw(markers)
    # `sources` declared private, in some explicit lists
    bases = []
    for b in fleet.bases:
        if b.has_agent and isinstance(b.private_decl, tuple) and draw(st.booleans()):
            b = replace(b, private_decl=(*b.private_decl, "sources"))
        bases.append(replace(b, extra_dirs=("sources",)))  # write_world makes sources/
    if private_deposit:
        i = next((i for i, b in enumerate(bases) if b.has_agent), None)
        assume(i is not None)
        assert i is not None
        b = bases[i]
        whole, folders = b.private_rule()
        if not whole and "inbox" not in folders:
            b = replace(b, private_decl=(*folders, "inbox"))
        # named and shaped as `kb capture` writes a deposit, so kb consolidate reads it too
        deposit = replace(
            draw(notes()),
            folder="inbox",
            stem=f"2026-01-01-session-{marker}",
            ext=".md",
            key_line="none",
            body=("## Decisions and conclusions", "", f"- keep the {marker} floor router ledger"),
        )
        bases[i] = replace(b, notes=(*b.notes, replace(deposit, invalid_utf8=False)))
    extra = draw(notes())
    stem = draw(st.sampled_from(NOTE_STEMS))
    forced = replace(extra, stem=stem, ext=".md", key_line="valid", invalid_utf8=False)
    placed = add_private_note(FleetSpec(tuple(bases)), forced)
    assume(placed is not None)
    assert placed is not None
    with_anchors = FleetSpec(tuple(replace(b, notes=(*b.notes, _anchor(b))) for b in placed.bases))
    marked = with_marker(with_anchors, marker)
    # every private note links to the public anchor and to a note that does not exist, on
    # the first lines of its body (a generated fence further down cannot swallow them)
    linked = []
    anchors = []
    for b in marked.bases:
        stem = b.notes[-1].stem  # the anchor, `{marker}-anchor` in a base private whole
        anchors.append((b.name, stem))
        ns = tuple(
            replace(n, body=(f"[[{stem}]]", f"[[{marker}-nowhere]]", "", *n.body))
            if b.is_private(n.rel) and n is not b.notes[-1]
            else n
            for n in b.notes
        )
        linked.append(replace(b, notes=ns))
    fleet = FleetSpec(tuple(linked))
    covered = frozenset(b.name for b in fleet.bases if _covers_sources(b))
    links = draw(st.lists(st.tuples(st.sampled_from(LINK_KINDS), link_names), max_size=3))
    return World(fleet, marker, covered, tuple(anchors), tuple(links))


LINK_KINDS = ("folder-symlink", "file-symlink", "hard-link")
LINK_PREFIX = "zzlink"  # no generated note or folder starts so
link_names = st.from_regex(rf"{LINK_PREFIX}[a-z]{{1,4}}", fullmatch=True)


def _link_into_private(root: Path, world: World) -> None:
    """Reach each base's private notes under public names: a symlinked folder at the base's
    top, a symlinked file and a hard link in knowledge/ (skipped where a name is taken)."""
    for b in world.fleet.bases:
        broot = root / "fleet" / b.name
        whole, _ = b.private_rule()
        hidden = [n for n in b.notes if b.is_private(n.rel) and "/" in n.rel]
        if whole or not hidden:
            continue
        note = broot / hidden[0].rel
        for kind, name in world.links:
            folder_link = broot / name
            file_link = broot / "knowledge" / f"{name}{note.suffix}"
            if kind == "folder-symlink" and not folder_link.exists():
                os.symlink(note.parent.relative_to(broot), folder_link)
            elif kind == "file-symlink" and not file_link.exists():
                os.symlink(note, file_link)
            elif kind == "hard-link" and not file_link.exists():
                os.link(note, file_link)


SOURCE_KEYS = ("MASLW2HT43", "K7QXW9ZHPL", "23456789AB", "ZZXQ3W4E5R", "HJKM8N9P2Q")


def write_world(root: Path, world: World) -> None:
    write_fleet(root, world.fleet)
    _link_into_private(root, world)
    for i, b in enumerate(world.fleet.bases):
        broot = root / "fleet" / b.name
        title = f"Ledger of {world.marker}" if b.name in world.private_sources else "Ledger"
        (broot / "sources").mkdir(exist_ok=True)
        (broot / "sources" / f"{SOURCE_KEYS[i]}.txt").write_text(
            f"type = book\ntitle = {title}\nretrieved_on = 2024-01-01\nretrieval_status = full\n"
        )
        if b.has_agent:
            private = [n.rel for n in b.notes if b.is_private(n.rel) and not n.invalid_utf8]
            lines = ["[identity]", "agent.txt", "knowledge/anchor.md", "", "[profile]"]
            (broot / "blocks.txt").write_text("\n".join(lines + private[:2]) + "\n")
    # one abstention kb boot would have recorded, asking words private notes declare
    (root / "kb-abstentions.txt").write_text(
        "# abstentions\n1\t2026-01-01\t2026-01-02\tuncovered\t-\tfloor things"
        "\tfloor router ledger quorum\tnobody covers it\t\n"
    )


# -- checking an output -------------------------------------------------------------------------


@dataclass
class Probe:
    marker: str
    private: list[FileFact]
    typed: list[str]  # what the caller typed: echoed back, never counted as a leak

    def paths(self) -> list[str]:
        return [f"{f.base}/{f.rel}" for f in self.private]

    def clean(self, text: str, echo: tuple[str, ...] = ()) -> str:
        for t in sorted([*self.typed, *echo], key=len, reverse=True):
            text = text.replace(t, "")
        return text

    def hidden(self, what: str, text: str, echo: tuple[str, ...] = ()) -> None:
        body = self.clean(text, echo)
        assert self.marker not in body, f"{what} leaks the private marker:\n{body[:4000]}"
        for p in self.paths():
            assert p not in body, f"{what} leaks {p}:\n{body[:4000]}"

        # a JSON row names a file by separate fields: `{"base": "alpha", "path": "MAP.md"}`
        hidden = {(f.base, f.rel) for f in self.private}
        for line in text.splitlines():
            if line.startswith(("{", "[")):
                try:
                    value = json.loads(line)
                except ValueError:
                    continue
                for row in _rows(value):
                    assert row not in hidden, f"{what} lists {row}:\n{line[:4000]}"

    def shows(self, text: str) -> bool:
        body = self.clean(text)
        return self.marker in body or any(p in body for p in self.paths())


def _rows(value: Any) -> Iterator[tuple[str, str]]:
    """(base, path) of every JSON object that names a file by the two fields."""
    if isinstance(value, dict):
        where = value.get("path", value.get("rel"))
        if isinstance(value.get("base"), str) and isinstance(where, str):
            yield value["base"], where
        for v in value.values():
            yield from _rows(v)
    elif isinstance(value, list):
        for v in value:
            yield from _rows(v)


def _json_without(value: Any, keys: tuple[str, ...]) -> Any:
    """`value` with every object key in `keys` removed, at any depth (echoes of input)."""
    if isinstance(value, dict):
        return {k: _json_without(v, keys) for k, v in value.items() if k not in keys}
    if isinstance(value, list):
        return [_json_without(v, keys) for v in value]
    return value


def _outcome(verb: str, **fields: Any) -> Outcome:
    """One verb's run function on its typed input, as the CLI builds it after parsing (the
    parse itself costs ~60 ms a call; the `--all` checks go through it)."""
    command = BY_NAME[verb]
    out = command.run(command.input_type(**fields))
    assert out.code in (0, 1, 2), (verb, fields, out)
    assert "Traceback" not in out.stderr, (verb, fields, out.stderr)
    return out


def _verb(verb: str, **fields: Any) -> str:
    out = _outcome(verb, **fields)
    return out.stdout + "\n" + out.stderr


def _cli(args: list[str], stdin: str | None = None) -> str:
    """One verb through the CLI's in-process projection: stdout and stderr together."""
    if stdin is None:
        out = run(args)
    else:
        with _stdin(stdin):
            out = run(args)
    assert out.code in (0, 1, 2), (args, out.code)
    assert "Traceback" not in out.stderr, (args, out.stderr)
    return out.stdout + "\n" + out.stderr


@contextmanager
def _stdin(text: str) -> Iterator[None]:
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(text.encode("utf-8")), encoding="utf-8")
    try:
        yield
    finally:
        sys.stdin = saved


def _mcp(server: Server, tool: str, arguments: Mapping[str, object]) -> str:
    """A tool's text, as the client shows it, then its structured content as one JSON line
    (or the error, when the tool refused). kb_remember's JSON restates the claim in three
    keys, dropped as the CLI's `--json` check drops them."""
    reply = server.handle(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments},
        }
    )
    assert reply is not None, tool
    if "result" not in reply:
        return json.dumps(reply, ensure_ascii=False)
    data = reply["result"]["structuredContent"]
    if tool == "kb_remember":
        data = _json_without(data, ("claim", "reason", "missing"))
    text = "\n".join(c["text"] for c in reply["result"]["content"])
    return text + "\n" + json.dumps(data, ensure_ascii=False)


# Lines of `kb remember` that restate the claim (the claim, its words the chunk lacks, and
# the reason, which names those words), in the text of the CLI and of the MCP tool.
_CLAIM_ECHOES = ("claim:", "new:", "reason:")


def _without_claim_echo(text: str) -> str:
    return "\n".join(ln for ln in text.split("\n") if not ln.strip().startswith(_CLAIM_ECHOES))


@contextmanager
def _room(where: str, include_private: bool) -> Iterator[TestClient]:
    reader = Reader([where], include_private)
    reader.open_now()
    try:
        with TestClient(build_app(reader, "0" * 32), base_url="http://127.0.0.1:4114") as c:
            yield c
    finally:
        reader.close()


@contextmanager
def _world(world: World) -> Iterator[tuple[Path, str]]:
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as mp:
        root = Path(tmp) / "fleet-root"
        write_world(root, world)
        mp.setenv("KB_MISSES_PATH", str(Path(tmp) / "misses.txt"))
        mp.delenv("KB_MODEL_TIMEOUT", raising=False)
        # an earlier --all run put the private chunks in the text index: every surface
        # below must keep them out by its own scope
        assert run(["index", str(root), "--all"]).code == 0
        yield root, tmp


def _questions(world: World) -> list[str]:
    """The marker with words private and public notes share; the words alone; the marker
    alone in a sentence (asked with --all)."""
    m = world.marker
    return [f"{m} floor router", "floor router ledger quorum", f"where is {m}"]


# No shrinking: every example writes and indexes a fleet and asks it ~80 times, so shrinking
# a failure ran past five minutes; the failure already names the surface and prints what it
# leaked, and Hypothesis prints the fleet.
NO_SHRINK = [Phase.explicit, Phase.reuse, Phase.generate]
PRIVACY = settings(
    phases=NO_SHRINK,
    max_examples=examples(12),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# -- the property: every surface, without and with --all ----------------------------------------


@PRIVACY
@given(worlds())
def test_no_surface_serves_the_private_layer_without_all(world: World) -> None:
    m = world.marker
    with _world(world) as (root, tmp):
        where = str(root)
        paths = (where,)
        found = expected_files(root, world.fleet, include_private=True)
        # the model walks names, not real paths: what it finds through a link is private
        facts = [replace(f, private=True) if LINK_PREFIX in f.rel else f for f in found]
        private = [f for f in facts if f.private]
        assert private, "the generator placed a private note"
        questions = _questions(world)
        marked = questions[2]
        routable = [b.name for b in world.fleet.bases if b.has_agent]
        probe = Probe(m, private, list(questions))
        gold = Path(tmp) / "gold.tsv"
        gold.write_text("".join(f"{q}\t-\n" for q in questions))
        doc = Path(tmp) / "doc.txt"
        doc.write_text("floor router ledger quorum kernel\n")
        probe.typed += [str(gold), str(doc)]

        def ask(what: str, text: str, echo: tuple[str, ...] = ()) -> None:
            probe.hidden(what, text, echo)

        flags: Mapping[str, object]  # each verb's keyword arguments, varied per loop
        arguments: Mapping[str, object]
        # -- the read verbs, text and JSON, none given --all --------------------------------
        for q in questions[:2]:
            for flags in (
                {},
                {"hybrid": True, "top": 50},
                {"context": True, "hybrid": True, "context_total": 100_000},
            ):
                ask(f"route {q!r} {flags}", _verb("route", question=q, paths=paths, **flags))
            out = _outcome("route", question=q, paths=paths, json=True)
            payload = _json_without(json.loads(out.stdout), ("question",))
            ask(f"route {q!r} --json", json.dumps(payload, ensure_ascii=False) + out.stderr)
            text = _verb("remember", claim=q, paths=paths)
            ask(f"remember {q!r}", _without_claim_echo(text))
            out = _outcome("remember", claim=q, paths=paths, json=True)
            payload = _json_without(json.loads(out.stdout), ("claim", "reason", "missing"))
            ask(f"remember {q!r} --json", json.dumps(payload, ensure_ascii=False) + out.stderr)
        for flags in ({}, {"json": True}, {"where": ("provenance=human",), "sort": "title"}):
            ask(f"list {flags}", _verb("list", paths=paths, **flags))
        ask("fleet", _verb("fleet", paths=paths))
        ask("check", _verb("check", paths=paths))
        settings = Path(tmp) / "settings.json"  # named, so no settings file above is run
        settings.write_text("{}")
        ask("doctor", _verb("doctor", path=where, settings=str(settings)))
        for flags in ({}, {"json": True}):
            ask(f"sources {flags}", _verb("sources", paths=paths, **flags))
        for b in world.fleet.bases:
            note = world.anchor(b.name)
            for flags in ({"direction": "both", "depth": 3}, {"direction": "in", "json": True}):
                # (in a base private whole the anchor is private: refused, by its name)
                got = _verb("links", note=note, paths=paths, **flags)
                ask(f"links {note} {flags}", got, echo=(note,))
        for f in private[:2]:  # a private note asked for by name is not found, not served
            name = f"{f.base}/{f.rel}"
            ask(f"links {name}", _verb("links", note=name, paths=paths), echo=(name,))
        first = world.anchor(world.fleet.bases[0].name)
        for flags in ({}, {"key": "floor", "format": "json"}, {"note": first, "format": "dot"}):
            ask(f"graph {flags}", _verb("graph", paths=paths, **flags), echo=(first,))
        for flags in ({}, {"json": True}):
            ask(f"misses {flags}", _verb("misses", paths=paths, **flags))
        ask("abstentions", _verb("abstentions", path=where))
        ask("eval", _verb("eval", gold=str(gold), paths=paths, triad=True))
        out = _outcome("eval", gold=str(gold), paths=paths, json=True)
        payload = _json_without(json.loads(out.stdout), ("question",))
        ask("eval --json", json.dumps(payload, ensure_ascii=False) + out.stderr)
        # kb boot: one message per agent, each routed to that agent by its anchor's key in
        # a new session, so the agent's constitution (which lists private files) is shown
        for i, name in enumerate(routable):
            message = json.dumps(
                {"prompt": f"{world.anchor_key(name)} floor", "session_id": f"s{i}"}
            )
            with _stdin(message):
                ask(f"boot {name}", _verb("boot", paths=paths))
        for q in questions[:2]:
            with _stdin(q):
                ask(f"boot {q!r}", _verb("boot", paths=paths, text=True))
        if routable:
            chose = routable[0]
            got = _verb("misroute", message=questions[1], path=where, chose=chose, owner="none")
            ask("misroute", got)
            ask("misroutes", _verb("misroutes", path=where))
            for flags in ({}, {"json": True}):
                got = _verb("panel", artifact=str(doc), path=where, owner=chose, **flags)
                ask(f"panel propose {flags}", got)
        ask("panel ledger", _verb("panel", artifact=str(doc), path=where, ledger=True))

        # -- the MCP tools -----------------------------------------------------------------
        with Memory.open([where]) as memory:
            server = Server(memory, 5)
            for q in questions[:2]:
                for tool in ("kb_route", "kb_retrieve"):
                    ask(f"mcp {tool} {q!r}", _mcp(server, tool, {"question": q, "top": 50}))
                text = _mcp(server, "kb_remember", {"claim": q})
                ask(f"mcp kb_remember {q!r}", _without_claim_echo(text))
            for arguments in (
                {"limit": 500},
                {"limit": 500, "sort": "title", "where": "provenance=human"},
                {"folder": "knowledge"},
            ):
                ask(f"mcp kb_list {arguments}", _mcp(server, "kb_list", arguments))
            ask("mcp kb_fleet", _mcp(server, "kb_fleet", {}))

            # -- the library ---------------------------------------------------------------
            for q in questions[:2]:
                a = memory.ask(q, 50)
                served = (a.found, a.keyword_hits, a.agent, a.keyword_top, a.changed)
                ask(f"Memory.ask {q!r}", repr(served))
                ask(f"Memory.retrieve {q!r}", repr(memory.retrieve(q, 50)))
                ask(f"Memory.route {q!r}", repr(memory.route(q, 50)))
                evidence = [
                    (e.base, e.path, e.heading_path, e.excerpt, e.shared)
                    for e in memory.remember(q).evidence
                ]
                ask(f"Memory.remember {q!r}", repr(evidence))
                ask(f"Memory.suggest {q!r}", repr(memory.suggest(q)))
                ask(f"Memory.search_text {q!r}", repr(memory.search_text(memory.terms(q), 50)))
            ask("Memory.list", repr(memory.list()))
            ask("Memory.describe", memory.describe())
            state = (memory.entries, memory.unreachable, memory.unindexed, memory.unreadable)
            ask("Memory state", repr(state))
            snapshots = [(b.snapshot.files, b.headers, b.snapshot.map_rel) for b in memory.bases]
            ask("Memory.bases", repr(snapshots))

        # -- the reading room's API --------------------------------------------------------
        with _room(where, include_private=False) as ui:
            for path in ("/api/fleet", "/api/stacks", "/api/blocks", "/api/check"):
                response = ui.get(path)
                assert response.status_code == 200, path
                ask(f"ui {path}", response.text)
            for q in questions[:2]:
                response = ui.get("/api/route", params={"q": q})
                assert response.status_code == 200
                payload = _json_without(response.json(), ("question", "terms"))
                ask(f"ui /api/route {q!r}", json.dumps(payload, ensure_ascii=False))
            for f in facts:
                response = ui.get("/api/file", params={"base": f.base, "rel": f.rel})
                if f.private:
                    assert response.status_code == 404, f
                elif f.bucket != "unreadable":
                    assert response.status_code == 200, (f, response.text)
                ask(f"ui /api/file {f.rel}", response.text, echo=(f.rel,) if f.private else ())

        # -- with --all, the same surfaces serve the private layer (through the CLI's own
        # argument parsing, so `--all` itself is what is tested) -------------------------
        out = run(["route", marked, where, "--json", "--all"])
        top = json.loads(out.stdout)["results"][0]
        assert (top["base"], top["path"]) in {(f.base, f.rel) for f in private}, top
        for args in (
            ["route", marked, where, "--all"],
            ["route", marked, where, "--all", "--context"],
            ["remember", questions[0], where, "--all"],
            ["list", where, "--all", "--json"],
            ["graph", where, "--all"],
            ["check", where, "--all"],  # E01 on the private note's link to nowhere
            ["eval", str(gold), where, "--all", "--json"],
        ):
            assert probe.shows(_cli(args)), f"{args} does not show the private layer"
        if world.private_sources:
            assert m not in _verb("sources", paths=paths)
            assert m in _cli(["sources", where, "--all"])
        linked = {f.base for f in private if f.bucket != "unreadable" and LINK_PREFIX not in f.rel}
        for base in linked:
            note = world.anchor(base)
            got = _cli(["links", note, where, "--direction", "in", "--all"])
            assert probe.shows(got), f"links --all does not show the backlinks of {note}:\n{got}"
        # boot hands a file over only on a `hit`, and the marker alone is shared by every
        # private note (a tie is a guess, decision 0016): each private note's own name is
        # asked too, and every message that is a hit on a private file must be served.
        keys = {(f.base, f.rel) for f in private}
        for message in [marked, *(Path(f.rel).stem.replace("-", " ") for f in private)]:
            routed = json.loads(run(["route", message, where, "--json", "--all"]).stdout)
            best: dict[str, Any] | None = routed["results"][0] if routed["results"] else None
            if (
                routed["verdict"] != "hit"
                or best is None
                or (best["base"], best["path"]) not in keys
            ):
                continue
            with _stdin(message):
                got = run(["boot", where, "--text", "--all"]).stdout
            assert probe.shows(got), f"boot --all withheld the private hit for {message!r}"
        # an agent's constitution, when boot shows it, holds the private files its blocks.txt
        # lists (withheld without --all, above)
        for i, b in enumerate(world.fleet.bases):
            if b.has_agent and any(b.is_private(n.rel) and not n.invalid_utf8 for n in b.notes):
                message = json.dumps(
                    {"prompt": f"{world.anchor_key(b.name)} floor", "session_id": f"a{i}"}
                )
                with _stdin(message):
                    got = run(["boot", where, "--all"]).stdout
                shown = "<!-- block: profile" in got
                assert not shown or m in got, (
                    f"boot --all withheld {b.name}'s private blocks:\n{got}"
                )
        with Memory.open([where], all=True) as memory:
            server = Server(memory, 5)
            assert probe.shows(_mcp(server, "kb_retrieve", {"question": marked, "top": 50}))
            assert probe.shows(_mcp(server, "kb_list", {"limit": 500}))
            assert probe.shows(repr(memory.ask(marked, 50).found))
            assert probe.shows(repr(memory.list()))
        with _room(where, include_private=True) as ui:
            assert probe.shows(ui.get("/api/stacks").text)
            for f in private:
                # a linked folder is never walked: its notes are served by their real path
                if f.bucket != "unreadable" and LINK_PREFIX not in f.rel:
                    response = ui.get("/api/file", params={"base": f.base, "rel": f.rel})
                    assert response.status_code == 200 and m in response.text, f

        # last, kb index without --all: it drops the private chunks from the index
        for flags in ({}, {"json": True}):
            ask(f"index {flags}", _verb("index", paths=paths, **flags))


# -- the verbs that hand text to a model -------------------------------------------------------

# A stand-in model: it keeps every prompt it is sent (the one place a passage leaves kb for a
# model) and answers each role in the format that role's parser reads. The answerer and the
# classifier echo the prompt, so what they were sent is also what kb prints or parses.
RECORDER = """\
import sys
role, log = sys.argv[1], sys.argv[2]
prompt = sys.stdin.buffer.read().decode("utf-8", "replace")
with open(log, "a", encoding="utf-8") as fh:
    fh.write("=== " + role + "\\n" + prompt + "\\n")
if role == "promoter":
    print("PROPOSAL\\nslug: floor-router-notes\\nfolder: knowledge\\nsummary: floor and router")
    print("keys: floor, router, ledger, quorum\\nsources: c1, c2")
    print("body:\\nfloor router ledger quorum\\nEND")
elif role == "reviewer":
    print("VERDICT: reject\\nREASON: a stand-in reviewer refuses everything")
else:
    sys.stdout.write(prompt)
"""


def _models(root: Path, tmp: str) -> Path:
    script = Path(tmp) / "recorder.py"
    script.write_text(RECORDER)
    log = Path(tmp) / "prompts.txt"
    log.write_text("")
    (root / "fleet.txt").write_text(
        "".join(
            f"{role} = {sys.executable} -S {script} {role} {log}\n"
            for role in ("classifier", "answerer", "promoter", "reviewer")
        )
    )
    return log


@settings(
    max_examples=examples(6),
    deadline=None,
    phases=NO_SHRINK,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(worlds(private_deposit=True))
def test_no_model_is_handed_the_private_layer_without_all(world: World) -> None:
    with _world(world) as (root, tmp):
        where = str(root)
        paths = (where,)
        log = _models(root, tmp)
        private = [f for f in expected_files(root, world.fleet, True) if f.private]
        questions = _questions(world)
        probe = Probe(world.marker, private, list(questions))
        doc = Path(tmp) / "doc.txt"
        doc.write_text("floor router ledger quorum kernel\n")
        probe.typed.append(str(doc))
        routable = [b.name for b in world.fleet.bases if b.has_agent]

        def ask(what: str, text: str) -> None:
            probe.hidden(what, text)
            probe.hidden(f"the prompts of {what}", log.read_text(encoding="utf-8"))

        for q in questions[:2]:
            for mode in ({}, {"expanded": True}, {"complete": True}):
                ask(f"answer {q!r} {mode}", _verb("answer", question=q, paths=paths, **mode))
            with _stdin(q):
                ask(f"boot {q!r}", _verb("boot", paths=paths, text=True))
        for i, name in enumerate(routable):
            message = json.dumps(
                {"prompt": f"{world.anchor_key(name)} floor", "session_id": f"m{i}"}
            )
            with _stdin(message):
                ask(f"boot {name}", _verb("boot", paths=paths))
        ask("promote --dry-run", _verb("promote", paths=paths, dry_run=True))
        ask("ingest --dry-run", _verb("ingest", file=str(doc), paths=paths, dry_run=True))
        if routable:
            agent = routable[0]
            for s in ("c1", "c2"):
                args = ["handoff", "save", agent, where, "--session", s, "--task", "floor router"]
                assert run([*args, "--decision", "keep the floor router ledger"]).code == 0
            ask("consolidate", _verb("consolidate", agent=agent, path=where, dry_run=True))

        # the models were asked (the classifier on every routed message)
        assert "=== classifier" in log.read_text(encoding="utf-8")

        # with --all, the private layer reaches the model
        log.write_text("")
        _cli(["answer", questions[2], where, "--all"])
        assert probe.shows(log.read_text(encoding="utf-8")), "answer --all sent no private passage"
        log.write_text("")
        _cli(["promote", where, "--dry-run", "--all"])
        assert world.marker in log.read_text(encoding="utf-8"), "promote --all sent no deposit"


# -- the real processes -----------------------------------------------------------------------


def _kb(args: list[str], env: dict[str, str], stdin: str = "") -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "kb.shell.cli.main", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.stdout + "\n" + proc.stderr


@settings(
    max_examples=1,  # six processes, about a second each on a loaded CI machine
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(worlds())
def test_the_real_processes_keep_the_private_layer_out(world: World) -> None:
    """The same rule through `kb` as a process: argv parsing, stdin, stdout, and the MCP
    server's own stdio loop."""
    with _world(world) as (root, tmp):
        where = str(root)
        private = [f for f in expected_files(root, world.fleet, True) if f.private]
        questions = _questions(world)
        probe = Probe(world.marker, private, list(questions))
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "KB_MISSES_PATH": f"{tmp}/m.txt"}
        q = questions[0]
        probe.hidden("kb route", _kb(["route", q, where, "--hybrid", "--context"], env))
        probe.hidden("kb list --json", _kb(["list", where, "--json"], env))
        probe.hidden("kb boot", _kb(["boot", where, "--text"], env, stdin=q))
        assert probe.shows(_kb(["list", where, "--all"], env))

        requests = [
            {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}},
            *(
                {
                    "jsonrpc": "2.0",
                    "id": i + 1,
                    "method": "tools/call",
                    "params": {"name": tool, "arguments": arguments},
                }
                for i, (tool, arguments) in enumerate(
                    [
                        ("kb_retrieve", {"question": q, "top": 50}),
                        ("kb_route", {"question": questions[1], "top": 50}),
                        ("kb_list", {"limit": 500}),
                    ]
                )
            ),
        ]
        lines = "".join(json.dumps(r) + "\n" for r in requests)
        for flags, public in (([], True), (["--all"], False)):
            out = _kb(["serve", where, *flags], env, stdin=lines)
            texts = [
                c["text"]
                for line in out.splitlines()
                if line.startswith("{")
                for c in json.loads(line).get("result", {}).get("content", [])
            ]
            assert len(texts) == 3, out
            if public:
                probe.hidden("kb serve", out)
            else:
                assert probe.shows("\n".join(texts)), "kb serve --all serves no private file"
