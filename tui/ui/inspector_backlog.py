"""The inspector's data while its panel is not on screen: the same bounded models the panel keeps (its calls and
its timeline), fed event by event, and handed to the panel when it opens. A day with the inspector never opened
keeps no more than one with it open (the newest calls and bars; older ones are in the transcript file).

Closing the inspector (F2) removes the panel and hands its models back here, with the tab and the call it showed:
a hidden panel kept its widgets (~45, its calls table with up to 500 rows, the timeline's with up to 1,000) for
the rest of the session, restyled with the screen and walked by every garbage collection (issue 38: the long
day's frames after the inspector had been opened once cost ~10% more, and its full collections ~30%).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .widgets.inspector.model import InspectorModel
    from .widgets.inspector.panel import Inspector
    from .widgets.inspector.timeline import TimelineModel


class InspectorBacklog:
    """The inspector's models, built before the panel exists (imported on the first event, not at start-up)."""

    def __init__(self) -> None:
        self.model: InspectorModel | None = None
        self.timeline: TimelineModel | None = None
        #: the tab a closed panel showed, and the call it showed when not following the newest (None: the newest)
        self.view: str | None = None
        self.selected: int | None = None

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

    async def close(self, app: Any) -> None:
        """Close the app's inspector: the panel leaves the screen; its models, tab and selected call stay here."""
        closing: Inspector = app.inspector
        app.inspector = None
        self.keep(closing)
        app.remove_class("-show-inspector")
        await closing.remove()

    def keep(self, inspector: Inspector) -> None:
        """Take back a closing panel's models, its tab and the call it showed."""
        self.model, self.timeline = inspector.model, inspector.timeline
        self.view = inspector.current_view
        calls = inspector.model.calls
        chosen = inspector.selected
        self.selected = chosen.number if chosen is not None and calls and chosen is not calls[-1] else None

    def restore(self, inspector: Inspector) -> None:
        """Show, in a panel that just took the models, the tab and the call the closed one showed."""
        if self.selected is not None:
            inspector.select_call(self.selected)
        if self.view is not None:
            inspector.show_view(self.view)
        self.view = self.selected = None
