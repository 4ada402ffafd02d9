"""/agents: the agent types the Agent tool offers, and a short form that creates a new one."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Input, Static

from tui.config.agent_files import PROJECT_FOLDERS, USER_FOLDER, AgentDefinition, AgentFileError, create_agent_file
from tui.text.sanitize import one_line

from ..commands import slash_command
from ..trust import skipped_note
from ..widgets.dialog_box import DialogBox
from ..widgets.fitted_table import FittedTable
from ..widgets.ordered_keys import OrderedInput

if TYPE_CHECKING:
    from tui.agent.door import Session


def _agent_tool(session: Session | None) -> Any:
    return next((t for t in getattr(session, "tools", ()) if t.name == "Agent"), None)


class AgentsScreen(ModalScreen[None]):
    """A table of agent types; below it, name / description / tools / model / prompt to create one."""

    DEFAULT_CSS = """
    AgentsScreen { align: center middle; }
    #agents-box { width: 90%; height: 90%; border: round $primary; background: $surface; padding: 0 1; }
    #agents-box > .title { text-style: bold; }
    #agents-table { height: 1fr; }
    #agents-form { height: auto; border-top: solid $primary-darken-2; }
    #agents-fields { height: auto; max-height: 6; }
    AgentsScreen.-short #agents-fields { max-height: 2; }
    AgentsScreen.-short #agents-problems { max-height: 2; }
    #agents-buttons { height: auto; }
    #agents-status { height: auto; color: $text-muted; }
    #agents-problems { height: auto; max-height: 3; overflow-y: auto; color: $warning; }
    """

    BINDINGS = [
        Binding("escape", "close", "Close", id="close_agents"),
        Binding("ctrl+s", "create", "Create agent", id="create_agent"),
    ]

    def __init__(self, session: Session | None = None, project_dir: Path | None = None) -> None:
        super().__init__()
        self.session = session
        self.project_dir = Path(project_dir or Path.cwd())
        tool = _agent_tool(session)
        self.definitions: list[AgentDefinition] = tool.definitions() if tool is not None else []
        #: one sentence per agent file that was skipped (broken, or a name already taken)
        self.problems: list[str] = list(getattr(tool, "problems", []))
        self.trusted = bool(getattr(getattr(session, "policy", None), "trusted", False))

    @property
    def folder(self) -> Path:
        """Where a new agent goes: the project's `.claude/agents` in a trusted folder, else the user's."""
        if self.trusted:
            return self.project_dir / PROJECT_FOLDERS[1]
        return Path.home() / USER_FOLDER

    def compose(self) -> ComposeResult:
        with DialogBox(id="agents-box"):
            with Vertical(classes="dialog-head"):
                yield Static("Agent types (the Agent tool's subagent_type)", classes="title")
                if note := skipped_note(self.app, "agents"):
                    yield Static(note, id="agents-untrusted", classes="untrusted-note", markup=False)
                if self.problems:
                    yield Static(Text("\n".join(f"⚠ {one_line(p)}" for p in self.problems)), id="agents-problems")
            yield FittedTable(id="agents-table", cursor_type="row", classes="dialog-body -fill")
            with Vertical(id="agents-form", classes="dialog-answers"):
                with VerticalScroll(id="agents-fields"):
                    yield Static(Text(f"New agent, saved to {one_line(str(self.folder))}/<name>.md", style="bold"))
                    yield OrderedInput(placeholder="name, e.g. reviewer", id="agent-name", compact=True)
                    yield OrderedInput(placeholder="description: when to use it", id="agent-description", compact=True)
                    yield OrderedInput(
                        placeholder="tools, e.g. Read, Grep, Glob (empty: all but Agent)",
                        id="agent-tools",
                        compact=True,
                    )
                    yield OrderedInput(
                        placeholder="model: sonnet, opus, haiku or inherit (empty: inherit)",
                        id="agent-model",
                        compact=True,
                    )
                    yield OrderedInput(
                        placeholder="system prompt: what the agent is and how it works", id="agent-prompt", compact=True
                    )
                with Horizontal(id="agents-buttons"):
                    yield Button("Create (Ctrl+S)", id="agent-create", compact=True)
                    yield Button("Close (Esc)", id="agent-close", compact=True)
                yield Static("", id="agents-status")

    def on_mount(self) -> None:
        self._fill()
        self.query_one("#agent-name", Input).focus()

    def _fill(self) -> None:
        table = self.query_one("#agents-table", DataTable)
        table.clear(columns=True)
        table.add_columns("Name", "Source", "Model", "Tools", "Description")
        for d in self.definitions:
            tools = ", ".join(d.tools) if d.tools is not None else "all but Agent"
            table.add_row(
                Text(one_line(d.name)),
                d.source,
                one_line(d.model),
                Text(one_line(tools)),
                Text(one_line(d.description)),
                key=d.name,
            )

    def _value(self, widget_id: str) -> str:
        return self.query_one(f"#{widget_id}", Input).value

    def action_create(self) -> Path | None:
        """Write the new agent file and make the Agent tool offer it from the next request."""
        status = self.query_one("#agents-status", Static)
        try:
            path = create_agent_file(
                self.folder,
                self._value("agent-name"),
                self._value("agent-description"),
                self._value("agent-tools"),
                self._value("agent-model"),
                self._value("agent-prompt"),
            )
        except AgentFileError as exc:
            status.update(Text(f"Not created: {exc}.", style="bold red"))
            return None
        tool = _agent_tool(self.session)
        if tool is not None:
            tool.reload()
            self.definitions = tool.definitions()
        self._fill()
        for widget in self.query("#agents-form Input").results(Input):
            widget.value = ""
        status.update(Text(f"Created {path}; the Agent tool offers it from the next request.", style="green"))
        self.app.notify(f"Agent saved to {path}.")
        return path

    @on(Button.Pressed, "#agent-create")
    def _create_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_create()

    @on(Button.Pressed, "#agent-close")
    def _close_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_close()

    def action_close(self) -> None:
        self.dismiss(None)


@slash_command("agents", "List the agent types and create a new one")
def _agents(app: Any, args: str) -> None:
    app.push_screen(AgentsScreen(app.session, app.session.options.project_dir))
