"""Themes from TOML: loading, problems instead of crashes, live reload, saving the choice."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.color import Color
from textual.widgets import Static

from tui.ui import themes
from tui.ui.themes import (
    ThemeWatcher,
    apply_theme,
    load_themes,
    register_themes,
    save_theme_choice,
    save_theme_on_change,
)

REPO_THEMES = Path(__file__).resolve().parents[2] / "themes"

GOOD = """
[theme]
name = "test-live"
primary = "#112233"
background = "#000000"
"""


@pytest.fixture(autouse=True)
def isolated_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own XDG_CONFIG_HOME, so nothing touches the real user settings."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path / "config"


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("hello", id="hello")


class PrimaryHost(Host):
    CSS = "#hello { background: $primary; }"


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two colours."""

    def luminance(colour: str) -> float:
        def channel(c: int) -> float:
            s = c / 255
            return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

        r, g, b_ = Color.parse(colour).rgb
        return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b_)

    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_shipped_themes_load_without_problems() -> None:
    loaded, problems = load_themes([REPO_THEMES])
    assert problems == []
    names = {t.name for t in loaded}
    assert {"agent-tui-dark", "agent-tui-light", "agent-tui-high-contrast"} <= names
    light = next(t for t in loaded if t.name == "agent-tui-light")
    assert light.dark is False and light.variables["footer-key-foreground"] == "#1d63c1"


async def test_shipped_themes_parse_with_the_apps_css(offline_options) -> None:
    """The app checks only the user's theme files at start-up: the shipped ones are checked here."""
    from tui.ui.app import AgentApp
    from tui.ui.themes import check_theme_css

    app = AgentApp(offline_options())
    async with app.run_test() as pilot:
        await pilot.pause()
        loaded, _ = load_themes([REPO_THEMES])
        assert loaded and all(check_theme_css(app, theme) is None for theme in loaded)


def test_high_contrast_theme_reaches_wcag_aaa() -> None:
    table = tomllib.loads((REPO_THEMES / "agent-tui-high-contrast.toml").read_text())["theme"]
    for key in ("foreground", "primary", "secondary", "accent", "success", "warning", "error"):
        assert contrast(table[key], table["background"]) >= 7, key


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[theme\nname = 1", "is not valid TOML"),
        ('[theme]\nname = "x"\nprimary = "#fff"\ncolour = "red"', "unknown key 'colour'"),
        ('[theme]\nname = "x"\nprimary = "blurple"', "primary = 'blurple' is not a colour"),
        ('[theme]\nprimary = "#ffffff"', "needs a 'name'"),
        ('[other]\nname = "x"', "no [theme] table"),
        pytest.param("[theme]\nname = " + "[" * 5000 + "]" * 5000, "is nested too deeply to read", id="nested"),
    ],
)
def test_broken_file_gives_a_problem_not_an_exception(tmp_path: Path, text: str, expected: str) -> None:
    (tmp_path / "broken.toml").write_text(text)
    (tmp_path / "fine.toml").write_text(GOOD)
    loaded, problems = load_themes([tmp_path])
    assert [t.name for t in loaded] == ["test-live"]
    assert len(problems) == 1 and "broken.toml" in problems[0] and expected in problems[0], problems


