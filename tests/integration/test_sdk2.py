"""The engine suite on anthropic 2.x (httpx2), while the project pins 0.75 for start-up cost.

Two runs: a pinned, known-good 2.x (PINNED), and the newest 2.x on PyPI, so a release upstream cannot turn
CI red by itself: the pinned run says whether our code broke, the newest run whether the release did, and
its failure names the version. When the newest is the pinned version, the one run answers both tests.

Each run installs its SDK with pip into a folder placed first on PYTHONPATH, so it shadows the pinned SDK
in a child pytest of the engine tests (serial, with its own HOME and temp folder). Skipped with the reason
when pip cannot install it (no package registry), never silently passed.

The child runs take minutes, so they start in the background once the suite is collected, exactly once per
session: in the xdist controller (tests/conftest.py, `pytest_xdist_node_collection_finished`), or in the
one process of a serial run. Each run writes its result as JSON into a results folder; the tests, moved to
the end of the run and in whichever worker they land, wait for their file.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: a 2.x the engine suite passed on (bump it after a newest run passes on a newer one)
PINNED = "2.17.0"
#: what each run installs
REQUIREMENTS = {"pinned": f"anthropic=={PINNED}", "newest": "anthropic>=2,<3"}
#: the tests that touch the SDK: the loop, the offline transport, providers and `-p` (tools and config do not)
ENGINE_TESTS = ["tests/unit/engine", "tests/unit/offline", "tests/integration"]
#: tests whose claims do not rest on the SDK: they run once already, on the pinned SDK; `--ignore-glob` keeps this
#: run to the SDK's paths (the loop, streams, faults, providers, credentials, compaction, resume, `-p`)
APP_TESTS = [
    f"--ignore-glob=tests/integration/{pattern}"
    for pattern in (
        # a terminal or Toad's screen (tmux)
        "test_terminal_attacks_*.py",
        "test_acp_toad.py",
        # no request through the SDK: the offline model, local files, MCP and language servers, the sandbox,
        # hook processes, key stores
        "test_offline_requests.py",
        "test_first_run_cli.py",
        "test_untrusted_print.py",
        "test_claude_*.py",
        "test_linked_files.py",
        "test_lsp.py",
        "test_mcp_*.py",
        "test_sandbox_*.py",
        "test_hooks*.py",
        "test_keystore.py",
        "test_search_interrupt.py",
        # front ends and process ends over the same engine: their protocol and signals, not the SDK's
        "test_acp*.py",
        "test_sdk_control.py",
        "test_stream_json_input.py",
        "test_agent_sdk.py",
        "test_commands_print.py",
        "test_exits.py",
        "test_kill_9.py",
        "test_telemetry*.py",
    )
]
INNER = "AGENT_TUI_SDK2_INNER"
TEST_NAME = "tests/integration/test_sdk2.py::test_the_engine_suite_passes_on_sdk_2"
#: the key of xdist's workerinput that carries the results folder from the controller to the workers
WORKER_KEY = "agent_tui_sdk2_results"
#: variables of the user's environment the child must not see (the suite's conftest scrubs them per test too)
_SCRUB = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL")
#: the longest a child pytest may take
RUN_SECONDS = 1200


def wanted(nodeids: list[str]) -> list[str]:
    """Which runs ("pinned", "newest") the collected node ids ask for."""
    return [which for which in REQUIREMENTS if f"{TEST_NAME}[{which}]" in nodeids]


def pip(*args: str, env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pip", *args, "-q", "--disable-pip-version-check"]
    try:
        return subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(command, 1, "", f"pip took over {timeout} s")


def newest_version(work: Path, env: dict[str, str]) -> tuple[str, str]:
    """The newest anthropic 2.x on the registry (metadata only) and "", or "" and why it is not known."""
    report = work / "newest-report.json"
    found = pip(
        "install", "--dry-run", "--no-deps", "--ignore-installed", "--report", str(report), "anthropic>=2,<3", env=env
    )
    if found.returncode != 0:
        return "", f"the newest anthropic 2.x could not be found: {found.stderr.strip().splitlines()[-1:]}"
    return json.loads(report.read_text())["install"][0]["metadata"]["version"], ""


class Background:
    """The runs of one session, one after the other in a thread; each result goes to `folder`/<which>.json."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="agent-tui-sdk2-"))
        self.results = self.folder / "results"
        self.results.mkdir()
        self.process: subprocess.Popen[bytes] | None = None
        self.stopped = False
        self.done = threading.Event()
        self.started = False
        #: the environment before any test changed it (in a serial run, tests patch os.environ beside the thread)
        self.environ = dict(os.environ)

    def start(self, which: list[str]) -> None:
        """Start the runs asked for (once; later calls do nothing)."""
        if self.started or not which:
            return
        self.started = True
        threading.Thread(target=self._runs, args=(which,), name="sdk2-runs", daemon=True).start()

    def _runs(self, which: list[str]) -> None:
        try:
            pinned: dict[str, Any] | None = None
            if "pinned" in which:
                pinned = self._guarded(lambda: self.run(REQUIREMENTS["pinned"], self.folder / "pinned"))
                self._write("pinned", pinned)
            if "newest" in which:
                self._write("newest", self._guarded(lambda: self._newest(pinned)))
        finally:
            self.done.set()

    def _guarded(self, run: Any) -> dict[str, Any]:
        try:
            return dict(run())
        except Exception as exc:  # reported by the test, not lost in a thread
            return {"version": "", "probe": "", "skip": "", "returncode": None, "tail": f"{type(exc).__name__}: {exc}"}

    def _newest(self, pinned: dict[str, Any] | None) -> dict[str, Any]:
        version, why = newest_version(self.folder, self.environ)
        if why:
            return {"version": "", "probe": "", "skip": why, "returncode": None, "tail": ""}
        if version == PINNED and pinned is not None:
            return {**pinned, "note": f"the newest 2.x is the pinned {PINNED}: one run answers both"}
        return self.run(f"anthropic=={version}", self.folder / "newest")

    def _write(self, which: str, result: dict[str, Any]) -> None:
        partial = self.results / f".{which}.json"
        partial.write_text(json.dumps(result))
        partial.replace(self.results / f"{which}.json")  # the waiting test never reads half a file

    def run(self, requirement: str, work: Path) -> dict[str, Any]:
        """Install `requirement`, probe the version the engine sees, run the engine tests on it."""
        result: dict[str, Any] = {"version": "", "probe": "", "skip": "", "returncode": None, "tail": ""}
        site, home = work / "site", work / "home"
        home.mkdir(parents=True)
        installed = pip("install", "--target", str(site), requirement, env=self.environ, timeout=600)
        if installed.returncode != 0:
            result["skip"] = f"{requirement} could not be installed: {installed.stderr.strip().splitlines()[-1:]}"
            return result
        env = {k: v for k, v in self.environ.items() if k not in _SCRUB and not k.startswith("PYTEST_XDIST")}
        env.update(
            PYTHONPATH=os.pathsep.join([str(site), str(ROOT)]),
            HOME=str(home),
            XDG_CONFIG_HOME=str(home / ".config"),
            XDG_DATA_HOME=str(home / ".local/share"),
            XDG_STATE_HOME=str(home / ".local/state"),
            **{INNER: "1"},
        )
        env.pop("PYTEST_CURRENT_TEST", None)
        probe = subprocess.run(
            [
                sys.executable,
                "-c",
                "import anthropic, tui.agent.api.httplib as h; print(anthropic.__version__, h.SDK_MAJOR)",
            ],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
            timeout=120,
        )
        result["probe"] = probe.stdout + probe.stderr
        result["version"] = probe.stdout.split()[0] if probe.stdout.split() else ""
        if self.stopped:
            return result
        log = work / "pytest.log"
        # serial (-n 0): the outer suite's workers use the cores; --basetemp: temp folders of its own
        argv = ["-p", "no:cacheprovider", "-n", "0", "-x", f"--basetemp={work / 'tmp'}", *APP_TESTS, *ENGINE_TESTS]
        with log.open("wb") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "pytest", *argv],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
                cwd=ROOT,
                start_new_session=True,
            )
            try:
                result["returncode"] = self.process.wait(timeout=RUN_SECONDS)
            except subprocess.TimeoutExpired:
                self.stop()
                result["tail"] = f"the run took over {RUN_SECONDS} s and was stopped\n"
        result["tail"] = "\n".join(log.read_text(errors="replace").splitlines()[-30:]) + "\n" + result["tail"]
        shutil.rmtree(site, ignore_errors=True)  # ~30 MB
        return result

    def stop(self) -> None:
        """End the child run (the suite stopped early, or it hung)."""
        self.stopped = True
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, 9)
            self.process.wait()

    def close(self) -> None:
        """Stop what runs, wait for the thread, remove the folder."""
        self.stop()
        if self.started:
            self.done.wait(timeout=30)  # the thread reads the log before the folder goes
        shutil.rmtree(self.folder, ignore_errors=True)


