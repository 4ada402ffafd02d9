"""A repository whose own config names an fsmonitor script that leaves a marker file when git runs it."""

from __future__ import annotations

import subprocess
from pathlib import Path


def make_evil_repo(repo: Path, marker: Path) -> Path:
    """`git init` at `repo` with `core.fsmonitor` set to a script appending to `marker`; returns `marker`."""
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    hook = repo / "fsmon.sh"
    hook.write_text(f"#!/bin/sh\necho ran >> {marker}\n")
    hook.chmod(0o755)
    subprocess.run(["git", "-C", str(repo), "config", "core.fsmonitor", str(hook)], check=True)
    return marker
