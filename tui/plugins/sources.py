"""Where a marketplace or a plugin comes from, and bringing it onto the disk: a folder as it is, or `git clone`.

Source shapes are Claude Code's: `{"source": "directory", "path"}`, `{"source": "file", "path"}` (a
marketplace.json), `{"source": "git", "url", "ref"?}`, `{"source": "github", "repo", "ref"?}` (cloned from
`https://github.com/<repo>.git`), and for plugins also `{"source": "url", "url"}` (a git URL). The text a
user types for `marketplace add` is read as `claude plugin marketplace add` reads it, plus `file://` URLs
and local bare repositories, which are cloned with git.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from .store import PluginError

#: how long one clone or pull may take
GIT_TIMEOUT_S = 120


def parse_source(text: str, cwd: Path) -> dict[str, Any]:
    """The source a typed `marketplace add` argument names; PluginError with the forms it accepts."""
    value = text.strip()
    url, _, ref = value.partition("#")
    with_ref: dict[str, Any] = {"ref": ref} if ref else {}
    if re.match(r"^git@[^:]+:.+", url) or url.startswith("file://"):
        return {"source": "git", "url": url, **with_ref}
    if url.startswith(("http://", "https://")):
        if url.endswith(".git"):
            return {"source": "git", "url": url, **with_ref}
        match = re.match(r"^https?://(?:www\.)?github\.com/([^/]+/[^/]+?)/?$", url)
        if match:
            return {"source": "git", "url": f"https://github.com/{match.group(1)}.git", **with_ref}
        return {"source": "url", "url": url}
    if url.startswith(("./", "../", "/", "~")) or (cwd / url).exists():
        path = Path(os.path.expanduser(url))
        path = (cwd / path).resolve() if not path.is_absolute() else path
        if not path.exists():
            raise PluginError(f"{path} does not exist.")
        if path.is_file():
            if path.suffix != ".json":
                raise PluginError(f"{path} is a file but not a marketplace.json.")
            return {"source": "file", "path": str(path)}
        if is_bare_repository(path):
            return {"source": "git", "url": path.as_uri(), **with_ref}
        return {"source": "directory", "path": str(path)}
    if re.match(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$", url):
        return {"source": "github", "repo": url, **with_ref}
    raise PluginError(
        f"`{text}` is not a marketplace source: give a folder (./path), a git URL "
        "(https://…/x.git, git@host:x.git, file:///path/x.git) or a GitHub owner/repo."
    )


def is_bare_repository(path: Path) -> bool:
    """A folder that is a bare git repository (HEAD, objects/ and refs/, no work tree)."""
    return (path / "HEAD").is_file() and (path / "objects").is_dir() and (path / "refs").is_dir()


def describe(source: dict[str, Any]) -> str:
    """ "git file:///x.git", "github owner/repo", "directory /path" for lists and sentences."""
    kind = source.get("source", "?")
    where = source.get("path") or source.get("url") or source.get("repo") or source.get("package") or ""
    ref = f" #{source['ref']}" if source.get("ref") else ""
    return f"{kind} {where}{ref}"


def git_url(source: dict[str, Any]) -> str | None:
    """The URL to clone for a git, github or url source (None for a local one)."""
    kind = source.get("source")
    if kind == "github" and isinstance(source.get("repo"), str):
        return f"https://github.com/{source['repo']}.git"
    if kind in ("git", "url") and isinstance(source.get("url"), str):
        return source["url"]
    return None


def _git(args: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "/bin/false"}
    try:
        return subprocess.run(
            ["git", *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise PluginError("git is not installed, so a git marketplace or plugin cannot be fetched.") from None
    except subprocess.TimeoutExpired:
        raise PluginError(f"git {args[0]} took longer than {GIT_TIMEOUT_S} s and was stopped.") from None


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "no message"


def clone(url: str, dest: Path, ref: str | None = None) -> str:
    """`git clone` `url` into `dest` (replacing it); returns the commit checked out."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    args = ["clone", "--quiet", "--depth", "1", *(["--branch", ref] if ref else []), url, str(dest)]
    done = _git(args)
    if done.returncode != 0:
        shutil.rmtree(dest, ignore_errors=True)
        raise PluginError(f"git clone {url} failed: {_last_line(done.stderr)}.")
    return head_commit(dest)


def pull(folder: Path) -> str:
    """`git pull` in a cloned folder; returns the commit now checked out."""
    done = _git(["pull", "--quiet", "--ff-only"], cwd=folder)
    if done.returncode != 0:
        raise PluginError(f"git pull in {folder} failed: {_last_line(done.stderr)}.")
    return head_commit(folder)


def head_commit(folder: Path) -> str:
    done = _git(["rev-parse", "HEAD"], cwd=folder)
    return done.stdout.strip() if done.returncode == 0 else ""


def copy_folder(source: Path, dest: Path) -> None:
    """Copy a plugin folder (modes kept, so scripts stay executable; `.git` left out), replacing `dest`."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        shutil.copytree(source, dest, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    except shutil.Error as exc:  # a FIFO or device in the folder: copytree copies the rest, then says so
        shutil.rmtree(dest, ignore_errors=True)
        first = exc.args[0][0] if exc.args and isinstance(exc.args[0], list) and exc.args[0] else None
        where = first[0] if isinstance(first, tuple) else source
        raise PluginError(f"{where} cannot be copied ({first[2] if isinstance(first, tuple) else exc}).") from None
