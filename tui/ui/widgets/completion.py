"""The completion menu above the prompt: `/` commands (built-in, custom, skills) and `@` files and folders.

`PromptCompleter` watches the prompt's text (the app forwards `TextArea.Changed`) and shows a
menu of matches; while it is open, the prompt hands Up/Down, Tab, Enter and Esc to it. The file
list is ripgrep's (ignores respected), read once on a thread the first time `@` is typed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.widget import Widget
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tui.text.sanitize import one_line
from tui.text.wording import shorten

if TYPE_CHECKING:
    from ..app import AgentApp
    from .prompt import PromptArea

MAX_ITEMS = 12


class CompletionMenu(OptionList):
    """The list of matches; hidden when there is nothing to offer."""

    DEFAULT_CSS = """
    CompletionMenu { display: none; height: auto; max-height: 12; border: round $primary; padding: 0 1;
                     background: $surface; }
    CompletionMenu.-open { display: block; }
    """
    can_focus = False


class PromptCompleter:
    """Finds matches for the word at the prompt's cursor and puts the chosen one in its place."""

    def __init__(self, app: AgentApp, prompt: PromptArea, menu: CompletionMenu) -> None:
        self.app = app
        self.prompt = prompt
        self.menu = menu
        self.files: list[str] | None = None
        self.lowered: list[str] = []
        self._loading = False
        #: (row, start column, end column) of the word the menu would replace, and its kind
        self.span: tuple[int, int, int] = (0, 0, 0)
        self.kind = ""
        self.values: list[str] = []
        self._dismissed: str | None = None

    @property
    def is_open(self) -> bool:
        return self.menu.has_class("-open")

    def close(self) -> None:
        self.menu.remove_class("-open")
        self.values = []

    def dismiss(self, text: str) -> None:
        """Close the menu and keep it closed while the prompt holds `text`."""
        self._dismissed = text
        self.close()

    def update(self) -> None:
        """Recompute the menu for the prompt's text and cursor."""
        row, col = self.prompt.cursor_location
        line = self.prompt.document[row] if row < self.prompt.document.line_count else ""
        text = self.prompt.text
        if text == self._dismissed:
            return
        self._dismissed = None
        if row == 0 and text.startswith("/") and " " not in text and "\n" not in text:
            self._show("slash", (0, 0, len(line)), self._slash_matches(text[1:]))
            return
        from tui.hooks.mentions import mention_at

        found = mention_at(line, col)
        if found is None:
            self.close()
            return
        start, query = found
        resources = self._resources()
        server, colon, wanted = query.partition(":")
        if colon and server in resources:  # `@server:…`: that server's resources, as `@` completes files
            self._show("resource", (row, start, col), resource_items(server, wanted, resources[server]))
            return
        if self.files is None:
            self._load_files()
            self.close()
            return
        from tui.hooks.mentions import fuzzy_matches

        servers = [(f"@{s}:", f"{s}:", f"resources of the MCP server {s}") for s in resources if s.startswith(query)]
        matches = fuzzy_matches(query, self.files, MAX_ITEMS, self.lowered)
        self._show("mention", (row, start, col), [*servers, *[(f"@{m}", m, "") for m in matches]][:MAX_ITEMS])

    def _resources(self) -> dict[str, list[dict[str, Any]]]:
        """The resources of each connected MCP server that has any (nothing of MCP loads without a server)."""
        runtime = getattr(getattr(self.app, "_session", None), "mcp", None)
        if runtime is None:
            return {}
        return {
            name: list(state.resources)
            for name, state in runtime.manager.states.items()
            if state.status == "connected" and state.resources
        }

    def _slash_matches(self, typed: str) -> list[tuple[str, str, str]]:
        from tui.hooks.mentions import fuzzy_matches

        from ..commands import SLASH_COMMANDS
        from ..prompt_shortcuts import describe

        described = {name: c.description for name, c in SLASH_COMMANDS.items()}
        for command in self.app.session.prompt_catalog().commands.values():
            described.setdefault(command.name, describe(command))
        runtime = getattr(self.app.session, "mcp", None)
        if runtime is not None:  # prompts of connected MCP servers (nothing of MCP loads without a server)
            from ..mcp_glue import prompt_completions

            for name, note in prompt_completions(runtime).items():
                described.setdefault(name, note)
        untrusted = self._untrusted_note()
        if untrusted:  # what the folder's files would bring, on the /trust line, first while nothing is typed
            described["trust"] = untrusted
        names = fuzzy_matches(typed, sorted(described), MAX_ITEMS) if typed else sorted(described)[:MAX_ITEMS]
        if untrusted and not typed:
            names = ["trust", *[n for n in names if n != "trust"]][:MAX_ITEMS]
        return [(f"/{n}", f"/{n}", described[n]) for n in names]

    def _untrusted_note(self) -> str | None:
        inventory = getattr(self.app, "trust_inventory", None)  # read after the first frame (ui/trust.py)
        if inventory is None:
            return None
        from tui.trust.notice import untrusted_summary

        return untrusted_summary(inventory)

    def _show(self, kind: str, span: tuple[int, int, int], items: list[tuple[str, str, str]]) -> None:
        if not items:
            self.close()
            return
        self.kind, self.span = kind, span
        self.values = [value for _, value, _ in items]
        self.menu.clear_options()
        width = max(20, self.menu.parent.size.width - 6) if isinstance(self.menu.parent, Widget) else 80
        self.menu.add_options(
            [Option(shorten(one_line(f"{label}  {note}" if note else label), width)) for label, _, note in items]
        )  # one line each, even on a narrow terminal
        self.menu.highlighted = 0
        self.menu.add_class("-open")

    def _load_files(self) -> None:
        if self._loading:
            return
        self._loading = True

        def load() -> None:
            from tui.hooks.mentions import project_files

            files = project_files(self.app.session.options.project_dir)
            self.app.call_from_thread(self._files_loaded, files)

        self.app.run_worker(load, thread=True, group="completion", exit_on_error=False)

    def _files_loaded(self, files: list[str]) -> None:
        self.files, self.lowered = files, [f.lower() for f in files]
        self.update()

    def key(self, key: str) -> bool:
        """Handle `key` while the menu is open; True when it was used (the prompt then ignores it)."""
        if not self.is_open:
            return False
        if key in ("up", "down"):
            count = len(self.values)
            current = self.menu.highlighted or 0
            self.menu.highlighted = (current + (1 if key == "down" else -1)) % count
            return True
        if key == "escape":
            self.dismiss(self.prompt.text)
            return True
        if key in ("tab", "enter"):
            # keys typed fast (or sent together) can reach Enter before the menu saw the last letters: match
            # against the text as it is now, never against a stale highlight
            self.update()
            if not self.is_open:
                return False
            chosen = self.values[self.menu.highlighted or 0]
            if key == "enter" and self.kind == "slash" and self.prompt.text in self.values:
                self.close()
                return False  # the full name is typed: Enter sends it
            self.accept(chosen)
            return True
        return False

    def accept(self, value: str) -> None:
        """Put `value` in place of the word being completed."""
        from tui.hooks.mentions import quote_mention

        row, start, end = self.span
        goes_on = self.kind == "mention" and value.endswith(("/", ":"))  # a folder, or a server's resources
        replacement = f"{value} " if self.kind == "slash" else quote_mention(value)
        if self.kind in ("mention", "resource") and not goes_on:
            replacement += " "
        self.prompt.replace(replacement, (row, start), (row, end))
        self.close()
        if goes_on:
            self.update()  # go on completing inside it


