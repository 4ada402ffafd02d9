"""agent-tui: a full-screen terminal coding agent that shows every step of the loop."""

__version__ = "0.1.0"

#: the name this project is published under on PyPI; the command stays `agent-tui` (PyPI's `agent-tui` is another
#: project, so a hint naming it would install a stranger's package)
DISTRIBUTION = "agent-tui-loop"


def install_hint(extra: str = "") -> str:
    """A command that installs this project (with `extra`) into the Python that runs agent-tui: a venv, pipx's own."""
    import shlex
    import sys

    target = f"{DISTRIBUTION}[{extra}]" if extra else DISTRIBUTION
    return f"{shlex.quote(sys.executable)} -m pip install {shlex.quote(target)}"
