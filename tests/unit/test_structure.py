"""The house points one way: ui/headless -> agent -> tools, config. Checked on every import statement.

docs/architecture.md states each rule with the test that checks it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "tui"


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every module `path` imports (function-level and relative imports included), with its line.

    `from package import module` counts the module, not the package: the package's own room is not entered."""
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
            modules = [f"{base}.{a.name}" for a in node.names if _is_module(f"{base}.{a.name}")]
            if len(modules) < len(node.names):  # `from tui.agent import events` imports the events room, not agent's
                found.append((node.lineno, base))
            found += [(node.lineno, module) for module in modules]
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
    modules = [m for _, m in _imports(ROOT / "agent" / "loop" / "dispatch.py")]
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
    assert "cli" in names and "headless" in names and "agent" in names and "ui" in names
    assert _module_violations(["headless"], ("tui.agent",))  # it does import the engine


def test_only_the_ui_imports_textual() -> None:
    assert _module_violations(_everything_but("ui"), ("textual",)) == []


def test_only_the_entry_point_imports_the_front_ends() -> None:
    assert _module_violations(_everything_but("ui", "cli", "headless"), ("tui.ui", "tui.headless")) == []
    assert _violations(["ui"], ("tui.headless",)) == []


def test_sandbox_never_imports_the_engine_or_the_ui() -> None:
    assert _violations(["sandbox"], ("tui.agent", "tui.ui", "tui.headless", "tui.cli", "textual")) == []


def test_providers_never_import_the_ui() -> None:
    assert _violations(["providers"], ("tui.ui", "tui.headless", "tui.cli", "textual")) == []


def test_only_the_entry_point_starts_telemetry() -> None:
    assert _module_violations(_everything_but("telemetry", "cli"), ("tui.telemetry",)) == []


def test_optional_sdks_stay_in_their_rooms() -> None:
    assert _module_violations(_everything_but("mcp"), ("mcp",)) == []
    assert _module_violations(_everything_but("telemetry"), ("opentelemetry",)) == []


def test_the_shared_leaves_import_no_room() -> None:
    leaves = ["text", "system"]
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


#: a module past this many lines is asking to be split by job (docs/development.md#house-style; split as the events
#: package and dispatch_permission.py were). Every line counts, blank ones too: they are what a reader scrolls.
MAX_MODULE_LINES = 500


def _counted_lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_no_module_is_over_500_lines() -> None:
    long = [
        f"{p.relative_to(ROOT.parent)}: {n} lines"
        for p in sorted(ROOT.rglob("*.py"))
        if (n := _counted_lines(p)) > MAX_MODULE_LINES
    ]
    assert long == []


def test_no_module_has_a_module_level_getattr() -> None:
    """A name is found where it is imported from, never conjured by a module `__getattr__` (lazy re-exports)."""
    found = [
        f"{p.relative_to(ROOT.parent)}:{node.lineno}"
        for p in sorted(ROOT.rglob("*.py"))
        for node in ast.parse(p.read_text(encoding="utf-8")).body
        if isinstance(node, ast.FunctionDef) and node.name == "__getattr__"
    ]
    assert found == []


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
    everything = [m for _, m in _imports(ROOT / "agent" / "loop" / "loop.py")]
    at_run_time = [m for _, m in _runtime_imports(ROOT / "agent" / "loop" / "loop.py")]
    assert "tui.agent.session" in everything and "tui.agent.session" not in at_run_time


def test_the_agent_sdk_control_never_imports_the_ui() -> None:
    assert _violations(["headless/sdk_control"], ("tui.ui", "tui.cli", "textual")) == []


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


#: the rooms and modules that drive a session from outside the engine (front ends, and rooms handed a session)
FRONT_ENDS = [n for n in _everything_but("agent") if n not in ("__init__.py",)]
#: modules let off the two checks below while they still drive a session (none since the one prompt pipeline)
PIPELINE_PENDING: set[str] = set()


def _is_session(node: ast.expr, aliases: set[str]) -> bool:
    """`session`, `x.session` (self.session, app.session, link.session), or a local name bound to one of them."""
    if isinstance(node, ast.Name):
        return node.id == "session" or node.id in aliases
    return isinstance(node, ast.Attribute) and node.attr == "session"


def _through_session(node: ast.expr, aliases: set[str]) -> bool:
    """`node` is a session or reaches into one: `session.options`, `self.session.mcp.manager`, `s.state[k]`."""
    while True:
        if _is_session(node, aliases):
            return True
        if isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        else:
            return False


def _scope_nodes(scope: ast.AST) -> list[ast.AST]:
    """The nodes of one function (or module) in source order, without those of the functions inside it."""
    found: list[ast.AST] = []
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        found.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            stack += ast.iter_child_nodes(node)
    return sorted((n for n in found if hasattr(n, "lineno")), key=lambda n: (n.lineno, n.col_offset))


def _engine_writes(tree: ast.AST) -> list[int]:
    """Lines that assign an attribute (or item) of a session, or of something reached through one, or setattr it."""
    lines: list[int] = []
    for scope in (n for n in ast.walk(tree) if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef))):
        aliases: set[str] = set()
        for node in _scope_nodes(scope):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr":
                targets = [ast.Attribute(value=node.args[0], attr="", ctx=ast.Store())] if node.args else []
            for target in targets:
                for part in target.elts if isinstance(target, ast.Tuple) else [target]:
                    if isinstance(part, (ast.Attribute, ast.Subscript)) and _through_session(part.value, aliases):
                        lines.append(node.lineno)
            if isinstance(node, ast.Assign):  # `s = self.session`, `options = session.options`: writes through s count
                names = {t.id for t in node.targets if isinstance(t, ast.Name)}
                aliases = aliases | names if _through_session(node.value, aliases) else aliases - names
    return sorted(set(lines))


