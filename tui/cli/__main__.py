"""`python -m tui.cli`: the same as the `agent-tui` console script."""

from tui.cli.main import entry

entry()
