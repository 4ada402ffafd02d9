"""The prompt's extra keys: vi keys (`/vim`), Ctrl+R history search, Ctrl+G editor, Tab for thinking.

`install(app)` attaches a `PromptKeys` to the prompt after the first frame (as completion.py does
for the menu); the prompt hands it each key first. The saved history and the `editor_mode`
setting are read on a thread, so the first frame waits for neither.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual import events
from textual.widgets import Static

from tui.text.sanitize import one_line

from ..prompt_history import HISTORY_LIMIT, HistorySearch, PromptHistory, history_file
from .vi_keys import ViKeys

if TYPE_CHECKING:
    from ..app import AgentApp
    from .prompt import PromptArea


class SearchLabel(Static):
    """`(reverse-i-search)`query':` left of the prompt while Ctrl+R searches."""

    DEFAULT_CSS = """
    SearchLabel { display: none; width: auto; max-width: 50%; height: 1; color: $accent; }
    SearchLabel.-failed { color: $warning; }
    SearchLabel.-on { display: block; }
    """


class PromptKeys:
    """What the prompt's extra keys do; one per prompt."""

    def __init__(self, app: AgentApp, prompt: PromptArea, label: SearchLabel) -> None:
        self.app = app
        self.prompt = prompt
        self.label = label
        self.vi: ViKeys | None = None
        self.search: HistorySearch | None = None
        self._draft = ""
        self.history: PromptHistory | None = None
        #: the saved history and the editor_mode setting have been read
        self.ready = False

    # --- keys, from the prompt's own handler --------------------------------------------------

    def on_key(self, event: events.Key) -> bool:
        """Take the key when a search runs or vi normal mode has it; True when taken (the event is stopped)."""
        taken = self._search_key(event) if self.search is not None else False
        menu_open = self.prompt.completer is not None and self.prompt.completer.is_open
        if not taken and self.vi is not None and not (event.key == "escape" and menu_open):  # Esc closes the menu first
            taken = self.vi.handle(event)
        if taken:
            event.stop()
            event.prevent_default()
        return taken

    def enter(self) -> bool:
        """Enter during a search: the match stays in the prompt to edit or send (True: Enter is used up)."""
        if self.search is None:
            return False
        self.leave_search()
        return True

    def submitted(self, text: str) -> None:
        """A prompt was sent: keep it for later sessions; vi keys start over in insert mode."""
        if self.vi is not None:
            self.vi.reset()
        if self.history is not None and (problem := self.history.add(text)):
            self.app.notify(problem, severity="warning")

    # --- Ctrl+R -------------------------------------------------------------------------------

    def start_search(self) -> None:
        """Ctrl+R: search the history from the newest prompt (again: the next older match)."""
        if self.search is not None:
            self._show_match(self.search.older())
            return
        if self.prompt.completer is not None:
            self.prompt.completer.dismiss(self.prompt.text)
        self._draft = self.prompt.text
        self.search = HistorySearch(list(self.prompt.prompt_history))
        self.label.add_class("-on")
        self._show_match(None)

    def leave_search(self, *, cancel: bool = False) -> None:
        """End the search: keep the match in the prompt, or (`cancel`) the text from before it."""
        if self.search is None:
            return
        self.search = None
        self.label.remove_class("-on")
        if cancel:
            self._load(self._draft)

    def _search_key(self, event: events.Key) -> bool:
        search = self.search
        assert search is not None
        if event.key in ("escape", "ctrl+g", "ctrl+c"):
            self.leave_search(cancel=True)
            return True
        if event.key == "ctrl+r":
            self._show_match(search.older())
            return True
        if event.key == "backspace":
            self._show_match(search.backspace())
            return True
        if event.is_printable and event.character:
            self._show_match(search.type(event.character))
            return True
        self.leave_search()  # any other key takes the match and then acts on it, as in bash
        return False

    def _show_match(self, match: str | None) -> None:
        search = self.search
        if search is None:
            return
        self.label.update(one_line(search.label()))
        self.label.set_class(search.failed, "-failed")
        self._load(match if match is not None else ("" if search.query else self._draft))

    def _load(self, text: str) -> None:
        prompt = self.prompt
        if prompt.completer is not None:
            prompt.completer.dismiss(text)  # a match that starts with `/` opens no menu
        prompt.load_text(text)
        prompt.move_cursor(prompt.document.end)

    # --- Ctrl+G -------------------------------------------------------------------------------

    def open_editor(self) -> None:
        """Ctrl+G: the prompt in $VISUAL / $EDITOR; nothing changes when the editor fails."""
        from ..external_editor import edit_text
        from ..paste_cap import MAX_PROMPT_CHARS, cut_paste

        self.leave_search()
        edited, problem = edit_text(self.app, self.prompt.text)
        if problem:
            self.app.notify(problem, severity="warning", timeout=8)
            return
        assert edited is not None
        edited, notice = cut_paste(edited, MAX_PROMPT_CHARS)
        if notice:
            self.app.notify(notice, severity="warning", timeout=20)
        self._load(edited)

    # --- Tab ----------------------------------------------------------------------------------

    def toggle_thinking(self) -> None:
        from ..prompt_commands import toggle_thinking

        toggle_thinking(self.app)

    # --- vi -----------------------------------------------------------------------------------

    def set_vi(self, on: bool) -> None:
        """Turn the vi keys on (in insert mode) or off."""
        if on and self.vi is None:
            self.vi = ViKeys(self.prompt, self._vi_mode)
        elif not on and self.vi is not None:
            self.vi = None
            self.prompt.remove_class("-vi-normal")
            self._vi_mode("")

    def _vi_mode(self, mode: str) -> None:
        self.app.status.vi_mode = mode

    # --- start-up -----------------------------------------------------------------------------

    def loaded(self, editor_mode: str, saved: list[str]) -> None:
        """On the UI thread once the settings and the saved history were read."""
        if editor_mode == "vim":
            self.set_vi(True)
        typed = self.prompt.prompt_history  # prompts sent before the file was read come after it
        merged = saved + [p for p in typed if p not in saved[-len(typed) :]]
        self.prompt.prompt_history[:] = merged[-HISTORY_LIMIT:]
        self.ready = True


def install(app: AgentApp) -> PromptKeys:
    """Attach the keys to the prompt, and read the saved history and `editor_mode` on a thread."""
    from .prompt import PromptArea

    main_screen = app.screen_stack[0]
    prompt = main_screen.query_one("#prompt", PromptArea)
    if prompt.keys is not None:
        return prompt.keys
    label = SearchLabel("", id="prompt-search")
    main_screen.query_one("#prompt-row").mount(label, before=prompt)
    keys = PromptKeys(app, prompt, label)
    prompt.keys = keys
    project_dir = Path(app.options.project_dir)
    keys.history = PromptHistory(history_file(project_dir))
    from ..prompt_commands import show_choices

    show_choices(app)

    def read() -> None:
        from tui.config.settings import load_settings

        try:
            editor_mode = load_settings(project_dir).settings.editor_mode
        except Exception:  # the app reports settings problems elsewhere
            editor_mode = "normal"
        saved = keys.history.load() if keys.history is not None else []
        app.call_from_thread(keys.loaded, editor_mode, saved)

    app.run_worker(read, thread=True, group="prompt-keys", exit_on_error=False)
    return keys
