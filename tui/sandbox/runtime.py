"""The sandbox of this agent-tui run: whether it is on, the per-run folder, the proxy, and each command's plan."""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import field
from typing import Any

from tui.config.lean_dataclass import lean_dataclass
from tui.config.sandbox_settings import SandboxSettings

MIN_ABI = 4


@lean_dataclass
class Prepared:
    """One command's sandbox: the preexec function, the environment to add, and what to check after."""

    preexec: Any
    env: dict[str, str]
    #: put before the command's argv (macOS: `sandbox-exec -p PROFILE`); Linux uses `preexec`
    argv_prefix: list[str]
    plan: Any
    before: dict[str, Any]
    started: float = field(default_factory=time.monotonic)
    #: builds the Popen that starts the command (Linux: `vfork.spawn`); None means subprocess.Popen
    popen: Any = None
    #: what git would use before the command (gitstate.GitState), checked again after it
    git: Any = None


class SandboxRuntime:
    """What the Bash tool, the permission gate and `/sandbox` ask about the sandbox."""

    def __init__(self, config: SandboxSettings | None = None, project_dir: str | None = None) -> None:
        self.config = config or SandboxSettings()
        self.project_dir = project_dir or os.getcwd()
        self._support: tuple[int, str] | None = None
        self.toggled: bool | None = None  # /sandbox for this run
        self._dir: str | None = None
        self._proxy: Any = None
        self._lock = threading.Lock()
        self._told = False

    # --- what is on --------------------------------------------------------------------

    def support(self) -> tuple[int, str]:
        """(Landlock ABI, '' ) where the sandbox can run, else (0 or the ABI, why not)."""
        if self._support is None:
            self._support = _probe()
        return self._support

    def supported(self) -> bool:
        return not self.support()[1]

    @property
    def enabled(self) -> bool:
        """Whether Bash commands run contained now."""
        wanted = self.toggled if self.toggled is not None else self.config.enabled
        return wanted is not False and self.supported()

    def notice(self) -> str | None:
        """The one-line start notice where the sandbox cannot run (None where it runs or is turned off)."""
        if self.config.enabled is False:
            return None
        why = self.support()[1]
        return f"Bash sandbox unavailable ({why}); commands go through ordinary permissions." if why else None

    @property
    def guards_reads(self) -> bool:
        """Whether Read, Grep and Glob honour `deny_read` (unless the sandbox is turned off, on any system)."""
        wanted = self.toggled if self.toggled is not None else self.config.enabled
        return wanted is not False

    def read_denied(self, path: str) -> str | None:
        """The `deny_read` entry that covers `path` (symlinks followed), else None."""
        if not self.guards_reads:
            return None
        for candidate in dict.fromkeys([os.path.abspath(path), os.path.realpath(path)]):
            for secret in self.config.deny_read:
                if candidate == secret or candidate.startswith(secret.rstrip("/") + "/"):
                    return secret
        return None

    def read_denied_under(self, folder: str) -> list[str]:
        """The `deny_read` entries inside `folder`, relative to it (a search of `folder` leaves them out)."""
        if not self.guards_reads:
            return []
        base = os.path.abspath(folder).rstrip("/") + "/"
        return [
            secret[len(base) :]
            for secret in self.config.deny_read
            if secret.startswith(base) and os.path.lexists(secret)
        ]

    def quick_notice(self) -> str | None:
        """The start notice from cheap checks only (no ctypes on the start path); the full probe runs at first use."""
        if self.config.enabled is False:
            return None
        why = ""
        if sys.platform not in ("linux", "darwin"):
            why = f"no sandbox on {sys.platform}"
        else:
            try:
                with open("/sys/kernel/security/lsm") as f:
                    if "landlock" not in f.read():
                        why = "Landlock is not enabled in this kernel"
            except OSError:
                pass
        if why:
            self._support = (0, why)
        return self.notice() if why else None

    def late_notice(self) -> str | None:
        """Once per run: the sandbox was wanted but the full probe at first use found it cannot run."""
        wanted = self.toggled if self.toggled is not None else self.config.enabled
        if self._told or wanted is False or self.supported():
            return None
        self._told = True
        return self.notice()

    def contains(self, tool_input: dict[str, Any]) -> bool:
        """Whether this Bash call would run inside the sandbox."""
        if not self.enabled:
            return False  # (a background task is contained too: bypass skips dialogs, never the sandbox)
        if tool_input.get("dangerouslyDisableSandbox") is True and self.config.allow_unsandboxed:
            return False
        return not self.excluded(str(tool_input.get("command") or ""))

    def excluded(self, command: str) -> bool:
        """Whether `command` matches `sandbox.excluded_commands` (Bash(...)-style patterns)."""
        from tui.config.rules import command_matches

        text = " ".join(command.split())
        for pattern in self.config.excluded_commands:
            inner = pattern[5:-1] if pattern.startswith("Bash(") and pattern.endswith(")") else pattern
            if command_matches(inner, text):
                return True
        return False

    # --- one command -------------------------------------------------------------------

    def run_dir(self) -> str:
        """The per-run folder: `tmp/` (the commands' TMPDIR), an unreadable empty file, the proxy socket."""
        with self._lock:
            if self._dir is None:
                import tempfile

                from tui.system.leftovers import owner_mark

                # marked with this run, so the guard or the next start removes it after a kill -9
                folder = tempfile.mkdtemp(prefix=f"agent-tui-sandbox-o{owner_mark()}-")
                os.mkdir(os.path.join(folder, "tmp"), 0o700)
                empty = os.path.join(folder, "empty")
                with open(empty, "wb"):
                    pass
                os.chmod(empty, 0)
                self._dir = folder
                import atexit

                atexit.register(self.close)
            return self._dir

    def proxy_socket(self) -> str | None:
        """The proxy's socket, started on first use; None when no domain is allowed."""
        if not self.config.allowed_domains:
            return None
        with self._lock:
            if self._proxy is None:
                from tui.sandbox.proxy import Proxy

                self._proxy = Proxy(os.path.join(self._dir or "", "proxy.sock"), self.config.allowed_domains)
            return str(self._proxy.path)

    def prepare(self, project_dir: str, write_files: list[str], extra_dirs: Sequence[str] = ()) -> Prepared:
        """Resolve the plan for one command and the preexec function that enforces it.

        `extra_dirs` (--add-dir, /add-dir) are writable and protected like the project.
        """
        from tui.sandbox import plan

        folder = self.run_dir()
        tmpdir = os.path.join(folder, "tmp")
        proxy = self.proxy_socket()
        the_plan = plan.build(
            project_dir,
            tmpdir,
            self.config.allow_write,
            self.config.deny_read,
            abi=self.support()[0],
            empty_file=os.path.join(folder, "empty"),
            write_files=write_files,
            proxy_socket=proxy,
            extra_projects=extra_dirs,
        )
        for path in self.config.deny_write:
            if os.path.exists(path):
                the_plan.read_only.append(os.path.realpath(path))
        # caches that live under ~ by default go to the run's TMPDIR, so pip, npm and go work unchanged
        env = {
            "TMPDIR": tmpdir,
            "AGENT_TUI_SANDBOX": "1",
            "XDG_CACHE_HOME": os.path.join(tmpdir, "cache"),
            "npm_config_cache": os.path.join(tmpdir, "npm-cache"),
        }
        if proxy:
            url = f"http://127.0.0.1:{plan.PROXY_PORT}"
            for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
                env[name] = url
            env["NO_PROXY"] = env["no_proxy"] = "localhost,127.0.0.1,::1"
        before = plan.snapshot_missing(the_plan)
        from tui.sandbox.gitstate import state_of

        git = state_of(the_plan.repos)
        if sys.platform == "darwin":
            from tui.sandbox import seatbelt

            text = seatbelt.profile(
                the_plan.write_roots,
                the_plan.read_only + the_plan.missing,
                the_plan.hide_dirs + the_plan.hide_files,
                None,
                the_plan.pins,
            )
            return Prepared(None, env, seatbelt.command(text, [])[:3], the_plan, before, git=git)
        from tui.sandbox import launch

        # the PID 1 that forwards the proxy's port is Python: the forking launch; AGENT_TUI_SANDBOX_LAUNCH=fork
        # chooses it for every command (the way back if the one-clone launch ever misbehaves somewhere)
        if the_plan.proxy_socket or os.environ.get("AGENT_TUI_SANDBOX_LAUNCH") == "fork":
            return Prepared(launch.preexec_for(the_plan), env, [], the_plan, before, git=git)
        from functools import partial

        from tui.sandbox.spawner import SandboxPopen

        return Prepared(None, env, [], the_plan, before, popen=partial(SandboxPopen, plan=the_plan), git=git)

    def blocked_hosts(self, since: float) -> list[str]:
        return self._proxy.blocked_since(since) if self._proxy is not None else []

    def describe(self) -> list[str]:
        """What is enforced, line by line (for `/sandbox`)."""
        abi, why = self.support()
        if why:
            return [f"Sandbox: unavailable ({why}). Bash commands go through ordinary permissions."]
        if not self.enabled:
            return ["Sandbox: off for this run. Bash commands go through ordinary permissions."]
        from tui.sandbox.plan import PROJECT_PROTECTED

        domains = (
            ", ".join(self.config.allowed_domains) + " (through agent-tui's proxy)"
            if self.config.allowed_domains
            else "closed (no allowed domains)"
        )
        lines = [
            "Sandbox: on (Seatbelt, untested on macOS)."
            if sys.platform == "darwin"
            else f"Sandbox: on (Landlock ABI {abi}, user/mount/network/PID namespaces, seccomp).",
            f"Writable: the project, a private TMPDIR{', ' + ', '.join(self.config.allow_write) if self.config.allow_write else ''}.",
            f"Never writable: {', '.join(PROJECT_PROTECTED)} (and shell start-up files, ~/.gitconfig); nor anything "
            "git follows to its config and hooks (.git itself, commondir, includes, core.hooksPath, worktrees', "
            "submodules'), checked again after each command.",
            "Background tasks (run_in_background): contained too, in every mode.",
            f"Unreadable: {', '.join(_home(p) for p in self.config.deny_read)}.",
            f"Network: {domains}.",
            "Processes: ended with the command; no signals or ptrace outside it.",
            f"Without a dialog: {'contained commands (unless a deny or ask rule matches)' if self.config.auto_allow else 'no (auto_allow is off)'}.",
        ]
        if self.config.excluded_commands:
            lines.append(f"Run outside: {', '.join(self.config.excluded_commands)}.")
        return lines

    def close(self) -> None:
        """Stop the proxy and remove the per-run folder."""
        if self._proxy is not None:
            self._proxy.close()
            self._proxy = None
        if self._dir is not None:
            import shutil

            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None