@pytest.mark.timeout(10)
def test_a_fifo_among_the_themes_is_a_problem_not_a_hang(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.toml")
    (tmp_path / "fine.toml").write_text(GOOD)
    loaded, problems = load_themes([tmp_path])
    assert [t.name for t in loaded] == ["test-live"]
    assert len(problems) == 1 and "pipe.toml" in problems[0] and "FIFO" in problems[0], problems


def test_user_folder_overrides_shipped_theme(isolated_config: Path) -> None:
    user_dir = isolated_config / "agent-tui" / "themes"
    user_dir.mkdir(parents=True)
    (user_dir / "mine.toml").write_text('[theme]\nname = "agent-tui-dark"\nprimary = "#ff0000"\n')
    loaded, _ = load_themes([REPO_THEMES, user_dir])
    assert next(t for t in loaded if t.name == "agent-tui-dark").primary == "#ff0000"
    assert user_dir in themes.theme_dirs()


def test_save_theme_choice_keeps_other_keys(isolated_config: Path) -> None:
    settings = isolated_config / "agent-tui" / "settings.toml"
    settings.parent.mkdir(parents=True)
    settings.write_text('model = "claude-opus-4-1"\n\n[permissions]\nallow = ["Read"]\n')
    assert save_theme_choice("agent-tui-light") is None
    data = tomllib.loads(settings.read_text())
    assert data == {"model": "claude-opus-4-1", "theme": "agent-tui-light", "permissions": {"allow": ["Read"]}}


def test_save_theme_choice_refuses_to_clobber_a_broken_settings_file(isolated_config: Path) -> None:
    settings = isolated_config / "agent-tui" / "settings.toml"
    settings.parent.mkdir(parents=True)
    settings.write_text("model = \n")
    problem = save_theme_choice("agent-tui-light")
    assert problem and "settings.toml" in problem
    assert settings.read_text() == "model = \n"


async def test_switching_theme_saves_it_and_bad_css_variable_is_refused(isolated_config: Path) -> None:
    app = Host()
    async with app.run_test() as pilot:
        assert register_themes(app, [REPO_THEMES]) == []
        assert apply_theme(app, "agent-tui-dark") is None
        save_theme_on_change(app)
        await pilot.pause()
        settings = isolated_config / "agent-tui" / "settings.toml"
        assert not settings.exists()  # applying the saved theme at startup writes nothing
        app.theme = "agent-tui-high-contrast"  # what the palette's "Change theme" does
        await pilot.pause()
        assert tomllib.loads(settings.read_text())["theme"] == "agent-tui-high-contrast"
        assert apply_theme(app, "no-such-theme") is not None and app.theme == "agent-tui-dark"

        bad = Path(str(isolated_config)) / "bad.toml"
        bad.write_text(
            '[theme]\nname = "bad-var"\nprimary = "#123456"\n[theme.variables]\nfooter-key-foreground = "notacolor"\n'
        )
        problems = register_themes(app, [bad.parent])
        assert any("footer-key-foreground" in p for p in problems)
        assert "bad-var" not in app.available_themes


async def test_live_reload_changes_colour_and_survives_a_broken_edit(tmp_path: Path) -> None:
    theme_dir = tmp_path / "themes"
    theme_dir.mkdir()
    theme_file = theme_dir / "live.toml"
    theme_file.write_text(GOOD)
    app = PrimaryHost()
    async with app.run_test() as pilot:
        register_themes(app, [theme_dir])
        app.theme = "test-live"
        await pilot.pause()
        hello = app.query_one("#hello")
        assert hello.styles.background == Color.parse("#112233")

        watcher = ThemeWatcher(app, [theme_dir])
        watcher.start()

        async def edit(text: str) -> None:
            # bounded polling: the first write can land before the watch is armed
            for _ in range(20):
                seen = watcher.reloads
                theme_file.write_text(text)
                if await watcher.wait_for_reload(seen, timeout=0.5):
                    return
            raise AssertionError("theme watcher never reported the edit")

        await edit(GOOD.replace("#112233", "#abcdef"))
        await pilot.pause()
        assert hello.styles.background == Color.parse("#abcdef")

        await edit('[theme]\nname = "test-live"\nprimary = "nope"\n')
        await pilot.pause()
        assert any("live.toml" in p and "not a colour" in p for p in watcher.problems)
        assert hello.styles.background == Color.parse("#abcdef")  # previous version kept
        assert app.theme == "test-live"
        watcher.stop()


class InstallingHost(Host):
    """Calls themes.install from __init__, the way AgentApp does."""

    def __init__(self) -> None:
        super().__init__()
        themes.install(self)


async def test_install_applies_the_saved_theme_and_saves_a_switch(isolated_config: Path) -> None:
    settings = isolated_config / "agent-tui" / "settings.toml"
    settings.parent.mkdir(parents=True)
    settings.write_text('theme = "agent-tui-light"\n')
    app = InstallingHost()
    async with app.run_test() as pilot:
        await pilot.pause()
        assert app.theme == "agent-tui-light"
        assert "textual-dark" in app.available_themes  # built-ins stay
        await pilot.pause(themes.CHECK_DELAY_S + 0.1)  # checked and watched after the first frame
        assert themes.watcher_of(app) is not None
        app.theme = "agent-tui-high-contrast"
        await pilot.pause()
        assert tomllib.loads(settings.read_text())["theme"] == "agent-tui-high-contrast"
        themes.watcher_of(app).stop()


def test_saved_theme_name_reads_each_layer_and_is_none_without_settings_files(
    isolated_config: Path, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    (project / ".agent-tui").mkdir(parents=True)
    assert themes.saved_theme_name(project) is None  # no settings file at all: the default applies
    (project / ".agent-tui" / "settings.local.toml").write_text('theme = "agent-tui-light"\n')
    assert themes.saved_theme_name(project) == "agent-tui-light"
    user = isolated_config / "agent-tui" / "settings.toml"
    user.parent.mkdir(parents=True)
    user.write_text('theme = "agent-tui-high-contrast"\n')
    assert themes.saved_theme_name(project) == "agent-tui-light"  # the folder's layer comes later
    (project / ".agent-tui" / "settings.local.toml").unlink()
    assert themes.saved_theme_name(project) == "agent-tui-high-contrast"
