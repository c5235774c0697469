"""`/api/chat`: one message to the configured runtime, its events back as server-sent events.

Refusals come before any process starts, each as one `error` event followed by `done`: an
empty message routes nowhere, a session id of the wrong shape is refused, and with no
runtime configured the panel is told how to configure one. After the run, the session
file `kb boot` keeps under the first root names the agent that answered (`routed`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

from kb.io.roles.chatrun import Ended, stream
from kb.io.roles.model import model_timeout, split_command
from kb.pure.render.uiapi import EMPTY_MESSAGE
from kb.pure.roles.chat import (
    BAD_SESSION,
    NOT_CONFIGURED,
    ChatEvent,
    Kind,
    chat_argv,
    events_of_line,
    routed_line,
    sse,
    valid_session,
)
from kb.shell.ui.room import Reader


async def chat_events(reader: Reader, message: str, session: str) -> AsyncIterator[str]:
    seq = 0

    def emit(kind: Kind, text: str) -> str:
        nonlocal seq
        seq += 1
        return sse(seq, ChatEvent(kind, text))

    session = session.strip()
    refusal = None
    command = reader.room.chat_command
    if not message.strip():
        refusal = EMPTY_MESSAGE
    elif session and not valid_session(session):
        refusal = BAD_SESSION
    elif command is None:
        refusal = NOT_CONFIGURED
    words: list[str] = []
    if refusal is None and command is not None:
        try:
            words = split_command(command)
        except ValueError as e:
            refusal = f"the chat command line cannot be split: {e}"
    if refusal is None and command is not None:
        from kb.io.fleet.trust import refusal as unapproved  # fleet.txt's, when it came with a pull

        refusal = unapproved(command, Path(reader.room.first_root))
    if refusal is not None:
        yield emit("error", refusal)
        yield emit("done", session)
        return
    first_root = reader.room.first_root
    known = session or None
    argv = chat_argv(words, known)
    async for item in stream(argv, message, Path(first_root), model_timeout()):
        if isinstance(item, Ended):
            if item.reason:
                yield emit("error", item.reason)
            break
        for event in events_of_line(item):
            if event.kind == "session":
                if not valid_session(event.text):
                    continue  # an id we would refuse next time is not one to hand back
                known = event.text
            yield emit(event.kind, event.text)
    if known:
        agent = reader.room.session_agent(known)
        if agent:
            yield emit("routed", routed_line(agent))
    yield emit("done", known or "")
