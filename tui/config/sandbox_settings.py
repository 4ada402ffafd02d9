"""The `[sandbox]` settings (and Claude Code's `sandbox` block), checked and merged across layers."""

from __future__ import annotations

import os
import re
from dataclasses import field
from pathlib import Path
from typing import Any

from tui.config.lean_dataclass import lean_dataclass

#: secrets a sandboxed command never reads (the built-in Read, Grep and Glob honour the list too)
DEFAULT_DENY_READ = (
    "~/.ssh",
    "~/.aws",
    "~/.gnupg",
    "~/.config/gcloud",
    "~/.kube",
    "~/.netrc",
    "~/.docker/config.json",
    "~/.local/share/python_keyring",
    "~/.claude/.credentials.json",
)
#: our key -> (Claude Code's key path, kind)
KEYS: dict[str, tuple[str, str]] = {
    "enabled": ("enabled", "boolean"),
    "auto_allow": ("autoAllowBashIfSandboxed", "boolean"),
    "allow_unsandboxed": ("allowUnsandboxedCommands", "boolean"),
    "excluded_commands": ("excludedCommands", "list"),
    "allow_write": ("filesystem.allowWrite", "list"),
    "deny_write": ("filesystem.denyWrite", "list"),
    "deny_read": ("filesystem.denyRead", "list"),
    "allowed_domains": ("network.allowedDomains", "list"),
}
#: list keys a folder's own settings may fill only once the folder is trusted (they loosen the sandbox)
LOOSENING = ("excluded_commands", "allow_write", "allowed_domains")
#: where our TOML keeps a key when it is not at the top of `[sandbox]`
TOML_KEYS = {"allowed_domains": "network.allowed_domains"}
_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")


@lean_dataclass
class SandboxSettings:
    """The sandbox as configured; `enabled` None means on wherever the kernel supports it."""

    enabled: bool | None = None
    auto_allow: bool = True
    allow_unsandboxed: bool = True
    excluded_commands: list[str] = field(default_factory=list)
    allow_write: list[str] = field(default_factory=list)
    deny_write: list[str] = field(default_factory=list)
    deny_read: list[str] = field(default_factory=lambda: default_deny_read())
    allowed_domains: list[str] = field(default_factory=list)


def default_deny_read() -> list[str]:
    """The default secrets list, absolute (agent-tui's own key file included)."""
    from tui.config.paths import user_config_dir

    return [os.path.expanduser(p) for p in DEFAULT_DENY_READ] + [str(user_config_dir() / "credentials.json")]


def host_problem(pattern: str) -> str | None:
    """Why `pattern` is not a host pattern (`example.com`, `*.example.com`, `host:443`, an IP), else None."""
    if "/" in pattern or " " in pattern:
        return f"`{pattern}` is not a host name (expected example.com, *.example.com or host:port)"
    host, _, port = pattern.rpartition(":") if pattern.count(":") == 1 else (pattern, "", "")
    if port and not (port.isdigit() and 0 < int(port) < 65536):
        return f"`{pattern}` has a bad port"
    host = host.lower().rstrip(".")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    import ipaddress

    try:
        ipaddress.ip_address(host)
        return None
    except ValueError:
        pass
    labels = host[2:].split(".") if host.startswith("*.") else host.split(".")
    if not host or not all(_LABEL.match(label) for label in labels):
        return f"`{pattern}` is not a host name (expected example.com, *.example.com or host:port)"
    return None


def _lookup(table: dict[str, Any], dotted: str) -> tuple[bool, Any]:
    node: Any = table
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return False, None
        node = node[part]
    return True, node


def merge(loader: Any, path: Path, text: str, table: Any, *, folder: bool, base_dir: Path) -> None:
    """Merge one file's sandbox table into `loader.loaded.settings.sandbox` (problems go to `loader.problem`).

    Either spelling counts in any file: ours (`auto_allow`, `network.allowed_domains`) or Claude
    Code's (`autoAllowBashIfSandboxed`, `network.allowedDomains`). Booleans: the last layer wins;
    lists merge.
    """
    if not isinstance(table, dict):
        loader.problem(path, text, "sandbox", "expected a table; ignored.")
        return
    target: SandboxSettings = loader.loaded.settings.sandbox
    project = os.path.realpath(loader.project_dir)
    for name, (claude_key, kind) in KEYS.items():
        key = TOML_KEYS.get(name, name)
        found, value = _lookup(table, key)
        if not found:  # Claude Code's spelling, in any file
            key = claude_key
            found, value = _lookup(table, key)
        if not found:
            continue
        shown = key.rsplit(".", 1)[-1]
        where = "sandbox." + key.rsplit(".", 1)[0] if "." in key else "sandbox"
        ok = (
            isinstance(value, bool)
            if kind == "boolean"
            else isinstance(value, list) and all(isinstance(v, str) for v in value)
        )
        if not ok:
            loader.problem(
                path,
                text,
                shown,
                f"expected {'true or false' if kind == 'boolean' else 'a list of strings'}; ignored.",
                where,
            )
            continue
        if folder and not loader.loaded.trusted and _loosens(name, value):
            loader.problem(
                path, text, shown, "a folder's own sandbox exceptions count only once you trust it; ignored.", where
            )
            continue
        if kind == "boolean":
            setattr(target, name, value)
            continue
        for item in value:
            checked = _check_item(name, item, base_dir, project)
            if isinstance(checked, tuple):
                loader.problem(path, text, shown, checked[0] + "; ignored.", where)
            elif checked not in getattr(target, name):
                getattr(target, name).append(checked)


def _loosens(name: str, value: Any) -> bool:
    """Whether setting `name` to `value` gives sandboxed commands more than the defaults do."""
    if name == "enabled":
        return value is False
    if name in ("auto_allow", "allow_unsandboxed"):
        return value is True
    return name in LOOSENING and bool(value)


def _check_item(name: str, item: str, base_dir: Path, project: str) -> str | tuple[str]:
    """The item as stored (paths absolute), or a one-element tuple holding the problem."""
    if name == "allowed_domains":
        problem = host_problem(item.strip())
        return (problem,) if problem else item.strip().lower()
    if name == "excluded_commands":
        return item.strip()
    raw = item[2:] if item.startswith("//") else item  # Claude Code's `//abs` spelling
    full = os.path.normpath(os.path.join(base_dir, os.path.expanduser(raw)))
    if name == "allow_write" and not os.path.isdir(full) and not os.path.isfile(full):
        return (f"`{item}` does not exist",)
    if name == "allow_write" and os.path.realpath(full) == "/":
        return ("`/` would make the whole disk writable",)
    if name == "deny_read":
        real = os.path.realpath(full)
        if project == real or project.startswith(real.rstrip("/") + "/"):
            return (f"`{item}` covers the project folder itself, so nothing could run",)
    return full
