"""How `agent-tui -p` ends: a normal end, SIGTERM, SIGHUP, a closed pipe, Ctrl+C; no child, temp file or traceback left."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.fakeapi import FakeAPI
from tests.fakeapi.script import reply, text, tool_use


def marker() -> str:
    """A sleep duration no other process on the machine uses: the command line finds our children."""
    return f"{random.randint(3000, 3999)}.{random.randint(100000, 999999)}"


def marked(mark: str) -> list[int]:
    """Pids of live processes whose command line holds `mark`."""
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmdline = f.read()
            with open(f"/proc/{name}/stat", "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if mark.encode() in cmdline and state != b"Z":
            pids.append(int(name))
    return pids


def none_left(mark: str, seconds: float = 3.0) -> list[int]:
    """Waits a moment for dying processes; returns those still alive (and kills them, so no test leaks)."""
    deadline = time.monotonic() + seconds
    while marked(mark) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = marked(mark)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return left


def spawning_script(mark: str, *, foreground: bool) -> list:
    command = f"sleep {mark} & setsid sleep {mark} & (nohup sleep {mark} > /dev/null 2>&1 &) & disown; echo started" + (
        f"; sleep {mark}" if foreground else ""
    )
    return [
        reply(text("Starting it."), tool_use("Bash", {"command": command}), stop_reason="tool_use"),
        reply(text("Done."), stop_reason="end_turn"),
    ]


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "tmp").mkdir()
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    clean.update(
        {"TMPDIR": str(tmp_path / "tmp"), "HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "data")}
    )
    return clean


def start(args: list[str], project: Path, env: dict[str, str], base_url: str) -> subprocess.Popen[str]:
    env = {**env, "ANTHROPIC_BASE_URL": base_url, "ANTHROPIC_API_KEY": "sk-test"}
    return subprocess.Popen(
        [sys.executable, "-m", "tui.cli.main", "-p", *args, "--permission-mode", "bypassPermissions"],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def temp_files(env: dict[str, str]) -> list[str]:
    return [name for name in os.listdir(env["TMPDIR"]) if name.startswith("agent-tui-")]


def signal_once_running(
    proc: subprocess.Popen[str], mark: str, count: int, signum: int, before: Callable[[], object] = lambda: True
) -> tuple[str, list[int]]:
    """After a stream-json run printed "started": wait for `count` marked processes, check `before()`, send `signum`.

    Returns its stderr and the marked processes still alive after it ended.
    """
    assert proc.stdout is not None
    for line in proc.stdout:
        if json.loads(line)["type"] == "tool_output" and "started" in line:
            break
    deadline = time.monotonic() + 30
    while len(marked(mark)) < count and time.monotonic() < deadline:
        time.sleep(0.02)
    assert before()
    proc.send_signal(signum)
    try:
        _, err = proc.communicate(timeout=30)
    finally:
        left = none_left(mark)
    return err, left


def test_background_children_end_with_the_run(tmp_path: Path, env: dict[str, str]) -> None:
    mark = marker()
    with FakeAPI(spawning_script(mark, foreground=False)) as api:
        proc = start(["start it", "--output-format", "json"], tmp_path, env, api.base_url)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert json.loads(out)["result"] == "Done."
    assert none_left(mark) == [], "sleep &, setsid, nohup and a double fork must all end with -p"
    assert temp_files(env) == []


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_mid_command_kills_the_tree_and_removes_temp_files(
    tmp_path: Path, env: dict[str, str], signum: int
) -> None:
    mark = marker()
    with FakeAPI(spawning_script(mark, foreground=True)) as api:
        proc = start(
            ["start it", "--output-format", "stream-json", "--include-partial-messages"], tmp_path, env, api.base_url
        )
        # bash, &, setsid, nohup (or the foreground); the temp files exist until the signal
        err, left = signal_once_running(proc, mark, 4, signum, before=lambda: temp_files(env))
    assert proc.returncode == 128 + signum, err
    assert "Traceback" not in err
    assert left == []
    assert temp_files(env) == []


@pytest.mark.parametrize("fmt", ["stream-json", "json", "text"])
def test_a_closed_pipe_ends_the_run_quietly(tmp_path: Path, env: dict[str, str], fmt: str) -> None:
    """`agent-tui -p … | head -1`: the reader goes away; no BrokenPipe traceback, exit 141 as a SIGPIPE'd tool."""
    script = [reply(text("word " * 200), stop_reason="end_turn")]
    with FakeAPI(script, token_delay=0.01) as api:
        proc = start(["say a lot", "--output-format", fmt, "--include-partial-messages"], tmp_path, env, api.base_url)
        assert proc.stdout is not None and proc.stderr is not None
        if fmt == "stream-json":
            assert json.loads(proc.stdout.readline())["type"] == "system"
        proc.stdout.close()
        err = proc.stderr.read()
        proc.wait(timeout=30)
    assert proc.returncode == 141, err
    assert "Traceback" not in err and "BrokenPipe" not in err and "Exception ignored" not in err


