"""Slash commands, and the command palette entries built from them and the key registry.

Add a command with `@slash_command("name", "what it does")`; it then works typed in the
prompt (`/name args`), appears in F1 help and in the command palette (Ctrl+P). Later
features (`/resume`, `/compact`, `/undo`, `/export`) register the same way.
"""

from __future__ import annotations

import importlib
import inspect
import threading
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.app import SystemCommand
from textual.screen import Screen

from tui.text.wording import plural

from .bindings import KEYS

if TYPE_CHECKING:
    from .app import AgentApp

CommandHandler = Callable[["AgentApp", str], Awaitable[None] | None]


@dataclass(frozen=True)
class SlashCommand:
    """A command typed as `/name args`."""

    name: str
    description: str
    run: CommandHandler
    usage: str = ""
    #: shown in the palette (commands that need an argument are not)
    in_palette: bool = True


SLASH_COMMANDS: dict[str, SlashCommand] = {}


def slash_command(name: str, description: str, *, usage: str = "", in_palette: bool = True):
    """Decorator: register `fn(app, args)` as `/name`."""

    def register(fn: CommandHandler) -> CommandHandler:
        SLASH_COMMANDS[name] = SlashCommand(name, description, fn, usage, in_palette)
        return fn

    return register


async def run_slash(app: AgentApp, line: str) -> None:
    """Run a `/name args` line; an unknown name gets one sentence that says what exists."""
    load_session_commands()
    name, _, args = line.strip().lstrip("/").partition(" ")
    command = SLASH_COMMANDS.get(name.lower())
    if command is None and name.startswith("mcp__"):
        from .mcp_glue import run_prompt_command

        if await run_prompt_command(app, name, args.strip()):
            return
    if command is None and await prompt_shortcuts.run_custom(app, name, args.strip()):  # .claude/commands, skills
        return
    if command is None:
        app.notify(unknown_command_message(app, name), severity="warning")
        return
    result = command.run(app, args.strip())
    if inspect.isawaitable(result):
        await result


#: custom commands and skills an "Unknown command" toast names at most
MAX_CUSTOM_NAMED = 24


def unknown_command_message(app: AgentApp, name: str) -> str:
    """ "Unknown command /x." with the closest name, the built-ins and the project's and user's commands and skills."""
    import difflib

    catalog = app.session.prompt_catalog().commands
    custom = sorted(catalog)
    known = [*SLASH_COMMANDS, *custom]
    closest = [n for n in known if n.startswith(name.lower())][:1] or difflib.get_close_matches(
        name.lower(), known, n=1, cutoff=0.6
    )  # `/fix issue` typed for `/fix-issue`: the name it starts
    text = f"Unknown command /{name}." + (f" Did you mean /{closest[0]}?" if closest else "")
    text += f" Built-in: {', '.join(f'/{n}' for n in SLASH_COMMANDS)}."
    if custom:
        shown = ", ".join(f"/{n}" for n in custom[:MAX_CUSTOM_NAMED])
        more = (
            f" and {len(custom) - MAX_CUSTOM_NAMED} more (type / to see them)" if len(custom) > MAX_CUSTOM_NAMED else ""
        )
        text += f" This project's and your commands and skills: {shown}{more}."
    return text


def system_commands(app: AgentApp) -> Iterable[SystemCommand]:
    """Palette entries: every slash command, then every shown key binding."""
    load_session_commands()
    for command in SLASH_COMMANDS.values():
        if command.in_palette:
            yield SystemCommand(
                f"/{command.name}",
                command.description,
                lambda c=command: app.run_worker(run_slash(app, f"/{c.name}"), group="slash"),
            )
    from .mcp_glue import prompt_palette

    yield from prompt_palette(app, lambda name: app.run_worker(run_slash(app, f"/{name}"), group="slash"))
    yield from prompt_shortcuts.palette_entries(app)
    for spec in KEYS:
        if spec.scope == "app" and spec.action not in ("command_palette", "interrupt_or_quit"):
            yield SystemCommand(
                spec.description,
                f"{spec.keys} · {spec.group}",
                lambda a=spec.action: app.run_worker(app.run_action(a), group="palette"),
            )


from . import prompt_shortcuts  # noqa: E402 - it registers /init with the decorator above


def cycle_mode(app: AgentApp) -> None:
    """Shift+Tab: the next permission mode (bypassPermissions only when the session started in it)."""
    permissions = importlib.import_module("tui.config.permissions")
    new = permissions.next_mode(app.session.permission_mode, app.session.bypass_allowed)
    app.session.set_permission_mode(new, "Shift+Tab")
    app.status.mode = app.session.permission_mode


def _refuse_while_busy(app: AgentApp, what: str) -> bool:
    if app.controller.busy:
        app.notify(f"A turn is running: press Esc to interrupt it before {what}.", severity="warning")
        return True
    return False


