"""The reading room (`kb ui`): a local web page over the Memory contract.

Only this package imports Starlette and uvicorn, and only when `kb ui` runs: they stay off
the route and boot path.
"""
