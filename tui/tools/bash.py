"""Bash: run a command in a persistent working directory, streaming output, killing the whole group."""

from __future__ import annotations

import codecs
import os
import selectors
import subprocess
import time
from collections import deque
from pathlib import Path
from typing import Any

from tui.sandbox.runtime import current as current_sandbox
from tui.text.wording import plural, shorten
from tui.tools.base import FatalToolError, Tool, ToolContext, ToolError, ToolInterrupted, ToolResult
from tui.tools.exit_meaning import exit_is_error
from tui.tools.inputs import get_bool, get_int, get_str
from tui.tools.processes import TrackedProcess, tracker
from tui.tools.rules import Rule, bullets

DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000
MAX_OUTPUT_CHARS = 30_000

BASH_RULES = (
    Rule(
        "run-in-background",
        "For servers and long jobs set `run_in_background` (no `&` needed): it returns a task id at once and you "
        "are told when the command ends; see TaskOutput, TaskStop.",
        "A `cmd &` outlives the call unseen; a background task is tracked, reported and stopped with the session.",
    ),
    Rule(
        "no-stdin",
        "stdin is closed, so interactive programs (editors, pagers, prompts) cannot work. When a command asks for "
        "confirmation, find out why rather than forcing it past.",
        "A confirmation prompt is often a safety check; a `--yes` added to get past it skips that check.",
    ),
    Rule(
        "output-to-you",
        "Output is shown to you, not reliably to the user. Prefer Read, Grep and Glob for reading and searching "
        "files; a pipe through grep to filter a command's output is fine.",
        "The user may never see the output; the dedicated tools need no approval and return bounded output.",
    ),
    Rule(
        "commit-when-asked",
        "Commit or push only when the user asks; on the default branch, create a branch first.",
        "Commits and pushes are the user's record and reach others; a branch keeps the default branch clean.",
    ),
    Rule(
        "no-secret-commits",
        "Never commit files likely to hold secrets (`.env`, credentials files); warn the user if they ask to.",
        "A secret in git history is effectively published.",
    ),
)
# stop live streaming after this much output; the result still keeps head and tail
MAX_STREAMED_CHARS = 1_000_000
POLL_SECONDS = 0.05
# after the command exits, how long to wait for children that still hold its pipes
PIPE_GRACE_SECONDS = 0.2
# how often a running command's tree is swept, so children that leave its session stay known
SWEEP_SECONDS = 0.5


class OutputCapture:
    """Keeps the first and last halves of MAX_OUTPUT_CHARS and counts what falls between."""

    def __init__(self, limit: int = MAX_OUTPUT_CHARS) -> None:
        self.head_limit = limit // 2
        self.tail_limit = limit - self.head_limit
        self.head: list[str] = []
        self.head_len = 0
        self.tail: deque[str] = deque()
        self.tail_len = 0
        self.total = 0

    def add(self, text: str) -> None:
        self.total += len(text)
        if self.head_len < self.head_limit:
            take = text[: self.head_limit - self.head_len]
            self.head.append(take)
            self.head_len += len(take)
            text = text[len(take) :]
        if not text:
            return
        self.tail.append(text)
        self.tail_len += len(text)
        while self.tail_len - len(self.tail[0]) >= self.tail_limit:
            self.tail_len -= len(self.tail.popleft())

    def text(self) -> str:
        """All output when it fits, else head + a note of what was cut + tail."""
        head = "".join(self.head)
        tail = "".join(self.tail)
        if self.total <= self.head_limit + self.tail_limit:
            return head + tail
        tail = tail[-self.tail_limit :]
        cut = self.total - len(head) - len(tail)
        return f"{head}\n\n... [{plural(cut, 'character')} cut from the middle of the output] ...\n\n{tail}"


