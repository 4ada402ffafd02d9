"""Sessions in the app: the resume picker, showing a resumed history, and /resume /compact /export.

The picker lists this project's saved sessions (date, first prompt, turns, tokens, cost),
filtered as you type; Enter resumes the highlighted one. Listing, resuming, compacting
and exporting run in thread workers so the UI never waits on the disk or the API.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from tui.agent.history.resume import SessionInfo, injected, list_sessions, sessions_base
from tui.text.sanitize import one_line
from tui.text.wording import plural, plural_noun

from ..commands import slash_command
from ..threads import call_soon_from_thread
from ..widgets.conversation import HISTORY_TAIL_TURNS
from ..widgets.conversation_model import BlockRecord, ToolRecord, TurnRecord, image_records
from ..widgets.dialog_box import DialogBox
from ..widgets.ordered_keys import OrderedInput

if TYPE_CHECKING:
    from tui.agent.door import Session
    from tui.agent.options import AgentOptions

    from ..app import AgentApp


def session_row(info: SessionInfo) -> str:
    """One picker line: date, turns, tokens, cost, first prompt."""
    when = info.started.replace("T", " ")[:16]
    prompt = one_line(" ".join(info.first_prompt.split())[:70]) or "(no prompt)"
    tokens = f"{info.tokens / 1000:.1f}k" if info.tokens >= 1000 else str(info.tokens)
    return f"{when}  {info.turns:>3} {plural_noun(info.turns, 'turn'):<5} {tokens:>7} tok  ${info.cost:>7.4f}  {prompt}"


#: after the line of the session open in the app (listed too, as Claude Code lists it)
CURRENT_MARK = "  ← this session"
#: joins a session's path and a branch id in an option id (a branch line opens its session)
BRANCH_MARK = "#branch-"


def tree_row(row: Any) -> str:
    """A picker line indented by its depth: a session (forks under their parent) or a rewind branch."""
    indent = "   " * row.depth + ("└ " if row.depth else "")
    if row.branch is None:
        fork = "fork · " if row.info.forked_from else ""
        return indent + fork + session_row(row.info)
    branch = row.branch
    when = branch.ts.replace("T", " ")[:16]
    return f"{indent}{when}  rewind branch: {one_line(branch.first[:60])} ({plural(branch.prompts, 'prompt')})"


class ResumeScreen(ModalScreen[str | None]):
    """Pick a saved session of this project; dismisses with its path, or None."""

    BINDINGS = [Binding("escape", "dismiss_none", "Close")]
    AUTO_FOCUS = "#resume-filter"
    DEFAULT_CSS = """
    ResumeScreen { align: center middle; }
    #resume-box { width: 90%; height: 80%; border: round $accent; background: $surface; padding: 0 1; }
    #resume-list { height: 1fr; }
    """

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.sessions: list[SessionInfo] = []
        self.rows: list[Any] = []

    def compose(self) -> ComposeResult:
        with DialogBox(id="resume-box"):
            with Vertical(classes="dialog-head"):
                yield Static("Resume a session · type to filter · Enter opens · Esc closes", classes="panel-title")
                yield OrderedInput(placeholder="filter by prompt, date or id", id="resume-filter")
            yield OptionList(id="resume-list", classes="dialog-body -fill")
            yield Static("", id="resume-status", classes="dialog-answers")

    def on_mount(self) -> None:
        self.query_one("#resume-status", Static).update("Loading sessions…")
        self._load()

    @work(thread=True, exclusive=True, group="resume-list")
    def _load(self) -> None:
        options = self.session.options
        skipped: list[str] = []
        sessions = list_sessions(options.project_dir, sessions_base(options), skipped)
        for sentence in skipped:  # a FIFO or folder named like a session: not listed, and said
            call_soon_from_thread(self.app, self.app.notify, sentence, severity="warning", timeout=12)
        from tui.agent.history.session_tree import session_tree

        rows = session_tree(sessions, options.project_dir)
        call_soon_from_thread(self, self._show, sessions, rows)

    def _show(self, sessions: list[SessionInfo], rows: list[Any]) -> None:
        self.sessions = sessions
        self.rows = rows
        self._filter(self.query_one("#resume-filter", Input).value)

    @on(Input.Changed, "#resume-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self._filter(event.value)

    def _filter(self, text: str) -> None:
        words = text.lower().split()
        rows = [
            r
            for r in self.rows
            if all(
                w in f"{r.info.first_prompt} {r.info.started} {r.info.id} {r.branch.first if r.branch else ''}".lower()
                for w in words
            )
        ]
        shown = [r.info for r in rows if r.branch is None]
        listing = self.query_one("#resume-list", OptionList)
        listing.clear_options()
        current = getattr(self.session, "session_id", None)
        listing.add_options(
            [
                Option(
                    Text(tree_row(r) + (CURRENT_MARK if r.branch is None and r.info.id == current else "")),
                    id=f"{r.info.path}{BRANCH_MARK}{r.branch.id}" if r.branch else str(r.info.path),
                )
                for r in rows
            ]
        )
        if shown:
            listing.highlighted = 0
        status = (
            f"{len(shown)} of {plural(len(self.sessions), 'session')}"
            if self.sessions
            else "No saved sessions in this project yet."
        )
        self.query_one("#resume-status", Static).update(status)

    @on(Input.Submitted, "#resume-filter")
    def _submit_filter(self) -> None:
        listing = self.query_one("#resume-list", OptionList)
        if listing.highlighted is not None:
            option = listing.get_option_at_index(listing.highlighted)
            self.dismiss((option.id or "").split(BRANCH_MARK)[0])

    @on(OptionList.OptionSelected, "#resume-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss((event.option.id or "").split(BRANCH_MARK)[0])  # a branch opens its session: /rewind returns to it

    def on_key(self, event: Any) -> None:
        """Up/Down move in the list while typing in the filter."""
        if event.key in ("up", "down") and isinstance(self.focused, Input):
            listing = self.query_one("#resume-list", OptionList)
            listing.action_cursor_up() if event.key == "up" else listing.action_cursor_down()
            event.stop()

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


# --- showing a history ---------------------------------------------------------------------


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content or () if isinstance(b, dict) and b.get("type") == "text")


def _tool_label(block: dict[str, Any]) -> str:
    tool_input = block.get("input") or {}
    main = tool_input.get("command") or tool_input.get("file_path") or tool_input.get("pattern") or ""
    return f"{block.get('name')}({str(main)[:60]})"


def history_records(messages: list[dict[str, Any]]) -> list[TurnRecord]:
    """TurnRecords for an API history: prompts, replies, thinking and finished tool calls."""
    turns: list[TurnRecord] = []
    tools: dict[str, ToolRecord] = {}
    for message in messages:
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or ())
        if message.get("role") == "user":
            for block in blocks:
                if block.get("type") == "tool_result" and block.get("tool_use_id") in tools:
                    tool = tools[block["tool_use_id"]]
                    tool.is_error = bool(block.get("is_error"))
                    tool.state = "error" if tool.is_error else "done"
                    tool.result_text = (
                        _text_of(block.get("content"))
                        if not isinstance(block.get("content"), str)
                        else block["content"]
                    )
            prompt = "\n".join(
                b.get("text", "") for b in blocks if b.get("type") == "text" and not injected(b.get("text", ""))
            ).strip()
            images = [{"block": b} for b in blocks if b.get("type") == "image"]
            if prompt and turns and any(b.get("type") == "tool_result" for b in blocks):  # steered into the turn
                turns[-1].add(BlockRecord("marker", "steer: sent with the tool results", tone="info", done=True))
                turns[-1].add(BlockRecord("user", prompt, done=True))
            elif prompt or images:
                turns.append(TurnRecord(len(turns) + 1))
                if prompt.startswith("[Summary of the earlier conversation"):
                    turns[-1].add(
                        BlockRecord(
                            "marker",
                            "context compacted: the summary below replaces older turns",
                            tone="info",
                            done=True,
                        )
                    )
                turns[-1].add(BlockRecord("user", prompt, done=True))
                for record in image_records(images):
                    turns[-1].add(record)
            continue
        if not turns:
            turns.append(TurnRecord(1))
        for block in blocks:
            kind = block.get("type")
            if kind == "text" and block.get("text"):
                turns[-1].add(BlockRecord("text", block["text"], done=True))
            elif kind == "thinking" and block.get("thinking"):
                turns[-1].add(BlockRecord("thinking", block["thinking"], done=True))
            elif kind == "tool_use":
                tool = ToolRecord(
                    block.get("id", ""), block.get("name", ""), label=_tool_label(block), state="interrupted"
                )
                tools[tool.tool_use_id] = tool
                turns[-1].add(BlockRecord("tool", tool=tool, done=True))
    return turns


async def show_history(app: AgentApp, messages: list[dict[str, Any]]) -> None:
    """Replace the conversation pane with `messages`: the tail mounted, older turns on scroll."""
    await app.clear_view()
    records = history_records(messages)
    await app.conversation.load_history(records, tail=HISTORY_TAIL_TURNS)
    app.controller.turn_number = len(records)
    app.status.usage = dict(app.session.usage_totals)
    app.status.cost_usd = app.session.cost_usd
    app.conversation.jump_to_bottom()


# --- resuming from the app -----------------------------------------------------------------


def open_picker(app: AgentApp) -> None:
    """Show the picker; resume the chosen session in a worker, then show its history."""
    if app.controller.busy:
        app.notify("A turn is running: press Esc to interrupt it before resuming.", severity="warning")
        return

    def chosen(path: str | None) -> None:
        current = getattr(app.session, "transcript_path", None)
        if path and current is not None and Path(path) == Path(current):
            app.notify("That is the session open now; nothing to resume.", title="Resume")
        elif path:
            app.run_worker(_resume(app, Path(path)), group="resume", exclusive=True)  # a file the picker listed

    app.push_screen(ResumeScreen(app.session), chosen)


async def _resume(app: AgentApp, target: str | Path) -> None:
    import asyncio

    try:
        loaded = await asyncio.to_thread(app.session.resume, target)
    except (LookupError, OSError, RuntimeError, ValueError) as exc:
        app.notify(f"Could not resume: {exc}", severity="error")
        return
    await show_history(app, app.session.messages)
    app.notify(
        f"Resumed session {loaded.session_id}: {plural(len(app.session.messages), 'message')}, {plural(loaded.turns, 'turn')}."
    )


@slash_command("resume", "Resume a saved session of this project", usage="[id]")
def _resume_command(app: AgentApp, args: str) -> None:
    if args:
        if app.controller.busy:
            app.notify("A turn is running: press Esc to interrupt it before resuming.", severity="warning")
            return
        app.run_worker(_resume(app, args), group="resume", exclusive=True)
    else:
        open_picker(app)


@slash_command("fork", "Continue this conversation in a new session file")
async def _fork_command(app: AgentApp, args: str) -> None:
    import asyncio

    if app.controller.busy:
        app.notify("A turn is running: press Esc to interrupt it before forking.", severity="warning")
        return
    try:
        path = await asyncio.to_thread(app.session.fork_transcript)
    except RuntimeError as exc:
        app.notify(str(exc), severity="warning")
        return
    app.notify(f"Continuing in a new session file, {path}.")


@slash_command("compact", "Summarise older turns to free context", usage="[focus]")
async def _compact_command(app: AgentApp, args: str) -> None:
    if app.compacting:  # from the palette: typed commands wait while it runs
        app.notify("A compaction is running: Esc cancels it.", severity="warning")
        return
    if app.controller.busy:
        app.notify("A turn is running: press Esc to interrupt it before compacting.", severity="warning")
        return
    app.notify("Compacting the conversation… (Esc cancels)")
    app.compacting = True  # a worker: the app keeps handling keys (Esc, Ctrl+C cancel) while it runs
    app.run_worker(_compact(app, args), exit_on_error=False)


async def _compact(app: AgentApp, args: str) -> None:
    import asyncio

    from ..prompt_queue import send_stranded

    try:
        result = await asyncio.to_thread(app.session.compact, args)
        if result.ok:
            from ..cost_events import compaction_done

            await show_history(app, app.session.messages)  # the summary's marker went with the old view: again
            done = getattr(app.session, "compactions", None)
            await app.controller.add_marker(
                compaction_done(result.messages_before, result.messages_after, done[-1]["plan"] if done else {}),
                "stop",
            )
        app.notify(result.detail, severity="information" if result.ok or result.interrupted else "warning")
    except RuntimeError as exc:
        app.notify(str(exc), severity="warning")
    finally:  # only now: a turn started while the conversation is shown again would race with it
        app.compacting = False
        send_stranded(app)  # prompts typed meanwhile go now, after the compaction (or its cancel)


@slash_command("export", "Write the conversation as Markdown and JSONL", usage="[path]")
async def _export_command(app: AgentApp, args: str) -> None:
    import asyncio

    try:
        md, raw = await asyncio.to_thread(app.session.export, args or None)
    except OSError as exc:
        app.notify(f"Export failed: {exc.strerror or exc}", severity="error")
        return
    where = f"{md}" + (f" and {raw}" if raw else "")
    await app.controller.add_marker(f"exported to {where}", "info")
    app.notify(f"Exported to {where}")


# --- starting the app on a resumed session -------------------------------------------------


def resumed_app(
    options: AgentOptions, prompt: str | None, session: Session | None, *, picker: bool = False
) -> AgentApp:
    """The app on a session resumed by -c / -r ID (its history shown), or with the picker open (-r)."""
    from ..app import AgentApp

    options.interactive = True

    class ResumedApp(AgentApp):
        def on_ready(self) -> None:  # Textual calls AgentApp.on_ready too (handlers run along the MRO)
            for notice in getattr(session, "resume_notices", ()):  # said while resuming, before the app ran
                self.notify(notice.text, severity=notice.level, timeout=12)
            if session is not None and self.session.messages:
                self.run_worker(show_history(self, self.session.messages), group="resume")
            elif picker:
                open_picker(self)

    return ResumedApp(options, prompt=prompt, session=session)


def run_resumed_app(options: AgentOptions, prompt: str | None, session: Session | None, *, picker: bool = False) -> int:
    """Run `resumed_app` full screen until the user quits; returns the exit code."""
    app = resumed_app(options, prompt, session, picker=picker)
    from tui.tools.shutdown import exit_app_on_signal

    with exit_app_on_signal(lambda code: app.exit(None, code)):  # SIGTERM/SIGHUP: leave the screen cleanly
        result = app.run()
    return int(result or 0) if app.return_code in (None, 0) else int(app.return_code or 1)