def install(app: AgentApp) -> Any:
    """Mount the menu above the prompt and connect it; returns the completer."""
    from .prompt import PromptArea

    main_screen = app.screen_stack[0]  # a dialog may be on top already
    prompt = main_screen.query_one("#prompt", PromptArea)
    if prompt.completer is not None:  # the start-up steps may run again (a resumed session)
        return prompt.completer
    menu = CompletionMenu(id="completion-menu")
    main_screen.query_one("#main").mount(menu, before="#prompt-row")
    completer = PromptCompleter(app, prompt, menu)
    prompt.completer = completer
    return completer


def resource_items(server: str, wanted: str, resources: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """Menu entries (label, value, note) for the resources of `server` whose URI or name fits `wanted`."""
    from tui.hooks.mentions import fuzzy_matches

    by_uri = {str(r.get("uri", "")): r for r in resources if r.get("uri")}
    uris = fuzzy_matches(wanted, list(by_uri), MAX_ITEMS)
    if wanted and len(uris) < MAX_ITEMS:  # a resource's name counts too
        uris += [u for u, r in by_uri.items() if u not in uris and wanted.lower() in str(r.get("name", "")).lower()]
    items = []
    for uri in uris[:MAX_ITEMS]:
        resource = by_uri[uri]
        note = str(resource.get("description") or resource.get("name") or "")
        items.append((f"@{server}:{uri}", f"{server}:{uri}", f"{note}  (MCP {server})".strip()))
    return items
