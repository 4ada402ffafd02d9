"""What reaches the terminal: bytes written while a 2,000-token reply with three tool calls streams, against
Claude Code on the same fake API in the same run, and full-screen clears during the turn.

Each CLI runs in tmux at 120×40 (a private tmux server) under `pty_record.py`, which passes its output to
the pane and records every byte with its time. Each start screen is awaited by its state, not its words (the
pane shows something and has stopped changing: Claude Code's start text changes from version to version), the
prompt is typed, Enter is sent, and the turn lasts until the reply's last word is on the pane (plus `SETTLE_S` for the turn's closing lines); the bytes,
frames, `ESC[2J` clears and every-row repaints of that span are counted (`term_stats.py`). Claude Code
is found as `bench_print.find_claude` does: AGENT_TUI_BENCH_CLAUDE, else the newest from npm, installed for the run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from tests.fakeapi import FakeAPI, reply, tool_use

from .common import PYTHON, REPO, Settings, bench_env, disable_nagle_in_fake_api, median, precompile_sources, row
from .term_stats import analyse, load

WIDTH, HEIGHT = 120, 40
PROMPT = "read the three files and explain them"
LAST = "ZENITHWORD"
#: after the last word is on screen, the turn's closing writes (a summary line, the idle status)
SETTLE_S = 0.7
#: seconds between two text deltas of two words (~400 words a second: a fast model, a short run)
TOKEN_DELAY_S = 0.005


def reply_text() -> str:
    """About 2,000 tokens of Markdown: headings, paragraphs, a list and a code block, ending in LAST."""
    parts = ["## What the three files do", ""]
    for p in range(14):
        words = " ".join(f"word{(p * 97 + i) % 1009}" for i in range(80))
        parts += [f"Paragraph {p}: {words}.", ""]
        if p == 4:
            parts += [f"- item {i}: `value{i}` and **bold {i}**" for i in range(8)] + [""]
        if p == 9:
            parts += ["```python", *(f"def f{i}(x):\n    return x * {i}" for i in range(6)), "```", ""]
    parts.append(f"That is all: {LAST}")
    return "\n".join(parts)


def make_project(root: Path) -> tuple[Path, list[Path]]:
    project = root / "project"
    project.mkdir(parents=True)
    files = []
    for name, text in (
        ("a.py", "def add(a, b):\n    return a + b\n"),
        ("b.py", "def mul(a, b):\n    return a * b\n"),
        ("README.md", "# demo\n\nTwo helpers.\n"),
    ):
        (project / name).write_text(text)
        files.append(project / name)
    return project, files


def script_for(files: list[Path]) -> Any:
    text = reply_text()

    def script(body: dict[str, Any]) -> Any:
        messages = body.get("messages") or []
        last = json.dumps(messages[-1]) if messages else ""
        if "tool_result" in last:
            return reply(text)
        if body.get("tools") and PROMPT in json.dumps(messages):  # Claude Code's may end in a list of its skills
            return reply(
                "I'll read them.", *[tool_use("Read", {"file_path": str(f)}) for f in files], stop_reason="tool_use"
            )
        return reply("ok")  # a side request (Claude Code's session title)

    return script


def find_or_install_claude(root: Path) -> str | None:
    """The newest Claude Code from npm (installed under `root`), or AGENT_TUI_BENCH_CLAUDE; None when neither works."""
    from .bench_print import find_claude

    return find_claude(root)[0]


class Pane:
    """One command under pty_record in a tmux pane of its own server."""

    def __init__(self, cwd: Path, env: dict[str, str], command: list[str], record: Path) -> None:
        self.socket = f"agent-tui-bench-{uuid.uuid4().hex[:8]}"
        env_args = [a for k, v in env.items() for a in ("-e", f"{k}={v}")]
        self.tmux(
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "t",
            "-x",
            str(WIDTH),
            "-y",
            str(HEIGHT),
            "-c",
            str(cwd),
            *env_args,
            "env",
            "-u",
            "COLUMNS",
            "-u",
            "LINES",
            PYTHON,
            "-m",
            "tests.bench.pty_record",
            str(record),
            "--",
            *command,
        )

    def tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=30).stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "t")

    def wait_for(self, text: str, timeout: float) -> float:
        deadline = time.time() + timeout
        while time.time() < deadline:
            if text in self.screen():
                return time.time()
            time.sleep(0.02)
        raise RuntimeError(f"{text!r} never appeared; the pane:\n{self.screen()}")

    def wait_settled(self, timeout: float, quiet: float = 1.0) -> float:
        """Until the pane shows something and has not changed for `quiet` seconds: ready, whatever its words.

        Claude Code's start screen changes its text from version to version ("? for shortcuts" is gone in
        2.1.332); waiting for the screen to settle keeps the baseline working on the newest one."""
        deadline = time.time() + timeout
        last, since = "", time.time()
        while time.time() < deadline:
            screen = self.screen()
            if screen != last:
                last, since = screen, time.time()
            elif screen.strip() and time.time() - since >= quiet:
                return time.time()
            time.sleep(0.05)
        raise RuntimeError(f"the pane never settled; it shows:\n{self.screen()}")

    def kill(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=30)


def one_turn(command: list[str], env: dict[str, str], project: Path, root: Path) -> dict[str, Any]:
    """Start the CLI, wait for its start screen to settle, type the prompt, count what it writes from Enter
    until the reply's last word is on screen."""
    record = root / f"record-{uuid.uuid4().hex[:6]}.jsonl"
    pane = Pane(project, env, command, record)
    try:
        pane.wait_settled(60)
        time.sleep(0.5)  # start-up writes done
        pane.tmux("send-keys", "-t", "t", "-l", PROMPT)
        time.sleep(0.5)
        start = time.time()
        pane.tmux("send-keys", "-t", "t", "Enter")
        end = pane.wait_for(LAST, 120) + SETTLE_S
        time.sleep(SETTLE_S + 0.2)
    finally:
        pane.kill()
    stats = analyse(load(record), start, end, WIDTH, HEIGHT)
    keep = os.environ.get("AGENT_TUI_BENCH_KEEP")  # a folder: keep each record and its span to look at
    if keep:
        name = Path(command[-1]).name
        shutil.copy(record, Path(keep) / f"terminal-{name}.jsonl")
        (Path(keep) / f"terminal-{name}.span").write_text(f"{start} {end}")
    return {
        "bytes": stats.bytes,
        "frames": stats.frames,
        "clears": stats.full_clears,
        "repaints": stats.full_repaints,
        "seconds": end - start,
    }


