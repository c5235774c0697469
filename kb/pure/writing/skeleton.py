"""What `kb init` writes: the agent skeleton and the person skeleton, as values.

Rules of this module:
- A skeleton is an ordered tuple of (relative path, text). The order is the order of
  creation: the five memory folders first (each holds an empty `.gitkeep`, so git keeps the
  folder), then the agent's files. The published `skeletons/` folders are this value
  written to disk by `kb init` itself, and a drift test holds the two together.
- Functional lines are exact, because other verbs read them: the `Search for:` lines,
  `**Exists to:**`, the `agent.txt` keys, the `blocks.txt` blocks and the `.gitignore`
  rules. Everything around them is placeholder prose for the owner to replace.
- A fresh agent must pass `kb check` with zero findings: `index.md` carries twenty keys
  (W06 wants three), none dead (W07); no file has an em or en dash (W03); every `[[...]]`
  in `MAP.md` sits inside backticks (E01 would read it as a link to a missing note); the
  `.gitignore` covers the default private folders (W08).
- The agent's title is its name with the first character upper-cased (`newton` is
  `Newton`); the name itself has already passed `kb.pure.notes.names.is_usable_name`.
"""

from __future__ import annotations

from attrs import frozen

from kb.pure.notes.names import printable

MEMORY_FOLDERS = ("knowledge", "inbox", "decisions", "protocols", "templates")
PERSON_DIR = "person"


@frozen
class Skeleton:
    """The files of one new base, and the number `kb init` reports for it."""

    files: tuple[tuple[str, str], ...]
    reported: int  # agent: folders plus top-level files (12); person: files (5)

    def paths(self) -> tuple[str, ...]:
        return tuple(rel for rel, _ in self.files)


def title_of(name: str) -> str:
    return name[:1].upper() + name[1:]


# -- the agent ---------------------------------------------------------------------------


def agent_search_line(name: str) -> str:
    lower = name.lower()
    keys = (
        lower,
        f"agente {lower}",
        f"funcao do {lower}",
        f"role of {lower}",
        "operating instructions",
        "instrucoes de operacao",
        "constituicao",
        "constitution",
        "ordem de leitura",
        "reading order",
        "limites",
        "limits",
        "limite declarado",
        "declared limit",
        "escopo",
        "scope",
        "papel",
        "role",
        "competencia",
        "capability",
    )
    return "**Search for:** " + ", ".join(f"`{k}`" for k in keys)


def _agents_md(title: str) -> str:
    return f"""# {title}

You are **{title}**.

Read `index.md` before anything else. It is the master file: who you are, how you work,
the standard an answer has to meet, how far you may act without asking, where each folder's
contents belong, and the protocols you follow.

These rules hold in every session, whatever else `index.md` says:

- Explain a result by naming the mechanism that produced it.
- When a choice is open, lay out two options and what each one leads to.
- Say plainly which parts you have not verified.
- Never report that something works before you have run it and watched it work.
- No em dashes and no en dashes, in any file or any reply.
- Commit with `kb commit <path>... -m "message"` and name every path you changed. Other
  sessions write to this same tree, and a hook refuses a plain `git commit`.
"""


def _index_md(name: str, title: str) -> str:
    return f"""# {title}, operating instructions

> `kb init` wrote this file. Every section below is a placeholder for the owner to replace.

{agent_search_line(name)}

> Replace the line above with thirty to seventy terms that belong to {title} alone: the
> words somebody types when the question is one this agent should answer, in every
> language the fleet is asked in.

**Exists to:** Say what {title} is for, what it is asked, and where it stops

## Who this agent is

Placeholder. Describe {title}'s field, the people who bring it questions, and the kind of
answer it owes them.

## Reading order

1. `index.md`, this file: identity, method and limits.
2. `agent.txt`, the manifest the router reads: name, role, and where the agent ends.
3. `MAP.md`, the reading list of everything this base holds.

## What this agent never does

Placeholder. List the requests {title} passes to another agent or turns down, and why.
"""


def _map_md(title: str) -> str:
    return f"""# MAP: the knowledge base map

> Read this file right after `index.md`. Notes point at each other with `[[file-name]]`
> links; in this file they are always written inside backticks, so that `kb check` reads
> them as examples and not as links. A new file gets its entry here in the same change
> that creates it.

---

## Folder structure

| Folder | What it holds |
|---|---|
| `knowledge/` | Distilled notes: what {title} has learned and checked |
| `inbox/` | Raw material waiting to be distilled |
| `decisions/` | Choices made, with their reasons and the options turned down |
| `protocols/` | Procedures the agent follows step by step |
| `templates/` | Shapes for new files |

---

## Current contents

Nothing yet. An entry is one line of a reading list: a `[[link]]` and one sentence on what
the note holds. The keys are not kept here; they live in the note itself, on its
`**Search for:**` header line, which `kb write` fills in.
"""


