"""Tool calls the user asks for (bash mode's `!cmd`, /init's write), run through the session's dispatcher.

Its events, the verdict and the permission dialog apply as to the model's calls.
"""

from __future__ import annotations

import itertools
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.hooks.prompt_input import bash_context_text

if TYPE_CHECKING:
    from tui.agent.door import Session
    from tui.agent.session import AgentSession

_call_ids = itertools.count(1)


def run_user_call(session: Session, name: str, tool_input: dict[str, Any], cancel: threading.Event) -> tuple[str, bool]:
    """Run one tool call the user asked for through the dispatcher; (result text, is_error)."""
    block = {"type": "tool_use", "id": f"toolu_user_{next(_call_ids)}", "name": name, "input": tool_input}
    result = session.dispatcher.run([block], cancel, {}).results[0]
    content = result.get("content")
    text = content if isinstance(content, str) else "\n".join(b.get("text", "") for b in content or ())
    return text, bool(result.get("is_error"))


def run_bash_mode(session: AgentSession, command_line: str, cancel: threading.Event) -> tuple[str, bool]:
    """`!cmd`: a Bash call through the dispatcher; (result text, is_error)."""
    return run_user_call(
        session, "Bash", {"command": command_line, "description": "bash mode (typed by the user)"}, cancel
    )


def add_bash_context(session: AgentSession, command_line: str, output: str, is_error: bool) -> None:
    """Put the command and its output in the history, so the next request carries them (Claude Code's tags)."""
    block = {"type": "text", "text": bash_context_text(command_line, output, is_error)}
    messages = session.messages
    if messages and messages[-1].get("role") == "user":
        last = messages[-1]
        content = last["content"] if isinstance(last["content"], list) else [{"type": "text", "text": last["content"]}]
        messages[-1] = {"role": "user", "content": [*content, block]}
        if session.transcript:
            session.transcript.write({"type": "merge_user", "message": messages[-1]})
    else:
        session.append_message({"role": "user", "content": [block]})


def write_with_permission(session: Session, path: Path, content: str, cancel: threading.Event) -> tuple[str, bool]:
    """/init: write `content` to `path` as a Write call through the dispatcher: the rules, the mode and the
    dialog (with its diff) decide, as for the model's own writes; (result text, is_error)."""
    from tui.tools.fileio import hash_file
    from tui.tools.freshness import record_hash

    if path.exists() and (digest := hash_file(path)) is not None:
        record_hash(session.state, path, digest)  # the draft was made from what is there now
    return run_user_call(session, "Write", {"file_path": str(path), "content": content}, cancel)
