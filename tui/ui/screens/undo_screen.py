"""/undo: show what reverting the last turn's file changes will do, and do it on Enter."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from tui.text.sanitize import one_line, visible

from ..commands import slash_command
from ..widgets.dialog_box import DialogBox

if TYPE_CHECKING:
    from tui.agent.door import UndoPlan

    from ..app import AgentApp

_ACTION_WORDS = {
    "restore": "restore",
    "delete": "delete (the turn created it)",
    "unchanged": "already as before",
    "nothing": "already gone",
    "replace link": "replace the link that is there now (its target is not touched)",
    "unlink": "remove the link that is there now (its target is not touched)",
    "refuse": "not restored",
}


class UndoScreen(ModalScreen[bool]):
    """The files undo will restore or delete, each with a diff; Enter confirms, Esc cancels."""

    BINDINGS = [Binding("enter", "confirm", "Undo"), Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    UndoScreen { align: center middle; }
    #undo-box { width: 90%; height: 85%; border: round $warning; background: $surface; padding: 0 1; }
    #undo-body { height: 1fr; }
    """

    def __init__(self, plan: UndoPlan) -> None:
        super().__init__()
        self.plan = plan

    def compose(self) -> ComposeResult:
        plan = self.plan
        with DialogBox(id="undo-box"):
            yield Static(
                Text(f"Undo the file changes of turn {plan.turn_id} · Enter undoes · Esc cancels", style="bold"),
                classes="panel-title dialog-head",
            )
            with VerticalScroll(id="undo-body", classes="dialog-body -fill"):
                for item in plan.files:
                    words = _ACTION_WORDS.get(item.action, item.action)
                    detail = f" (a link to {item.link})" if item.link else ""
                    detail += f": {item.problem}" if item.problem else ""
                    yield Static(Text(one_line(f"{item.path}{detail}: {words}"), style="bold"))
                    if item.problem:
                        continue
                    diff = item.diff(plan.project_dir)
                    if diff:
                        yield Static(Syntax(visible(diff), "diff", theme="ansi_dark", word_wrap=True))
                if plan.bash_commands:
                    yield Static(
                        Text("Not tracked: changes made by these Bash commands stay as they are:", style="bold")
                    )
                    for command in plan.bash_commands:
                        yield Static(Text(f"  $ {one_line(command)}"))

    def action_confirm(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)


@slash_command("undo", "Revert the file changes of the last turn (shows them first)")
async def _undo_command(app: AgentApp, args: str) -> None:
    import asyncio

    if app.controller.busy:
        app.notify("A turn is running: press Esc to interrupt it before undoing.", severity="warning")
        return
    plan = await asyncio.to_thread(app.session.undo_plan)
    if plan.empty:
        extra = (
            f" Bash commands of the last turn are not tracked: {'; '.join(plan.bash_commands)}"
            if plan.bash_commands
            else ""
        )
        app.notify("There are no file changes to undo." + extra, severity="warning")
        return

    async def confirmed(ok: bool | None) -> None:
        if not ok:
            app.notify("Undo cancelled; no file was touched.")
            return
        lines = await asyncio.to_thread(app.session.undo, plan)
        await app.controller.add_marker("undo: " + "; ".join(lines), "info")

    app.push_screen(UndoScreen(plan), confirmed)