def _agent_txt(title: str) -> str:
    return f"""# agent.txt: the manifest the router reads for this agent.
# Each line is `key = value`; anything after a # is a comment.

name = {title}
role =

# The private layer: folders never served without --all and never published.
# While the line below stays commented, these three folders are the default.
# `private = .` makes the whole base private.
# private = profile/, projects/, records/

# Where this agent stops: the kinds of request it should hand to someone else.
# The classifier reads this when it decides who answers.
ends =
"""


def _blocks_txt() -> str:
    return """# blocks.txt: the files this agent keeps resident in its prompt, block by block.
# Blocks run from the most stable to the least stable. A change to one file
# invalidates the cached prompt from its block onwards, so files that rarely
# change go first and files that change every session go last.
# A block marked on-demand is not resident: it is loaded only when asked for.

[identity]
AGENTS.md
index.md

[user]
../person/core.md

[map]
MAP.md

[session] on-demand
"""


def _aliases_txt() -> str:
    return """# kb-aliases.txt: extra words for the router, one `alias = canonical` per line.
# When a question contains the alias, the canonical word is added to it; no word
# is ever taken away. Anything after a # is a comment.
#
# Add a line only after a real question missed a note it should have found, and
# use the words that question actually used.
"""


def _agent_gitignore() -> str:
    return """# .kb/ holds the derived index: rebuilt from the markdown whenever it is missing.
# profile/, records/ and projects/ are the default private layer (see agent.txt):
# kb never serves them without --all, and git must never publish them either.
# In inbox/, raw deposits stay local except top-level markdown, the folder
# structure, .gitkeep files and SOURCES.md lists.
.kb/
profile/
records/
projects/
inbox/**
!inbox/*.md
!inbox/**/
!inbox/**/.gitkeep
!inbox/**/SOURCES.md
"""


def agent_skeleton(name: str) -> Skeleton:
    title = title_of(name)
    folders = tuple((f"{folder}/.gitkeep", "") for folder in MEMORY_FOLDERS)
    files = (
        ("AGENTS.md", _agents_md(title)),
        ("index.md", _index_md(name, title)),
        ("MAP.md", _map_md(title)),
        ("agent.txt", _agent_txt(title)),
        ("blocks.txt", _blocks_txt()),
        ("kb-aliases.txt", _aliases_txt()),
        (".gitignore", _agent_gitignore()),
    )
    return Skeleton(files=folders + files, reported=len(MEMORY_FOLDERS) + len(files))


# -- the person ----------------------------------------------------------------------------

CORE_SEARCH_LINE = (
    "**Search for:** `who am i`, `quem sou eu`, `quem e o usuario`, `sobre mim`, `user`, "
    "`usuario`, `humano`, `pessoa`, `dono`, `owner`, `perfil`, `profile`, `identidade`, "
    "`identity`, `nome`, `name`, `onde moro`, `cidade`, `fuso`, `timezone`, `idioma`, "
    "`language`, `portugues`, `ingles`, `como trabalho`, `how i work`, `como me tratar`, "
    "`preferencias`, `preferences`, `maquina`, `machine`, `notebook`, `hardware`, `setup`"
)
WORK_SEARCH_LINE = (
    "**Search for:** `work`, `trabalho`, `emprego`, `job`, `carreira`, `career`, `cargo`, "
    "`role`, `empresa`, `company`, `time`, `team`, `stack`, `tecnologias`, `linguagens`, "
    "`languages`, `ferramentas`, `tools`, `nivel`, `level`, `senioridade`, `experiencia`, "
    "`experience`, `projetos`, `projects`, `o que eu faco`, `what i do`, `cliente`, "
    "`clients`, `freelance`, `renda`, `income`"
)
PRESENCE_SEARCH_LINE = (
    "**Search for:** `presence`, `presenca`, `publico`, `public`, `posicionamento`, "
    "`positioning`, `marca pessoal`, `personal brand`, `portfolio`, `site`, `website`, "
    "`blog`, `redes`, `social`, `linkedin`, `github`, `twitter`, `instagram`, `objetivo`, "
    "`goal`, `meta`, `onde quero chegar`, `como me acham`, `reputacao`, `reputation`, "
    "`audiencia`, `audience`, `visibilidade`, `oportunidades`, `opportunities`"
)


