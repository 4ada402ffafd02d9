"""Fixtures for the offline model: a small real project, stand-in tools and an SDK client."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

TOOL_NAMES = ("Read", "Write", "Edit", "Bash", "Glob", "Grep", "TodoWrite")

CALC_PY = "def add(a, b):\n    # TODO: validate inputs\n    return a + b\n"
MAIN_PY = "import calc\n\n\ndef main():\n    print(calc.add(1, 2))  # FIXME remove debug print\n"


def tool_defs(names: tuple[str, ...] = TOOL_NAMES) -> list[dict[str, Any]]:
    """Minimal tool definitions with the given names."""
    return [{"name": name, "description": f"{name} tool", "input_schema": {"type": "object"}} for name in names]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git-like project with a README, one TODO and one FIXME."""
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "README.md").write_text("# Calc\n\nAdds numbers.\n")
    (root / "src" / "calc.py").write_text(CALC_PY)
    (root / "src" / "main.py").write_text(MAIN_PY)
    return root


class StandInTools:
    """Plain-Python stand-ins for the real tools, with the real result formats."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _files(self) -> list[Path]:
        return sorted(p for p in self.root.rglob("*") if p.is_file() and ".git" not in p.parts)

    def run(self, name: str, tool_input: dict[str, Any]) -> tuple[str, bool]:
        """Runs one call; returns (result text, is_error)."""
        if name == "Glob":
            return "\n".join(str(p) for p in self._files()), False
        if name == "Read":
            path = Path(tool_input["file_path"])
            if not path.is_file():
                return f"<tool_use_error>File does not exist: {path}</tool_use_error>", True
            lines = path.read_text().split("\n")
            if lines[-1] == "":
                lines.pop()
            return "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(lines, 1)), False
        if name == "Grep":
            pattern = re.compile(tool_input["pattern"])
            out = []
            for path in self._files():
                for n, line in enumerate(path.read_text().split("\n"), 1):
                    if pattern.search(line):
                        out.append(f"{path.relative_to(self.root).as_posix()}:{n}:{line}")
            return "\n".join(out) or "No matches found", False
        if name == "Edit":
            path = Path(tool_input["file_path"])
            text = path.read_text()
            if text.count(tool_input["old_string"]) != 1:
                return "<tool_use_error>old_string must match exactly once</tool_use_error>", True
            path.write_text(text.replace(tool_input["old_string"], tool_input["new_string"]))
            return f"The file {path} has been updated successfully.", False
        if name == "Write":
            path = Path(tool_input["file_path"])
            path.write_text(tool_input["content"])
            return f"File created successfully at: {path}", False
        if name == "Bash":
            return f"(stand-in ran {tool_input['command']})\nexit code 0", False
        return f"<tool_use_error>No such tool: {name}</tool_use_error>", True


@pytest.fixture
def tools_runner(project: Path) -> StandInTools:
    return StandInTools(project)


def make_client(project_dir: Path, delay: float = 0.0) -> tuple[Any, Any]:
    """A real SDK client on the offline transport; returns (client, transport)."""
    import anthropic

    from tui.agent.api.httplib import httpx
    from tui.agent.offline import OfflineTransport

    transport = OfflineTransport(project_dir, delay=delay)
    client = anthropic.Anthropic(api_key="x", http_client=httpx.Client(transport=transport), max_retries=0)
    return client, transport


def drive_turn(
    client: Any,
    prompt: str,
    runner: StandInTools,
    *,
    tools: list[dict[str, Any]] | None = None,
    deny: frozenset[str] = frozenset(),
    messages: list[dict[str, Any]] | None = None,
    limit: int = 10,
) -> tuple[list[Any], list[dict[str, Any]]]:
    """A tiny agent loop: stream, run every tool_use, send all results in one user message."""
    messages = list(messages or []) + [{"role": "user", "content": prompt}]
    replies = []
    for _ in range(limit):
        with client.messages.stream(
            model="offline-demo",
            max_tokens=4096,
            messages=messages,
            tools=tools if tools is not None else tool_defs(),
        ) as stream:
            final = stream.get_final_message()
        replies.append(final)
        messages.append({"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in final.content]})
        if final.stop_reason != "tool_use":
            break
        results = []
        for block in final.content:
            if block.type != "tool_use":
                continue
            if block.name in deny:
                text, is_error = "The user denied this tool call.", True
            else:
                text, is_error = runner.run(block.name, block.input)
            result: dict[str, Any] = {"type": "tool_result", "tool_use_id": block.id, "content": text}
            if is_error:
                result["is_error"] = True
            results.append(result)
        messages.append({"role": "user", "content": results})
    return replies, messages
