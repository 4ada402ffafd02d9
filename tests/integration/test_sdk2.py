"""The engine suite on the newest anthropic 2.x (httpx2), while the project pins 0.75 for start-up cost.

The newest 2.x and its dependencies are installed with pip into a folder placed first on
PYTHONPATH, so they shadow the pinned SDK in a child pytest run of the engine tests. Skipped
with the reason when pip cannot install it (no package registry), never silently passed.

The child run takes minutes, so it starts in the background as soon as the suite is collected
(tests/conftest.py) and runs beside the rest of the suite on the machine's other core; this test
is moved to the end of the run and collects its result.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: the tests that touch the SDK: the loop, the offline transport, providers and `-p` (tools and config do not)
ENGINE_TESTS = ["tests/unit/engine", "tests/unit/offline", "tests/integration"]
#: tests that never reach the SDK (the tmux app, MCP servers, the sandbox, hook processes, key stores): they
#: test other parts, and run once already on the pinned SDK; `--ignore-glob` keeps this run to the SDK's paths
APP_TESTS = [
    f"--ignore-glob=tests/integration/{pattern}"
    for pattern in (
        "test_terminal_attacks_tmux.py",
        "test_mcp_*.py",
        "test_sandbox_*.py",
        "test_hooks*.py",
        "test_keystore.py",
        "test_commands_print.py",
        "test_search_interrupt.py",
        "test_agent_sdk.py",
    )
]
INNER = "AGENT_TUI_SDK2_INNER"
TEST_ID = "tests/integration/test_sdk2.py::test_the_engine_suite_passes_on_the_newest_sdk_2"
#: variables of the user's environment the child must not see (the suite's conftest scrubs them per test too)
_SCRUB = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL")


@dataclass
class InnerRun:
    """The child run on SDK 2.x, started in a thread: pip install, a version probe, then pytest."""

    workdir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="agent-tui-sdk2-")))
    skip_reason: str = ""
    version: str = ""
    probe: str = ""
    returncode: int | None = None
    output: str = ""
    process: subprocess.Popen[bytes] | None = None
    done: threading.Event = field(default_factory=threading.Event)
    stopped: bool = False

    def start(self) -> InnerRun:
        threading.Thread(target=self._run, name="sdk2-inner-run", daemon=True).start()
        return self

    def _run(self) -> None:
        try:
            self._install_and_test()
        except Exception as exc:  # reported by the test, not lost in a thread
            self.output += f"\n{type(exc).__name__}: {exc}"
        finally:
            self.done.set()

    def _install_and_test(self) -> None:
        site = self.workdir / "site"
        pip = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "-q",
                "--disable-pip-version-check",
                "--target",
                str(site),
                "anthropic>=2,<3",
            ],
            capture_output=True,
            text=True,
            timeout=600,
        )
        if pip.returncode != 0:
            self.skip_reason = f"anthropic 2.x could not be installed: {pip.stderr.strip().splitlines()[-1:]}"
            return
        env = {k: v for k, v in os.environ.items() if k not in _SCRUB}
        env.update(PYTHONPATH=os.pathsep.join([str(site), str(ROOT)]), **{INNER: "1"})
        probe = subprocess.run(
            [
                sys.executable,
                "-c",
                "import anthropic, tui.agent.httplib as h; print(anthropic.__version__, h.SDK_MAJOR)",
            ],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
            timeout=120,
        )
        self.probe = probe.stdout + probe.stderr
        self.version = probe.stdout.split()[0] if probe.stdout.split() else ""
        if self.stopped:
            return
        log = self.workdir / "pytest.log"
        with log.open("wb") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-x", *APP_TESTS, *ENGINE_TESTS],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
                cwd=ROOT,
                start_new_session=True,
            )
            try:
                self.returncode = self.process.wait(timeout=1400)
            except subprocess.TimeoutExpired:
                self.stop()
                self.output = "the run on SDK 2.x took over 1400 s and was stopped\n"
        self.output = log.read_text(errors="replace") + self.output

    def stop(self) -> None:
        """End the child run (the suite stopped early, or it hung)."""
        self.stopped = True
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, 9)
            self.process.wait()


#: set by tests/conftest.py when this test is collected in an outer run
background: InnerRun | None = None


@pytest.mark.skipif(bool(os.environ.get(INNER)), reason="this is the inner run on SDK 2.x")
@pytest.mark.timeout(1500)
def test_the_engine_suite_passes_on_the_newest_sdk_2() -> None:
    global background
    if background is None:  # collected without the conftest hook (e.g. run by another tool): start it now
        background = InnerRun().start()
    background.done.wait(timeout=1450)
    run = background
    if run.skip_reason:
        pytest.skip(run.skip_reason)
    assert run.version.startswith("2.") and run.probe.split()[1:2] == ["2"], run.probe
    tail = "\n".join(run.output.splitlines()[-30:])
    assert run.returncode == 0, f"engine suite on anthropic {run.version}:\n{tail}"
    assert " passed" in tail  # the summary line (addopts gives -q; one more -q would drop it)
