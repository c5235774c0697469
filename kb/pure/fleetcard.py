"""`kb fleet`: who the fleet is, read from manifests and folder names, never the index.

Every name, role and root is printed through `printable`: a folder name or an agent.txt
value holding a control character (a CR survives a manifest line) must not split or
overwrite a line of the card.
"""

from __future__ import annotations

from collections.abc import Sequence

from attrs import frozen

from kb.pure.manifest import Manifest
from kb.pure.names import printable


@frozen
class Card:
    name: str
    role: str | None


@frozen
class Member:
    name: str
    root: str
    role: str | None


def card(manifest: Manifest, fallback: str) -> Card:
    name = manifest.first("name") or (fallback[:1].upper() + fallback[1:])
    return Card(name=name, role=manifest.first("role"))


SOURCE_LINE = (
    "SOURCE: fleet.txt, each agent's agent.txt, and the directory names under fleet/. "
    "No index was queried and nothing was ranked, so nothing above is a retrieved passage "
    "and none of it can be attributed to a knowledge file."
)


def describe(fleet: Card, members: Sequence[Member]) -> str:
    lines = [f"FLEET: {printable(fleet.name)}"]
    lines.append(
        f"ROLE: {printable(fleet.role)}"
        if fleet.role
        else "ROLE: not set. Add a `role = ` line to fleet.txt."
    )
    lines.append(f"AGENTS: {len(members)}")
    for m in members:
        lines.append("")
        lines.append(f"- {printable(m.name)}")
        lines.append(f"  root: {printable(m.root)}")
        lines.append(f"  role: {printable(m.role) if m.role else 'not set in agent.txt'}")
    if not members:
        lines.append("")
        lines.append("The fleet has no agents yet.")
    lines.append("")
    lines.append(SOURCE_LINE)
    return "\n".join(lines) + "\n"
