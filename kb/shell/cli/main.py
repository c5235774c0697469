"""`kb`: the command-line projection of the command table.

Top-level words (help, version, completion, unknown verbs) are decided here; each verb's own
arguments are parsed by cyclopts from the verb's typed input class, and every parse failure
becomes one line on stderr naming the flag and what it takes, with exit 2. `kb help <verb>`
and `kb <verb> --help` print that verb's help (kb.shell.cli.verbhelp), imported only then.
Whatever a verb prints passes `terminal_safe` on its way out (issue 24): control
characters are escaped there once, for every verb, whatever renderer made the text.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Sequence
from functools import partial
from typing import Annotated, Any

from kb.shell.cli.outcome import Outcome
from kb.shell.cli.table import BY_NAME, Command, usage_text, verb_usage


def version_line() -> str:
    import platform  # only `--version` asks what machine this is

    from kb.version import __version__, build_sha

    system = {"Darwin": "macos"}.get(platform.system(), platform.system().lower())
    return f"kb {__version__} ({build_sha()}, {platform.machine()} {system})\n"


def _parse(command: Command, args: Sequence[str]) -> Any | Outcome:
    from cyclopts import App, CycloptsError, MissingArgumentError, Parameter
    from cyclopts.exceptions import UnknownOptionError

    app = App(
        name=f"kb {command.name}",
        help_flags=[],
        version_flags=[],
        result_action="return_value",
        default_parameter=Parameter(negative=()),
    )

    def capture(value: Any = None) -> Any:
        # A verb whose every argument is optional gets None when none was given.
        return command.input_type() if value is None else value

    # Real objects, not strings: cyclopts resolves the annotation to flatten the input class.
    capture.__annotations__ = {
        "value": Annotated[command.input_type | None, Parameter(name="*")],
        "return": Any,
    }
    app.default(capture)
    if command.needs and not _positionals(command, args):
        return usage_error(command, f"{command.needs}\n\n")
    try:
        return app(list(args), exit_on_error=False, print_error=False)
    except UnknownOptionError as e:
        return usage_error(command, _unknown_flag(command.name, e.token.keyword or e.token.value))
    except (CycloptsError, MissingArgumentError) as e:
        return usage_error(command, f"kb {command.name}: {_one_line(e)}\n")
    except (ValueError, TypeError) as e:  # a validator on the input class refused a value
        return usage_error(command, f"kb {command.name}: {e}\n")


def usage_error(command: Command, stderr: str) -> Outcome:
    """A usage error of one verb: its line on stderr, that verb's own usage on stdout (never
    the whole verb list), exit 2. A hook's stdout goes into the model's prompt, so a hook
    verb prints its line alone."""
    return Outcome(stdout="" if command.hook else verb_usage(command), stderr=stderr, code=2)


def _positionals(command: Command, args: Sequence[str]) -> list[str]:
    """The arguments that are neither flags nor the value right after a value flag."""
    import attrs

    value_flags = {
        f"--{a.name.replace('_', '-')}"
        for a in attrs.fields(command.input_type)
        if a.type not in (bool, "bool")
    }
    out: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in value_flags:
            skip = True
        elif not arg.startswith("-"):
            out.append(arg)
    return out


def _unknown_flag(verb: str, flag: str) -> str:
    """One line: the flag that is not one, and the flags the verb has. Said by us rather
    than cyclopts, whose nearest-name guess can offer a positional (`--question`)."""
    from kb.shell.cli.verbhelp import flag_names

    legal = ", ".join(flag_names(verb)) or "none"
    return (
        f"kb {verb}: Unknown option: {flag}. The flags of kb {verb} are {legal}; "
        f"`kb help {verb}` says what each does\n"
    )


def _one_line(error: Exception) -> str:
    text = " ".join(str(error).split())
    return text or type(error).__name__


def _clean(arg: str) -> str:
    """Bytes that are not UTF-8 in an argument become U+FFFD instead of a crash later."""
    return arg.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


HELP_FLAGS = ("-h", "--help")


def _help(args: Sequence[str]) -> Outcome | None:
    """`kb help [verb]`, `kb <verb> --help`, `kb --help [verb]`; None when no help was asked."""
    if not args:
        return Outcome(stdout=usage_text())
    if args[0] == "help":
        wanted = args[1] if len(args) > 1 else None
    elif any(a in HELP_FLAGS for a in args):
        first = args[1] if args[0] in HELP_FLAGS and len(args) > 1 else args[0]
        wanted = first if first in BY_NAME else None
    else:
        return None
    if wanted is None or wanted in ("help", "version"):
        return Outcome(stdout=usage_text())
    command = BY_NAME.get(wanted)
    if command is None:
        verbs = ", ".join(sorted(BY_NAME))
        meant = _meant(wanted)
        guess = f"; did you mean `kb help {meant}`?" if meant in BY_NAME else "."
        return Outcome(stderr=f"kb help: no verb '{wanted}'{guess} The verbs are {verbs}\n", code=2)
    from kb.shell.cli.verbhelp import help_text

    return Outcome(stdout=help_text(command.name, command.summary, command.usage))


def _meant(word: str) -> str | None:
    """The verb (or top-level word) `word` most probably misspells, if one is close."""
    from kb.pure.notes.spelling import nearest

    return nearest(word, [*BY_NAME, "help", "version"])


def _unknown_verb(args: Sequence[str]) -> Outcome:
    """A first word that is no verb. Close to one (`kb rout "q"`): one line naming the verb it
    probably meant, and nothing on stdout. Else the line, and the verb list on stdout."""
    word = args[0]
    meant = _meant(word) if not word.startswith("-") else None
    if meant is None:
        return Outcome(stdout=usage_text(), stderr=f"kb: unknown command '{word}'\n\n", code=2)
    return Outcome(
        stderr=f"kb: unknown command '{word}'; did you mean `kb {meant}`? "
        f"(`kb help` lists the verbs)\n",
        code=2,
    )


def run(argv: Sequence[str], streamed: bool = False) -> Outcome:
    """What `kb ARGV` prints and exits with. `streamed`: the output of a verb that makes it
    piece by piece stays in `Outcome.rest`, for a caller that prints each piece as it comes
    (`main`); otherwise it is joined into `stdout`."""
    args = [_clean(a) for a in argv]
    asked = _help(args)
    if asked is not None:
        return asked
    if args[0] == "version" or "--version" in args or "-V" in args:
        return Outcome(stdout=version_line())
    if args[0] == "--completion":
        from kb.shell.cli.completion import completion

        return completion(args[1:])
    command = BY_NAME.get(args[0])
    if command is None:
        return _unknown_verb(args)
    rest = [dict(command.aliases).get(a, a) for a in args[1:]]
    parsed = None
    if command.hot:
        from kb.shell.cli.fastargs import fast_parse

        parsed = fast_parse(command.input_type, rest)
    if parsed is None:
        parsed = _parse(command, rest)
    outcome = parsed if isinstance(parsed, Outcome) else command.run(parsed)
    code = 0 if command.hook else outcome.code
    stdout, pieces = outcome.stdout, outcome.rest
    if not streamed and pieces:
        stdout, pieces = stdout + "".join(pieces), ()
    return terminal_safe(Outcome(stdout=stdout, stderr=outcome.stderr, code=code, rest=pieces))


def terminal_safe(outcome: Outcome) -> Outcome:
    """What a verb prints, with every control character a note, a question or a model's
    reply carried escaped (kb.pure.notes.names.printable, lines kept): nothing kb prints can move
    the cursor, write the clipboard (OSC 52), retitle the window or reorder a line (bidi
    overrides). A JSON output is unchanged: its encoder escaped all of these already."""
    from kb.pure.notes.names import printable

    stdout, stderr = printable(outcome.stdout, lines=True), printable(outcome.stderr, lines=True)
    # each piece alone: a verb's pieces end at a line break (or, in JSON, hold no control
    # character), so no CR before an LF is split from it
    rest = map(partial(printable, lines=True), outcome.rest) if outcome.rest else ()
    if stdout is outcome.stdout and stderr is outcome.stderr and not rest:
        return outcome
    return Outcome(stdout=stdout, stderr=stderr, code=outcome.code, rest=rest)


def main(argv: Sequence[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if argv is None and args:
        command = BY_NAME.get(args[0])
        if command is not None and command.hot and not command.reads_every_note:
            # A hot verb's process answers once and exits, before cyclic garbage can matter;
            # the collector's passes over its thousands of headers cost 5-8% of `kb route`
            # at 10,000 notes (242-391 ms against 263-409 ms, six runs each way).
            gc.disable()
    outcome = run(args, streamed=True)
    try:
        if outcome.stdout:
            sys.stdout.write(outcome.stdout)
        for piece in outcome.rest:
            sys.stdout.write(piece)
        sys.stdout.flush()
    except BrokenPipeError:
        pass  # a reader that stopped early (`kb list | head`) is not an error of ours
    if outcome.stderr:
        sys.stderr.write(outcome.stderr)
    return outcome.code


if __name__ == "__main__":
    raise SystemExit(main())
