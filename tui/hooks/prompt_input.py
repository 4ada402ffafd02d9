"""What a typed prompt's text means before the engine's prompt pipeline (tui/agent/prompt/pipeline.py) runs it.

Plain text work only: `/name args`, and Claude Code's tags for bash mode's output. The session's side (its
catalog, the `@` rules, the dispatcher, the history) is the engine's.
"""

from __future__ import annotations


def parse_slash(text: str) -> tuple[str, str] | None:
    """(name, args) of a prompt that starts with `/name`; None otherwise (a path like `/usr/bin` has a second `/`)."""
    if not text.startswith("/"):
        return None
    name, _, args = text[1:].partition(" ")
    name = name.strip()
    if not name or "/" in name:
        return None
    return name, args.strip()


def bash_context_text(command_line: str, output: str, is_error: bool) -> str:
    """`!cmd` and its output as the next request carries them (Claude Code's tags)."""
    stream = "bash-stderr" if is_error else "bash-stdout"
    return f"<bash-input>{command_line}</bash-input>\n<{stream}>{output}</{stream}>"
