"""Around a Bash command: note the project before it runs, record what it changed after (checkpoints.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .checkpoints import Checkpoints


def watch_command(cps: Checkpoints) -> Callable[[], None]:
    """Note the project's state before a command runs; the returned function records what it changed.

    With inotify (tree_watch.py) only the files the kernel saw touched are stat-ed; without it the
    whole project is scanned before and after.
    """
    watch = cps.watcher()
    if watch is not None and watch.changes() is not None:  # what changed since the last command is not its doing

        def finished() -> None:
            try:
                cps.record_changes(watch.changes())
            except OSError as exc:
                cps.degrade(exc)

        return finished
    before = cps.scan()

    def scanned() -> None:
        try:
            cps.bash_finished(before)
        except OSError as exc:
            cps.degrade(exc)

    return scanned
