"""The header line: app name, model, project, and an honest label when the offline model runs.

When the line does not fit it drops whole parts, never letters: first the offline hint, then the
project path's leading folders (…/last/two), then the path.
"""

from __future__ import annotations

from pathlib import Path

from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from tui.text.sanitize import one_line

OFFLINE_HINT = "try: find the TODOs and fix one"


def shorter_paths(where: str) -> list[str]:
    """`where`, then with its leading folders dropped one at a time (…/b/c, …/c), then nothing."""
    parts = where.split("/")
    return [where, *("…/" + "/".join(parts[i:]) for i in range(1, len(parts)) if parts[i]), ""]


class AppHeader(Static):
    """One line at the top; `offline` switches on the demo-model label and a first prompt hint."""

    model: reactive[str] = reactive("")
    offline: reactive[bool] = reactive(False)

    def __init__(self, project_dir: Path, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.project_dir = project_dir

    def on_resize(self) -> None:
        self.refresh()

    def candidates(self) -> list[Content]:
        """The line from the fullest to the shortest; `render` shows the first that fits."""
        home = Path.home()
        try:
            where = "~/" + str(self.project_dir.relative_to(home))
        except ValueError:
            where = str(self.project_dir)
        lines = []
        hints = [OFFLINE_HINT, ""] if self.offline else [""]
        for hint in hints:
            for path in shorter_paths(one_line(where)) if not hint else [one_line(where)]:
                parts = ["[b $accent]agent-tui[/]"]
                if not self.offline:  # the demo answers whatever model is chosen: no model name that is not called
                    parts.append("[dim]·[/dim] $model")
                if path:
                    parts.append("[dim]· $where[/dim]")
                markup = " ".join(parts)
                if self.offline:
                    markup += "   [b $warning]offline demo model[/]" + (" [dim]· $hint[/dim]" if hint else "")
                lines.append(Content.from_markup(markup, model=one_line(self.model), where=path, hint=hint))
        return lines

    def render(self) -> Content:
        lines = self.candidates()
        width = self.content_region.width
        if width <= 0:
            return lines[0]
        return next((line for line in lines if line.cell_length <= width), lines[-1])
