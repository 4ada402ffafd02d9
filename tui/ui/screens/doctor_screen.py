"""/doctor: every problem found at start and since, in one list (a toast says each only once per file change)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from tui.config.reported_problems import ReportedProblems
from tui.text.sanitize import visible

from ..commands import slash_command
from ..widgets.dialog_box import DialogBox

if TYPE_CHECKING:
    from ..app import AgentApp


def found_problems(app: Any) -> list[tuple[str, str]]:
    """(where, sentence) of the start's problems, then the agent files skipped now; each sentence once."""
    found = list(getattr(app, "start_problems", []))
    tool = next((t for t in getattr(app.session, "tools", []) if getattr(t, "name", "") == "Agent"), None)
    found += [("Agents", str(p)) for p in getattr(tool, "problems", [])]
    unique: dict[str, str] = {}
    for where, text in found:
        unique.setdefault(text, where)
    return [(where, text) for text, where in unique.items()]


def problems_text(found: list[tuple[str, str]]) -> Text:
    """The problems under their headings, in the order found."""
    if not found:
        return Text("No problems found: every settings file, plugin, MCP entry and agent file loaded.")
    out = Text()
    for where in dict.fromkeys(where for where, _ in found):
        out.append(f"{where}\n", style="bold")
        for said, text in found:
            if said == where:
                out.append(f"  ⚠ {visible(text)}\n".replace("\n", "\n    ").rstrip(" "), style="yellow")
        out.append("\n")
    return out


class DoctorScreen(ModalScreen[None]):
    """The list; Esc closes."""

    BINDINGS = [Binding("escape", "close", "Close", id="doctor.close")]
    AUTO_FOCUS = "#doctor-body"
    DEFAULT_CSS = """
    DoctorScreen { align: center middle; }
    #doctor-box { width: 100; max-width: 95%; height: auto; max-height: 90%; border: round $warning;
                  background: $surface; padding: 0 1; }
    #doctor-body { margin: 1 0; }
    """

    def __init__(self, found: list[tuple[str, str]]) -> None:
        super().__init__()
        self.found = found

    def compose(self) -> ComposeResult:
        with DialogBox(id="doctor-box"):
            yield Static(Text("Problems · ↑↓ scroll · Esc closes", style="bold"), classes="panel-title dialog-head")
            with VerticalScroll(id="doctor-body", classes="dialog-body"):
                yield Static(problems_text(self.found), id="doctor-list")
            yield Static(
                Text(
                    "A start toasts each problem once per change of its file (remembered in "
                    f"{ReportedProblems().path}); /plugin, /hooks and /permissions list theirs too.",
                    style="dim",
                ),
                classes="dialog-answers",
            )

    def action_close(self) -> None:
        self.dismiss(None)


@slash_command("doctor", "List the problems found at start: settings, plugins, MCP entries, agent files")
def _doctor(app: AgentApp, args: str) -> None:
    app.push_screen(DoctorScreen(found_problems(app)))
