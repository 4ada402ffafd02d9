"""`/model` without a name: a picker of the API's models (the known names offline), the current one marked."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tui.text.sanitize import one_line

from ..widgets.dialog_box import DialogBox

if TYPE_CHECKING:
    from ..app import AgentApp


class ModelPicker(ModalScreen[str | None]):
    """Up/Down and Enter pick a model; Esc closes. Dismisses with the model id, or None."""

    DEFAULT_CSS = """
    ModelPicker { align: center middle; }
    #model-box { width: 72; max-width: 95%; height: auto; max-height: 90%; border: round $accent;
                 background: $surface; padding: 0 1; }
    #model-list { height: auto; }
    #model-note { color: $text-muted; height: auto; }
    """
    BINDINGS = [Binding("escape", "close", "Close", id="model.close")]
    AUTO_FOCUS = "#model-list"

    def __init__(self, models: list[tuple[str, str]], current: str, note: str) -> None:
        super().__init__()
        from tui.providers.config import canonical_model

        #: the entry of the model in use (added at the top when the list does not hold it)
        self.current_index = next((i for i, (m, _) in enumerate(models) if canonical_model(m) == current), None)
        if self.current_index is None:
            models, self.current_index = [(current, current), *models], 0
        self.models = models
        self.note = note

    def compose(self) -> ComposeResult:
        with DialogBox(id="model-box"):
            yield Static("Model · Enter picks · Esc closes", classes="panel-title dialog-head")
            yield OptionList(
                *[
                    Option(f"{'▸' if i == self.current_index else ' '} {one_line(shown)}", id=model)
                    for i, (model, shown) in enumerate(self.models)
                ],
                id="model-list",
                classes="dialog-body",
            )
            yield Static(self.note, id="model-note", markup=False, classes="dialog-answers")

    def on_mount(self) -> None:
        self.query_one(OptionList).highlighted = self.current_index

    @on(OptionList.OptionSelected, "#model-list")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_close(self) -> None:
        self.dismiss(None)


async def open_model_picker(app: AgentApp) -> None:
    """List the models off the UI thread, then show the picker; the pick switches the model."""
    from tui.agent.cost.pricing import known_models
    from tui.providers.models import model_choices

    session = app.session
    offline = bool(getattr(session, "offline", False))
    client = None if offline else session.client
    models, note = await asyncio.to_thread(
        lambda: model_choices(client() if client else None, session.options, offline, known_models())
    )

    def picked(model: str | None) -> None:
        if model:
            switch_model(app, model)

    app.push_screen(ModelPicker(models, session.options.model, note), picked)


def switch_model(app: AgentApp, model: str) -> None:
    """Use `model` from the next request, and say what answers now."""
    from tui.providers.config import canonical_model

    if canonical_model(model) == app.session.options.model:
        app.notify(f"The model stays {model}.", title="Model")
        return
    app.set_model(canonical_model(model))
    from tui.providers.profiles import lookup

    profile, _ = lookup(app.session.options.model)
    if profile is not None:
        app.notify(f"Model switched to {app.session.options.model} ({profile.where()}).", title="Model")
    elif getattr(app.session, "offline", False):
        app.notify(
            f"Model set to {app.session.options.model}. The offline demo answers until an API key is set "
            "(/login or ANTHROPIC_API_KEY).",
            title="Model",
        )
    else:
        app.notify(f"Model switched to {app.session.options.model}.", title="Model")
