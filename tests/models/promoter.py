#!/usr/bin/env python3
"""A deterministic promoter for `kb promote`, `kb ingest` and `kb consolidate`.

Usage (as the `promoter =` command line): promoter.py MODES [--log FILE]

MODES is a comma list; each mode adds its proposals to the reply, in order:
  good        one well-formed note distilled from the deposit (slug from the file's name)
  outside     a note aimed at tools/, which no promotion may write
  inbox       a note aimed at inbox/, the short memory itself
  dashed      a note whose body carries an em dash (kb write refuses it at the write)
  many:K      K well-formed notes
  malformed   prose that mentions PROPOSAL but never forms a block
  nothing     the word NOTHING
  consolidate for a consolidation prompt: one candidate citing two gathered sessions, one
              citing one session, one citing a session that does not exist, one aimed at
              tools/ citing two sessions
  crash       print a good proposal, then exit 3 (did not answer)
With --log FILE, every prompt is appended to FILE followed by `=== END PROMPT ===`.
"""

import re
import sys

END = "=== END PROMPT ==="


def arg(name: str) -> str | None:
    if name in sys.argv:
        i = sys.argv.index(name)
        return sys.argv[i + 1] if i + 1 < len(sys.argv) else None
    return None


def slugify(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def source_of(prompt: str) -> str:
    found = re.search(r"^THE DEPOSIT FILE: (.*)$", prompt, re.MULTILINE)
    return found.group(1).strip() if found else "unknown"


def deposit_lines(prompt: str) -> list[str]:
    """The deposit's prose lines: past its front matter, no headings or labelled lines."""
    part = prompt.split("THE DEPOSIT FILE:", 1)[-1].split("\n---\n", 1)[-1]
    part = part.split("\n---\n\nRULES", 1)[0]
    lines = part.split("\n")
    if lines and lines[0].strip() == "---":
        close = next((i for i, ln in enumerate(lines[1:], 1) if ln.strip() == "---"), 0)
        lines = lines[close + 1 :]
    out = []
    for ln in lines:
        if ln.strip().startswith(("**", "#")):
            continue
        s = ln.strip().lstrip("-* ").strip()
        if not s or re.match(r"^\w+:\s", s):
            continue
        out.append(s.replace("\u2014", ",").replace("\u2013", ","))
    return out


def block(slug: str, folder: str, summary: str, keys: str, body: str, extra: str = "") -> str:
    return (
        f"PROPOSAL\nslug: {slug}\nfolder: {folder}\nsummary: {summary}.\nkeys: {keys}\n"
        f"{extra}body:\n{body}\nEND\n"
    )


KEYS = (
    "certificate renewal, renovacao de certificado, cert-manager token, dns challenge, "
    "desafio dns, staging gateway, `letsencrypt`"
)


def good(prompt: str, n: int | None = None) -> str:
    source = source_of(prompt)
    stem = source.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    slug = ("note-" + slugify(stem))[:34].strip("-") + (f"-{n}" if n is not None else "")
    lines = deposit_lines(prompt)[:3] or ["(the deposit said nothing in prose)"]
    body = f"# What {stem} taught\n\n" + "\n".join(f"- {ln}" for ln in lines)
    return block(slug, "knowledge", f"What the deposit {stem} taught", KEYS, body)


def consolidate(prompt: str) -> str:
    ids = re.findall(r"^SESSION: (.*)$", prompt, re.MULTILINE)
    first, second = [*ids, "none", "none"][:2]
    body = "# Recurring\n\nThe same blocker came back in two sessions: the staging token."
    keys = "staging token rotation, rotacao de token, recurring blocker, bloqueio recorrente"
    return (
        block(
            "recurring-staging-token",
            "knowledge",
            "A blocker that recurs",
            keys,
            body,
            f"sources: {first}, {second}\n",
        )
        + block("seen-once", "knowledge", "Seen once", keys, body, f"sources: {first}, {first}\n")
        + block(
            "invented-session",
            "knowledge",
            "Cites a ghost",
            keys,
            body,
            f"sources: {first}, ghost-session\n",
        )
        + block(
            "recurring-tool", "tools", "A tool note", keys, body, f"sources: {first}, {second}\n"
        )
    )


def main() -> int:
    prompt = sys.stdin.buffer.read().decode("utf-8", "replace")
    log = arg("--log")
    if log:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(prompt + END + "\n")
    out = []
    for mode in sys.argv[1].split(","):
        if mode == "good":
            out.append(good(prompt))
        elif mode == "outside":
            out.append(
                block(
                    "grafana-runbook",
                    "tools",
                    "How to restart Grafana",
                    KEYS,
                    "Restart it from the systemd unit.",
                )
            )
        elif mode == "inbox":
            out.append(
                block(
                    "back-to-inbox",
                    "inbox",
                    "A note aimed at the deposit",
                    KEYS,
                    "This would land in the short memory.",
                )
            )
        elif mode == "dashed":
            out.append(
                block(
                    "dashed-note",
                    "knowledge",
                    "A note with a dash",
                    KEYS,
                    "Renewals failed \u2014 silently.",
                )
            )
        elif mode.startswith("many:"):
            out += [good(prompt, n) for n in range(1, int(mode[5:]) + 1)]
        elif mode == "malformed":
            out.append("I would propose a note. PROPOSAL slug: maybe\nsummary: not sure\n")
        elif mode == "nothing":
            out.append("NOTHING\n")
        elif mode == "consolidate":
            out.append(consolidate(prompt))
        elif mode == "crash":
            sys.stdout.write(good(prompt))
            return 3
    sys.stdout.write("".join(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
