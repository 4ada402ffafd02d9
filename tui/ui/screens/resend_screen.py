"""Edit and resend: a recorded request as JSON in an editor, sent again, its new response beside the original.

Validation runs as you type. Ctrl+S sends the edited request with the session's client (the
API with a key, or the offline model), streaming the answer into the right-hand pane, then
shows a diff of the two answers. The session is not touched unless Ctrl+F ("continue from
here") forks it into a new session whose history is the edited request plus the new answer.
"""

from __future__ import annotations

import difflib
import json
from typing import TYPE_CHECKING, Any

from rich.syntax import Syntax
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea

from tui.text.sanitize import one_line, visible

from ..threads import call_soon_from_thread
from ..widgets.dialog_box import DialogBox

if TYPE_CHECKING:
    from ..app import AgentApp
    from ..widgets.inspector.model import ApiCall


def message_text(message: dict[str, Any] | None) -> str:
    """An assistant message as plain text: its text blocks, and one line per tool call."""
    if not message:
        return ""
    parts = []
    for block in message.get("content") or ():
        if block.get("type") == "text":
            parts.append(block.get("text", ""))
        elif block.get("type") == "tool_use":
            parts.append(f"[tool_use {block.get('name')} {json.dumps(block.get('input'), ensure_ascii=False)}]")
    return "\n".join(parts)


def check_request(text: str) -> tuple[dict[str, Any] | None, str]:
    """(the body, "") when `text` is a request the API could take, else (None, why not)."""
    try:
        body = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"Not valid JSON: line {exc.lineno}, column {exc.colno}: {exc.msg}."
    if not isinstance(body, dict):
        return None, "The request must be a JSON object."
    for key, kind in (("model", str), ("max_tokens", int), ("messages", list)):
        if not isinstance(body.get(key), kind):
            return None, f'The request needs "{key}" ({kind.__name__}).'
    return body, ""


class ResendScreen(ModalScreen[None]):
    """The editor on the left; the original and the new response, then their diff, on the right."""

    BINDINGS = [
        Binding("ctrl+s", "send", "Send", priority=True),
        Binding("ctrl+f", "continue_here", "Continue from here (fork)", priority=True),
        Binding("escape", "close", "Close"),
    ]
    DEFAULT_CSS = """
    ResendScreen { align: center middle; }
    #resend-box { width: 96%; height: 92%; border: round $accent; background: $surface; }
    #resend-editor { width: 1fr; }
    #resend-right { width: 1fr; }
    #resend-status { height: auto; padding: 0 1; }
    #resend-original, #resend-new, #resend-diff { height: auto; padding: 0 1; }
    """

    def __init__(self, app_: AgentApp, call: ApiCall) -> None:
        super().__init__()
        self.agent_app = app_
        self.call = call
        self.new_text = ""
        self.new_message: dict[str, Any] | None = None
        self.sent_body: dict[str, Any] | None = None
        self.sending = False

    def compose(self) -> ComposeResult:
        with DialogBox(id="resend-box"):
            yield Static(
                Text(
                    f"Edit request #{self.call.number} · Ctrl+S sends · Ctrl+F continues from here in a fork"
                    " · Esc closes",
                    style="bold",
                ),
                classes="panel-title dialog-head",
            )
            with Horizontal(classes="dialog-body -fill"):
                with Vertical(id="resend-editor"):
                    yield TextArea.code_editor(
                        json.dumps(self.call.body, indent=2, ensure_ascii=False), language="json", id="resend-json"
                    )
                    yield Static("", id="resend-status")
                with VerticalScroll(id="resend-right"):
                    yield Static(Text("Original response", style="bold"))
                    yield Static(Text(visible(message_text(self.call.message)) or "(none)"), id="resend-original")
                    yield Static(Text("New response", style="bold"))
                    yield Static("", id="resend-new")
                    yield Static("", id="resend-diff")

    def on_mount(self) -> None:
        self._validate(self.query_one("#resend-json", TextArea).text)

    @on(TextArea.Changed, "#resend-json")
    def _changed(self, event: TextArea.Changed) -> None:
        self._validate(event.text_area.text)

    def _validate(self, text: str) -> dict[str, Any] | None:
        body, problem = check_request(text)
        status = self.query_one("#resend-status", Static)
        status.update(Text(problem, style="red") if problem else Text("Valid request · Ctrl+S sends it", style="green"))
        return body

    def action_send(self) -> None:
        body = self._validate(self.query_one("#resend-json", TextArea).text)
        if body is None or self.sending:
            return
        self.sending = True
        self.new_text = ""
        self.query_one("#resend-new", Static).update(Text("sending…", style="italic"))
        self.query_one("#resend-diff", Static).update("")
        self._send(body)

    @work(thread=True, exclusive=True, group="resend")
    def _send(self, body: dict[str, Any]) -> None:
        try:
            with self.agent_app.session.stream_request(body) as stream:
                for text in stream.text_stream:
                    call_soon_from_thread(self, self._stream, text)
                message = stream.get_final_message().model_dump(exclude_none=True)
        except Exception as exc:  # an API error, a refused body: said, never raised
            call_soon_from_thread(self, self._failed, f"{type(exc).__name__}: {exc}")
            return
        call_soon_from_thread(self, self._finished, body, message)

    def _stream(self, text: str) -> None:
        self.new_text += text
        self.query_one("#resend-new", Static).update(Text(visible(self.new_text)))

    def _failed(self, reason: str) -> None:
        self.sending = False
        self.query_one("#resend-new", Static).update(Text(visible(one_line(reason)), style="red"))

    def _finished(self, body: dict[str, Any], message: dict[str, Any]) -> None:
        self.sending = False
        self.sent_body, self.new_message = body, {"role": "assistant", "content": message.get("content", [])}
        new = message_text(self.new_message)
        self.query_one("#resend-new", Static).update(Text(visible(new)))
        old = message_text(self.call.message)
        diff = "".join(
            difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True), "original", "new")
        )
        self.query_one("#resend-diff", Static).update(
            Syntax(visible(diff), "diff", theme="ansi_dark", word_wrap=True) if diff else Text("The same answer.")
        )

    def action_continue_here(self) -> None:
        """Fork the session: its history becomes the edited request's messages plus the new answer."""
        if self.new_message is None or self.sent_body is None:
            self.agent_app.notify(
                "Send the request first (Ctrl+S); then Ctrl+F continues from its answer.", severity="warning"
            )
            return
        if self.agent_app.controller.busy:
            self.agent_app.notify("A turn is running: interrupt it before forking.", severity="warning")
            return
        self.agent_app.run_worker(
            continue_from(self.agent_app, self.sent_body["messages"], self.new_message),
            group="resend-fork",
            exclusive=True,
        )
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)


async def continue_from(app: AgentApp, messages: list[dict[str, Any]], answer: dict[str, Any]) -> None:
    """Fork into a new session holding `messages` and `answer`; the original session is left as it was."""
    import asyncio

    from .resume_screen import show_history

    session = app.session
    await asyncio.to_thread(session.resend_from, [*messages, answer])  # the engine makes it a history the API takes
    await show_history(app, session.messages)
    app.notify(f"Continuing from the edited request in a new session, {session.session_id}.")


def open_resend(app: AgentApp, call: ApiCall | None) -> None:
    if call is None:
        app.notify("No API call to edit yet.", severity="warning")
        return
    app.push_screen(ResendScreen(app, call))
