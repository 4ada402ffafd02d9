"""The inspector's data from before it is first opened: the same bounded models the panel keeps (its calls and
its timeline), fed event by event, and handed to the panel when it opens. A day with the inspector never opened
keeps no more than one with it open (the newest calls and bars; older ones are in the transcript file)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .widgets.inspector.model import InspectorModel
    from .widgets.inspector.timeline import TimelineModel


class InspectorBacklog:
    """The inspector's models, built before the panel exists (imported on the first event, not at start-up)."""

    def __init__(self) -> None:
        self.model: InspectorModel | None = None
        self.timeline: TimelineModel | None = None

    def add(self, event: Any) -> None:
        if self.model is None or self.timeline is None:
            from .widgets.inspector.model import InspectorModel
            from .widgets.inspector.timeline import TimelineModel

            self.model, self.timeline = InspectorModel(), TimelineModel()
        self.timeline.record(event)
        self.model.record(event)

    def take(self) -> tuple[InspectorModel | None, TimelineModel | None]:
        """The models so far (None before any event); the backlog is empty afterwards."""
        taken = (self.model, self.timeline)
        self.model = self.timeline = None
        return taken
