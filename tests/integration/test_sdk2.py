"""The engine suite on the newest anthropic 2.x (httpx2), while the project pins 0.75 for start-up cost.

The newest 2.x and its dependencies are installed with pip into a folder placed first on
PYTHONPATH, so they shadow the pinned SDK in a child pytest run of the engine tests. Skipped
with the reason when pip cannot install it (no package registry), never silently passed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: the tests that touch the SDK: the loop, the offline transport, providers and `-p` (tools and config do not)
ENGINE_TESTS = ["tests/unit/engine", "tests/unit/offline", "tests/integration"]
#: tests that never reach the SDK (the tmux app, MCP servers, the sandbox, hook processes, key stores): they
#: test other parts, and ran once already on the pinned SDK; `--ignore-glob` keeps this run to the SDK's paths
APP_TESTS = [f"--ignore-glob=tests/integration/{pattern}" for pattern in (
    "test_terminal_attacks_tmux.py", "test_mcp_*.py", "test_sandbox_*.py", "test_hooks*.py", "test_keystore.py",
    "test_commands_print.py", "test_search_interrupt.py")]
INNER = "AGENT_TUI_SDK2_INNER"


@pytest.fixture(scope="module")
def sdk2_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("sdk2")
    pip = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--target", str(target),
         "anthropic>=2,<3"],
        capture_output=True, text=True, timeout=600,
    )
    if pip.returncode != 0:
        pytest.skip(f"anthropic 2.x could not be installed: {pip.stderr.strip().splitlines()[-1:]}")
    return target


@pytest.mark.skipif(bool(os.environ.get(INNER)), reason="this is the inner run on SDK 2.x")
@pytest.mark.timeout(1500)
def test_the_engine_suite_passes_on_the_newest_sdk_2(sdk2_site: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(sdk2_site), str(ROOT)]), INNER: "1"}
    probe = subprocess.run(
        [sys.executable, "-c", "import anthropic, tui.agent.httplib as h; print(anthropic.__version__, h.SDK_MAJOR)"],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=120,
    )
    version, major = probe.stdout.split()
    assert version.startswith("2.") and major == "2", probe.stdout + probe.stderr
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-x", *APP_TESTS, *ENGINE_TESTS],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=1400,
    )
    tail = "\n".join((run.stdout + run.stderr).splitlines()[-30:])
    assert run.returncode == 0, f"engine suite on anthropic {version}:\n{tail}"
    assert " passed" in tail  # the summary line (addopts gives -q; one more -q would drop it)
