"""The house points one way: ui/headless -> agent -> tools, config. Checked on every import statement.

docs/architecture.md states each rule with the test that checks it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "tui"


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every module `path` imports (function-level and relative imports included), with its line."""
    package = ".".join(path.relative_to(ROOT.parent).with_suffix("").parts[:-1])
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            found.append((node.lineno, base))
            found += [(node.lineno, f"{base}.{a.name}") for a in node.names if _is_module(f"{base}.{a.name}")]
    return found


def _is_module(dotted: str) -> bool:
    """Whether `dotted` names a module or package of tui/ (`from tui import shutdown` imports one)."""
    path = ROOT.parent.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or path.is_dir()


def _runtime_imports(path: Path) -> list[tuple[int, str]]:
    """`_imports` without those under `if TYPE_CHECKING:` (type hints only: they never run)."""
    hints: set[int] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            hints |= {
                n.lineno for stmt in node.body for n in ast.walk(stmt) if isinstance(n, (ast.Import, ast.ImportFrom))
            }
    return [(line, module) for line, module in _imports(path) if line not in hints]


def _violations(folders: list[str], forbidden: tuple[str, ...]) -> list[str]:
    bad = []
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for line, module in _imports(path):
                if any(module == f or module.startswith(f + ".") for f in forbidden):
                    bad.append(f"{path.relative_to(ROOT.parent)}:{line} imports {module}")
    return bad


def test_tools_and_config_never_import_the_engine_or_the_ui() -> None:
    assert _violations(["tools", "config"], ("tui.agent", "tui.ui", "tui.headless", "tui.cli", "textual")) == []


def test_engine_never_imports_the_ui() -> None:
    assert _violations(["agent", "mcp"], ("tui.ui", "tui.headless", "tui.cli", "textual")) == []


def test_hooks_never_import_the_engine_or_the_ui() -> None:
    assert _violations(["hooks"], ("tui.agent", "tui.ui", "tui.headless", "tui.cli", "textual")) == []


def test_telemetry_is_a_subscriber_that_never_imports_the_ui() -> None:
    assert _violations(["telemetry"], ("tui.ui", "tui.headless", "tui.cli", "textual")) == []


def test_the_check_resolves_relative_imports() -> None:
    modules = [m for _, m in _imports(ROOT / "agent" / "dispatch.py")]
    assert "tui.agent.events" in modules and "tui.tools.base" in modules


def test_the_acp_server_is_a_subscriber_like_headless_never_the_ui() -> None:
    assert _violations(["acp"], ("tui.ui", "textual")) == []


def test_only_the_acp_server_imports_the_acp_sdk() -> None:
    others = [p.name for p in ROOT.iterdir() if p.is_dir() and p.name not in ("acp", "__pycache__")]
    assert _violations(others, ("acp",)) == []


def test_trust_never_imports_the_engine_or_the_ui() -> None:
    assert _violations(["trust"], ("tui.agent", "tui.ui", "tui.headless", "tui.cli", "textual")) == []


def _everything_but(*rooms: str) -> list[str]:
    """Every room and top-level module of tui/ except `rooms` (`ui` for tui/ui/, `cli.py` for a module)."""
    return sorted(
        p.name
        for p in ROOT.iterdir()
        if p.name not in rooms and p.name != "__pycache__" and (p.is_dir() or p.suffix == ".py")
    )


def _module_violations(names: list[str], forbidden: tuple[str, ...]) -> list[str]:
    """`_violations` for rooms (folders) and top-level modules (`cli.py`) alike."""
    bad = _violations([n for n in names if (ROOT / n).is_dir()], forbidden)
    for name in (n for n in names if n.endswith(".py")):
        path = ROOT / name
        for line, module in _imports(path):
            if any(module == f or module.startswith(f + ".") for f in forbidden):
                bad.append(f"{path.relative_to(ROOT.parent)}:{line} imports {module}")
    return bad


def test_the_checks_see_top_level_modules_and_rooms() -> None:
    names = _everything_but()
    assert "cli.py" in names and "headless.py" in names and "agent" in names and "ui" in names
    assert _module_violations(["headless.py"], ("tui.agent",))  # it does import the engine


