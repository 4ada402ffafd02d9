"""Ctrl+G in a real terminal: the app steps aside for $EDITOR and comes back with the edited prompt."""

from __future__ import annotations

from pathlib import Path

from .tmux_driver import Tmux, needs_tmux, tmux_app  # noqa: F401 - tmux_app is a fixture


def editor_script(tmp_path: Path, body: str) -> str:
    script = tmp_path / "editor.sh"
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(0o755)
    return str(script)


@needs_tmux
def test_ctrl_g_edits_the_prompt_in_the_editor(tmux_app: Tmux, tmp_path: Path) -> None:
    # a real program on the terminal: it writes to the screen, waits until the test has seen it, then rewrites the draft
    go = tmp_path / "go"
    editor = editor_script(
        tmp_path,
        f'printf "EDITING %s\\n" "$1"\n'
        f"i=0; while [ ! -e {go} ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done\n"
        'printf "%s and the tests\\nsecond line\\n" "$(cat "$1")" > "$1.new" && mv "$1.new" "$1"\n',
    )
    tmux_app.start_app("--offline", env={"VISUAL": editor, "EDITOR": "false"})
    tmux_app.keys("fix the TODO", "C-g")  # in one write: Ctrl+G acts after the text typed before it
    seen = tmux_app.wait_for(lambda s: "EDITING" in s, "the editor on the terminal")
    assert "prompt.md" in seen and "Ask the agent" not in seen  # the app stepped aside
    go.touch()
    screen = tmux_app.wait_for(lambda s: "fix the TODO and the tests" in s, "the edited prompt back in the app")
    assert "second line" in screen and "EDITING" not in screen


@needs_tmux
def test_an_editor_that_fails_changes_nothing(tmux_app: Tmux, tmp_path: Path) -> None:
    editor = editor_script(tmp_path, 'echo lost > "$1"; exit 3\n')
    tmux_app.start_app("--offline", env={"EDITOR": editor})
    tmux_app.keys("keep this draft", literal=True)
    tmux_app.keys("C-g")
    screen = tmux_app.wait_for(lambda s: "exited with status 3" in s, "the editor's failure")
    assert "keep this draft" in screen and "lost" not in screen
