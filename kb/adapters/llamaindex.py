"""A LlamaIndex retriever over a `kb.Memory` (`pip install 'kb-fleet[llamaindex]'`).

    from kb import Memory
    from kb.adapters.llamaindex import KbRetriever

    retriever = KbRetriever(Memory.open("path/to/fleet", warm=True))
    nodes = retriever.retrieve("how do we roll back a deploy?")

One `NodeWithScore` per file of the answer (its passages as the node's text, kb's fused
score as its score); none when kb's verdict is `nothing`. `aretrieve` shares the Memory.
"""

from __future__ import annotations

from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from kb.adapters.common import metadata, page_text, served
from kb.io.answering.memory import DEFAULT_TOP, Answer, Memory


class KbRetriever(BaseRetriever):
    """kb's answer to a query, as LlamaIndex nodes."""

    def __init__(self, memory: Memory, top: int = DEFAULT_TOP) -> None:
        super().__init__()
        self.memory = memory
        self.top = top

    def _nodes(self, answer: Answer) -> list[NodeWithScore]:
        return [
            NodeWithScore(
                node=TextNode(
                    id_=f"{f.base}/{f.path}",
                    text=page_text(f),
                    metadata=metadata(answer, f, rank),
                ),
                score=f.score,
            )
            for rank, f in served(answer)
        ]

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return self._nodes(self.memory.ask(query_bundle.query_str, self.top))

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return self._nodes(await self.memory.aask(query_bundle.query_str, self.top))