def test_only_the_ui_imports_textual() -> None:
    assert _module_violations(_everything_but("ui"), ("textual",)) == []


def test_only_the_entry_point_imports_the_front_ends() -> None:
    assert _module_violations(_everything_but("ui", "cli.py"), ("tui.ui", "tui.headless")) == []
    assert _violations(["ui"], ("tui.headless",)) == []


def test_sandbox_never_imports_the_engine_or_the_ui() -> None:
    assert _violations(["sandbox"], ("tui.agent", "tui.ui", "tui.headless", "tui.cli", "textual")) == []


def test_providers_never_import_the_ui() -> None:
    assert _violations(["providers"], ("tui.ui", "tui.headless", "tui.cli", "textual")) == []


def test_only_the_entry_point_starts_telemetry() -> None:
    assert _module_violations(_everything_but("telemetry", "cli.py"), ("tui.telemetry",)) == []


def test_optional_sdks_stay_in_their_rooms() -> None:
    assert _module_violations(_everything_but("mcp"), ("mcp",)) == []
    assert _module_violations(_everything_but("telemetry"), ("opentelemetry",)) == []


def test_the_shared_leaves_import_no_room() -> None:
    leaves = ["sanitize.py", "redact.py", "wording.py", "private_files.py", "system"]
    others = [f"tui.{name.removesuffix('.py')}" for name in _everything_but(*leaves)]
    assert _module_violations(leaves, tuple(others)) == []


def test_lsp_never_imports_the_engine_or_the_ui() -> None:
    assert _violations(["lsp"], ("tui.agent", "tui.ui", "tui.headless", "tui.cli", "tui.hooks", "textual")) == []


def test_plugins_never_import_the_engine_or_the_ui() -> None:
    assert _violations(["plugins"], ("tui.agent", "tui.ui", "tui.headless", "tui.cli", "textual")) == []


def test_config_imports_no_room_above_it() -> None:
    """config is the floor: settings parse the `hooks` block themselves (tui/config/hooks_config.py)."""
    above = (
        "tui.hooks",
        "tui.agent",
        "tui.ui",
        "tui.mcp",
        "tui.plugins",
        "tui.headless",
        "tui.cli",
        "tui.acp",
        "tui.telemetry",
        "tui.trust",
        "tui.providers",
        "tui.sandbox",
    )
    assert _violations(["config"], above) == []


#: a module past this many lines is asking to be split by job (docs/development.md#house-style; split as events.py and session.py were).
#: Lines of code and docstrings are counted; blank lines and comment lines are not (ruff format adds blank lines
#: and wraps calls, which says nothing about how many jobs a module does).
MAX_MODULE_LINES = 500


def _counted_lines(path: Path) -> int:
    return sum(
        1
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    )


def test_no_module_is_over_500_lines() -> None:
    long = [
        f"{p.relative_to(ROOT.parent)}: {n} lines"
        for p in sorted(ROOT.rglob("*.py"))
        if (n := _counted_lines(p)) > MAX_MODULE_LINES
    ]
    assert long == []


#: the parts of the engine that must import the session at run time: a subagent's session is an AgentSession
SESSION_IMPORTERS = {"session.py", "subagents.py"}


def test_the_engine_reads_top_down_from_the_session() -> None:
    """session -> loop -> parts: no other module of tui/agent imports session.py but for type hints."""
    bad = [
        f"{p.relative_to(ROOT.parent)}:{line}"
        for p in sorted((ROOT / "agent").rglob("*.py"))
        if p.name not in SESSION_IMPORTERS
        for line, module in _runtime_imports(p)
        if module == "tui.agent.session"
    ]
    assert bad == []


def test_the_runtime_check_skips_type_hints() -> None:
    everything = [m for _, m in _imports(ROOT / "agent" / "loop.py")]
    at_run_time = [m for _, m in _runtime_imports(ROOT / "agent" / "loop.py")]
    assert "tui.agent.session" in everything and "tui.agent.session" not in at_run_time


