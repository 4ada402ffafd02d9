"""The header line: app name, model, project, and an honest label when the offline model runs."""

from __future__ import annotations

from pathlib import Path

from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from tui.sanitize import one_line

OFFLINE_HINT = "try: find the TODOs and fix one"


class AppHeader(Static):
    """One line at the top; `offline` switches on the demo-model label and a first prompt hint."""

    model: reactive[str] = reactive("")
    offline: reactive[bool] = reactive(False)

    def __init__(self, project_dir: Path, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.project_dir = project_dir

    def render(self) -> Content:
        home = Path.home()
        try:
            where = "~/" + str(self.project_dir.relative_to(home))
        except ValueError:
            where = str(self.project_dir)
        if self.offline:  # the demo answers whatever model is chosen: no model name that is not called
            markup = (
                "[b $accent]agent-tui[/] [dim]· $where[/dim]   [b $warning]offline demo model[/] [dim]· $hint[/dim]"
            )
        else:
            markup = "[b $accent]agent-tui[/] [dim]·[/dim] $model [dim]· $where[/dim]"
        return Content.from_markup(markup, model=one_line(self.model), where=one_line(where), hint=OFFLINE_HINT)
