"""`kb --completion bash|zsh|fish`: a shell completion script for every verb and its flags.

cyclopts 5 writes the script (`App.generate_completion`) from an App; kb's CLI has no App of
all verbs (main.py parses one verb at a time, so `kb route` never assembles thirty), so one
is assembled here, from the same command table and input classes the parser reads, only
when a script is asked for. The scripts are static: nothing runs kb at TAB time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

from kb.shell.cli.outcome import Outcome
from kb.shell.cli.table import COMMANDS

SHELLS = ("bash", "zsh", "fish")


def completion(args: Sequence[str]) -> Outcome:
    shell = args[0] if len(args) == 1 else None
    if shell not in SHELLS:
        given = " ".join(args) or "nothing"
        return Outcome(
            stderr=(
                f"kb --completion takes one of {', '.join(SHELLS)}, not {given}. "
                'Load it with: eval "$(kb --completion bash)"\n'
            ),
            code=2,
        )
    return Outcome(stdout=script(shell))


def script(shell: str) -> str:
    from cyclopts import App, Parameter

    app = App(name="kb", help_flags=[], version_flags=[], default_parameter=Parameter(negative=()))
    for command in COMMANDS:

        def verb(value: Any = None) -> Any:
            return value

        # As in main._parse: the input class, flattened into the verb's flags.
        verb.__annotations__ = {
            "value": Annotated[command.input_type | None, Parameter(name="*")],
            "return": Any,
        }
        verb.__doc__ = command.summary
        app.command(verb, name=command.name)
    text: str = app.generate_completion(prog_name="kb", shell=shell)  # type: ignore[arg-type]
    return text if text.endswith("\n") else text + "\n"
