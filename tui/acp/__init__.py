"""`agent-tui acp`: the Agent Client Protocol over stdio, a subscriber of the session's bus like `tui/headless/run.py`.

Imported only by `agent-tui acp`; the SDK (PyPI `agent-client-protocol`) is imported only here.
"""
