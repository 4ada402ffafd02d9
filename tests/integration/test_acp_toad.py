"""End to end with Toad, a real ACP client: agent-tui as its agent in tmux, the fake API answering.

A prompt typed into Toad, the Edit's approval answered with Toad's own key (`a`: allow once) in its
approval screen showing agent-tui's diff, the edit on disk (written through Toad's `fs/write_text_file`),
and nothing of agent-tui left running once Toad quits.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI, reply, text, tool_use
from tests.fakeapi.demo_project import make_demo_project
from tests.integration.toad_setup import toad_executable
from tests.ui.tmux_driver import AGENT_TUI, Tmux, needs_tmux

TODO = "    # TODO: validate inputs"
DONE = "    # inputs are validated by the caller"


def agent_tui_processes(entry: str) -> list[int]:
    """agent-tui processes (Toad's child and its shell, not Toad) whose environment holds `entry`."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if not proc.name.isdigit():
                continue
            command = (proc / "cmdline").read_bytes()
            if (
                b"agent-tui" in command
                and b"bin/toad" not in command
                and entry.encode() in (proc / "environ").read_bytes().split(b"\0")
            ):
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def until_gone(entry: str, timeout: float = 30.0) -> list[int]:
    """Poll until no such agent-tui process is left; those still there after `timeout`."""
    deadline = time.monotonic() + timeout
    while (left := agent_tui_processes(entry)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


@needs_tmux
@pytest.mark.timeout(300)  # Toad's install (once per worker) and two Pythons starting on a loaded machine
def test_toad_prompts_agent_tui_and_approves_its_edit(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    toad = toad_executable(tmp_path_factory)
    project = make_demo_project(tmp_path / "proj")
    home = tmp_path / "home"
    home.mkdir()
    script = [
        reply(
            text("I will fix the TODO in a.py."),
            tool_use("Read", {"file_path": str(project / "a.py")}),
            stop_reason="tool_use",
        ),
        reply(
            tool_use("Edit", {"file_path": str(project / "a.py"), "old_string": TODO, "new_string": DONE}),
            stop_reason="tool_use",
        ),
        reply(text("Done: the TODO in a.py is resolved.")),
    ]
    data = f"XDG_DATA_HOME={home / 'data'}"
    with FakeAPI(script) as api:
        term = Tmux(project, home)
        try:
            term.start(
                str(toad),
                "acp",
                f"{AGENT_TUI} acp",
                str(project),
                env={
                    "ANTHROPIC_BASE_URL": api.base_url,
                    "ANTHROPIC_API_KEY": "sk-test",
                    "TOAD_LOG": str(home / "toad.log"),
                    "XDG_CONFIG_HOME": str(home / "config"),
                    "XDG_DATA_HOME": str(home / "data"),
                },
            )
            # ready: connected, the session's modes shown (^o Modes), the first-run settings notice gone
            term.wait_for(
                lambda s: "agent-tui connected" in s and "Modes" in s and "Wrote default settings" not in s,
                "Toad connected to agent-tui and idle",
                timeout=180,
            )
            term.keys("fix the TODO in a.py", literal=True)
            term.wait_for(lambda s: "❯ fix the TODO in a.py" in s, "the prompt typed into Toad")
            term.keys("Enter")
            screen = term.wait_for(
                lambda s: "Approval request" in s and "inputs are validated by the caller" in s,
                "Toad's approval screen with agent-tui's diff",
                timeout=60,
            )
            assert "TODO: validate inputs" in screen and TODO in (project / "a.py").read_text()
            term.keys("a")  # Toad's key for "allow once"
            term.wait_for(
                lambda s: "Done: the TODO in a.py is resolved." in s, "agent-tui's answer in Toad", timeout=60
            )
            assert (project / "a.py").read_text() == f"def add(a, b):\n{DONE}\n    return a + b\n"
            log = (home / "toad.log").read_text()
            assert '"method":"session/request_permission"' in log and '"method":"fs/write_text_file"' in log
            assert agent_tui_processes(data)  # agent-tui runs under Toad ...
            term.keys("C-q")
            assert until_gone(data) == []  # ... and ends with it
        finally:
            term.kill()
        assert api.errors == []
