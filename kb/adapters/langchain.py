"""A LangChain retriever over a `kb.Memory` (`pip install 'kb-fleet[langchain]'`).

    from kb import Memory
    from kb.adapters.langchain import KbRetriever

    retriever = KbRetriever(memory=Memory.open("path/to/fleet", warm=True))
    docs = retriever.invoke("how do we roll back a deploy?")

One `Document` per file of the answer, its passages as the page content; none when kb's
verdict is `nothing`. `ainvoke` and `batch` share the one Memory (it is thread-safe).
"""

from __future__ import annotations

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict

from kb.adapters.common import metadata, page_text, served
from kb.io.answering.memory import DEFAULT_TOP, Answer, Memory


class KbRetriever(BaseRetriever):
    """kb's answer to a query, as LangChain documents."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: Memory
    top: int = DEFAULT_TOP

    def _documents(self, answer: Answer) -> list[Document]:
        return [
            Document(page_content=page_text(f), metadata=metadata(answer, f, rank))
            for rank, f in served(answer)
        ]

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        return self._documents(self.memory.ask(query, self.top))

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        return self._documents(await self.memory.aask(query, self.top))
