"""After a sandboxed command: what the sandbox blocked (swept paths, refused hosts, denied paths in the output)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any

from tui.sandbox.plan import Plan, sweep

DENIAL = re.compile(
    r"Permission denied|Read-only file system|Operation not permitted|Device or resource busy|EACCES|EROFS"
    r"|EPERM|EBUSY"
)
QUOTED = re.compile(r"['‘\"`]([^'’\"`\n]{1,400})['’\"`]")
BASH_STYLE = re.compile(
    r"(?:^|: |\s)((?:/|\.{1,2}/|~/)?[^\s:'\"]+): (?:Permission denied|Read-only file system|Operation not permitted"
    r"|Device or resource busy)"
)
NETWORK = re.compile(
    r"Could not resolve host|Temporary failure in name resolution|Name or service not known|"
    r"Network is unreachable|getaddrinfo failed|ENOTFOUND|EAI_AGAIN|nodename nor servname"
)
MAX_REPORTED = 5


def _inside(path: str, roots: list[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def _resolved(path: str) -> str:
    """`path` with links followed as far as this process may follow them (a /proc link of another process may not)."""
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return path


def classify(path: str, plan: Plan) -> str | None:
    """Why the sandbox would refuse `path` (an absolute path), or None when it would not."""
    real = _resolved(path)
    hidden = plan.hide_dirs + plan.hide_files
    if _inside(real, hidden) or _inside(path, hidden):
        return f"reading {path} (sandbox.deny_read)"
    if real in plan.pins or path in plan.pins:
        return f"moving {path} (a protected path: git finds its config and hooks through it)"
    if _inside(real, plan.read_only + plan.missing) or _inside(path, plan.read_only + plan.missing):
        return f"writing {path} (a protected path)"
    if not _inside(real, plan.write_roots + plan.write_files):
        return f"writing {path} (outside the writable folders)"
    return None


def denied_paths(output: str, cwd: str, plan: Plan) -> list[str]:
    """Paths the output says were denied and that the sandbox accounts for."""
    found: list[str] = []
    for line in output.splitlines():
        if not DENIAL.search(line):
            continue
        named = [m.group(1) for m in BASH_STYLE.finditer(line)]  # `name: Permission denied`: a file, even a bare name
        for raw in named + QUOTED.findall(line):
            if "/" not in raw and not raw.startswith(".") and raw not in named:
                continue
            if "\x00" in raw:
                continue  # no file has that name; the output only quotes bytes
            full = os.path.normpath(os.path.join(cwd, os.path.expanduser(raw)))
            why = classify(full, plan)
            if why and why not in found:
                found.append(why)
    return found[:MAX_REPORTED]


def protect(prepared: Any) -> list[str]:
    """Undo what a command did to protected paths: made ones removed, git's chain to config and hooks checked."""
    blocked = [f"creating {path} (a protected path; removed)" for path in sweep(prepared.before, prepared.started)]
    if prepared.git is not None:
        from tui.sandbox.gitstate import check

        plan: Plan = prepared.plan
        blocked += check(prepared.git, plan.project, plan.read_only, plan.write_roots, prepared.started)
    return blocked


def after_run(prepared: Any, runtime: Any, output: str, exit_code: int, cwd: str) -> list[str]:
    """Everything the sandbox blocked during one command, one phrase each (empty when nothing was)."""
    plan: Plan = prepared.plan
    blocked = protect(prepared)
    blocked += [
        f"connecting to {host} (not in sandbox.network.allowed_domains)"
        for host in runtime.blocked_hosts(prepared.started)
    ]
    try:
        blocked += denied_paths(output, cwd, plan)  # also at exit 0: a pipeline hides a failed step
    except Exception:  # noqa: BLE001 - reading the output for paths is a courtesy; it never costs the output
        pass
    if exit_code != 0 and NETWORK.search(output) and not any(b.startswith("connecting") for b in blocked):
        blocked.append("network access (the sandbox has no network; sandbox.network.allowed_domains opens hosts)")
    return blocked


#: how much of a background task's output (its end) the report reads for denied paths
TAIL_BYTES = 64 * 1024


def background_check(prepared: Any, runtime: Any, cwd: str) -> Callable[[int | None, str], list[str]]:
    """The check a contained background task runs: protected paths swept while it runs, the full report at its end."""

    def check(exit_code: int | None, output_path: str) -> list[str]:
        if exit_code is None:
            return protect(prepared)
        return after_run(prepared, runtime, _tail(output_path), exit_code, cwd)

    return check


def _tail(path: str) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(max(0, os.fstat(f.fileno()).st_size - TAIL_BYTES))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def result_note(blocked: list[str]) -> str:
    """The text appended to the tool result so the model knows what happened and what it may do."""
    items = "; ".join(blocked)
    return (
        f"Sandbox: blocked {items}. If the command needs this, ask the user, or run it again with "
        "dangerouslyDisableSandbox: true (the user will be asked)."
    )
