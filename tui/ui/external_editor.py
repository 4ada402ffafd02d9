"""Ctrl+G: the prompt in `$VISUAL` / `$EDITOR` while the app steps aside, as Claude Code and Codex do.

The text goes to a private temporary file; the app suspends (the editor gets the terminal), and
comes back with the file's text. An editor that cannot start, fails or exits non-zero changes
nothing: the prompt keeps what it held, and one sentence says why.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from typing import Any

#: tried in this order when neither $VISUAL nor $EDITOR is set
FALLBACK_EDITORS = ("nano", "vi")


def editor_command() -> list[str] | None:
    """The editor to run, as words (`code --wait` included); None when there is none."""
    for name in ("VISUAL", "EDITOR"):
        value = os.environ.get(name, "").strip()
        if value:
            try:
                words = shlex.split(value)
            except ValueError:
                words = [value]
            if words:
                return words
    for fallback in FALLBACK_EDITORS:
        found = shutil.which(fallback)
        if found:
            return [found]
    return None


def edit_text(app: Any, text: str) -> tuple[str | None, str | None]:
    """Run the editor on `text` with the app suspended: (the edited text, None) or (None, why nothing changed)."""
    from textual.app import SuspendNotSupported

    command = editor_command()
    if command is None:
        return (
            None,
            "No editor found: set $VISUAL or $EDITOR (for example export EDITOR=nano) to edit the prompt with Ctrl+G.",
        )
    folder = tempfile.mkdtemp(prefix="agent-tui-prompt-")  # 0700: only its owner reads the draft
    path = os.path.join(folder, "prompt.md")
    try:
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as handle:
            handle.write(text)
        try:
            with app.suspend():
                done = subprocess.run([*command, path], check=False)
        except SuspendNotSupported:
            return None, "This terminal cannot hand the screen to an editor; the prompt is unchanged."
        except OSError as exc:
            return (
                None,
                f"The editor {command[0]} could not be started ({exc.strerror or exc}); the prompt is unchanged.",
            )
        if done.returncode != 0:
            return (
                None,
                f"The editor {os.path.basename(command[0])} exited with status {done.returncode}; the prompt is unchanged.",
            )
        try:
            with open(path, encoding="utf-8", errors="surrogateescape") as handle:
                edited = handle.read()
        except OSError as exc:
            return None, f"The edited prompt could not be read back ({exc.strerror or exc}); the prompt is unchanged."
        return edited.rstrip("\n"), None
    finally:
        shutil.rmtree(folder, ignore_errors=True)