#: this process's runs (the controller's under xdist, else the one process's), made on first use
background: Background | None = None


def session_background() -> Background:
    global background
    if background is None:
        background = Background()
    return background


def results_folder(config: pytest.Config) -> Path:
    """Where this session's runs write their results: the controller's folder under xdist, else our own."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and WORKER_KEY in workerinput:
        return Path(workerinput[WORKER_KEY])
    runs = session_background()
    runs.start(list(REQUIREMENTS))  # collected without the conftest hook: start now (a no-op when started)
    return runs.results


@pytest.mark.skipif(bool(os.environ.get(INNER)), reason="this is the inner run on SDK 2.x")
@pytest.mark.timeout(2 * RUN_SECONDS + 300)
@pytest.mark.parametrize("which", list(REQUIREMENTS))
def test_the_engine_suite_passes_on_sdk_2(which: str, request: pytest.FixtureRequest) -> None:
    path = results_folder(request.config) / f"{which}.json"
    deadline = time.monotonic() + 2 * RUN_SECONDS + 240
    while not path.exists():  # the result file is the state asserted on: it appears when the run ends
        assert time.monotonic() < deadline, f"no result from the {which} SDK 2.x run"
        time.sleep(0.5)
    run = json.loads(path.read_text())
    if run["skip"]:
        pytest.skip(run["skip"])
    named = f"{which} run, anthropic {run['version'] or '?'} ({REQUIREMENTS[which]}); {run.get('note', '')}"
    assert run["version"].startswith("2.") and run["probe"].split()[1:2] == ["2"], f"{named}: {run['probe']}"
    if which == "pinned":
        assert run["version"] == PINNED, named
    assert run["returncode"] == 0, f"engine suite failed on the {named}:\n{run['tail']}"
    assert " passed" in run["tail"], named  # the summary line (addopts gives -q; one more -q would drop it)
