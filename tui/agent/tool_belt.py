"""The tool belt seen from the loop: background task events and notifications, and `pause_turn` continuations."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tui.tools.tasks import BackgroundTask, TaskRegistry

from .events import BackgroundShellChanged, Event


def publish_changes(registry: TaskRegistry, publish: Callable[[Event], None]) -> None:
    """Publish a BackgroundShellChanged for every start and end of a task in `registry`."""

    def changed(task: BackgroundTask) -> None:
        publish(BackgroundShellChanged(task_id=task.id, kind=task.kind, description=task.description,
                                       status=task.status, output_path=task.output_path, exit_code=task.exit_code))

    registry.listeners.append(changed)


def notification_blocks(registry: TaskRegistry) -> list[dict[str, Any]]:
    """One text block per task that ended since the last request, as Claude Code's task notification."""
    return [
        {"type": "text", "text": (
            "<task-notification>\n"
            f"<task-id>{task.id}</task-id>\n"
            f"<output-file>{task.output_path}</output-file>\n"
            f"<status>{task.status}</status>\n"
            f"<summary>{task.summary()}</summary>\n"
            "</task-notification>\n"
            "Read the output file to see the result."
        )}
        for task in registry.take_finished()
    ]


#: `pause_turn` continuations in a row before the turn ends (Claude Code loops "with a cap")
MAX_PAUSE_TURNS = 10


def pause_streak(messages: list[dict[str, Any]]) -> int:
    """How many assistant messages end the history in a row: the pause_turn continuations so far."""
    count = 0
    for message in reversed(messages):
        if message.get("role") != "assistant":
            break
        count += 1
    return count
