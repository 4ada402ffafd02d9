"""Extension points from the project and the user: hooks, custom commands, skills, prompt shortcuts.

Hooks: Claude Code's `hooks` settings read from every source, matched and run around the loop.

Nothing here is imported unless a settings file holds a `hooks` block (no cost otherwise).
`config` reads the blocks, `matcher` picks the handlers, `runner` runs them as tracked
processes and `outcome` reads what they printed.
"""

#: every event agent-tui fires, with the input field its matcher runs against (None: no matcher)
EVENTS: dict[str, str | None] = {
    "PreToolUse": "tool_name",
    "PostToolUse": "tool_name",
    "PostToolUseFailure": "tool_name",
    "PermissionRequest": "tool_name",
    "UserPromptSubmit": None,
    "Notification": "notification_type",
    "Stop": None,
    "SubagentStop": "agent_type",
    "PreCompact": "trigger",
    "SessionStart": "source",
    "SessionEnd": "reason",
}
