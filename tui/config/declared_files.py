"""Command, skill and agent files stay inside the folder that declares them (memory and rules files meet the
Read rules through tui/config/memory.py's import check; agent-tui has no output styles).

A `.claude/commands/x.md` or a `SKILL.md` that is a link to `~/.netrc` (or sits in a linked folder)
would put that file into every request's skill listing or into a Skill call. Every loader of such
files (the user's, the project's, a plugin's) reads them through `read_declared`: where the file's
links lead (every link on the way followed) must be inside where the declaring folder's links lead —
the project for a project's files, the plugin's folder for a plugin's, the home folder for the user's
own — and never in a secrets folder (`sandbox.deny_read`'s defaults: `~/.ssh`, `~/.netrc` …). A file
that is not is refused with one sentence naming it and where it leads; it is never read. A session's
commands, skills and agents also meet its deny rules and `sandbox.deny_read` (links followed) before they
are read.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from tui.config.special_files import read_regular_bytes


class LinkedOutside(OSError):
    """A declared file whose links lead out of its folder (or into a secret); `str()` is the reason."""


#: the folder (or folders) a declared file must stay in
Roots = Path | tuple[Path, ...]
#: the session's read rules for a declared file: why a deny rule or `sandbox.deny_read` refuses it, else None
DeniedCheck = Callable[[Path], str | None]


def declaring_root(source: str, project_dir: Path, folder: Path) -> Roots:
    """Where a file found in `folder` from `source` ("project", "user", …) must stay: the project for a
    project's file; the home folder or the user folder it was found in (`$CLAUDE_CONFIG_DIR` …) for the user's."""
    return project_dir if source == "project" else (Path.home(), folder)


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def link_problem(path: Path, roots: Roots) -> str | None:
    """Why `path` may not be read as a file `roots` declare (subject-less: "links to …"); None when it may."""
    from tui.config.sandbox_settings import default_deny_read

    folders = (roots,) if isinstance(roots, Path) else roots
    real = os.path.realpath(path)
    if not any(_inside(real, os.path.realpath(root)) for root in folders):
        return f"links to {real}, outside {folders[0]} (the folder that declares it)"
    for secret in default_deny_read():
        if _inside(real, os.path.realpath(secret)):
            return f"links to {real}, in {secret}, which holds secrets (sandbox.deny_read)"
    return None


def read_declared(path: Path, roots: Roots, limit: int | None = None, denied: DeniedCheck | None = None) -> bytes:
    """The bytes of `path` (at most `limit`), a file `roots` declare; LinkedOutside when link_problem says no,
    or when `denied` (the session's deny rules, links followed) refuses it."""
    problem = link_problem(path, roots)
    if problem is None and denied is not None and (why := denied(path)):
        problem = f"is not read: {why.rstrip('.')}"
    if problem is not None:
        raise LinkedOutside(problem)
    return read_regular_bytes(path, limit)
