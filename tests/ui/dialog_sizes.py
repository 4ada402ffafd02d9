"""Every modal with long content, and the check that its answers and key hints are on screen (issue 35)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from textual.containers import ScrollableContainer
from textual.geometry import Region
from textual.screen import Screen
from textual.widget import Widget

from tui.agent import events as ev
from tui.agent.history.rewind import RewindEntry
from tui.ui.widgets.dialog_box import DialogBox

LONG_DIFF = "\n".join(
    ["--- a/app.py", "+++ b/app.py", "@@ -1,30 +1,30 @@"]
    + [
        f"-    value_{n} = compute({n})  # old" if n % 2 else f"+    value_{n} = compute({n}, strict=True)"
        for n in range(30)
    ]
)
LONG_COMMAND = " && ".join(f"npm run build:part-{n} -- --verbose --out dist/part-{n}" for n in range(12))
LONG_TEXT = "\n".join(f"line {n}: " + "some content of the file that is being written " * 2 for n in range(40))


def permission_event(tool: str) -> ev.PermissionRequested:
    """A permission request of `tool` with a preview too long for any dialog."""
    previews: dict[str, tuple[dict[str, Any], str]] = {
        "Bash": ({"kind": "command", "command": LONG_COMMAND, "cwd": "/demo/project"}, LONG_COMMAND[:60]),
        "Edit": ({"kind": "diff", "text": LONG_DIFF, "path": "/demo/project/app.py"}, "app.py"),
        "MultiEdit": ({"kind": "diff", "text": LONG_DIFF, "path": "/demo/project/app.py"}, "app.py (30 edits)"),
        "Write": ({"kind": "text", "text": LONG_TEXT, "path": "/demo/project/notes.md"}, "notes.md"),
        "NotebookEdit": ({"kind": "text", "text": LONG_TEXT, "path": "/demo/project/a.ipynb"}, "a.ipynb cell 3"),
        "WebFetch": ({"kind": "text", "text": "https://example.com/docs\n" + LONG_TEXT}, "https://example.com/docs"),
        "mcp__github__create_issue": (
            {"kind": "text", "text": LONG_TEXT, "mcp_server": "github"},
            "github: create_issue",
        ),
    }
    preview, label = previews[tool]
    return ev.PermissionRequested(
        tool_use_id=f"toolu_{tool}",
        tool_name=tool,
        input={},
        label=label,
        preview=preview,
        suggested_rule=f"{tool}(*)",
        reason="The settings ask before every call of this tool, and nothing allows this one.",
        reply=Future(),
    )


QUESTIONS = [
    {
        "header": "Database",
        "question": "Which database should the new service use? " + "It has to hold the session records. " * 4,
        "multiSelect": False,
        "options": [
            {"label": name, "description": f"{name} is the choice when " + "the team already runs it " * 4}
            for name in ("PostgreSQL", "SQLite", "MySQL", "DuckDB")
        ],
    }
]
PLAN = "# Plan\n\n" + "\n".join(f"{n}. Change part {n} of the code and add a test for it." for n in range(1, 41))
COMPACTION_PLAN = {
    "used_tokens": 170_000,
    "window": 200_000,
    "summarised": {"turns": "1-40", "messages": 160, "tokens": 150_000},
    "kept": {"turns": "41-44", "messages": 12, "tokens": 20_000},
    "pinned": ["keep the API shape", "the tests in tests/api must pass", "no new dependencies"],
}
MCP_SERVERS = [(f"server-{n:02}", f"npx -y @acme/mcp-server-{n} --root /demo/project") for n in range(15)]
REWIND_ENTRIES = [
    RewindEntry(f"prompt {n}: change part {n} of the code and add a test", f"2026-12-04 10:{n:02}", None, n, None)
    for n in range(40)
]
MODELS = [(f"claude-model-{n}", f"Claude model {n} · a long description of what it is good at") for n in range(25)]


def dialog_factories(inventory: Any = None) -> dict[str, Callable[[], Screen[Any]]]:
    """Name → a function making the dialog, all with content longer than a 40×40 screen holds."""
    from tui.agent.history.undo import UndoPlan
    from tui.ui.screens.compaction_dialog import CompactionDialog
    from tui.ui.screens.external_imports_dialog import ExternalImportsDialog
    from tui.ui.screens.help_screen import HelpScreen
    from tui.ui.screens.login_screen import LoginScreen
    from tui.ui.screens.mcp_approval_dialog import McpApprovalDialog
    from tui.ui.screens.model_screen import ModelPicker
    from tui.ui.screens.permission_dialog import PermissionDialog
    from tui.ui.screens.question_dialog import PlanDialog, QuestionDialog
    from tui.ui.screens.rewind_screen import RewindScreen
    from tui.ui.screens.undo_screen import UndoScreen

    made: dict[str, Callable[[], Screen[Any]]] = {
        f"permission-{tool}": (lambda tool=tool: PermissionDialog(permission_event(tool), grace_s=0))  # type: ignore[misc]
        for tool in ("Bash", "Edit", "MultiEdit", "Write", "NotebookEdit", "WebFetch", "mcp__github__create_issue")
    }
    made["question"] = lambda: QuestionDialog(QUESTIONS, Future(), grace_s=0)
    made["plan"] = lambda: PlanDialog(PLAN, Future(), grace_s=0)
    made["compaction"] = lambda: CompactionDialog(COMPACTION_PLAN, Future(), grace_s=0)
    made["mcp-approval"] = lambda: McpApprovalDialog(MCP_SERVERS, grace_s=0)
    made["model"] = lambda: ModelPicker(MODELS, "claude-model-3", "The model applies from the next request. " * 3)
    made["login"] = lambda: LoginScreen()
    made["help"] = lambda: HelpScreen()
    made["external-imports"] = lambda: ExternalImportsDialog(
        [(f"/home/me/notes/part-{n}.md", "/demo/project/CLAUDE.md") for n in range(30)], grace_s=0
    )
    made["rewind"] = lambda: RewindScreen(None, REWIND_ENTRIES)  # type: ignore[arg-type]
    made["undo"] = lambda: UndoScreen(UndoPlan(7, bash_commands=[LONG_COMMAND[:70] + f" #{n}" for n in range(40)]))
    if inventory is not None:
        from tui.ui.screens.trust_dialog import TrustDialog

        made["trust"] = lambda: TrustDialog(inventory, grace_s=0)
    return made


def answers_problems(screen: Screen[Any], size: tuple[int, int]) -> list[str]:
    """Why the dialog's answer row or key hints are not wholly on screen (empty: they are)."""
    whole = Region(0, 0, *size)
    box = screen.query_one(DialogBox)
    problems = [] if whole.contains_region(box.region) else [f"the box {box.region} is off the screen {size}"]
    answers = [w for w in screen.query(".dialog-answers") if w.display]
    heads = [w for w in screen.query(".dialog-head") if w.display]
    if not answers and not heads:
        return [*problems, "no answer row and no head with the key hints"]
    bodies = [w for w in screen.query(".dialog-body") if w.display and w.region.area]
    for row in [*answers, *heads]:
        shown = [row, *(w for w in row.query("*") if w.display and w.region.area and not _scrolled(w, row))]
        for widget in shown:
            if not widget.region.area or not box.region.contains_region(widget.region):
                problems.append(f"{widget!r} at {widget.region} is not inside the box {box.region}")
        for body in bodies:
            if row in answers and body.region.bottom > row.region.y:
                problems.append(f"the body {body!r} ({body.region}) runs under the answers ({row.region})")
            if row in heads and body.region.y < row.region.bottom:
                problems.append(f"the body {body!r} ({body.region}) runs under the head ({row.region})")
    return problems


def _scrolled(widget: Widget, row: Widget) -> bool:
    """`widget` sits in a scrolling part of the answer row (that part is checked, its content may scroll)."""
    parent = widget.parent
    while parent is not None and parent is not row:
        if isinstance(parent, ScrollableContainer):
            return True
        parent = parent.parent
    return False


def fixed_inventory(project: Path) -> Any:
    """The trust inventory of `project`, its paths moved under /demo/project (a fixed snapshot)."""
    from dataclasses import replace

    from tui.trust.inventory import FolderInventory, folder_inventory

    found = folder_inventory(project)
    fixed = Path("/demo/project")
    return FolderInventory(
        fixed,
        False,
        [replace(i, path=fixed / i.path.relative_to(project)) for i in found.items],
        found.catalog_counts,
        [p.replace(str(project), str(fixed)) for p in found.problems],
    )
