"""/tasks: the session's background tasks, the output tail of the highlighted one, and a key that stops it."""

from __future__ import annotations

import time
from functools import partial

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from tui.text.sanitize import one_line, visible
from tui.tools.tasks import BackgroundTask, TaskRegistry

from ..commands import slash_command
from ..widgets.dialog_box import DialogBox
from ..widgets.fitted_table import FittedTable

STATUS_STYLES = {"running": "bold cyan", "completed": "green", "failed": "red", "killed": "yellow"}


def _age(task: BackgroundTask) -> str:
    seconds = (task.ended or time.time()) - task.started
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min"


class TasksScreen(ModalScreen[None]):
    """A table of background tasks; the highlighted one's last lines are shown below it, `k` stops it."""

    DEFAULT_CSS = """
    TasksScreen { align: center middle; }
    #tasks-box { width: 90%; height: 85%; border: round $primary; background: $surface; padding: 0 1; }
    #tasks-box > .title { text-style: bold; }
    #tasks-table { height: auto; max-height: 40%; }
    #tasks-tail { height: 1fr; border-top: solid $primary-darken-2; }
    """

    BINDINGS = [
        Binding("escape,q", "close", "Close", id="close_tasks"),
        Binding("k,delete", "stop_task", "Stop the task", id="stop_task"),
    ]

    def __init__(self, registry: TaskRegistry) -> None:
        super().__init__()
        self.registry = registry
        self.selected: str | None = None

    def compose(self) -> ComposeResult:
        with DialogBox(id="tasks-box"):
            with Vertical(classes="dialog-head"):
                yield Static("Background tasks", classes="title")
                yield Static("", id="tasks-empty")
            yield FittedTable(id="tasks-table", cursor_type="row")
            with VerticalScroll(id="tasks-tail"):
                yield Static("", id="tasks-output", markup=False)
            yield Static(Text("Up/Down choose a task · k stops it · Esc closes", style="dim"), classes="dialog-answers")

    def on_mount(self) -> None:
        table = self.query_one("#tasks-table", DataTable)
        table.add_columns("Id", "Status", "Time", "Task")
        self.refresh_tasks()
        table.focus()
        self.set_interval(1.0, self.refresh_tasks)

    def refresh_tasks(self) -> None:
        """Redraw the table from the registry (tasks end while the screen is open)."""
        tasks = self.registry.all()
        self.query_one("#tasks-empty", Static).update(
            "" if tasks else "No background tasks. The model starts one with Bash `run_in_background`."
        )
        table = self.query_one("#tasks-table", DataTable)
        row = table.cursor_row
        table.clear()
        for task in tasks:
            status = task.status + (f" ({task.exit_code})" if task.exit_code is not None else "")
            table.add_row(
                task.id,
                Text(status, style=STATUS_STYLES[task.status]),
                _age(task),
                Text(one_line(task.description)[:100]),
                key=task.id,
            )
        if tasks:
            table.move_cursor(row=min(row, len(tasks) - 1))
            self._show(tasks[min(row, len(tasks) - 1)].id)

    def _show(self, task_id: str) -> None:
        self.selected = task_id
        shown = Text(visible(self.registry.tail(task_id)) or "(no output yet)")
        if note := self.registry.output_note(task_id):  # the cap dropped the oldest output
            shown = Text.assemble((note + "\n", "dim italic"), shown)
        self.query_one("#tasks-output", Static).update(shown)

    @on(DataTable.RowHighlighted, "#tasks-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key.value is not None:
            self._show(event.row_key.value)

    def action_stop_task(self) -> None:
        if self.selected is None:
            return
        task = self.registry.get(self.selected)
        if task is None or not task.running:
            self.notify("That task has already ended.", severity="warning")
            return
        # off the UI thread: a process tree gets a second to end on SIGTERM before SIGKILL
        self.run_worker(partial(self.registry.stop, task.id), thread=True, exit_on_error=False)
        self.notify(f"Stopping {task.id}…")

    def action_close(self) -> None:
        self.dismiss(None)


@slash_command("tasks", "List background tasks, show their output, stop one")
def _tasks(app, args: str) -> None:
    app.push_screen(TasksScreen(app.session.state.tasks))
