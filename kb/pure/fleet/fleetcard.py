"""`kb fleet`: who the fleet is, read from manifests and folder names, never the index.

Every name, role and root is printed through `printable`: a folder name or an agent.txt
value holding a control character (a CR survives a manifest line) must not split or
overwrite a line of the card.
"""

from __future__ import annotations

from collections.abc import Sequence

from attrs import frozen

from kb.pure.notes.manifest import Manifest
from kb.pure.notes.names import printable


@frozen
class Card:
    name: str
    role: str | None


@frozen
class Member:
    name: str
    root: str
    role: str | None
    # The owner's own base (`fleet/person`, private as a whole): a member of the fleet, not
    # an agent. Nothing is routed to it and it has no agent.txt role to report.
    person: bool = False


def card(manifest: Manifest, fallback: str) -> Card:
    name = manifest.first("name") or (fallback[:1].upper() + fallback[1:])
    return Card(name=name, role=manifest.first("role"))


SOURCE_LINE = (
    "SOURCE: fleet.txt, each agent's agent.txt, and the directory names under fleet/. "
    "No index was queried and nothing was ranked, so nothing above is a retrieved passage "
    "and none of it can be attributed to a knowledge file."
)


PERSON_NOTE = "the owner's own private base: never routed to, shown only with --all"


def describe(fleet: Card, members: Sequence[Member]) -> str:
    lines = [f"FLEET: {printable(fleet.name)}"]
    lines.append(
        f"ROLE: {printable(fleet.role)}"
        if fleet.role
        else "ROLE: not set. Add a `role = ` line to fleet.txt."
    )
    agents = [m for m in members if not m.person]
    lines.append(f"AGENTS: {len(agents)}")
    for m in agents:
        lines.append("")
        lines.append(f"- {printable(m.name)}")
        lines.append(f"  root: {printable(m.root)}")
        lines.append(f"  role: {printable(m.role) if m.role else 'not set in agent.txt'}")
    if not agents:
        lines.append("")
        lines.append("The fleet has no agents yet.")
    for m in members:
        if m.person:
            lines.append("")
            lines.append(f"PERSON: {printable(m.root)} ({PERSON_NOTE})")
    lines.append("")
    lines.append(SOURCE_LINE)
    return "\n".join(lines) + "\n"


def describe_json(fleet: Card, members: Sequence[Member]) -> dict[str, object]:
    """`kb fleet --json`: the same card; an unset role is null, the person base apart."""
    return {
        "agents": [
            {"name": m.name, "role": m.role, "root": m.root} for m in members if not m.person
        ],
        "fleet": {"name": fleet.name, "role": fleet.role},
        "person": [{"name": m.name, "root": m.root} for m in members if m.person],
        "source": SOURCE_LINE.removeprefix("SOURCE: "),
    }
