"""kb's front-matter reader (kb.pure.notes.frontmatter) against PyYAML's C safe loader.

    python benchmarks/frontmatter.py [--runs 15] [--number 2000]

PyYAML is not a kb dependency: install it to run this (`pip install pyyaml`, with libyaml for
`CSafeLoader`). Three measurements, for decision 0038:

- Import cost: `python -X importtime` in a fresh process per run, the module's cumulative
  microseconds, median of --runs. Both modules are imported after what a `kb list` process
  already holds when it reaches them (re, math, datetime, attrs, kb.pure.notes.header), so each
  number is what the import adds.
- Parse time per note on SAMPLES (twenty notes with realistic front matter and a body):
  `frontmatter.parse(note)` against cutting the block out by the same fence rule and
  `yaml.load(block, Loader=yaml.CSafeLoader)`; the best of 5 repeats of --number calls.
- What each reads: a sample YAML reads as something other than strings, lists and mappings
  of strings (a date, a number, a boolean), or refuses, is listed.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import timeit
from typing import Any

from kb.pure.notes import frontmatter

BODY = (
    "# A note\n\n**Search for:** `backup`, `restore`, `copia de seguranca`\n\n"
    + "A paragraph of the note's own text, long enough to be a real note. " * 30
    + "\n\n## Section\n\n- a point\n- another point\n"
)

SAMPLES = [
    "title: Backups that actually restore\ntags: [backup, restore, ops]\n",
    "title: Reunião de equipa\ndate: 2024-03-18\ntags:\n  - reunião\n  - equipa\n",
    "aliases: [pg_dump, logical dump]\nstatus: draft\nsource: https://example.org/a?b=1\n",
    "title: \"Colons: inside quotes\"\ndescription: 'single quoted'\nrating: 4\n",
    "relations:\n  supports: [[backups]]\n  contradicts: none\n",
    "relations:\n  supports:\n    - knowledge/backups.md\n    - knowledge/drills.md\n"
    "  refines: knowledge/retention.md\n",
    "summary: >\n  A folded paragraph that runs\n  over three lines of the\n  front matter.\n",
    "notes: |\n  line one\n  line two\n  line three\ntags: [x]\n",
    "authors:\n  - name: Ada Lovelace\n    role: author\n  - name: Bruno Diaz\n    role: editor\n",
    "created: 2023-11-02T09:14:00Z\nupdated: 2024-01-15\npublished: yes\ndraft: no\n",
    "# a comment line\ntitle: With comments  # trailing comment\n\nkeywords: a, b, c\n",
    "type: person\nname: Marina Okafor\nemail: marina@example.org\nphone: '+351 912 000 000'\n",
    "project:\n  name: kb\n  stage: beta\n  owners:\n    - ada\n    - bruno\n  budget: 1200\n",
    "tags:\n- compact\n- list\n- form\ntitle: compact YAML lists\n",
    "title: Empty values\nsummary:\ntags: []\nsource: ''\n",
    "kind: skill\nprovenance: agent\nstage: distilled\nsessions: [s1, s9, s12]\n",
    "title: Version pins\npython: 3.11\nsqlite: 3.45.1\nport: 8080\nratio: 0.25\n",
    "title: A key that repeats\ntags: [one]\ntags: [two]\n",
    "url: http://example.org/x#frag\nquote: \"He said: 'fine'\"\npath: C:\\temp\\kb\n",
    "title: Long tag list\ntags: [" + ", ".join(f"tag{i}" for i in range(40)) + "]\n",
]
NOTES = [f"---\n{fm}---\n{BODY}" for fm in SAMPLES]


def import_cost(module: str, runs: int) -> float:
    """Median cumulative microseconds of `import module`, after kb list's own imports."""
    # What a `kb list` process holds before it imports kb.pure.notes.frontmatter (checked against
    # sys.modules there): PyYAML's datetime and math come free, its base64 and struct do not.
    code = f"import re, math, datetime, attrs, kb.pure.notes.header; import {module}"
    times: list[float] = []
    for _ in range(runs):
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", code],
            capture_output=True,
            text=True,
            check=True,
        )
        for line in proc.stderr.splitlines():
            parts = [p.strip() for p in line.removeprefix("import time:").split("|")]
            if len(parts) == 3 and parts[2] == module:
                times.append(float(parts[1]))
    return statistics.median(times)


def yaml_front(text: str, yaml: Any) -> Any:
    """The block between the fences, by kb's rule, read by PyYAML's C safe loader."""
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return None
    for k in range(1, len(lines)):
        if lines[k].strip() == "---":
            return yaml.load("\n".join(lines[1:k]), Loader=yaml.CSafeLoader)
    return None


def best_us(call: Any, number: int) -> float:
    return min(timeit.repeat(call, number=number, repeat=5)) / number * 1e6


def only_text(value: Any) -> bool:
    if isinstance(value, str):
        return True
    if isinstance(value, list):
        return all(only_text(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and only_text(v) for k, v in value.items())
    return False


def kinds(value: Any) -> set[str]:
    inner = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return {type(value).__name__}.union(*(kinds(v) for v in inner))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--number", type=int, default=2000)
    args = ap.parse_args()
    import yaml  # type: ignore[import-untyped]  # not a kb dependency, so no stubs either

    print(f"python {sys.version.split()[0]}, PyYAML {yaml.__version__}, libyaml: "
          f"{yaml.__with_libyaml__}")  # fmt: skip
    print("\nimport cost (us, cumulative, median of", args.runs, "fresh processes)")
    for module in ("yaml", "kb.pure.notes.frontmatter"):
        print(f"  {module:22} {import_cost(module, args.runs):8.0f}")

    ours = [best_us(lambda n=n: frontmatter.parse(n), args.number) for n in NOTES]
    theirs = [best_us(lambda n=n: yaml_front(n, yaml), args.number) for n in NOTES]
    print(f"\nparse time per note (us, best of 5 x {args.number}), {len(NOTES)} samples")
    print(f"  {'':22} {'median':>8} {'min':>8} {'max':>8} {'all 20':>8}")
    for name, t in (("kb.pure.notes.frontmatter", ours), ("yaml CSafeLoader", theirs)):
        print(f"  {name:22} {statistics.median(t):8.1f} {min(t):8.1f} {max(t):8.1f} {sum(t):8.1f}")

    print("\nwhere PyYAML reads more than text:")
    for i, note in enumerate(NOTES):
        try:
            got = yaml_front(note, yaml)
        except yaml.YAMLError as e:
            print(f"  sample {i:2}: refused ({type(e).__name__})")
            continue
        if not only_text(got):
            print(f"  sample {i:2}: {', '.join(sorted(kinds(got) - {'str', 'list', 'dict'}))}")


if __name__ == "__main__":
    main()