def _person_map() -> str:
    return """# MAP: who the person is

> This folder is a base, not an agent: it describes the person the whole fleet works for.
> Every agent keeps `core.md` resident through the `[user]` block of its blocks.txt, which
> points at `../person/core.md`. The shape of this base may be shared; what is written in
> it may not.

---

> The entries below are a reading list. The keys that bring a question here are not in
> this map; each file carries its own on its header line.

- **[[core]]** Resident in every agent, so keep it short: who the person is, how to work with them.
- **[[work]]** Retrieved. Employment, stack, an honest level and current projects.
- **[[presence]]** Retrieved. The public side: the goal, the channels, and what stays private.
"""


def _person_gitignore() -> str:
    return """# .kb/ is the derived index, built from these files and safe to delete:
# the next kb command that needs it builds it again.
.kb/
"""


def _core_md() -> str:
    return f"""# The person, core

{CORE_SEARCH_LINE}

> Every agent carries this file resident, so each line of it is paid for in every
> session. Keep it short, and replace all of it: what follows is a placeholder.

| Field | Value |
|---|---|
| Name | (your name) |
| Role here | (what you do in this fleet) |
| Languages | (the languages you read and write) |
| Machine | (the computer and system the fleet runs on) |

## How to work with them

- (how direct to be, and how long an answer should run)
- (what to check before acting)
- (what to ask about before deciding)
- (what never to do without asking first)

## Where the rest is

| File | What it holds |
|---|---|
| `work.md` | Employment, stack, level and projects |
| `presence.md` | The public side, and what may never be published |

Whatever an agent does not need in every session belongs in one of those two files.
"""


def _work_md() -> str:
    return f"""# The person at work

{WORK_SEARCH_LINE}

> Retrieved, not resident: an agent reads this file only when a question calls for it, so
> it may run as long as it needs to.

## Employment

(Where you work, in what role, and since when.)

## Stack

(The languages, tools and platforms you use from day to day.)

## Level, honestly assessed

(Where you are strong, where you are still learning, and what you have never done. An
agent that knows this pitches its answers at the right height instead of guessing.)

## Projects

(What you are building now, and what each project is for.)
"""


def _presence_md() -> str:
    return f"""# The person in public

{PRESENCE_SEARCH_LINE}

> Retrieved, not resident. Fill it in when the fleet should help with how you appear in
> public.

## The goal

(What being seen is meant to bring you: work, clients, a network, nothing at all.)

## The public surface

(Your site, profiles and channels, and what each one is for.)

## What may never be published

(Names, clients, figures and anything else no agent may ever put in public, however
useful it would look.)
"""


def person_skeleton() -> Skeleton:
    files = (
        ("MAP.md", _person_map()),
        (".gitignore", _person_gitignore()),
        ("core.md", _core_md()),
        ("work.md", _work_md()),
        ("presence.md", _presence_md()),
    )
    return Skeleton(files=files, reported=len(files))


# -- what init says ------------------------------------------------------------------------


def agent_report(path: str, reported: int) -> str:
    return (
        f"created {path}\n"
        f"  {reported} files and directories\n"
        "  served as it stands: no repository is needed, and none was created\n"
        "\n"
        "Next: fill in agent.txt's role, then index.md. Both are placeholders,\n"
        "and a generated file left unedited is a file nobody owns.\n"
    )


def person_report(path: str, reported: int) -> str:
    return (
        f"wrote {path}\n"
        f"  {reported} files, no agent.txt: the router reads it and can never\n"
        "  choose it as the one who answers, because a person is not an agent.\n"
        "\n"
        "Next: fill core.md. Every agent carries it resident, so a fleet\n"
        "whose person is blank gives generic answers confidently.\n"
    )


def bad_name(name: str) -> str:
    name = printable(name)
    return (
        f"'{name}' is not a usable agent name. Use lowercase letters, digits and hyphens: "
        "the name becomes a directory, and a directory name that needs quoting is one every "
        "later command has to quote."
    )


def already_exists(path: str) -> str:
    path = printable(path)
    return (
        f"{path} already exists. Refusing to write into it: an agent half overwritten is "
        "worse than one not created."
    )


def cannot_write(path: str, error: str) -> str:
    return f"cannot write {printable(path)}: {printable(error)}"
