"""The one registry of key bindings: the footer, the help screen and the palette read it.

Every binding has an `id` (so a user keymap can remap it with `App.set_keymap`), a
description and a group. Widgets build their `BINDINGS` from here instead of declaring
keys inline, so a key never hides in a module nobody reads.
"""

from __future__ import annotations

from typing import NamedTuple

from textual.binding import Binding, BindingType


class KeySpec(NamedTuple):
    """One binding: where it lives (`scope`), its keys, the action it runs and how it is shown.

    A NamedTuple (immutable, compared and hashed by value, like the frozen dataclass it was): ~0.2 ms to
    build at import instead of ~0.7 ms, before the app's first frame.
    """

    id: str
    keys: str
    action: str
    description: str
    group: str
    scope: str = "app"  # app | prompt | dialog
    show: bool = True
    priority: bool = False
    key_display: str | None = None
    #: bindings with the same footer group share one label in the footer ("PgUp PgDn Scroll")
    footer_group: str | None = None


KEYS: tuple[KeySpec, ...] = (
    # the prompt
    KeySpec("submit", "enter", "submit", "Send", "Prompt", scope="prompt", priority=True),
    KeySpec(
        "newline", "ctrl+j,shift+enter", "newline", "Newline", "Prompt", scope="prompt", priority=True, key_display="^j"
    ),
    KeySpec(
        "history_previous",
        "up",
        "history_previous",
        "Previous prompt",
        "Prompt",
        scope="prompt",
        show=False,
        priority=True,
    ),
    KeySpec("history_next", "down", "history_next", "Next prompt", "Prompt", scope="prompt", show=False, priority=True),
    # not priority: the prompt runs them itself, in the order typed (ordered_keys.py)
    KeySpec(
        "search_history",
        "ctrl+r",
        "search_history",
        "Search the prompt history",
        "Prompt",
        scope="prompt",
        show=False,
        key_display="^r",
    ),
    KeySpec(
        "external_editor",
        "ctrl+g",
        "external_editor",
        "Edit the prompt in $VISUAL / $EDITOR",
        "Prompt",
        scope="prompt",
        show=False,
        key_display="^g",
    ),
    KeySpec(
        "toggle_thinking",
        "tab",
        "toggle_thinking",
        "Thinking on/off (empty prompt)",
        "Prompt",
        scope="prompt",
        show=False,
    ),
    KeySpec(
        "paste_image",
        "ctrl+v",
        "paste_image",
        "Paste an image from the clipboard",
        "Prompt",
        scope="prompt",
        show=False,
        key_display="^v",
    ),
    KeySpec(
        "remove_attachment",
        "backspace",
        "remove_attachment",
        "Delete left; at the prompt's start, remove the last image",
        "Prompt",
        scope="prompt",
        show=False,
    ),
    # the turn
    KeySpec("interrupt", "escape", "interrupt", "Interrupt", "Turn", key_display="esc"),
    KeySpec("cycle_mode", "shift+tab", "cycle_mode", "Mode", "Turn", priority=True),
    # panels
    KeySpec("help", "f1", "help", "Help", "Panels"),
    KeySpec("toggle_inspector", "f2", "toggle_inspector", "Inspector", "Panels"),
    KeySpec("toggle_tools", "f3", "toggle_tools", "Tools", "Panels"),
    KeySpec("jump_bottom", "end", "jump_bottom", "Jump to the newest output", "Panels", show=False),
    # the conversation, whatever has focus (the prompt included), as in Claude Code
    # listed in F1 help, not the footer: it must fit 100 columns with the keys a new user needs first
    KeySpec(
        "page_up",
        "pageup",
        "page_conversation(-1)",
        "Scroll up",
        "Conversation",
        priority=True,
        key_display="PgUp",
        footer_group="Scroll",
        show=False,
    ),
    KeySpec(
        "page_down",
        "pagedown",
        "page_conversation(1)",
        "Scroll down",
        "Conversation",
        priority=True,
        key_display="PgDn",
        footer_group="Scroll",
        show=False,
    ),
    KeySpec(
        "conversation_top", "ctrl+home", "conversation_top", "First turn", "Conversation", priority=True, show=False
    ),
    KeySpec(
        "conversation_bottom",
        "ctrl+end",
        "conversation_bottom",
        "Newest output",
        "Conversation",
        priority=True,
        show=False,
    ),
    # the app
    # not in the footer: Textual's footer shows the palette key at its right end already
    KeySpec("command_palette", "ctrl+p", "command_palette", "Commands", "App", priority=True, show=False),
    KeySpec("quit", "ctrl+c", "interrupt_or_quit", "Quit (press twice)", "App", priority=True, show=False),
    # the permission dialog
    KeySpec("allow_once", "1", "choose('once')", "Allow once", "Permission", scope="dialog"),
    KeySpec("allow_session", "2", "choose('session')", "Allow for this session", "Permission", scope="dialog"),
    KeySpec("allow_always", "3", "choose('always')", "Always allow (save rule)", "Permission", scope="dialog"),
    KeySpec("deny", "4", "choose('deny')", "Deny (with a reason)", "Permission", scope="dialog"),
    KeySpec(
        "allow_server",
        "5",
        "choose('server')",
        "Always allow every tool of the MCP server",
        "Permission",
        scope="dialog",
    ),
    KeySpec("deny_now", "escape", "deny_now", "Deny", "Permission", scope="dialog", key_display="esc"),
)


def bindings_for(scope: str) -> list[BindingType]:
    """Textual `Binding`s for one scope, in registry order."""
    groups = {spec.footer_group: Binding.Group(spec.footer_group) for spec in KEYS if spec.footer_group}
    return [
        Binding(
            spec.keys,
            spec.action,
            spec.description,
            show=spec.show,
            priority=spec.priority,
            id=spec.id,
            key_display=spec.key_display,
            tooltip=spec.description,
            group=groups.get(spec.footer_group) if spec.footer_group else None,
        )
        for spec in KEYS
        if spec.scope == scope
    ]


def key_spec(binding_id: str) -> KeySpec:
    """The registry entry with this id (KeyError if there is none)."""
    for spec in KEYS:
        if spec.id == binding_id:
            return spec
    raise KeyError(binding_id)


def grouped() -> dict[str, list[KeySpec]]:
    """Registry entries by group, for the help screen."""
    out: dict[str, list[KeySpec]] = {}
    for spec in KEYS:
        out.setdefault(spec.group, []).append(spec)
    return out
