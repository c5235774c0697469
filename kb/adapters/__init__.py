"""Retrievers for the agent frameworks people use, each an optional extra over `kb.Memory`:
`kb.adapters.langchain` (`pip install 'kb-fleet[langchain]'`) and `kb.adapters.llamaindex`
(`pip install 'kb-fleet[llamaindex]'`). They only present what `Memory.ask` answers: no
document on `nothing`, the verdict and coverage in every document's metadata. The OpenAI
Agents SDK needs no adapter: it talks to `kb serve` over MCP (docs/frameworks.md).
"""