def big_session(data: Path, project: Path, pairs: int = 20000) -> Path:
    """A saved session long enough that loading it with -c takes a moment."""
    from tui.agent.history.resume import sessions_folder

    folder = sessions_folder(data / "agent-tui" / "sessions", project)  # user_data_dir() under XDG_DATA_HOME
    folder.mkdir(parents=True)
    path = folder / "20261203-010101-abcdef.jsonl"
    with path.open("w") as f:
        f.write(
            json.dumps(
                {
                    "type": "session",
                    "session_id": path.stem,
                    "project_dir": str(project),
                    "model": "claude-sonnet-5-5",
                    "created": "2026-12-03T01:01:01",
                    "pid": 1,
                }
            )
            + "\n"
        )
        for i in range(pairs):
            for role, body in (("user", "q" * 500), ("assistant", "a" * 1000)):
                f.write(
                    json.dumps(
                        {
                            "type": "message",
                            "message": {"role": role, "content": [{"type": "text", "text": f"{role} {i} {body}"}]},
                        }
                    )
                    + "\n"
                )
    return path


def reading(pid: int, path: Path) -> bool:
    """Whether process `pid` has `path` open for reading (the session being loaded), as /proc shows it."""
    target = os.path.realpath(path)
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") != target:
                continue
            with open(f"/proc/{pid}/fdinfo/{fd}") as f:
                flags = next(line for line in f if line.startswith("flags:")).split()[1]
        except (OSError, StopIteration, IndexError):
            continue
        if int(flags, 8) & os.O_ACCMODE == os.O_RDONLY:
            return True
    return False


def test_ctrl_c_while_continue_loads_prints_no_traceback(tmp_path: Path, env: dict[str, str]) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    path = big_session(Path(env["XDG_DATA_HOME"]), project)
    for _attempt in range(10):
        proc = subprocess.Popen(
            [sys.executable, "-m", "tui.cli.main", "-c", "-p", "hi", "--offline"],
            cwd=project,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            # as a terminal's foreground job: a suite started in the background (`&`) ignores SIGINT, and its
            # children inherit that, so the Ctrl+C would be dropped until the run installs its own handler
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        deadline = time.monotonic() + 60
        while not reading(proc.pid, path) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.002)
        os.kill(proc.pid, signal.SIGSTOP)  # held still: is it still loading the session?
        if reading(proc.pid, path):
            proc.send_signal(signal.SIGINT)  # Ctrl+C while the session loads (delivered once it runs on)
            os.kill(proc.pid, signal.SIGCONT)
            break
        os.kill(proc.pid, signal.SIGCONT)  # the load ended before the stop (a loaded machine): try again
        proc.kill()
        proc.communicate()
    else:
        pytest.fail("the session file was never seen open for reading")
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and err.strip().count("\n") == 0, err  # one sentence


@pytest.mark.parametrize("presses", [1, 2])
def test_ctrl_c_while_streaming_is_one_sentence_and_exit_130(tmp_path: Path, env: dict[str, str], presses: int) -> None:
    with FakeAPI([reply(text("word " * 400), stop_reason="end_turn")], token_delay=0.01) as api:
        proc = start(
            ["say a lot", "--output-format", "stream-json", "--include-partial-messages"], tmp_path, env, api.base_url
        )
        assert proc.stdout is not None
        for line in proc.stdout:
            if json.loads(line)["type"] == "block_delta":
                break
        for _ in range(presses):
            proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err


def test_ctrl_c_while_continue_compacts_is_one_sentence_and_exit_130(tmp_path: Path, env: dict[str, str]) -> None:
    """-c on a session three windows large compacts before the prompt goes; a Ctrl+C then ends it as interrupted."""
    project = tmp_path / "proj"
    project.mkdir()
    big_session(Path(env["XDG_DATA_HOME"]), project, pairs=1600)  # ~600,000 tokens, the offline model's window 200,000
    proc = subprocess.Popen(
        [sys.executable, "-m", "tui.cli.main", "-c", "-p", "hi", "--offline", "--output-format", "stream-json"],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # a foreground job (see above)
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if json.loads(line)["type"] == "compaction_started":
            break
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1 and "interrupted" in err, err
    assert "context_full" not in err + out
    result = json.loads(out.strip().splitlines()[-1])
    assert result["type"] == "result" and result["stop_reason"] == "interrupted"
