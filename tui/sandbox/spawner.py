"""A Popen whose child is started by `vfork.spawn` inside the sandbox (same pipes, wait and kill as any Popen)."""

from __future__ import annotations

import inspect
import os
import subprocess
from typing import Any

from tui.sandbox import seccomp, vfork
from tui.sandbox.plan import Plan

_PARAMS = list(inspect.signature(subprocess.Popen._execute_child).parameters)[1:]  # type: ignore[attr-defined]
_program: bytes | None = None


def _seccomp_program() -> bytes:
    global _program
    if _program is None:
        _program = seccomp.program() if seccomp.supported() else b""
    return _program


class SandboxPopen(subprocess.Popen):  # type: ignore[type-arg]
    """Popen, with the child started in the sandbox that `plan` describes (always in a new session)."""

    def __init__(self, args: Any, *, plan: Plan, **kwargs: Any) -> None:
        self._plan = plan
        super().__init__(args, **kwargs)

    def _execute_child(self, *args: Any) -> None:
        a = dict(zip(_PARAMS, args))
        argv = [os.fsdecode(x) for x in ([a["args"]] if isinstance(a["args"], (str, bytes)) else a["args"])]
        env = {os.fsdecode(k): os.fsdecode(v) for k, v in (os.environ if a["env"] is None else a["env"]).items()}
        fds = (
            a["p2cread"] if a["p2cread"] != -1 else 0,
            a["c2pwrite"] if a["c2pwrite"] != -1 else 1,
            a["errwrite"] if a["errwrite"] != -1 else 2,
        )
        try:
            self.pid = vfork.spawn(
                argv,
                env,
                os.fsdecode(a["cwd"] or os.getcwd()),
                fds,
                self._plan,
                _seccomp_program(),
                os.getuid(),
                os.getgid(),
            )
        except RuntimeError as exc:  # on failure Popen closes the pipes itself
            raise subprocess.SubprocessError(f"The sandbox could not start the command: {exc}") from None
        self._child_created = True
        # Popen's own helper for what _execute_child must do after a spawn (CPython 3.11+); typeshed leaves it out
        self._close_pipe_fds(  # type: ignore[attr-defined]
            a["p2cread"], a["p2cwrite"], a["c2pread"], a["c2pwrite"], a["errread"], a["errwrite"]
        )
