"""Front ends import only the engine's public face (issue 39; docs/architecture.md, "The front door").

Outside tui/agent, every import of a `tui.agent…` module (inside functions and under `if TYPE_CHECKING:` too)
names a module of FACE; the builders alone also import what builds a session. Names are full dotted module
names, so a script that moves modules into rooms rewrites them here as everywhere else.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.unit.test_structure import ROOT, SESSION_BUILDERS

#: what a front end may import of the engine: the door and its events, and read-only helpers
FACE = {
    "tui.agent",  # the package itself (`from tui.agent import events as ev`)
    "tui.agent.door",  # Session: the operations and views; the types they take and return
    "tui.agent.events",  # what the engine says (and PermissionReply, the answer to PermissionRequested)
    "tui.agent.options",  # AgentOptions: what a session is built with
    "tui.agent.prompt.pipeline",  # the prompt sources, Submitted, is_pin_prompt
    "tui.agent.inbox",  # the type of the `inbox` view, and how queued messages join into one prompt
    "tui.agent.cost.pricing",  # the model table: names, prices, web searches (read-only)
    "tui.agent.api.thinking",  # what a model supports of thinking and effort (read-only rules)
    "tui.agent.cost.report",  # costs as figures and lines (read-only)
    "tui.agent.history.resume",  # the saved sessions of a project: listed, found, their folders (read-only)
    "tui.agent.history.session_tree",  # those sessions' branches, for /resume's tree (read-only)
    "tui.agent.history.replay_check",  # whether a recorded file can be replayed (read-only)
    "tui.agent.history.replay",  # the replay door: a recorded session's events played onto a bus
}

#: besides the face, what only the builders import: the session class, and the start-up they run before
#: building one (is there a key, the offline model, the TLS connection warmed while Python loads)
BUILDER_ONLY = {
    "tui.agent.session": SESSION_BUILDERS,
    "tui.agent.client": {"tui/cli/main.py", "tui/ui/app.py"},
}


def _engine_imports(path: Path, root: Path) -> list[tuple[int, str]]:
    """Every `tui.agent…` module `path` imports (in functions, under TYPE_CHECKING, relative ones), with its line."""
    package = ["tui", *path.relative_to(root).parts[:-1]]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            parent = package[: len(package) - node.level + 1] if node.level else []
            base = ".".join([*parent, node.module] if node.module else parent)
            found.append((node.lineno, base))
            found += [(node.lineno, f"{base}.{a.name}") for a in node.names if _module_file(f"{base}.{a.name}", root)]
    return [(line, m) for line, m in found if m == "tui.agent" or m.startswith("tui.agent.")]


def _outside_the_face(root: Path) -> list[str]:
    """Each import of an engine module outside the face (or outside its builders) under `root`, with its line."""
    bad = []
    for path in sorted(root.rglob("*.py")):
        if path.relative_to(root).parts[0] == "agent":
            continue
        name = f"tui/{path.relative_to(root).as_posix()}"
        for line, module in _engine_imports(path, root):
            if module in FACE or name in BUILDER_ONLY.get(module, set()):
                continue
            bad.append(f"{name}:{line} imports {module}")
    return bad


def test_front_ends_import_only_the_engines_face() -> None:
    assert _outside_the_face(ROOT) == []


def test_the_face_check_sees_imports_in_functions_and_type_hints(tmp_path: Path) -> None:
    root = tmp_path / "tui"
    (root / "ui").mkdir(parents=True)
    (root / "agent" / "events").mkdir(parents=True)
    (root / "agent" / "events" / "__init__.py").write_text("", encoding="utf-8")
    (root / "agent" / "undo.py").write_text("", encoding="utf-8")
    (root / "ui" / "screen.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "from tui.agent import events as ev\n"
        "if TYPE_CHECKING:\n"
        "    from tui.agent.undo import UndoPlan\n"
        "def f():\n"
        "    from tui.agent.prompt_catalog import session_catalog\n"
        "    import tui.agent.session\n"
        "    from ..agent import undo\n",
        encoding="utf-8",
    )
    assert _outside_the_face(root) == [
        "tui/ui/screen.py:4 imports tui.agent.undo",
        "tui/ui/screen.py:6 imports tui.agent.prompt_catalog",
        "tui/ui/screen.py:7 imports tui.agent.session",
        "tui/ui/screen.py:8 imports tui.agent.undo",
    ]


def test_every_face_module_exists() -> None:
    assert [m for m in sorted(FACE | set(BUILDER_ONLY)) if not _module_file(m, ROOT)] == []


def _module_file(dotted: str, root: Path) -> bool:
    """Whether `dotted` names a module or package under `root` (the `tui` folder)."""
    path = root.parent.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()
