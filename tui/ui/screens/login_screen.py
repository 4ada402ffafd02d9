"""`/status`, `/login`, `/logout` and the `/model` list: the provider in use, and an API key kept in the keyring.

The commands register themselves on import (commands.SESSION_COMMAND_MODULES lists this module).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from tui.providers.keystore import KeyStoreError, delete_key, store_key
from tui.providers.status import status_lines

from ..commands import slash_command
from ..widgets.dialog_box import DialogBox
from ..widgets.ordered_keys import OrderedInput

if TYPE_CHECKING:
    from ..app import AgentApp


class LoginScreen(ModalScreen[str | None]):
    """Asks for an API key in a masked field; Enter returns it, Esc cancels."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    LoginScreen { align: center middle; }
    #login-box { width: 72; max-width: 95%; height: auto; max-height: 90%; padding: 1 2; border: round $accent;
                 background: $surface; }
    #login-box Input { margin-top: 1; }
    """

    def compose(self) -> ComposeResult:
        with DialogBox(id="login-box"):
            with VerticalScroll(classes="dialog-body"):
                yield Static(
                    "Paste your Anthropic API key. It goes to the system keyring (or a private file), "
                    "never shown or logged."
                )
            yield OrderedInput(password=True, placeholder="sk-ant-…", id="login-key", classes="dialog-answers")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


@slash_command("status", "Show the provider, model, base URL, credential source, proxy and CA bundle")
async def _status(app: AgentApp, args: str) -> None:
    for line in status_lines(app.session.options, app.session.offline):
        await app.controller.add_marker(line, "info")


@slash_command("login", "Store an API key in the system keyring")
def _login(app: AgentApp, args: str) -> None:
    def stored(key: str | None) -> None:
        if not key:
            app.notify("Login cancelled; nothing was stored.")
            return
        try:
            result = store_key(key)
        except KeyStoreError as exc:
            app.notify(str(exc), severity="error")
            return
        if result.warning:
            app.notify(result.warning, severity="warning", timeout=10)
        app.notify(f"The key is stored in {result.where}; agent-tui uses it from the next start.")

    app.push_screen(LoginScreen(), stored)


@slash_command("logout", "Remove the API key /login stored")
def _logout(app: AgentApp, args: str) -> None:
    try:
        removed = delete_key()
    except KeyStoreError as exc:
        app.notify(str(exc), severity="error")
        return
    app.notify("The stored API key is removed." if removed else "No key was stored by /login.")
