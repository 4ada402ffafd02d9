"""The house points one way: ui/headless -> agent -> tools, config. Checked on every import statement."""

from __future__ import annotations

import ast
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
    return found


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


def test_the_check_resolves_relative_imports() -> None:
    modules = [m for _, m in _imports(ROOT / "agent" / "dispatch.py")]
    assert "tui.agent.events" in modules and "tui.tools.base" in modules


def test_trust_never_imports_the_engine_or_the_ui() -> None:
    assert _violations(["trust"], ("tui.agent", "tui.ui", "tui.headless", "tui.cli", "textual")) == []


def test_the_agent_sdk_control_never_imports_the_ui() -> None:
    assert _violations(["sdk_control"], ("tui.ui", "tui.cli", "textual")) == []