def test_the_agent_sdk_control_never_imports_the_ui() -> None:
    assert _violations(["sdk_control"], ("tui.ui", "tui.cli", "textual")) == []


#: names of the maintainers' read-only notes, which live outside the repository: a clone cannot follow them
OUTSIDE_NOTES = re.compile(
    r"\b(STYLE|DESIGN)\.md\b|\bDESIGN §|\b(protocol|feasibility|claude-code-observed|claude-code-extensions"
    r"|agent-cli-anchors|textual-anchors|seed-agent-loop(\.zh)?)\.md\b|\.\./shared/"
)


def test_nothing_names_a_file_outside_the_repository() -> None:
    """Code, tests and the build name only what a clone has: the notes behind them are in docs/."""
    repo = ROOT.parent
    files = [*repo.joinpath("tui").rglob("*.py"), *repo.joinpath("tests").rglob("*.py"), repo / "pyproject.toml"]
    files += [*repo.joinpath("docs").rglob("*.md"), repo / "README.md", *repo.joinpath("scripts").rglob("*.py")]
    bad = [
        f"{path.relative_to(repo)}:{number}"
        for path in files
        if "fixtures" not in path.parts
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if OUTSIDE_NOTES.search(line) and path != Path(__file__).resolve()
    ]
    assert bad == []


def _room(module: str) -> str | None:
    """The room of a `tui.` module: its folder under tui/ (`agent`), or the top-level module itself (`cli`)."""
    parts = module.split(".")
    if parts[0] != "tui" or len(parts) < 2 or not _is_module(f"tui.{parts[1]}"):
        return None
    return parts[1]


def _room_graph() -> dict[str, dict[str, list[str]]]:
    """room -> each room it imports at run time -> where (imports inside functions count; type hints do not)."""
    graph: dict[str, dict[str, list[str]]] = {}
    for path in sorted(ROOT.rglob("*.py")):
        here = _room(".".join(path.relative_to(ROOT.parent).with_suffix("").parts))
        for line, module in _runtime_imports(path):
            there = _room(module)
            if here and there and there != here:
                graph.setdefault(here, {}).setdefault(there, []).append(f"{path.relative_to(ROOT.parent)}:{line}")
    return graph


def _circles(graph: dict[str, dict[str, list[str]]]) -> list[list[str]]:
    """The strongly connected components of more than one room (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(room: str) -> None:
        index[room] = low[room] = len(index)
        stack.append(room)
        for other in graph.get(room, {}):
            if other not in index:
                visit(other)
                low[room] = min(low[room], low[other])
            elif other in stack:
                low[room] = min(low[room], index[other])
        if low[room] == index[room]:
            component = []
            while (top := stack.pop()) != room:
                component.append(top)
            if component:
                found.append(sorted([room, *component]))

    for room in sorted(graph):
        if room not in index:
            visit(room)
    return sorted(found)


def test_the_circle_check_finds_a_circle_through_three_rooms() -> None:
    graph = {"a": {"b": ["x"]}, "b": {"c": ["y"]}, "c": {"a": ["z"]}, "d": {"a": ["w"]}}
    assert _circles(graph) == [["a", "b", "c"]]
    assert _room("tui.agent.loop") == "agent" and _room("tui.cli") == "cli" and _room("textual.app") is None
    assert "tui.agent.events" in [m for _, m in _imports(ROOT / "ui" / "events.py")]  # `from tui.agent import events`


def test_no_two_rooms_import_each_other() -> None:
    """Two rooms that import each other are one room in disguise: no circle, imports inside functions included.

    A room below passes nothing up by import: the room above hands it a callable or an object (as the engine
    hands `McpRuntime` its event callbacks), or the shared thing moves down into a leaf (`tui/system/`)."""
    graph = _room_graph()
    circles = [
        f"{' <-> '.join(circle)}: "
        + "; ".join(f"{a} -> {b} at {', '.join(graph[a][b])}" for a in circle for b in circle if b in graph.get(a, {}))
        for circle in _circles(graph)
    ]
    assert circles == []
