"""Ordinary work keeps working inside the sandbox: git, pytest, pip --target, a compiler, npm, the proxy."""

from __future__ import annotations

import http.server
import logging
import os
import selectors
import shutil
import subprocess
import sys
import threading
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tui.config.sandbox_settings import SandboxSettings
from tui.sandbox import runtime
from tui.tools.base import SessionState, ToolContext
from tui.tools.bash import BashTool

pytestmark = pytest.mark.skipif(
    not runtime.SandboxRuntime().supported(), reason="no Landlock >= 4 / user namespaces here"
)


class _Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (the http.server name)
        body = b"hello through the proxy\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def upstream() -> Iterator[int]:
    """A plain HTTP server on the host's loopback, which only the proxy can reach."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def proj(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("work") / "proj"
    root.mkdir()
    previous = runtime.current()
    runtime._current = runtime.SandboxRuntime(SandboxSettings(allowed_domains=["localhost", "127.0.0.1"]), str(root))
    yield root
    runtime._current.close()
    runtime._current = previous


def bash(proj: Path, command: str) -> tuple[str, bool]:
    ctx = ToolContext(project_dir=proj, state=SessionState(project_dir=proj))
    result = BashTool().run({"command": command, "timeout": 120_000}, ctx)
    assert result.meta["sandboxed"]
    return result.text(), result.is_error


def test_git_status_diff_commit(proj: Path) -> None:
    text, err = bash(
        proj,
        "git init -q . 2>&1; echo one > a.txt && git add a.txt && git -c user.name=t -c user.email=t@t "
        "commit -qm first && echo two >> a.txt && git status --short && git diff --stat && "
        "git -c user.name=t -c user.email=t@t commit -qam second && git log --oneline | wc -l",
    )
    # a repository made inside the sandbox loses its hooks and config (a command must not plant them)
    assert "creating" in text and ".git" in text and not (proj / ".git").exists()
    subprocess.run(["git", "init", "-q", str(proj)], check=True)
    text, err = bash(
        proj,
        "echo one > a.txt && git add a.txt && git -c user.name=t -c user.email=t@t commit -qm first && "
        "echo two >> a.txt && git status --short && git diff --stat && "
        "git -c user.name=t -c user.email=t@t commit -qam second && git log --oneline | wc -l",
    )
    assert not err and " M a.txt" in text and "1 file changed" in text and text.splitlines()[-2].strip() == "2", text


def test_pytest_in_the_project(proj: Path) -> None:
    (proj / "test_x.py").write_text("def test_ok():\n    assert 1 + 1 == 2\n")
    text, err = bash(proj, f"{sys.executable} -m pytest -q -p no:cacheprovider test_x.py")
    assert not err and "1 passed" in text, text


def test_pip_install_target_from_a_local_wheel(proj: Path) -> None:
    wheel = proj / "tinypkg-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr("tinypkg/__init__.py", "VALUE = 42\n")
        z.writestr("tinypkg-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.0\n")
        z.writestr(
            "tinypkg-1.0.dist-info/WHEEL",
            "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        )
        z.writestr("tinypkg-1.0.dist-info/RECORD", "")
    text, err = bash(
        proj,
        f"{sys.executable} -m pip install -q --no-index --disable-pip-version-check --target lib {wheel.name} "
        f"&& PYTHONPATH=lib {sys.executable} -c 'import tinypkg; print(tinypkg.VALUE)'",
    )
    assert not err and "42" in text, text


def test_compiler_writes_to_tmpdir(proj: Path) -> None:
    if not shutil.which("cc"):
        pytest.skip("no C compiler")
    (proj / "hello.c").write_text('#include <stdio.h>\nint main(void){puts("compiled");return 0;}\n')
    text, err = bash(
        proj,
        'cc -o "$TMPDIR/hello" hello.c && "$TMPDIR/hello" && case "$TMPDIR" in /tmp/agent-tui-sandbox-*) echo private;; esac',
    )
    assert not err and "compiled" in text and "private" in text, text


def test_npm_test_of_a_small_package(proj: Path) -> None:
    if not shutil.which("npm"):
        pytest.skip("npm is not installed")
    pkg = proj / "npmpkg"
    pkg.mkdir()
    (pkg / "package.json").write_text('{"name": "tiny", "version": "1.0.0", "scripts": {"test": "node test.js"}}\n')
    (pkg / "test.js").write_text("require('assert').strictEqual(1 + 1, 2); console.log('npm test ok');\n")
    # each test has a HOME of its own, so npm would look for a newer npm on the registry (not allowed here)
    text, err = bash(proj, "cd npmpkg && npm test --silent --no-update-notifier")
    assert not err and "npm test ok" in text, text


def test_allowed_domain_goes_through_the_proxy_and_others_are_named(proj: Path, upstream: int) -> None:
    # (the sandbox's NO_PROXY sends loopback names straight to its own loopback; unset, they go to the proxy)
    text, err = bash(proj, f"env -u NO_PROXY -u no_proxy curl -sS -m 5 http://localhost:{upstream}/")
    assert not err and "hello through the proxy" in text, text
    text, err = bash(
        proj, f"env -u NO_PROXY -u no_proxy curl -sS -m 5 --proxytunnel http://localhost:{upstream}/"
    )  # CONNECT
    assert not err and "hello through the proxy" in text, text
    text, err = bash(
        proj,
        "curl -sS -m 5 -o /dev/null -w '%{http_code}' http://blocked.example/; "
        "curl -sS -m 5 https://blocked-tls.example/ 2>&1; exit 7",
    )
    assert "403" in text
    assert "connecting to blocked.example (not in sandbox.network.allowed_domains)" in text
    assert "connecting to blocked-tls.example" in text


def test_home_caches_go_to_the_runs_tmpdir(proj: Path) -> None:
    """pip, npm and go caches (~/.cache, ~/.npm) would be writes outside: they land in the run's TMPDIR."""
    text, err = bash(
        proj,
        'mkdir -p "$XDG_CACHE_HOME/pip" "$npm_config_cache" && '
        'case "$XDG_CACHE_HOME:$npm_config_cache" in "$TMPDIR"/*:"$TMPDIR"/*) echo cache-private;; esac',
    )
    assert not err and "cache-private" in text, text


