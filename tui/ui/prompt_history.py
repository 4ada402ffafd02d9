"""The prompt's history across sessions, and Ctrl+R's reverse search over it (no Textual here).

One file per project under the user's data dir (`prompt-history/<project>.jsonl`, the sessions'
project key), one JSON string a line, appended as each prompt is sent, readable only by its owner
(0600). It keeps the newest HISTORY_LIMIT prompts: past twice that many lines it is rewritten.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from tui.system.private_files import open_private, private_fd

#: prompts kept per project
HISTORY_LIMIT = 500
#: one prompt larger than this is not kept (a huge paste is saved elsewhere already)
MAX_ENTRY_CHARS = 64 * 1024


def history_file(project_dir: Path) -> Path:
    """Where the prompts of `project_dir` are kept."""
    from tui.agent.history.resume import project_slug
    from tui.config.paths import user_data_dir

    return user_data_dir() / "prompt-history" / f"{project_slug(Path(project_dir))}.jsonl"


class PromptHistory:
    """The prompts sent in one project, oldest first, on disk."""

    def __init__(self, path: Path, limit: int = HISTORY_LIMIT) -> None:
        self.path = path
        self.limit = limit

    def load(self) -> list[str]:
        """The kept prompts, oldest first; [] when there is no readable file (a bad line is skipped)."""
        try:
            with open(self.path, encoding="utf-8", errors="replace") as handle:
                lines = handle.read().splitlines()
        except OSError:
            return []
        import json  # on first use: json is not needed before the first frame

        prompts: list[str] = []
        for line in lines:
            try:
                value = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if isinstance(value, str) and value and (not prompts or prompts[-1] != value):
                prompts.append(value)
        return prompts[-self.limit :]

    def add(self, prompt: str) -> str | None:
        """Append one prompt; a sentence when it could not be written (the prompt is still sent)."""
        if not prompt or len(prompt) > MAX_ENTRY_CHARS:
            return None
        import json

        try:
            fd = private_fd(self.path)  # 0600 in a 0700 folder, tightened if either was wider
            try:
                os.write(fd, (json.dumps(prompt, ensure_ascii=False) + "\n").encode("utf-8", "surrogatepass"))
                size = os.fstat(fd).st_size
            finally:
                os.close(fd)
            if size > 4096:
                self._trim()
        except (OSError, UnicodeEncodeError) as exc:
            return f"The prompt history could not be saved to {self.path}: {getattr(exc, 'strerror', None) or exc}."
        return None

    def _trim(self) -> None:
        """Rewrite the file with the newest `limit` prompts once it holds twice as many lines."""
        with open(self.path, "rb") as handle:
            count = sum(1 for _ in handle)
        if count <= 2 * self.limit:
            return
        import json

        kept = self.load()
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        with open_private(tmp, "w", folder=False, encoding="utf-8") as handle:
            handle.writelines(json.dumps(p, ensure_ascii=False) + "\n" for p in kept)
        os.replace(tmp, self.path)


@dataclass
class HistorySearch:
    """Ctrl+R: the newest prompt holding the query, then older ones on each further Ctrl+R (bash's reverse-i-search)."""

    prompts: list[str]
    query: str = ""
    #: index in `prompts` of the current match; None when nothing matches
    index: int | None = None
    failed: bool = False
    #: where the search started looking (len(prompts) = the newest)
    _start: int = field(default=-1, repr=False)

    def __post_init__(self) -> None:
        self._start = len(self.prompts)

    @property
    def match(self) -> str | None:
        return self.prompts[self.index] if self.index is not None else None

    def _find(self, before: int) -> int | None:
        needle = self.query.lower()
        for i in range(min(before, len(self.prompts)) - 1, -1, -1):
            if needle in self.prompts[i].lower():
                return i
        return None

    def type(self, text: str) -> str | None:
        """Add to the query: the current match if it still holds it, else the next older one that does."""
        self.query += text
        start = self.index + 1 if self.index is not None else self._start
        found = self._find(start)
        self.failed = found is None
        if found is not None:
            self.index = found
        return self.match

    def backspace(self) -> str | None:
        """Take the last character off the query and look again from the newest prompt."""
        self.query = self.query[:-1]
        self.index = self._find(self._start) if self.query else None
        self.failed = bool(self.query) and self.index is None
        return self.match

    def older(self) -> str | None:
        """The next older prompt that holds the query (Ctrl+R again); the match stays when there is none."""
        if not self.query:
            return self.match
        found = self._find(self.index if self.index is not None else self._start)
        self.failed = found is None
        if found is not None:
            self.index = found
        return self.match

    def label(self) -> str:
        """What the search line shows before the match."""
        state = "failing reverse-i-search" if self.failed else "reverse-i-search"
        return f"({state})`{self.query}': "