def _home(path: str) -> str:
    home = os.path.expanduser("~")
    return "~" + path[len(home) :] if path.startswith(home + os.sep) else path


def _probe() -> tuple[int, str]:
    if sys.platform == "darwin":
        from tui.sandbox.seatbelt import SANDBOX_EXEC

        return (MIN_ABI, "") if os.path.exists(SANDBOX_EXEC) else (0, "sandbox-exec is missing")
    if sys.platform != "linux":
        return 0, f"no sandbox on {sys.platform}"
    from tui.sandbox.landlock import abi_version

    abi = abi_version()
    if abi < MIN_ABI:
        return abi, f"Landlock ABI {abi}, {MIN_ABI} needed" if abi else "this kernel has no Landlock"
    if not os.path.exists("/proc/self/ns/user"):
        return abi, "no user namespaces"
    try:
        with open("/proc/sys/user/max_user_namespaces") as f:
            if int(f.read().strip() or 0) == 0:
                return abi, "user namespaces are disabled"
    except (OSError, ValueError):
        pass
    return abi, _try_user_namespace()


def _try_user_namespace() -> str:
    """'' when a child can unshare a user namespace here (AppArmor or a container may forbid it)."""
    from tui.sandbox.landlock import libc
    from tui.sandbox.namespaces import CLONE_NEWUSER

    c = libc()
    pid = os.fork()
    if pid == 0:
        os._exit(0 if c.unshare(CLONE_NEWUSER) == 0 else 1)
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) == 0:
        return ""
    # a forked child of this process can be refused where a fresh one is not: a library's fork handler (gRPC's,
    # with OTLP over gRPC loaded) may start a thread in the child, and unshare(CLONE_NEWUSER) refuses a threaded
    # caller. The sandbox itself starts commands with clone(), which has no such limit; ask a fresh process.
    import subprocess

    fresh = f"import ctypes, os; os._exit(0 if ctypes.CDLL(None).unshare({CLONE_NEWUSER}) == 0 else 1)"
    try:
        done = subprocess.run([sys.executable, "-S", "-c", fresh], timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return "user namespaces are not allowed here"
    return "" if done.returncode == 0 else "user namespaces are not allowed here"


_current = SandboxRuntime()


def current() -> SandboxRuntime:
    """The sandbox of this process (configured by `configure` at start)."""
    return _current


def configure(config: SandboxSettings, project_dir: str) -> SandboxRuntime:
    """Set up this run's sandbox from the settings."""
    global _current
    _current.close()
    _current = SandboxRuntime(config, project_dir)
    return _current
