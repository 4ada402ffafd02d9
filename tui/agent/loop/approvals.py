"""Who approves the model's calls: one sentence for the environment block, by front end and permission mode.

The front end is `AgentOptions.front_end` ("app", "print" for -p, "acp", "sdk"); empty means the app when
the session is interactive, else -p. A change of mode later in the session reaches the model as a
reminder with the same wording (tool_belt.remind_mode), so the cached system prompt never changes.
"""

from __future__ import annotations

from collections.abc import Sequence

FRONT_ENDS = ("app", "print", "acp", "sdk")
#: how many allowed-tool rules the -p sentence names before "and N more"
SHOWN_ALLOWED = 8

_WHO = {
    "app": "The user watches your steps in the terminal app.",
    "print": "This is a non-interactive run (-p): nobody answers during it; your final message is the result.",
    "acp": "You run inside an editor (ACP) that shows your steps to the user.",
    "sdk": "A program drives this session (Claude Agent SDK) and reads your final message.",
}


def front_end_of(front_end: str, interactive: bool) -> str:
    """The effective front end: the one named, else the app when someone can be asked, else -p."""
    return front_end if front_end in FRONT_ENDS else ("app" if interactive else "print")


def _asks(front_end: str, can_ask: bool) -> str:
    if front_end == "app":
        return "waits for the user's approval"
    if front_end == "acp":
        return "waits while the editor asks the user"
    if front_end == "sdk" and can_ask:
        return "is decided by the program's permission callback"
    return "is refused, not asked"


def mode_text(mode: str, front_end: str, can_ask: bool) -> str:
    """What the permission mode means for the model's calls, in this front end."""
    asks = _asks(front_end, can_ask)
    if mode == "acceptEdits":
        return f"File edits in the project are accepted without asking; any other call that no rule allows {asks}."
    if mode == "plan":
        ending = "call ExitPlanMode with the plan" if can_ask and front_end in ("app", "acp") else "end with the plan"
        return f"Plan mode is on: change nothing; explore read-only, then {ending}."
    if mode == "bypassPermissions":
        return (
            "Every call runs without approval (bypassPermissions), so nobody reviews a step first: take extra care "
            "with what cannot be undone."
        )
    return f"A call that writes files or runs a command that no permission rule allows {asks}."


def approval_text(front_end: str, mode: str, *, can_ask: bool, allowed: Sequence[str] = ()) -> str:
    """The environment block's `Approvals:` line."""
    text = f"Approvals: {_WHO[front_end]} {mode_text(mode, front_end, can_ask)}"
    if allowed and front_end in ("print", "sdk"):
        shown = ", ".join(allowed[:SHOWN_ALLOWED])
        more = f" and {len(allowed) - SHOWN_ALLOWED} more" if len(allowed) > SHOWN_ALLOWED else ""
        text += f" Allowed without asking: {shown}{more}."
    return text


def mode_reminder(mode: str, front_end: str, can_ask: bool) -> str:
    """The reminder added to a prompt when the mode changed since the system prompt was written."""
    return f"<system-reminder>\nThe permission mode is now {mode}. {mode_text(mode, front_end, can_ask)}\n</system-reminder>"
