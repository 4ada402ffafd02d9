"""What `/sandbox` does: toggle for the run, describe, and turn a blocked path or host into a lasting allowance."""

from __future__ import annotations

import os
import re

from tui.sandbox.runtime import SandboxRuntime

_TARGET = re.compile(r"^(?:writing|connecting to) (.+?) \((?:outside the writable folders|not in sandbox\.network)")


def allow_target(blocked: str) -> str | None:
    """The path or host a blocked phrase could be allowed by (None for protected paths and secrets)."""
    match = _TARGET.match(blocked)
    return match.group(1) if match else None


SHORT_VERBS = (
    ("writing ", "write "),
    ("reading ", "read "),
    ("connecting to ", "host "),
    ("creating ", "protected "),
    ("network access", "network"),
    ("moving ", "protected "),
    ("changing ", "protected "),
    ("re-pointing ", "protected "),
    ("adding submodule ", "protected "),
)


def short_form(blocked: str) -> str:
    """A blocked phrase cut for a narrow panel: `write /etc/x`, `host pypi.org`, `protected .mcp.json`."""
    for long, short in SHORT_VERBS:
        if blocked.startswith(long):
            rest = blocked[len(long) :].split(" (", 1)[0]
            if short.startswith("protected") or "protected path" in blocked:
                short = "protected "
            return (short + os.path.basename(rest) if short == "protected " else short + rest).strip()
    return blocked


def allow(sandbox: SandboxRuntime, target: str) -> str:
    """Add `target` (an existing path, else a host) to the user settings and to this run; one sentence back."""
    from tui.config.paths import user_settings_file
    from tui.config.rule_files import read_settings_file, write_settings_file
    from tui.config.sandbox_settings import host_problem

    path = user_settings_file()
    data = read_settings_file(path)
    table = data.setdefault("sandbox", {})
    full = os.path.abspath(os.path.expanduser(target))
    if os.path.exists(full):
        folder = full if os.path.isdir(full) else os.path.dirname(full)
        key, value, where = "allow_write", folder, table
    else:
        if problem := host_problem(target):
            return f"Not added: {target} is not an existing path, and {problem}."
        key, value, where = "allowed_domains", target.lower(), table.setdefault("network", {})
    items = where.setdefault(key, [])
    if value not in items:
        items.append(value)
        write_settings_file(path, data)
    current = getattr(sandbox.config, key)  # the running proxy shares this list
    if value not in current:
        current.append(value)
    shown = "sandbox.network.allowed_domains" if key == "allowed_domains" else "sandbox.allow_write"
    return f"Added {value} to {shown} in {path}; it counts from the next command."


def toggle(sandbox: SandboxRuntime, args: str) -> list[str]:
    """`/sandbox [on|off|status]`: no argument flips the sandbox for this run; the lines to show."""
    word = args.strip().lower()
    if word in ("on", "off"):
        sandbox.toggled = word == "on"
    elif word in ("", "toggle"):
        sandbox.toggled = not sandbox.enabled
    elif word != "status":
        return ["Usage: /sandbox [on|off|status] or /sandbox allow PATH_OR_HOST."]
    return sandbox.describe()