# --- the commands ---------------------------------------------------------------------


@slash_command("help", "Show keys and commands")
def _help(app: AgentApp, args: str) -> None:
    app.action_help()


@slash_command("clear", "Start a new conversation")
async def _clear(app: AgentApp, args: str) -> None:
    if _refuse_while_busy(app, "clearing"):
        return
    app.session.clear()
    await app.clear_view()
    app.notify("New conversation.")


@slash_command("model", "Pick the model (a list), or switch to the one named", usage="[name]")
async def _model(app: AgentApp, args: str) -> None:
    if _refuse_while_busy(app, "switching models"):
        return
    from .screens.model_screen import open_model_picker, switch_model

    if not args:
        await open_model_picker(app)
        return
    switch_model(app, args)


@slash_command("theme", "Switch the colour theme", usage="[name]")
def _theme(app: AgentApp, args: str) -> None:
    if not args:
        app.action_change_theme()
        return
    if args not in app.available_themes:
        names = ", ".join(sorted(app.available_themes))
        app.notify(f"No theme called {args!r}. Available: {names}.", severity="warning")
        return
    app.theme = args


@slash_command("copy", "Copy the last reply to the clipboard")
def _copy(app: AgentApp, args: str) -> None:
    text = app.session.last_assistant_text()
    if not text:
        app.notify("There is no reply to copy yet.", severity="warning")
        return
    app.copy_to_clipboard(text)
    app.notify(f"Copied the last reply ({plural(len(text), 'character')}).")


@slash_command("quit", "Quit agent-tui")
def _quit(app: AgentApp, args: str) -> None:
    app.action_quit_now()


def _optional_screen(module_name: str, class_name: str) -> type[Screen] | None:
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return None
    screen = getattr(module, class_name, None)
    return screen if isinstance(screen, type) and issubclass(screen, Screen) else None


def _push_screen_for(app: AgentApp, module_name: str, class_name: str, what: str) -> None:
    screen_class = _optional_screen(module_name, class_name)
    if screen_class is None:
        app.notify(f"The {what} screen is not available in this build.", severity="warning")
        return
    params = inspect.signature(screen_class).parameters
    kwargs: dict[str, Any] = {}
    for name, value in (
        ("session", app.session),
        ("policy", app.session.policy),
        ("project_dir", app.session.options.project_dir),
    ):
        if name in params:
            kwargs[name] = value
    app.push_screen(screen_class(**kwargs))


@slash_command("permissions", "Review permission rules and the mode")
def _permissions(app: AgentApp, args: str) -> None:
    _push_screen_for(app, "tui.ui.screens.permissions_screen", "PermissionsScreen", "permissions")


@slash_command("mcp", "MCP servers: status, tools, messages; reconnect, enable/disable")
def _mcp(app: AgentApp, args: str) -> None:
    _push_screen_for(app, "tui.ui.screens.mcp_screen", "McpScreen", "MCP")


@slash_command("hooks", "List the hooks and their files; turn one off for this run")
def _hooks(app: AgentApp, args: str) -> None:
    _push_screen_for(app, "tui.ui.screens.hooks_screen", "HooksScreen", "hooks")


@slash_command("memory", "Show the memory files (AGENTS.md, CLAUDE.md)")
def _memory(app: AgentApp, args: str) -> None:
    _push_screen_for(app, "tui.ui.screens.memory_screen", "MemoryScreen", "memory")


#: modules whose session commands (/resume, /compact, /export, /undo) register themselves on import
SESSION_COMMAND_MODULES = (
    "tui.ui.screens.resume_screen",
    "tui.ui.screens.undo_screen",
    "tui.ui.screens.login_screen",
    "tui.ui.screens.agents_screen",
    "tui.ui.screens.tasks_screen",
    "tui.ui.screens.doctor_screen",
    "tui.ui.screens.plugin_screen",
    "tui.ui.sandbox_command",
    "tui.ui.lsp_command",
    "tui.ui.screens.rewind_screen",
    "tui.ui.screens.context_screen",
    "tui.ui.cost_command",
    "tui.ui.prompt_commands",
    "tui.ui.trust",  # /trust (the app imports it after its first frame too, to check the folder)
)
_loaded = False
_loading = threading.Lock()


def load_session_commands() -> None:
    """Import the session-command modules (~110 ms: not before the app's first frame)."""
    global _loaded
    if _loaded:
        return
    with _loading:  # the app warms this up in a thread; a slash command may get here meanwhile
        if _loaded:
            return
        for module in SESSION_COMMAND_MODULES:
            try:
                importlib.import_module(module)
            except ImportError:  # a build without them still starts
                pass
        _loaded = True