def _front_end_files() -> list[Path]:
    files = (p for n in FRONT_ENDS for p in ([ROOT / n] if n.endswith(".py") else (ROOT / n).rglob("*.py")))
    return sorted(p for p in files if str(p.relative_to(ROOT.parent)) not in PIPELINE_PENDING)


def test_no_front_end_assigns_engine_state() -> None:
    """A front end changes a session through its operations (tui/agent/door.py), never by assigning its attributes."""
    bad = [
        f"{path.relative_to(ROOT.parent)}:{line}"
        for path in _front_end_files()
        for line in _engine_writes(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert bad == []


def test_the_write_check_sees_writes_through_aliases() -> None:
    code = (
        "def f(app, session):\n"
        "    session.messages = []\n"
        "    app.session.options.model = 'm'\n"
        "    s = app.session\n"
        "    s.hook_context += []\n"
        "    options = self.session.options\n"
        "    options.model = 'x'\n"
        "    setattr(session, 'x', 1)\n"
        "    self.session = session\n"
        "    model = session.options.model\n"
        "    model = 'y'\n"
        "    options = other\n"
        "    options.model = 'z'\n"
        "    session.messages[-1] = {}\n"
        "    def inner(options):\n"
        "        options.model = 'w'\n"
    )
    assert _engine_writes(ast.parse(code)) == [2, 3, 5, 7, 8, 14]


def _any_sessions(tree: ast.AST) -> list[int]:
    """Lines that type a session (a parameter or attribute named `session`) as Any."""

    def is_any(annotation: ast.expr | None) -> bool:
        return annotation is not None and ast.unparse(annotation).strip("'\"") in ("Any", "typing.Any")

    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.arg == "session" and is_any(node.annotation):
            lines.append(node.lineno)
        elif isinstance(node, ast.AnnAssign) and is_any(node.annotation):
            target = node.target
            name = (
                target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) else ""
            )
            if name in ("session", "_session"):
                lines.append(node.lineno)
    return lines


def test_no_session_is_typed_any_outside_the_engine() -> None:
    """Outside tui/agent a session is a `tui.agent.door.Session` (or a narrow protocol of the room's own)."""
    bad = [
        f"{path.relative_to(ROOT.parent)}:{line}"
        for path in sorted(ROOT.rglob("*.py"))
        if path.relative_to(ROOT).parts[0] != "agent" and str(path.relative_to(ROOT.parent)) not in PIPELINE_PENDING
        for line in _any_sessions(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert bad == []


#: outside the engine, tui.agent.session is imported only to build a session; everything else types against the
#: door (tui/agent/door.py). The MCP runtime is built by the engine and holds its session.
SESSION_BUILDERS = {"tui/acp/agent.py", "tui/cli/main.py", "tui/headless/run.py", "tui/ui/app.py", "tui/mcp/runtime.py"}


def test_outside_the_engine_only_the_builders_import_the_session_class() -> None:
    found = {
        str(path.relative_to(ROOT.parent))
        for path in sorted(ROOT.rglob("*.py"))
        if path.relative_to(ROOT).parts[0] != "agent"
        for _, module in _imports(path)
        if module == "tui.agent.session"
    }
    assert found <= SESSION_BUILDERS


def _room(module: str) -> str | None:
    """The room of a `tui.` module: its folder under tui/ (`ui`), or the top-level module itself (`cli`).

    The engine's folders are rooms of their own (`agent.loop`, `agent.history`); its loose modules (the session,
    its door, what it is built with and linked to) are the room `agent`."""
    parts = module.split(".")
    if parts[0] != "tui" or len(parts) < 2 or not _is_module(f"tui.{parts[1]}"):
        return None
    if parts[1] == "agent" and len(parts) > 2 and (ROOT / "agent" / parts[2]).is_dir():
        return f"agent.{parts[2]}"
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
    assert (
        _room("tui.agent.loop.loop") == "agent.loop"
        and _room("tui.agent.session") == "agent"
        and _room("tui.cli") == "cli"
        and _room("textual.app") is None
    )
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


#: the engine's rooms: the folders of tui/agent (its loose modules, the session's room, are `agent`)
ENGINE_ROOMS = {"api", "context", "cost", "events", "history", "loop", "offline", "prompt"}


def test_the_engine_rooms_sit_below_the_session() -> None:
    """The engine's folders are rooms in the circle check above, and none reaches up into the session's room
    (tui/agent's loose modules) at run time: each is handed the part of a session it needs (type hints under
    `if TYPE_CHECKING:` name `AgentSession`, never an import that runs)."""
    rooms = {p.name for p in (ROOT / "agent").iterdir() if (p / "__init__.py").is_file()}
    assert rooms == ENGINE_ROOMS
    graph = _room_graph()
    up = [
        f"agent.{room} -> agent at {', '.join(graph[f'agent.{room}']['agent'])}"
        for room in sorted(rooms)
        if "agent" in graph.get(f"agent.{room}", {})
    ]
    assert up == []
