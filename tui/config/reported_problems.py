"""Problems found at start (a broken plugin, a settings file that does not parse …), toasted once per change.

Each problem is keyed by its sentence and by the content of the file it names (a SHA-256 of the
file, when the sentence names one that exists); the keys already toasted are kept in
`$XDG_STATE_HOME/agent-tui/reported-problems.json`. The same problem of the same file is not toasted
again at the next start, in this folder or any other; editing the file (or a new problem) toasts it
once more. Every problem is still listed by `/doctor` (and `/plugin`, `/hooks`, `/permissions`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
import time
from pathlib import Path

from .paths import user_state_dir

STATE_FILE = "reported-problems.json"
#: the most keys kept (the oldest go first)
MAX_KEYS = 500
_PATH = re.compile(r"(?:~|/)[^\s:'\"(),]+")


def named_file(problem: str) -> Path | None:
    """The first existing file the sentence names (an absolute or `~` path), if any."""
    for match in _PATH.finditer(problem):
        path = Path(os.path.expanduser(match.group(0)))
        if path.is_file():
            return path
    return None


def problem_key(problem: str) -> str:
    """The sentence and the content of the file it names, hashed."""
    digest = hashlib.sha256(problem.encode())
    path = named_file(problem)
    if path is not None:
        with contextlib.suppress(OSError):
            digest.update(b"\0" + str(path).encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:32]


class ReportedProblems:
    """The problems already toasted, by key, with when (the state file; `path` for tests)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or user_state_dir() / STATE_FILE

    def _load(self) -> dict[str, float]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return {str(k): float(v) for k, v in data.items()} if isinstance(data, dict) else {}

    def fresh(self, problems: list[str]) -> list[str]:
        """The problems not toasted before in this form, remembered from now on (all of them if nothing can be kept)."""
        seen = self._load()
        keys = [problem_key(p) for p in problems]
        new = [p for p, k in zip(problems, keys, strict=True) if k not in seen]
        if not new:
            return []
        now = time.time()
        seen.update({k: now for k in keys if k not in seen})
        kept = dict(sorted(seen.items(), key=lambda item: item[1])[-MAX_KEYS:])
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".reported-")
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(kept, out)
            os.replace(tmp, self.path)
        except OSError:
            return problems  # nothing remembered: say them all, as before
        return new