def measure(settings: Settings) -> list[dict[str, Any]]:
    if not shutil.which("tmux"):
        return [row("bytes to the terminal during a turn", None, None, "≤ 0.5× Claude Code", note="tmux not installed")]
    disable_nagle_in_fake_api()
    precompile_sources()
    reps = settings.reps(3, 1)
    root = Path(tempfile.mkdtemp(prefix="bench-terminal-"))
    claude = find_or_install_claude(root)
    ours: list[dict[str, Any]] = []
    theirs: list[dict[str, Any]] = []
    try:
        project, files = make_project(root)
        with FakeAPI(script_for(files), validate=False, token_delay=TOKEN_DELAY_S) as api:
            for i in range(reps):
                home = root / f"home-{i}"
                home.mkdir()
                env = {
                    k: v
                    for k, v in bench_env(
                        home, ANTHROPIC_BASE_URL=api.base_url, ANTHROPIC_API_KEY="sk-test", COLORTERM="truecolor"
                    ).items()
                    if k
                    in (
                        "HOME",
                        "XDG_CONFIG_HOME",
                        "XDG_DATA_HOME",
                        "XDG_STATE_HOME",
                        "PYTHONPATH",
                        "PATH",
                        "ANTHROPIC_BASE_URL",
                        "ANTHROPIC_API_KEY",
                        "COLORTERM",
                    )
                }
                ours.append(one_turn([PYTHON, "-m", "tui.cli.main"], env, project, root))
                if claude:
                    config = home / "claude"
                    config.mkdir()
                    (config / ".claude.json").write_text(
                        json.dumps(
                            {
                                "hasCompletedOnboarding": True,
                                "theme": "dark",
                                "customApiKeyResponses": {"approved": ["sk-test"], "rejected": []},
                                "projects": {str(project): {"hasTrustDialogAccepted": True}},
                            }
                        )
                    )
                    cc_env = dict(
                        env,
                        CLAUDE_CONFIG_DIR=str(config),
                        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
                        DISABLE_TELEMETRY="1",
                        DISABLE_AUTOUPDATER="1",
                        DISABLE_ERROR_REPORTING="1",
                    )
                    theirs.append(one_turn([claude], cc_env, project, root))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    value = median([r["bytes"] for r in ours])
    base = median([r["bytes"] for r in theirs]) if theirs else None
    clears = max(r["clears"] + r["repaints"] for r in ours)
    cc_clears = max((r["clears"] + r["repaints"] for r in theirs), default=None)
    note = (
        f"tmux {WIDTH}×{HEIGHT} through a pty recorder; a 2,000-token Markdown reply after three parallel Reads at "
        f"~400 words/s; median of {len(ours)}; frames {median([r['frames'] for r in ours]):.0f}"
        + (f" (Claude Code {median([r['frames'] for r in theirs]):.0f})" if theirs else "")
    )
    bytes_row = row(
        "bytes written to the terminal during a streamed turn",
        value / 1024,
        base / 1024 if base else None,
        "≤ 0.5× Claude Code",
        unit="KiB",
        met=(value <= 0.5 * base) if base else None,
        baseline_label="Claude Code, same fake API, this run" if base else "Claude Code not installed",
        note=note,
    )
    bytes_row["samples"] = {"ours": ours, "claude": theirs}
    clears_row = row(
        "full-screen clears or every-row repaints during that turn",
        clears,
        cc_clears,
        "none",
        met=clears == 0,
        baseline_label="Claude Code, this run" if theirs else "",
        note="ESC[2J/ESC[3J, or one frame that draws or erases every row; the most in one run",
    )
    return [bytes_row, clears_row]


if __name__ == "__main__":
    os.chdir(REPO)
    print(json.dumps(measure(Settings(quick=True)), indent=1, default=str)[:4000])
