"""The config package is engine code: importing it must not pull in Textual."""

from __future__ import annotations

import subprocess
import sys


def test_config_modules_do_not_import_textual() -> None:
    code = (
        "import sys, tui.config.settings, tui.config.memory, tui.config.rule_edits, tui.config.permissions;"
        "sys.exit(1 if any(m == 'textual' or m.startswith('textual.') for m in sys.modules) else 0)"
    )
    assert subprocess.run([sys.executable, "-c", code], timeout=30).returncode == 0
