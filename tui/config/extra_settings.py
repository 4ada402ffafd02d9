"""`--settings FILE_OR_JSON`: one more settings layer, on top of the files (as Claude Code's flag)."""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

LABEL = "--settings"


def layer_extra(loader: Any, value: str) -> None:
    """Merge a settings file or a JSON string into `loader` (a settings `Loader`: settings_layers.py) as the top layer.

    A JSON string goes through the same reader as a file (from a private temporary file), and
    its problems name `--settings` instead of that file.
    """
    if not value.lstrip().startswith("{"):
        loader.layer(Path(value), folder=False)
        return
    with tempfile.TemporaryDirectory(prefix="agent-tui-settings-") as folder:
        path = Path(folder) / "settings.json"
        path.write_text(value, encoding="utf-8")
        before, hooks_before = len(loader.loaded.problems), len(loader.loaded.hooks)
        loader.layer(path, folder=False)
        hooks = loader.loaded.hooks
        hooks[hooks_before:] = [replace(h, source=Path(LABEL)) for h in hooks[hooks_before:]]
        problems = loader.loaded.problems
        problems[before:] = [problem.replace(str(path), LABEL) for problem in problems[before:]]
        loader.loaded.files[:] = [f for f in loader.loaded.files if f != path]
