"""Where the sandbox cannot run: one notice at the first Bash result, then ordinary permissions."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.unit.sandbox.test_sandbox_gate import BASH, use, verdict
from tui.config.sandbox_settings import SandboxSettings
from tui.sandbox import runtime
from tui.tools.base import SessionState, ToolContext


@pytest.fixture(autouse=True)
def _restore() -> Iterator[None]:
    previous = runtime.current()
    yield
    runtime._current.close()
    runtime._current = previous


def test_a_sandbox_that_cannot_run_says_so_once(tmp_path: Path) -> None:
    sandbox = use(SandboxSettings(), tmp_path)
    sandbox._support = (3, "Landlock ABI 3, 4 needed")  # as the probe reports an older kernel
    ctx = ToolContext(project_dir=tmp_path, state=SessionState(project_dir=tmp_path))
    first = BASH.run({"command": "echo hi"}, ctx)
    assert not first.meta["sandboxed"] and "Bash sandbox unavailable (Landlock ABI 3, 4 needed)" in first.text()
    assert "unavailable" not in BASH.run({"command": "echo hi"}, ctx).text()
    assert verdict(tmp_path, "make")[0] == "ask"  # ordinary permissions
