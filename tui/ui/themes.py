"""Themes from TOML files: load, register, apply, remember the choice, reload live on edit.

A theme file holds one `[theme]` table whose keys are `textual.theme.Theme` arguments
(plus a `[theme.variables]` sub-table). Files are read from the package's built-in
copy, the source tree's `themes/` folder and the user's `$XDG_CONFIG_HOME/agent-tui/themes/`
(later folders win). A broken file never crashes the app: it becomes a problem sentence,
and the previous version of that theme stays in use.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import re
import site
import sys
import weakref
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.color import Color, ColorParseError
from textual.theme import Theme

from tui.config import paths

from .theme_cache import ThemeDataCache

if TYPE_CHECKING:
    from textual.app import App

DEFAULT_THEME = "agent-tui-dark"
#: seconds after start-up before file themes are checked against the stylesheet and watched
CHECK_DELAY_S = 0.4
THEME_KEYS = frozenset(f.name for f in dataclasses.fields(Theme))
COLOUR_KEYS = (
    "primary",
    "secondary",
    "warning",
    "error",
    "success",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
)


class ThemeFileError(Exception):
    """A theme file that cannot be used; the message is one sentence for the user."""


def user_theme_dir() -> Path:
    return paths.user_config_dir() / "themes"


def theme_dirs() -> list[Path]:
    """Folders searched for `*.toml` themes, lowest precedence first (missing ones skipped).

    An installed wheel ships `themes/` as data files (`<prefix>/share/agent-tui/themes`, or
    under the user base for `pip install --user`) or inside the package (`tui/builtin_themes`);
    a source checkout reads the repo's `themes/` folder directly.
    """
    shipped = [Path(base) / "share" / "agent-tui" / "themes" for base in (sys.prefix, site.getuserbase())]
    package_copy = Path(__file__).resolve().parents[1] / "builtin_themes"
    source_tree = Path(__file__).resolve().parents[2] / "themes"
    candidates = [*shipped, package_copy, source_tree, user_theme_dir()]
    return [d for d in dict.fromkeys(candidates) if d.is_dir()]


def _display(path: Path) -> str:
    home = str(Path.home())
    text = str(path)
    return "~" + text[len(home) :] if text.startswith(home + os.sep) else text


def theme_from_table(table: Any, *, generated: bool = False) -> Theme:
    """Build a Theme from a `[theme]` table, checking every key and colour.

    `generated`: the table's colour system was already generated without error (by `_read_theme_data`,
    now or in an earlier run with the same Textual), so it is not generated again (~0.6 ms a theme).
    """
    if not isinstance(table, dict):
        raise ThemeFileError("it has no [theme] table")
    unknown = sorted(set(table) - THEME_KEYS)
    if unknown:
        raise ThemeFileError(f"unknown key {unknown[0]!r} in [theme] (known: {', '.join(sorted(THEME_KEYS))})")
    for key in ("name", "primary"):
        if not isinstance(table.get(key), str) or not table[key].strip():
            raise ThemeFileError(f"[theme] needs a {key!r} string")
    for key in COLOUR_KEYS:
        value = table.get(key)
        if value is None:
            continue
        try:
            Color.parse(value)
        except (ColorParseError, TypeError, ValueError):
            raise ThemeFileError(f'{key} = {value!r} is not a colour (try "#3b82f6" or "rgb(59,130,246)")') from None
    variables = table.get("variables", {})
    if not isinstance(variables, dict) or not all(isinstance(v, str) for v in variables.values()):
        raise ThemeFileError("[theme.variables] must map names to strings")
    if "dark" in table and not isinstance(table["dark"], bool):
        raise ThemeFileError("dark must be true or false")
    try:
        theme = Theme(**table)
        if not generated:
            theme.to_color_system().generate()
    except Exception as exc:  # Theme's own validation: report, never crash
        raise ThemeFileError(f"Textual rejected it: {exc}") from None
    return theme


#: parsed theme files by path, kept between runs (theme_cache.py): no TOML is read before the first frame
_parsed = ThemeDataCache()


def _read_theme_data(path: Path) -> Any:
    """Parse one theme file (the TOML reader is imported only when a file changed since the last run)."""
    import tomllib

    from tui.config.bounded_read import BoundedReadError, load_toml_file

    try:
        return load_toml_file(path)  # a FIFO, device, huge or deep file among the themes never blocks
    except OSError as exc:
        raise ThemeFileError(f"cannot be read ({exc.strerror or exc})") from None
    except BoundedReadError as exc:
        raise ThemeFileError(str(exc).removeprefix(f"{path} ").rstrip(".")) from None  # the sentence names the path
    except tomllib.TOMLDecodeError as exc:
        raise ThemeFileError(f"is not valid TOML: {exc}") from None


def load_theme_file(path: Path) -> Theme:
    """Read one theme file (ThemeFileError naming the problem if it cannot be used)."""
    data = _parsed.data(path, _read_checked_theme)
    return theme_from_table(_theme_table(data), generated=True)


def _theme_table(data: Any) -> Any:
    return data.get("theme") if isinstance(data, dict) else None


def _read_checked_theme(path: Path) -> Any:
    """Parse one theme file and check it whole: a file that fails is never cached, so it is reported every run."""
    data = _read_theme_data(path)
    theme_from_table(_theme_table(data))
    return data


def load_themes(dirs: list[Path] | None = None) -> tuple[list[Theme], list[str]]:
    """All themes in `dirs` (default: theme_dirs()), later folders overriding earlier ones.

    Returns the themes and one problem sentence per file that could not be used.
    """
    by_name: dict[str, Theme] = {}
    problems: list[str] = []
    for folder in theme_dirs() if dirs is None else dirs:
        for path in sorted(folder.glob("*.toml")):
            try:
                theme = load_theme_file(path)
            except ThemeFileError as exc:
                problems.append(f"Theme file {_display(path)}: {exc}.")
                continue
            by_name[theme.name] = theme
    _parsed.save()
    return list(by_name.values()), problems


def _probe_property(variable: str) -> str | None:
    """The CSS property a theme variable of this name feeds (None: unknown, not probed)."""
    if variable.endswith("text-style"):
        return "text-style"
    if re.search(r"(foreground|background|color|border|cursor)(-\w+)?$", variable):
        return "background"
    return None


def check_theme_css(app: App[Any], theme: Theme) -> str | None:
    """Parse the app's CSS with `theme`'s variables on a copy; a problem sentence or None.

    A bad `[theme.variables]` value would otherwise raise inside Textual's CSS refresh and
    take the app down. Only the CSS sources that use one of the theme's own variables are
    parsed (the colours Textual generates are always valid): re-parsing every source cost
    ~80 ms per theme, paid during the first reply.
    """
    from textual.css.stylesheet import Stylesheet

    def parses(variables: dict[str, str]) -> bool:
        if not variables:
            return True
        defaults = {**app.get_theme_variable_defaults(), **theme.to_color_system().generate()}
        sheet = Stylesheet(variables={**defaults, **variables})
        uses = tuple(f"${name}" for name in variables)
        for read_from, source in app.stylesheet.source.items():
            if any(use in source.content for use in uses):
                sheet.add_source(
                    source.content,
                    read_from=read_from,
                    is_default_css=source.is_defaults,
                    tie_breaker=source.tie_breaker,
                    scope=source.scope,
                )
        # also use each variable the way its name says, for widgets whose CSS is not loaded yet
        probe = "\n".join(
            f"#theme-probe-{i} {{ {_probe_property(n)}: ${n}; }}" for i, n in enumerate(variables) if _probe_property(n)
        )
        if probe:
            sheet.add_source(probe, read_from=("theme-probe", theme.name))
        try:
            sheet.parse()
        except Exception:
            return False
        return True

    if parses(theme.variables):
        return None
    for name, value in theme.variables.items():
        if not parses({name: value}):
            return f"variable {name} = {value!r} is not valid CSS for the places that use it"
    return "its colours produce CSS Textual cannot parse"


def register_themes(app: App[Any], dirs: list[Path] | None = None) -> list[str]:
    """Load and register every theme file with `app`; return the problems (Textual's built-ins stay)."""
    themes, problems = load_themes(dirs)
    for theme in themes:
        problem = check_theme_css(app, theme) if app.is_running else None
        if problem:
            problems.append(f"Theme {theme.name!r}: {problem}.")
            continue
        app.register_theme(theme)
    return problems


def apply_theme(app: App[Any], name: str | None) -> str | None:
    """Switch to theme `name` if it is registered, else to the default; a problem sentence or None."""
    wanted = name or DEFAULT_THEME
    if wanted in app.available_themes:
        _set_theme(app, wanted)
        return None
    fallback = DEFAULT_THEME if DEFAULT_THEME in app.available_themes else "textual-dark"
    _set_theme(app, fallback)
    return f"Theme {wanted!r} is not installed; using {fallback}. Pick one with ctrl+p → Change theme."


def _set_theme(app: App[Any], name: str) -> None:
    """`app.theme = name`, without the full CSS reparse it queues when no CSS has been read yet.

    Setting `App.theme` re-parses every stylesheet source with the new variables. Before the
    app has read its CSS (themes.install runs in `__init__`) that was a second parse of
    app.tcss, ~25 ms before the first frame: here the new variables are simply handed to
    the stylesheet, whose first parse then uses them, and the watcher's classes are set.
    """
    from textual.app import App

    if app.stylesheet.source:  # CSS already read: the normal path re-parses it
        app.theme = name
        return
    app.set_reactive(App.theme, name)
    dark = app.current_theme.dark
    for cls in [c for c in app.classes if c.startswith("-theme-")]:
        app.remove_class(cls, update=False)
    app.set_class(True, f"-theme-{name}", update=False)
    app.set_class(dark, "-dark-mode", update=False)
    app.set_class(not dark, "-light-mode", update=False)
    refresh_filter = getattr(app, "_refresh_truecolor_filter", None)  # Textual's ANSI→truecolor mapping
    if refresh_filter is not None:
        refresh_filter(app.ansi_theme)
    app.stylesheet.set_variables(app.get_css_variables())


def save_theme_choice(name: str) -> str | None:
    """Write `theme = name` to the user settings, keeping other keys; a problem sentence or None."""
    from tui.config import settings as settings_module

    saver = getattr(settings_module, "save_user_setting", None)
    if saver is not None:
        try:
            saver("theme", name)
        except Exception as exc:
            return f"Could not save the theme choice: {exc}"
        return None
    import tomli_w

    from tui.config.bounded_read import load_toml_file

    path = settings_module.user_config_dir() / "settings.toml"
    try:
        data = load_toml_file(path) if path.exists() else {}
    except (OSError, ValueError) as exc:
        return f"Could not save the theme choice: {_display(path)} is unreadable ({exc}); fix it first."
    data["theme"] = name
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(tomli_w.dumps(data), encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        return f"Could not save the theme choice to {_display(path)}: {exc.strerror or exc}."
    return None


def save_theme_on_change(app: App[Any]) -> None:
    """Save the theme whenever the user switches (palette "Change theme", /theme), not on live reloads."""
    last_saved = app.theme

    def changed(theme: Theme) -> None:
        nonlocal last_saved
        if theme.name == last_saved:
            return
        last_saved = theme.name
        problem = save_theme_choice(theme.name)
        if problem:
            app.notify(problem, severity="warning")

    app.theme_changed_signal.subscribe(app, changed)


class ThemeWatcher:
    """Re-registers theme files when they change on disk; re-applies the one in use.

    Runs `watchfiles.awatch` in an app worker. A file that fails to load gets an error
    toast naming it and the previous version of its theme stays registered.
    """

    def __init__(self, app: App[Any], dirs: list[Path] | None = None) -> None:
        #: weak: `_watchers` maps the app to this watcher, and a value that held its key kept every closed app
        self._app = weakref.ref(app)
        self.dirs = dirs
        self.reloads = 0  # change batches handled, for tests to await
        self.problems: list[str] = []
        self._stop = asyncio.Event()
        self._changed = asyncio.Condition()

    @property
    def app(self) -> App[Any]:
        app = self._app()
        if app is None:
            raise RuntimeError("the theme watcher's app is gone")
        return app

    def start(self) -> None:
        folders = theme_dirs() if self.dirs is None else [d for d in self.dirs if d.is_dir()]
        if folders:
            # a partial, not a coroutine: a worker that never starts (app closing) leaves no un-awaited coroutine.
            # (mypy solves Textual's WorkType[ResultType] union to Never for a callable returning a coroutine)
            self.app.run_worker(
                partial(self._watch, folders),  # type: ignore[arg-type]
                name="theme-watcher",
                group="themes",
                exclusive=True,
                exit_on_error=False,
            )

    def stop(self) -> None:
        self._stop.set()

    async def wait_for_reload(self, after: int, timeout: float = 5.0) -> bool:
        """Wait until more than `after` change batches were handled (False on timeout)."""

        async def reached() -> None:
            async with self._changed:
                await self._changed.wait_for(lambda: self.reloads > after)

        try:
            await asyncio.wait_for(reached(), timeout)
        except TimeoutError:
            return False
        return True

    async def _watch(self, folders: list[Path]) -> None:
        from watchfiles import Change, awatch

        async for changes in awatch(*folders, debounce=50, step=10, stop_event=self._stop):
            for change, raw_path in sorted(changes, key=lambda c: c[1]):
                path = Path(raw_path)
                if path.suffix == ".toml" and change != Change.deleted:
                    self.reload_file(path)
            async with self._changed:
                self.reloads += 1
                self._changed.notify_all()

    def reload_file(self, path: Path) -> Theme | None:
        """Load one changed file: register it and refresh if in use, or toast the problem."""
        try:
            theme = load_theme_file(path)
            problem = check_theme_css(self.app, theme)
            if problem:
                raise ThemeFileError(problem)
        except ThemeFileError as exc:
            message = f"Theme file {_display(path)}: {exc}. Keeping the previous version."
            self.problems.append(message)
            self.app.notify(message, title="Theme not reloaded", severity="error", timeout=10)
            return None
        self.app.register_theme(theme)
        if self.app.theme == theme.name:
            self.app.refresh_css(animate=False)
            self.app.theme_changed_signal.publish(theme)
        return theme


def setup_themes(app: App[Any], preferred: str | None = None, *, watch: bool = True) -> ThemeWatcher | None:
    """Everything the app needs, from `on_mount`: register, apply `preferred`, save changes, watch files."""
    for message in register_themes(app):
        app.notify(message, title="Theme not loaded", severity="error", timeout=10)
    problem = apply_theme(app, preferred)
    if problem:
        app.notify(problem, severity="warning")
    save_theme_on_change(app)
    if not watch:
        return None
    watcher = ThemeWatcher(app)
    watcher.start()
    return watcher


def saved_theme_name(project_dir: Path | None = None) -> str | None:
    """The `theme` setting from the settings files (user, then project layers), if any."""
    folder = project_dir or Path.cwd()
    layers = (paths.user_settings_file(), paths.project_settings_file(folder), paths.local_settings_file(folder))
    if not any(os.path.lexists(layer) for layer in layers):  # no file could name one: spare the settings imports
        return None
    from tui.config import settings as settings_module

    try:
        loaded = settings_module.load_settings(folder)
    except Exception:  # the settings engineer reports problems elsewhere; themes just fall back
        return None
    return loaded.settings.theme or None


def install(app: App[Any], preferred: str | None = None, *, watch: bool = True) -> None:
    """Hook for `App.__init__`: register and apply themes now; check, save and watch once running.

    `preferred` defaults to the saved `theme` setting. The CSS check of file themes needs
    the app's stylesheet, so it runs after mount; a theme that fails it is dropped with a
    toast and the default takes its place.
    """
    loaded, problems = load_themes()
    for theme in loaded:
        app.register_theme(theme)
    options = getattr(app, "options", None)  # not app.session: building it is deferred past the first frame
    project_dir = getattr(options, "project_dir", None)
    name = preferred or saved_theme_name(Path(project_dir) if project_dir else None)
    problem = apply_theme(app, name)
    if problem:
        problems.append(problem)
    user_dir = user_theme_dir()
    from_user = {t.name for t in load_themes([user_dir])[0]} if user_dir.is_dir() else set()

    def when_running() -> None:
        if not app.is_running:  # closed before the delayed check came due
            return
        for theme in loaded:
            if theme.name not in from_user:  # shipped: tests/ui/test_themes.py checks them against the app's CSS
                continue
            css_problem = check_theme_css(app, theme)
            if css_problem:
                problems.append(f"Theme {theme.name!r}: {css_problem}.")
                app.unregister_theme(theme.name)
                if app.theme == theme.name:
                    apply_theme(app, "textual-dark")
        for text in problems:
            app.notify(text, title="Theme", severity="warning", timeout=10)
        save_theme_on_change(app)
        if watch:
            watcher = ThemeWatcher(app)
            watcher.start()
            _watchers[app] = watcher

    # parsing a theme's CSS costs ~45 ms: after the first frame, not before it, and only for the user's own
    app.call_later(lambda: app.set_timer(CHECK_DELAY_S, when_running))


#: the running watcher of each app that used install() (tests await it)
_watchers: weakref.WeakKeyDictionary[App[Any], ThemeWatcher] = weakref.WeakKeyDictionary()


def watcher_of(app: App[Any]) -> ThemeWatcher | None:
    """The theme watcher install() started for `app`, if any."""
    return _watchers.get(app)