class BashTool(Tool):
    name = "Bash"
    description = (
        "Executes a bash command (`/bin/bash -c`) and returns its output and exit code.\n\n"
        "- The working directory persists between calls: a `cd` carries over to the next command. "
        "It starts in the project directory.\n"
        f"- `timeout` is in milliseconds: default {DEFAULT_TIMEOUT_MS} (2 minutes), at most {MAX_TIMEOUT_MS}. "
        "On timeout the command and every process it started are killed.\n"
        "- Commands run in a sandbox by default: writes only inside the project and $TMPDIR, no network except "
        "allowed domains, secrets unreadable. When the sandbox blocks something the result says what.\n"
        f"- Output (stdout and stderr together) longer than {MAX_OUTPUT_CHARS:,} characters is cut in the middle.\n"
        "- Quote paths that contain spaces. Chain dependent commands with `&&`.\n"
        "- Give a short `description` of what the command does (5-10 words).\n"
        f"{bullets(BASH_RULES)}"
    )
    input_schema = {
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The command to execute"},
            "timeout": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_TIMEOUT_MS,
                "description": f"Optional timeout in milliseconds (max {MAX_TIMEOUT_MS})",
            },
            "description": {
                "type": "string",
                "description": "Clear, concise description of what this command does in 5-10 words",
            },
            "run_in_background": {"type": "boolean"},
            "dangerouslyDisableSandbox": {
                "type": "boolean",
                "description": "Run outside the sandbox (the user is asked). Only after a command failed because the sandbox blocked it.",
            },
        },
        "required": ["command"],
        "additionalProperties": False,
    }
    read_only = False
    kind = "exec"

    def is_concurrency_safe(self, tool_input: dict[str, Any]) -> bool:
        return False

    def permission_target(self, tool_input: dict[str, Any], ctx: ToolContext) -> str | None:
        command = tool_input.get("command")
        return command if isinstance(command, str) else None

    def label(self, tool_input: dict[str, Any], ctx: ToolContext) -> str:
        command = tool_input.get("command")
        if not isinstance(command, str) or not command.strip():
            return "Bash"
        first = command.strip().splitlines()[0]
        if len(first) > 80 or "\n" in command.strip():
            first = shorten(first, 78) if len(first) > 78 else first + "…"
        return f"Bash: {first}"

    def working_dir(self, ctx: ToolContext) -> Path:
        """Where the next command starts: the remembered cwd, else the project directory."""
        cwd = ctx.state.bash_cwd
        return cwd if cwd is not None and cwd.is_dir() else ctx.project_dir

    def preview(self, tool_input: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        command = tool_input.get("command")
        return {
            "kind": "command",
            "command": command if isinstance(command, str) else "",
            "cwd": str(self.working_dir(ctx)),
        }

    def check_input(self, tool_input: dict[str, Any], ctx: ToolContext) -> None:
        command = get_str(tool_input, "command", allow_empty=False) or ""
        if "\x00" in command:
            raise ToolError("The command contains a NUL byte, which bash cannot run; remove it.")

    def run(self, tool_input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        self.check_input(tool_input, ctx)
        command = get_str(tool_input, "command", allow_empty=False) or ""
        timeout_ms = get_int(tool_input, "timeout", minimum=1) or DEFAULT_TIMEOUT_MS
        timeout_ms = min(timeout_ms, MAX_TIMEOUT_MS)
        if not ctx.project_dir.is_dir():
            raise FatalToolError(f"The project directory {ctx.project_dir} no longer exists; no command can run.")
        notes: list[str] = []
        cwd = self.working_dir(ctx)
        if ctx.state.bash_cwd is not None and cwd != ctx.state.bash_cwd:
            notes.append(f"The previous working directory {ctx.state.bash_cwd} no longer exists; ran in {cwd}.")
            ctx.state.bash_cwd = None
        if get_bool(tool_input, "run_in_background"):
            return self._start_background(command, cwd, tool_input, notes, ctx)
        cwd_file = tracker().temp_file("agent-tui-cwd-")
        try:
            return self._run_command(
                command, cwd, cwd_file, timeout_ms, notes, ctx, current_sandbox().contains(tool_input)
            )
        finally:
            tracker().remove_temp(cwd_file)

    def _start_background(
        self, command: str, cwd: Path, tool_input: dict[str, Any], notes: list[str], ctx: ToolContext
    ) -> ToolResult:
        """Start a background task: contained like any command (bypass skips dialogs, never the sandbox)."""
        description = tool_input.get("description")
        contained = current_sandbox().contains(tool_input)
        sandbox = current_sandbox().prepare(str(ctx.project_dir), []) if contained else None
        if sandbox is None and (notice := current_sandbox().late_notice()):
            notes.append(notice)
        spawn, check = None, None
        if sandbox is not None:
            from tui.sandbox.report import background_check

            spawn = {"popen": sandbox.popen, "preexec_fn": sandbox.preexec}
            check = background_check(sandbox, current_sandbox(), str(cwd))
        try:
            task = ctx.state.tasks.start_process(
                command,
                cwd=cwd,
                env=dict(os.environ, **(sandbox.env if sandbox is not None else {})),
                description=description if isinstance(description, str) and description.strip() else command,
                spawn=spawn,
                check=check,
                argv_prefix=sandbox.argv_prefix if sandbox is not None else (),
            )
        except OSError as exc:
            raise ToolError(f"Could not start /bin/bash: {exc.strerror or exc}.") from None
        except subprocess.SubprocessError:
            raise ToolError(
                "The sandbox could not start this command; run it again with "
                "dangerouslyDisableSandbox: true (the user will be asked)."
            ) from None
        notes.insert(
            0, f"Command running in background with ID: {task.id}. Output is being written to: {task.output_path}"
        )
        if sandbox is not None:
            notes.insert(
                1,
                "It runs in the sandbox, like every command: the ports it listens on are reachable only "
                "from inside it. A server that later commands or the user's browser must reach needs "
                "dangerouslyDisableSandbox: true (the user will be asked).",
            )
        return ToolResult(
            content="\n".join(notes),
            meta={"task_id": task.id, "output_file": task.output_path, "sandboxed": sandbox is not None},
        )

    def _run_command(
        self,
        command: str,
        cwd: Path,
        cwd_file: str,
        timeout_ms: int,
        notes: list[str],
        ctx: ToolContext,
        contained: bool = False,
    ) -> ToolResult:
        # the EXIT trap records where the command ended, so a `cd` carries over to the next call;
        # it shares the command's first line so bash's error messages keep the right line numbers
        from shlex import quote

        script = f"trap 'pwd > {quote(cwd_file)}' EXIT; {command}"
        env = dict(os.environ, PAGER="cat", GIT_PAGER="cat", GIT_TERMINAL_PROMPT="0")
        extra = [str(folder) for folder in ctx.state.extra_dirs]
        sandbox = current_sandbox().prepare(str(ctx.project_dir), [cwd_file], extra) if contained else None
        if sandbox is None and (notice := current_sandbox().late_notice()):
            notes.append(notice)
        if sandbox is not None:
            env.update(sandbox.env)
        try:
            tracked = tracker().spawn(
                [*(sandbox.argv_prefix if sandbox is not None else []), "/bin/bash", "-c", script],
                cwd=cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                temp_paths=[cwd_file],
                preexec_fn=sandbox.preexec if sandbox is not None else None,
                popen=sandbox.popen if sandbox is not None else None,
            )
        except OSError as exc:
            raise ToolError(f"Could not start /bin/bash: {exc.strerror or exc}.") from None
        except subprocess.SubprocessError:
            raise ToolError(
                "The sandbox could not start this command; run it again with "
                "dangerouslyDisableSandbox: true (the user will be asked)."
            ) from None
        capture = OutputCapture()
        try:
            timed_out = self._pump(tracked, capture, timeout_ms / 1000, ctx)
        except ToolInterrupted:
            if sandbox is not None:  # the tree is gone: what it did to protected paths is undone all the same
                from tui.sandbox.report import protect

                protect(sandbox)
            raise
        exit_code = tracked.popen.wait()
        if not timed_out:
            tracker().release(tracked)  # background children may run on; agent-tui ends them at exit
        if exit_code < 0:  # killed by a signal: report it the way a shell does
            exit_code = 128 - exit_code
        body = capture.text().rstrip("\n")
        if timed_out:
            notes.append(f"Command timed out after {timeout_ms / 1000:g} s; it and its child processes were killed.")
        else:
            self._remember_cwd(cwd_file, ctx)
        blocked: list[str] = []
        if sandbox is not None:  # a timed-out command's tree is killed by now
            from tui.sandbox.report import after_run, result_note

            blocked = after_run(sandbox, current_sandbox(), body, exit_code, str(cwd))
            if blocked:
                notes.append(result_note(blocked))
        lines = [body if body else "(no output)"]
        lines += notes
        lines.append(f"Exit code: {exit_code}")
        return ToolResult(
            content="\n".join(lines),
            is_error=timed_out or bool(blocked) or exit_is_error(command, exit_code, cwd),
            meta={
                "exit_code": exit_code,
                "timed_out": timed_out,
                "cwd": str(ctx.state.bash_cwd or ctx.project_dir),
                "sandboxed": sandbox is not None,
                "sandbox_blocked": blocked,
            },
        )

    def _pump(self, tracked: TrackedProcess, capture: OutputCapture, timeout_s: float, ctx: ToolContext) -> bool:
        """Stream stdout/stderr until both close; True when the command timed out.

        Polls `ctx.cancel` every POLL_SECONDS; on cancel the whole tree is killed and
        ToolInterrupted is raised.
        """
        proc = tracked.popen
        assert proc.stdout is not None and proc.stderr is not None
        selector = selectors.DefaultSelector()
        streams = {proc.stdout.fileno(): "stdout", proc.stderr.fileno(): "stderr"}
        decoders = {fd: codecs.getincrementaldecoder("utf-8")(errors="replace") for fd in streams}
        for fd in streams:
            selector.register(fd, selectors.EVENT_READ)
        deadline = time.monotonic() + timeout_s
        exited_at: float | None = None
        next_sweep = time.monotonic() + SWEEP_SECONDS
        streamed = 0
        try:
            while selector.get_map():
                if ctx.cancel.is_set():
                    tracker().kill(tracked)
                    raise ToolInterrupted("The command was interrupted; it and its child processes were killed.")
                now = time.monotonic()
                if now >= deadline:
                    tracker().kill(tracked)
                    return True
                if now >= next_sweep:
                    tracker().members([tracked])
                    next_sweep = now + SWEEP_SECONDS
                if exited_at is None and proc.poll() is not None:
                    exited_at = now
                if exited_at is not None and now - exited_at > PIPE_GRACE_SECONDS:
                    break  # a background child keeps the pipes open; do not wait for it
                for key, _ in selector.select(timeout=POLL_SECONDS):
                    fd = key.fd
                    data = os.read(fd, 65536)
                    text = decoders[fd].decode(data, final=not data)
                    if not data:
                        selector.unregister(fd)
                    if not text:
                        continue
                    capture.add(text)
                    if streamed < MAX_STREAMED_CHARS:
                        ctx.emit_output(text, streams[fd])
                        streamed += len(text)
                        if streamed >= MAX_STREAMED_CHARS:
                            ctx.emit_output(
                                "\n[live output stopped here; the result keeps the start and the end]\n", "stderr"
                            )
        finally:
            selector.close()
            proc.stdout.close()
            proc.stderr.close()
        return False

    def _remember_cwd(self, cwd_file: str, ctx: ToolContext) -> None:
        try:
            with open(cwd_file, encoding="utf-8", errors="surrogateescape") as f:
                recorded = f.read().rstrip("\n")
        except OSError:
            return
        if recorded and os.path.isdir(recorded):
            ctx.state.bash_cwd = Path(recorded)
