"""The app's side of MCP: server events to toasts and the /mcp screen, prompts as slash commands."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any

from textual.app import SystemCommand

from tui.agent import events as ev
from tui.text.sanitize import one_line

if TYPE_CHECKING:
    from .app import AgentApp


#: the words of tui/mcp/oauth.py's sign-in sentence (not imported: that module loads the SDK)
SIGN_IN = "needs you to sign in"


def mcp_handlers(app: AgentApp) -> dict[type, Callable[[Any], Awaitable[None]]]:
    """Event-controller handlers for McpServerChanged and McpMessage."""
    failed: set[str] = set()

    async def server_changed(event: ev.McpServerChanged) -> None:
        if event.status == "failed" and event.server not in failed:
            failed.add(event.server)
            app.notify(
                one_line(f"MCP server {event.server} failed: {event.error}. /mcp shows why and reconnects."),
                severity="warning",
            )
        elif event.status != "failed":
            failed.discard(event.server)
        for warning in event.warnings[-1:]:
            signing_in = SIGN_IN in warning  # the sign-in link (tui/mcp/oauth.py): shown while the server waits
            if event.status == ("pending" if signing_in else "connected"):
                app.notify(one_line(warning), severity="warning", timeout=120 if signing_in else None)
        screen = app.screen
        if getattr(screen, "mcp_screen", False):
            screen.refresh_servers()  # type: ignore[attr-defined]
        from .widgets.prompt import PromptArea

        for prompt_area in app.screen_stack[0].query(PromptArea) if app.screen_stack else ():  # /mcp may be on top
            if prompt_area.completer is not None and prompt_area.text.startswith("/"):
                prompt_area.completer.update()  # the `/` menu follows the servers' prompts (connected, changed, off)

    async def message(event: ev.McpMessage) -> None:
        screen = app.screen
        if getattr(screen, "mcp_screen", False):
            screen.refresh_messages()  # type: ignore[attr-defined]

    return {ev.McpServerChanged: server_changed, ev.McpMessage: message}


def _usage(prompt: dict[str, Any]) -> str:
    """The prompt's arguments as a hint: `<topic> <depth>`."""
    return " ".join(f"<{a.get('name')}>" for a in prompt.get("arguments") or [] if isinstance(a, dict))


def prompt_completions(runtime: Any) -> dict[str, str]:
    """`mcp__server__prompt` -> `description  <args>  (MCP server)` for the `/` completion menu."""
    found = {}
    for name, description, server, prompt in runtime.prompt_commands():
        args = _usage(prompt)
        found[name] = one_line(f"{description or 'MCP prompt'}{'  ' + args if args else ''}  (MCP {server})")
    return found


def prompt_palette(app: AgentApp, run: Callable[[str], Any]) -> Iterable[SystemCommand]:
    """Palette entries for every MCP prompt (`/mcp__server__prompt`)."""
    runtime = getattr(getattr(app, "_session", None), "mcp", None)  # never builds the session for the palette
    for name, description, server, prompt in runtime.prompt_commands() if runtime is not None else ():
        args = _usage(prompt)
        help_text = one_line(f"{description or 'MCP prompt'} ({server}){' · ' + args if args else ''}")
        yield SystemCommand(
            f"/{name}",
            help_text,
            lambda n=name, needs=bool(args): run(n) if not needs else app.prompt_area.restore(f"/{n} "),
        )


async def run_prompt_command(app: AgentApp, name: str, words: str) -> bool:
    """Run `/mcp__server__prompt words`: the prompt's text becomes the next turn; False if no server offers it."""
    runtime = getattr(app.session, "mcp", None)
    if runtime is None:
        return False
    if not any(p[0] == name for p in runtime.prompt_commands()):
        return False
    try:
        text = await asyncio.to_thread(runtime.run_prompt, name, words)
    except LookupError as exc:
        app.notify(one_line(str(exc)), severity="warning")
        return True
    except Exception as exc:  # noqa: BLE001 - a server's failure is one sentence
        app.notify(one_line(f"/{name} failed: {exc}"), severity="error")
        return True
    if not text.strip():
        app.notify(f"/{name} returned no text.", severity="warning")
        return True
    await app.submit_prompt(text)
    return True
