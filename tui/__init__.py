"""agent-tui: a full-screen terminal coding agent that shows every step of the loop."""

__version__ = "0.1.0"
