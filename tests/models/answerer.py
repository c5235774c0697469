#!/usr/bin/env python3
"""A deterministic answerer for `kb answer` in every mode.

Usage (as the `answerer =` command line): answerer.py LOG [--fail-map K] [--fail-reduce]

- Every prompt it receives is appended to LOG, followed by a line `=== END PROMPT ===`, so
  a test can read exactly what the model was sent (and prove what it was never sent).
- A fast/expanded prompt (`THE PASSAGES:`) is answered with the first line of each of the
  first two passages, each cited as `(base/path)` from its passage header.
- A map prompt (`facts below`) gets, per `--- name` file, a verdict line and one fact: the
  file's first heading, cited `(name, undated)`. With `--fail-map K` the K-th map prompt
  (counted in LOG) exits 1 instead.
- A reduce prompt (`THE FACTS:`) gets `CANDIDATES:`, each fact marked counted, and
  `ANSWER: {n} facts`. With `--fail-reduce` it exits 1 instead.
"""

import sys

END = "=== END PROMPT ==="


def first_text_line(lines: list[str]) -> str:
    """The first line of prose or heading, past any front matter and `**Label:**` lines."""
    if lines and lines[0].strip() == "---":
        closing = next((i for i, ln in enumerate(lines[1:], 1) if ln.strip() == "---"), 0)
        lines = lines[closing + 1 :]
    for line in lines:
        s = line.strip()
        if s and not s.startswith("**"):
            return s.lstrip("#- ").strip()
    return "(empty)"


def blocks(text: str) -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    for line in text.split("\n"):
        if line.startswith("--- "):
            out.append((line[4:], []))
        elif out:
            out[-1][1].append(line)
    return out


def main() -> int:
    args = sys.argv[1:]
    log = args[0] if args and not args[0].startswith("--") else None
    prompt = sys.stdin.buffer.read().decode("utf-8", "replace")
    earlier = ""
    if log:
        try:
            with open(log, encoding="utf-8") as fh:
                earlier = fh.read()
        except FileNotFoundError:
            pass
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(prompt + END + "\n")
    if "THE FACTS:" in prompt:
        if "--fail-reduce" in args:
            return 1
        facts_text = prompt.split("THE FACTS:\n", 1)[1].split("\n\nTHE QUESTION:", 1)[0]
        facts = [f for f in facts_text.split("\n") if f.startswith("- ")]
        print("CANDIDATES:")
        for f in facts:
            print(f"{f} counted")
        print(f"ANSWER: {len(facts)} facts")
        return 0
    if "facts below" in prompt:
        if "--fail-map" in args:
            k = int(args[args.index("--fail-map") + 1])
            before = sum(1 for p in earlier.split(END) if "facts below" in p)
            if before + 1 == k:
                return 1
        body = prompt.split("THE QUESTION:", 1)[0]
        for header, lines in blocks(body):
            name = header.split(" ", 1)[0]
            print(f"FILE {name}: facts below")
            print(f"- {first_text_line(lines)} ({name}, undated)")
        return 0
    if "THE PASSAGES:" in prompt:
        passages = prompt.split("THE PASSAGES:\n", 1)[1].split("\nTHE QUESTION:", 1)[0]
        print("From the passages:")
        for header, lines in blocks(passages)[:2]:
            print(f"- {first_text_line(lines)} ({header.split(' ', 1)[0]})")
        return 0
    print("answerer.py: no kb marker in this prompt", file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
