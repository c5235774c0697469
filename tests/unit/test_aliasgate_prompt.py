"""The promoter's prompt for `kb misses --apply`, pinned, and its reply parser."""

from __future__ import annotations

from kb.pure.promotion.aliasgate import BaseVocabulary, parse_reply, prompt
from tests.conftest import check_golden


def test_prompt_golden() -> None:
    text = prompt(
        "remolho do grao",
        ("arroz e feijao",),
        (BaseVocabulary("bruno", ("feijao", "beans", "soak beans")), BaseVocabulary("ada", ())),
    )
    check_golden("misses_apply/prompt.txt", text)


def test_parse_reply() -> None:
    reply = parse_reply("a\tb\tc\nprose\nd\te\tf\ng\th\ti\nj\tk\tl\n")
    assert [c.line for c in reply.candidates] == ["b = c", "e = f", "h = i"]
    assert parse_reply("none\n").declined
    assert parse_reply("prose only\n").unparseable
