"""The framework adapters against the real packages (issue 26): LangChain and LlamaIndex
retrievers on sync, async and threaded paths, and the OpenAI Agents SDK talking to
`kb serve` through its own MCP client. CI installs all three (the `test` extra); the skips
below are for a user's install without the extras."""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

import pytest

import kb
from kb import Memory

REPO = Path(__file__).resolve().parents[2]
HIT = "how often should I run a backup restore test"
REFUSED = "quantas luas tem jupiter"


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("frameworks") / "harbor"
    shutil.copytree(REPO / "examples" / "fleet", root)
    kb.index(root)
    return root


def test_langchain_retriever_sync_async_and_batched(fleet: Path) -> None:
    pytest.importorskip("langchain_core", reason="the langchain extra is not installed")
    from kb.adapters.langchain import KbRetriever

    with Memory.open(fleet) as memory:
        answer = memory.ask(HIT)
        retriever = KbRetriever(memory=memory)
        docs = retriever.invoke(HIT)
        assert [d.metadata["path"] for d in docs] == [f.path for f in answer.found]
        assert docs[0].metadata["verdict"] == "hit" and docs[0].metadata["file"]
        assert "restore" in docs[0].page_content
        assert retriever.invoke(REFUSED) == []  # nothing is served on `nothing`
        again = asyncio.run(retriever.ainvoke(HIT))
        assert [d.metadata["path"] for d in again] == [d.metadata["path"] for d in docs]
        batched = retriever.batch([HIT, REFUSED] * 8, config={"max_concurrency": 8})
        assert [len(b) for b in batched] == [len(docs), 0] * 8


def test_llamaindex_retriever_sync_and_async(fleet: Path) -> None:
    pytest.importorskip("llama_index.core", reason="the llamaindex extra is not installed")
    from kb.adapters.llamaindex import KbRetriever

    with Memory.open(fleet) as memory:
        answer = memory.ask(HIT)
        retriever = KbRetriever(memory)
        nodes = retriever.retrieve(HIT)
        assert [n.node.metadata["path"] for n in nodes] == [f.path for f in answer.found]
        assert nodes[0].score == answer.found[0].score
        assert nodes[0].node.metadata["verdict"] == "hit"
        assert retriever.retrieve(REFUSED) == []
        again = asyncio.run(retriever.aretrieve(HIT))
        assert [n.node.node_id for n in again] == [n.node.node_id for n in nodes]


def test_openai_agents_sdk_lists_and_calls_kb_serve_tools(fleet: Path) -> None:
    pytest.importorskip("agents", reason="the OpenAI Agents SDK is not installed")
    from agents.mcp import MCPServerStdio

    async def main() -> tuple[list[str], str]:
        from agents.mcp import MCPServerStdioParams

        params: MCPServerStdioParams = {
            "command": sys.executable,
            "args": ["-m", "kb.shell.cli.main", "serve", str(fleet)],
        }
        async with MCPServerStdio(params=params, client_session_timeout_seconds=60) as server:
            tools = [t.name for t in await server.list_tools()]
            result = await server.call_tool("kb_route", {"question": HIT})
            text = "".join(getattr(c, "text", "") for c in result.content)
            return tools, text

    tools, text = asyncio.run(main())
    assert {"kb_route", "kb_retrieve", "kb_fleet"} <= set(tools)
    assert text.startswith("verdict:  hit") and "backups.md" in text
