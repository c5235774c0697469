#!/usr/bin/env python3
"""echo_model: a deterministic, offline stand-in for a language model.

It reads a prompt on stdin, recognises which kb role sent it by the prompt's markers, and
answers in that role's format with nothing but word overlap: no network, no key, no
randomness. Good enough to demo every verb that calls a model; never good enough to trust.

  answerer (kb answer)        cites the passages that share the most words with the question
  map / reduce (--complete)   lists matching lines as dated facts; counts them
  classifier (kb boot)        names the owner of the top file retrieval found
  promoter (kb promote)       proposes one note from a deposit's title, keys and bullets
  reviewer (kb promote)       accepts, unless the evidence already holds the note's first line

A prompt it does not recognise gets a one-line reason on stderr and exit status 1, which kb
reads as "did not answer". The example fleet names it in its fleet.txt as
`answerer = models/echo_model.py` (the path is relative to the fleet root, so a copy of the
fleet keeps it).
"""

from __future__ import annotations

import re
import sys
import unicodedata

_STOPWORD_TEXT = """
    a an and are as at be been but by can do does did for from had has have how i if in into
    is it its me my no not of on or our should so than that the their them then there these
    they this to was we were what when where which who why will with would you your about
    after before over under again also just only very many much time times
    o os as um uma uns umas e ou de da das do dos em no na nos nas por para com sem que se
    qual quais quando onde como porque mais menos muito muita ja nao sim eu voce ele ela
    meu minha seu sua isso isto esse essa este esta tem ter foi ser sao fica ao aos
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
SHORT = "[SHORT MEMORY"
MAX_FACTS_PER_FILE = 3
COUNTING = ("how many", "how often", "quantos", "quantas", "quantas vezes", "quantos dias")


def fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def plain(text: str) -> str:
    """Folded words only, one space apart: punctuation and markup never decide a match."""
    return " ".join(re.findall(r"[a-z0-9]+", fold(text)))


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", fold(text)) if len(w) > 2 and w not in STOPWORDS}


def section(prompt: str, start: str, end: str | None) -> str:
    """The text after the line `start` and before the line `end` (or the end of the prompt)."""
    _, found, rest = prompt.partition(start)
    if not found:
        return ""
    if end is not None:
        rest = rest.split(end, 1)[0]
    return rest


def question_of(prompt: str) -> str:
    return section(prompt, "THE QUESTION:\n", None).strip()


def clean(line: str) -> str:
    line = line.strip()
    while line[:2] in ("- ", "* ", "+ "):
        line = line[2:].strip()
    return line.replace("**", "").strip()


def useful(line: str) -> bool:
    stripped = line.strip()
    if not stripped or stripped == "---" or stripped.startswith(("#", "|", "```")):
        return False
    if re.match(r"^[A-Za-z_]+:\s", stripped) and len(stripped.split()) <= 3:
        return False  # a front-matter field such as `stage: raw`
    # the purpose line says what a file is for, not what it states
    return not fold(clean(stripped)).startswith(("exists to:", "existe para:"))


def units(lines: list[str]) -> list[str]:
    """Sentences and list items: wrapped lines of one paragraph are joined first."""
    out: list[str] = []
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            text = " ".join(paragraph)
            out.extend(s for s in re.split(r"(?<=[.!?])\s+", text) if s)
            paragraph.clear()

    for line in lines:
        if not useful(line):
            flush()
        elif line.strip().startswith(("- ", "* ", "+ ")) or re.match(r"^\s*\d+\. ", line):
            flush()
            paragraph.append(clean(re.sub(r"^\s*\d+\. ", "", line)))
        else:
            paragraph.append(clean(line))
    flush()
    return out


def blocks(text: str) -> list[tuple[str, list[str]]]:
    """`--- header` blocks: (header line without the dashes, the lines under it)."""
    out: list[tuple[str, list[str]]] = []
    for line in text.split("\n"):
        if line.startswith("--- "):
            out.append((line[4:], []))
        elif out:
            out[-1][1].append(line)
    return out


# -- kb answer (fast and expanded) -----------------------------------------------------------


def answerer(prompt: str) -> str:
    asked = words(question_of(prompt))
    guess = "verdict: a guess" in prompt
    candidates: list[tuple[int, int, str, str, bool, str | None]] = []
    passages = section(prompt, "THE PASSAGES:\n", "\nTHE QUESTION:")
    for order, (header, lines) in enumerate(blocks(passages)):
        path = header.split(" ", 1)[0]
        short = SHORT in header
        origin = re.search(r"\[captured from ([^\]]*)\]", header)
        for text in units(lines):
            overlap = len(asked & words(text))
            if overlap:
                candidates.append(
                    (overlap, -order, text, path, short, origin.group(1) if origin else None)
                )
    if not candidates:
        return "The library does not hold this: no passage shares a word with the question.\n"
    candidates.sort(key=lambda c: (-c[0], -c[1]))
    chosen: list[tuple[int, int, str, str, bool, str | None]] = []
    for c in candidates:
        if len(chosen) == 2:
            break
        if all(c[2] != k[2] for k in chosen):
            chosen.append(c)
    lines = []
    if guess:
        lines.append("Retrieval calls this a guess, so read these as leads, not as the answer.")
    lines.append("From the library:")
    for _, _, text, path, short, origin in chosen:
        note = " This rests on a recent note nobody has reviewed yet." if short else ""
        came = f" It was captured from {origin}." if origin else ""
        lines.append(f"- {text} ({path}){note}{came}")
    return "\n".join(lines) + "\n"


# -- kb answer --complete: map and reduce ----------------------------------------------------


def mapper(prompt: str) -> str:
    asked = words(question_of(prompt))
    files = section(prompt, "\n--- ", "\nTHE QUESTION:")
    out: list[str] = []
    for header, lines in blocks("--- " + files if files else ""):
        name = header.split(" ", 1)[0]
        dated = DATE.search(name) or DATE.search("\n".join(lines))
        date = dated.group(0) if dated else "undated"
        facts = [u for u in units(lines) if asked & words(u)][:MAX_FACTS_PER_FILE]
        if facts:
            out.append(f"FILE {name}: facts below")
            out += [f"- {fact} ({name}, {date})" for fact in facts]
        else:
            out.append(f"FILE {name}: no relevant mention")
    return "\n".join(out) + "\n"


def reducer(prompt: str) -> str:
    question = question_of(prompt)
    facts = [
        line.strip()
        for line in section(prompt, "THE FACTS:\n", "\nTHE QUESTION:").split("\n")
        if line.strip().startswith("- ")
    ]
    lines = ["CANDIDATES:"] + [f"{fact} counted" for fact in facts]
    if not facts:
        lines.append("ANSWER: the library does not hold this")
    elif fold(question).startswith(COUNTING):
        lines.append(f"ANSWER: {len(facts)}")
    else:
        lines.append(f"ANSWER: {facts[0][2:]}")
    if len(facts) > 1:
        lines.append(f"{len(facts)} facts bear on the question; the answer leads with the first.")
    return "\n".join(lines) + "\n"


# -- kb boot: the classifier -----------------------------------------------------------------


def classifier(prompt: str) -> str:
    roster_text = section(
        prompt, "THE FLEET, and these names are the only ones you may choose:\n", "\n\n"
    )
    roster = [
        line.strip()
        for line in roster_text.split("\n")
        if line.startswith("  ") and not line.startswith("   ")
    ]
    found = re.search(r"^  \[\w+\] ([^/\s]+)/", prompt, re.MULTILINE)
    owner = found.group(1) if found and found.group(1).lower() in roster else None
    if owner is None:
        return (
            "SUBJECT: outside the fleet\nREASON: No file any agent holds matched the message.\n"
            "COVERAGE: uncovered\nOWNER: none\nREVIEWERS: none\n"
        )
    coverage = "covered" if "Verdict: a hit" in prompt else "adjacent"
    return (
        f"SUBJECT: {owner}'s ground\nREASON: The top file retrieval found belongs to {owner}.\n"
        f"COVERAGE: {coverage}\nOWNER: {owner}\nREVIEWERS: none\n"
    )


# -- kb promote: the promoter and the reviewer -----------------------------------------------


def slug_of(text: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", fold(text)).strip("-")
    return slug[:60].strip("-") or "note"


def promoter(prompt: str) -> str:
    deposit = section(prompt, "THE DEPOSIT FILE:", "\nPROPOSAL")
    title = next((ln[2:].strip() for ln in deposit.split("\n") if ln.startswith("# ")), "")
    bullets = [clean(ln) for ln in deposit.split("\n") if ln.strip().startswith("- ")]
    bullets = [b for b in bullets if b and not b.lower().startswith(("propose", "one note"))]
    if not title or not bullets:
        return "NOTHING\n"
    keyline = re.search(r"(?im)^\W*search for\W*:\**\s*(.+)$", deposit)
    keys = (
        [k.strip(" `*") for k in keyline.group(1).split(",") if k.strip(" `*")]
        if keyline
        else sorted(words(title))
    )
    summary = title.replace("\u2014", ",").replace("\u2013", ",").rstrip(".")
    body = "\n".join(f"- {b}" for b in bullets).replace("\u2014", ",").replace("\u2013", ",")
    return (
        f"PROPOSAL\nslug: {slug_of(title)}\nfolder: knowledge\nsummary: {summary}\n"
        f"keys: {', '.join(keys)}\nbody:\n# {summary}\n\n{body}\nEND\n"
    )


def reviewer(prompt: str) -> str:
    note = section(prompt, "THE PROPOSED NOTE", None)
    body = section(note, "---\n", "\n---")
    first = next((clean(ln) for ln in body.split("\n") if ln.strip().startswith("- ")), "")
    lens = section(prompt, "YOUR ONE QUESTION:", "\n").lower()
    if "duplicat" in lens or "already" in lens:
        for holds in re.findall(r"^\s*holds: (.*)$", prompt, re.MULTILINE):
            if first and plain(first)[:60] in plain(holds):
                path = re.search(r"^\d+\. (\S+)", prompt, re.MULTILINE)
                where = path.group(1) if path else "a listed file"
                return f"VERDICT: reject\nREASON: {where} already holds this line.\n"
    return "VERDICT: accept\nREASON: Nothing in the evidence shown contradicts or repeats it.\n"


# -- dispatch --------------------------------------------------------------------------------


def reply_to(prompt: str) -> str | None:
    if "YOUR ONE QUESTION:" in prompt and "THE PROPOSED NOTE" in prompt:
        return reviewer(prompt)
    if "THE DEPOSIT FILE:" in prompt:
        return promoter(prompt)
    if "SESSION:" in prompt and "PROPOSAL" in prompt:
        return "NOTHING\n"  # consolidation needs judgement across sessions; abstain honestly
    if "THE MESSAGE:" in prompt and "OWNER:" in prompt:
        return classifier(prompt)
    if "THE FACTS:" in prompt and "ANSWER:" in prompt:
        return reducer(prompt)
    if "facts below" in prompt and "no relevant mention" in prompt:
        return mapper(prompt)
    if "THE PASSAGES:" in prompt:
        return answerer(prompt)
    return None


def main() -> int:
    prompt = sys.stdin.buffer.read().decode("utf-8", "replace")
    reply = reply_to(prompt)
    if reply is None:
        print("echo_model: this prompt carries no marker of a kb role it knows", file=sys.stderr)
        return 1
    sys.stdout.write(reply)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
