"""The one-clone launch (`tui.sandbox.vfork`): the command is agent-tui's own child and PID 1 of its namespaces,
errors come back as exceptions, and the calling thread's interpreter state survives many launches."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tui.config.sandbox_settings import SandboxSettings
from tui.sandbox import runtime

pytestmark = pytest.mark.skipif(not runtime.SandboxRuntime().supported(), reason="no Landlock / user namespaces here")


@pytest.fixture
def sandbox(tmp_path: Path) -> Iterator[runtime.SandboxRuntime]:
    rt = runtime.SandboxRuntime(SandboxSettings(), str(tmp_path))
    yield rt
    rt.close()


def _run(prepared: runtime.Prepared, script: str, cwd: Path) -> tuple[int, str, int]:
    proc = prepared.popen(
        ["/bin/bash", "-c", script],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        cwd=cwd,
    )
    out, _ = proc.communicate(timeout=30)
    return proc.pid, out.decode(), proc.returncode


def test_the_command_is_our_child_and_pid_1_without_a_keeper(sandbox: runtime.SandboxRuntime, tmp_path: Path) -> None:
    """No forked copy of agent-tui in between: Popen's pid is bash itself, in its own session, PID 1 inside."""
    prepared = sandbox.prepare(str(tmp_path), [])
    assert prepared.preexec is None and prepared.popen is not None
    proc = prepared.popen(
        ["/bin/bash", "-c", "echo $$; touch inside; touch /etc/agent-tui-test 2>&1; read line"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        cwd=tmp_path,
        bufsize=0,
    )
    assert proc.stdout is not None
    # unbuffered: a buffered readline may take the touch's line too, which communicate() (reading the raw
    # descriptor) then never sees; that was the "missing output" seen under load
    first = proc.stdout.readline()  # bash runs (and waits for a line on stdin)
    with open(f"/proc/{proc.pid}/status") as f:
        status = dict(line.split(":\t", 1) for line in f.read().splitlines() if ":\t" in line)
    with open(f"/proc/{proc.pid}/cmdline", "rb") as f:
        cmdline = f.read().split(b"\0")
    assert cmdline[0] == b"/bin/bash" and int(status["PPid"]) == os.getpid()
    assert os.getsid(proc.pid) == proc.pid
    out, _ = proc.communicate(b"\n", timeout=30)
    lines = (first + out).decode().splitlines()
    assert lines[0] == "1"  # PID 1 of its own namespace: when it ends, the kernel ends what it left behind
    assert "Permission denied" in lines[-1] and (tmp_path / "inside").exists()
    assert proc.returncode == 0
    # a program that keeps what it was given (bash itself ignores SIGQUIT), read from outside while it waits:
    # no signal ignored or blocked (Python ignores SIGPIPE), no capability
    cat = prepared.popen(
        ["/bin/cat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True, cwd=tmp_path
    )
    try:
        with open(f"/proc/{cat.pid}/status") as f:
            status = dict(line.split(":\t", 1) for line in f.read().splitlines() if ":\t" in line)
        assert (status["SigIgn"], status["SigBlk"], status["CapEff"]) == ("0000000000000000",) * 3, status
    finally:
        cat.communicate(b"", timeout=30)


def test_failures_come_back_as_exceptions(sandbox: runtime.SandboxRuntime, tmp_path: Path) -> None:
    """A setup step that fails in the child is raised in the parent; a missing program too."""
    prepared = sandbox.prepare(str(tmp_path), [])
    prepared.plan.read_only.append(str(tmp_path / "missing"))  # a bind of a path that does not exist
    with pytest.raises(subprocess.SubprocessError, match=r"could not start the command: .*mount .*missing"):
        prepared.popen(["/bin/true"], stdout=subprocess.PIPE, start_new_session=True)
    with pytest.raises(FileNotFoundError):
        sandbox.prepare(str(tmp_path), []).popen(["no-such-program-here"], start_new_session=True)


def test_many_launches_from_a_thread_leave_the_interpreter_intact(
    sandbox: runtime.SandboxRuntime, tmp_path: Path
) -> None:
    """The child runs Python as the calling thread: its frames, recursion budget and the GIL must come back whole,
    while another thread keeps running Python."""
    prepared = sandbox.prepare(str(tmp_path), [])
    stop = threading.Event()
    spins = [0]

    def spin() -> None:
        while not stop.is_set():
            spins[0] += 1

    def deep(n: int) -> int:
        return 0 if n == 0 else 1 + deep(n - 1)

    results: list[object] = []

    def launches() -> None:
        try:
            for i in range(20):
                _pid, out, code = _run(prepared, f"echo {i}", tmp_path)
                assert (out, code) == (f"{i}\n", 0)
            results.append(deep(sys.getrecursionlimit() - 50))
        except BaseException as exc:  # noqa: BLE001 - reported below
            results.append(exc)

    spinner = threading.Thread(target=spin)
    spinner.start()
    worker = threading.Thread(target=launches)
    worker.start()
    worker.join(timeout=120)
    stop.set()
    spinner.join()
    assert results == [sys.getrecursionlimit() - 50] and spins[0] > 0


def test_the_forking_launch_can_be_chosen_and_still_contains(
    sandbox: runtime.SandboxRuntime, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """AGENT_TUI_SANDBOX_LAUNCH=fork: the older launch (a forked child and a keeper) for every command."""
    monkeypatch.setenv("AGENT_TUI_SANDBOX_LAUNCH", "fork")
    prepared = sandbox.prepare(str(tmp_path), [])
    assert prepared.popen is None and prepared.preexec is not None
    proc = subprocess.run(
        [
            "/bin/bash",
            "-c",
            "cat /etc/hostname >/dev/null 2>&1 && echo read; touch inside; "
            "touch /etc/agent-tui-escape 2>/dev/null || echo denied",
        ],
        preexec_fn=prepared.preexec,
        env=prepared.env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert "denied" in proc.stdout and (tmp_path / "inside").exists(), proc.stdout + proc.stderr


_THREADED_CHILD = """
import os, subprocess, sys, threading
from pathlib import Path
from tui.config.sandbox_settings import SandboxSettings
from tui.sandbox import runtime

os.environ["AGENT_TUI_SANDBOX_LAUNCH"] = "fork"
ready = threading.Event()
# as gRPC's fork support does: a handler that starts a thread in every forked child
os.register_at_fork(after_in_child=lambda: threading.Thread(target=ready.wait, daemon=True).start())
folder = Path(sys.argv[1])
rt = runtime.SandboxRuntime(SandboxSettings(), str(folder))
prepared = rt.prepare(str(folder), [])
proc = subprocess.run(
    ["/bin/bash", "-c", "touch inside; touch /etc/agent-tui-escape 2>/dev/null || echo denied"],
    preexec_fn=prepared.preexec, env=prepared.env, cwd=folder, capture_output=True, text=True, timeout=30,
)
print(proc.stdout.strip(), (folder / "inside").exists())
rt.close()
"""


def test_the_forking_launch_contains_even_when_a_fork_handler_starts_a_thread(tmp_path: Path) -> None:
    """A library's at-fork handler (gRPC's, once a gRPC server or exporter ran) starts a thread in the forked
    child, and unshare refuses a threaded caller ("Exception occurred in preexec_fn"): the launch must not need it."""
    done = subprocess.run(
        [sys.executable, "-c", _THREADED_CHILD, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[3],
    )
    assert done.returncode == 0 and done.stdout.split() == ["denied", "True"], done.stdout + done.stderr
