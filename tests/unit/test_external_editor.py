"""Ctrl+G's editor run without a terminal: which editor, what comes back, and that a failure changes nothing."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

from tui.ui.external_editor import edit_text, editor_command


class Suspendable:
    """Stands in for the app: `suspend()` only counts (the editor runs without a terminal here)."""

    def __init__(self) -> None:
        self.suspended = 0

    @contextmanager
    def suspend(self):
        self.suspended += 1
        yield


def script(tmp_path: Path, body: str) -> str:
    path = tmp_path / "ed.sh"
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return str(path)


def test_visual_beats_editor_and_takes_arguments(monkeypatch) -> None:
    monkeypatch.setenv("EDITOR", "vi")
    monkeypatch.setenv("VISUAL", "code --wait")
    assert editor_command() == ["code", "--wait"]
    monkeypatch.delenv("VISUAL")
    assert editor_command() == ["vi"]


def test_the_edited_text_comes_back_and_the_draft_file_goes(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("EDITOR", script(tmp_path, f'cp "$1" "{tmp_path}/seen"; printf "edited\\n\\n" > "$1"\n'))
    app = Suspendable()
    assert edit_text(app, "draft ünïcode") == ("edited", None)
    assert app.suspended == 1 and (tmp_path / "seen").read_text() == "draft ünïcode"


def test_a_failing_or_missing_editor_changes_nothing(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("EDITOR", script(tmp_path, 'echo lost > "$1"; exit 2\n'))
    assert edit_text(Suspendable(), "keep") == (None, "The editor ed.sh exited with status 2; the prompt is unchanged.")
    monkeypatch.setenv("EDITOR", str(tmp_path / "no-such-editor"))
    edited, problem = edit_text(Suspendable(), "keep")
    assert edited is None and problem.startswith(f"The editor {tmp_path / 'no-such-editor'} could not be started")