def test_output_quoting_an_unresolvable_path_is_kept(proj: Path) -> None:
    """The report reads paths quoted in the output; one agent-tui cannot resolve (another process's /proc link) is skipped."""
    text, _err = bash(
        proj, "echo \"ls: cannot access '/proc/1/root/etc/x': Permission denied\"; echo the-rest-of-the-output"
    )
    assert "the-rest-of-the-output" in text and "PermissionError" not in text, text


class _LateSelector(selectors.EpollSelector):
    """The init's selector on a loaded machine: it hands back a connection's event late, after the command exited."""

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        events = super().select(timeout)
        if events and all(key.data != "exit" for key, _ in events):
            time.sleep(0.3)
        return events


def test_a_command_that_exits_while_the_init_relays_keeps_its_exit_code(
    proj: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The init reaps orphans after each event; a command that ended meanwhile is one of them, its code kept.

    (It used to be reaped there as an orphan: the init's wait for it then failed and the command "exited" 125.)
    """
    monkeypatch.setattr(selectors, "DefaultSelector", _LateSelector)  # the forked init reads it from the module
    text, err = bash(proj, "exec 3<>/dev/tcp/127.0.0.1/3128; exit 3")
    assert err and "Exit code: 3" in text, text


_hold_in_children = threading.Event()


def _a_library_thread_holds_the_logging_lock() -> None:
    """An after-fork handler as a library's (OpenTelemetry's, gRPC's) starts a thread in the child: here it holds a lock."""
    if not _hold_in_children.is_set():
        return
    held = threading.Event()

    def hold() -> None:
        with logging._lock:  # type: ignore[attr-defined]  # the lock logging's own before-fork handler takes
            held.set()
            time.sleep(3600)

    threading.Thread(target=hold, daemon=True).start()
    held.wait(5)


os.register_at_fork(after_in_child=_a_library_thread_holds_the_logging_lock)


def test_a_thread_an_after_fork_handler_left_in_the_keeper_cannot_stall_the_command(proj: Path) -> None:
    """The keeper is Popen's child, so Python's after-fork handlers run in it and may leave a thread holding a lock.

    The init is a copy of the keeper without that thread; an os.fork() there (its at-fork handlers, the import
    lock) waited for the lock for ever, and Popen with it (suite run 2 at load: two commands hung 120 s). The
    init starts the command with the raw clone, which runs no handler.
    """
    answer: list[tuple[str, bool]] = []
    _hold_in_children.set()
    try:
        worker = threading.Thread(target=lambda: answer.append(bash(proj, "echo started")), daemon=True)
        worker.start()
        worker.join(30)
    finally:
        _hold_in_children.clear()
    assert answer and "started" in answer[0][0], "the sandboxed command did not start within 30 s"
