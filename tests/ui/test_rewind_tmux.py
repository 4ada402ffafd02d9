"""Rewind in a real terminal: two turns that edit and create files, kill -9, -c, then Esc Esc and /rewind."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import reply, text, tool_use

from .tmux_driver import Tmux, needs_tmux, tmux_app  # noqa: F401 - tmux_app is a fixture


def turn(edit: str, new: str, marker: str, bash: str) -> list:
    return [
        reply(tool_use("Read", {"file_path": edit}), stop_reason="tool_use"),
        reply(
            text("Changing."),
            tool_use("Edit", {"file_path": edit, "old_string": "TODO", "new_string": f"DONE {marker}"}),
            tool_use("Write", {"file_path": new, "content": f"{marker}\n"}),
            tool_use("Bash", {"command": bash}),
            stop_reason="tool_use",
        ),
        reply(f"done {marker}"),
    ]


def app_pid(term: Tmux) -> int:
    shell = term.pid()
    children = Path(f"/proc/{shell}/task/{shell}/children").read_text().split()
    return int(children[0]) if children else shell


@needs_tmux
def test_rewind_after_kill_and_continue(tmux_app: Tmux, demo_project: Path, tmp_path: Path) -> None:
    project = demo_project
    os.chmod(project / "app.py", 0o640)
    app_before, util_before = (project / "app.py").read_bytes(), (project / "util.py").read_bytes()
    script = turn("app.py", "new1.txt", "first", "chmod 700 app.py") + turn("util.py", "new2.txt", "second", "true")
    with FakeAPI(script) as api:
        env = {"ANTHROPIC_BASE_URL": api.base_url, "ANTHROPIC_API_KEY": "sk-test"}
        tmux_app.start_app("--permission-mode", "bypassPermissions", env=env)
        for prompt, marker in (("first change", "done first"), ("second change", "done second")):
            tmux_app.keys(prompt, "Enter")
            tmux_app.wait_for(lambda s, m=marker: m in s, marker)
        assert (project / "new2.txt").exists() and (project / "app.py").stat().st_mode & 0o777 == 0o700
        os.kill(app_pid(tmux_app), signal.SIGKILL)
        tmux_app.kill()
        tmux_app.socket += "-c"  # a new server: the old one may still be winding down
        tmux_app.start_app("-c", "--permission-mode", "bypassPermissions", env=env)
        assert len(api.requests) == 6  # continuing sends nothing

        # Esc Esc on the empty prompt: oldest first, the newest selected; Up, Enter, 1
        tmux_app.keys("Escape")
        tmux_app.keys("Escape")
        screen = tmux_app.wait_for(lambda s: "Rewind ·" in s, "the rewind list")
        assert screen.index("first change") < screen.index("second change")
        assert "app.py +1 -1" in screen and "new2.txt +1 -0" in screen
        tmux_app.keys("Up")
        tmux_app.keys("Enter")
        tmux_app.wait_for(lambda s: "1  Restore code and conversation" in s, "the three choices")
        tmux_app.keys("1")
        tmux_app.wait_for(lambda s: "first change" in s.split("▔▔▔")[-1], "the prompt back in the input")
        assert (project / "app.py").read_bytes() == app_before and (project / "util.py").read_bytes() == util_before
        assert (project / "app.py").stat().st_mode & 0o777 == 0o640
        assert not (project / "new1.txt").exists() and not (project / "new2.txt").exists()

        # 3: the code of the branch just left (the conversation stays empty)
        tmux_app.keys("C-a")
        tmux_app.keys("C-k")
        open_rewind_list(tmux_app)
        tmux_app.wait_for(lambda s: "Rewind ·" in s and "branch left at" in s, "the branch")
        tmux_app.keys("Enter")
        tmux_app.wait_for(lambda s: "3  Restore code" in s, "the choices")
        tmux_app.keys("3")
        tmux_app.wait_for(lambda s: "Rewind ·" not in s, "the list to close")
        tmux_app.wait_for(lambda s: (project / "new2.txt").exists(), "the files of the branch")
        assert "DONE first" in (project / "app.py").read_text()

        # 2: the conversation of that branch (the code stays)
        open_rewind_list(tmux_app)
        tmux_app.wait_for(lambda s: "Rewind ·" in s, "the rewind list")
        tmux_app.keys("Home")
        tmux_app.keys("Enter")
        # numbered as listed: 2 beside "restore code", 1 when no file changed since that point
        shown = tmux_app.wait_for(lambda s: "  Restore conversation" in s, "the choices")
        tmux_app.keys("1" if "1  Restore conversation" in shown else "2")
        tmux_app.wait_for(lambda s: "Rewind ·" not in s and "done second" in s, "the conversation back")
        assert (project / "new2.txt").exists()

        # an outside edit: the dialog names the file and asks; o overwrites it
        (project / "util.py").write_text("edited by hand\n")
        open_rewind_list(tmux_app)
        tmux_app.wait_for(lambda s: "Rewind ·" in s, "the rewind list")
        tmux_app.keys("Enter")
        tmux_app.wait_for(lambda s: "1  Restore code and conversation" in s, "the choices")
        tmux_app.keys("1")
        tmux_app.wait_for(lambda s: "changed outside agent-tui since then: util.py" in s, "the conflict question")
        tmux_app.keys("o")
        tmux_app.wait_for(lambda s: "Rewind ·" not in s, "the list to close")
        tmux_app.wait_for(
            lambda s: (project / "util.py").read_bytes() == util_before and not (project / "new2.txt").exists(),
            "util.py restored and new2.txt removed",
        )
        assert (project / "new1.txt").exists()
        assert len(api.requests) == 6


def open_rewind_list(tmux_app: Tmux) -> None:
    """Type /rewind and send it once it is in the input. (Typed right behind ^A ^K it used to lose letters:
    the prompt's own bindings ran only after the key bubbled up to the app; widgets/prompt.py runs them in order.)"""
    tmux_app.keys("/rewind")
    tmux_app.wait_for(lambda s: "/rewind" in s.split("▔▔▔")[-1], "/rewind in the input")
    tmux_app.keys("Enter")
    tmux_app.wait_for(lambda s: "Rewind ·" in s, "the rewind list")
