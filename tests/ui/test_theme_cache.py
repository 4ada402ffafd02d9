"""The parsed-theme cache: unchanged theme files are not read as TOML again, changed ones always are."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tui.ui.theme_cache import ThemeDataCache
from tui.ui.themes import load_theme_file

ROOT = Path(__file__).resolve().parents[2]
THEME = '[theme]\nname = "cached"\nprimary = "{colour}"\n'


def _parse_counting(calls: list[Path]):  # type: ignore[no-untyped-def]
    import tomllib

    def parse(path: Path) -> object:
        calls.append(path)
        return tomllib.loads(path.read_text())

    return parse


def test_an_unchanged_file_is_served_from_the_cache_across_runs(tmp_path: Path) -> None:
    theme = tmp_path / "t.toml"
    theme.write_text(THEME.format(colour="#112233"))
    store = tmp_path / "state" / "cache.marshal"
    calls: list[Path] = []
    first = ThemeDataCache(store)
    assert first.data(theme, _parse_counting(calls))["theme"]["primary"] == "#112233"
    first.save()
    second = ThemeDataCache(store)  # a new run
    assert second.data(theme, _parse_counting(calls))["theme"]["primary"] == "#112233"
    assert calls == [theme] and second.parsed == 0


def test_an_edited_file_is_parsed_again_even_with_the_same_size(tmp_path: Path) -> None:
    theme = tmp_path / "t.toml"
    theme.write_text(THEME.format(colour="#112233"))
    store = tmp_path / "cache.marshal"
    first = ThemeDataCache(store)
    first.data(theme, _parse_counting([]))
    first.save()
    before = theme.stat()
    theme.write_text(THEME.format(colour="#445566"))  # same length
    os.utime(theme, ns=(before.st_atime_ns, before.st_mtime_ns))  # even with the old modification time
    again = ThemeDataCache(store)
    assert again.data(theme, _parse_counting([]))["theme"]["primary"] == "#445566"
    assert again.parsed == 1


@pytest.mark.parametrize("content", [b"", b"\x00garbage", b"\xe3\x01\x00\x00\x00"])
def test_a_broken_cache_file_only_means_reading_the_themes(tmp_path: Path, content: bytes) -> None:
    theme = tmp_path / "t.toml"
    theme.write_text(THEME.format(colour="#112233"))
    store = tmp_path / "cache.marshal"
    store.write_bytes(content)
    cache = ThemeDataCache(store)
    assert cache.data(theme, _parse_counting([]))["theme"]["name"] == "cached"
    cache.save()
    assert ThemeDataCache(store).data(theme, _parse_counting([]))["theme"]["name"] == "cached"


def test_an_unwritable_state_folder_only_means_no_cache(tmp_path: Path) -> None:
    theme = tmp_path / "t.toml"
    theme.write_text(THEME.format(colour="#112233"))
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    cache = ThemeDataCache(blocker / "cache.marshal")
    assert cache.data(theme, _parse_counting([]))["theme"]["name"] == "cached"
    cache.save()  # no exception
    assert not (tmp_path / "not-a-folder.tmp").exists()


def test_a_broken_theme_file_is_reported_every_run_not_cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    theme = tmp_path / "bad.toml"
    theme.write_text("[theme\n")
    for _ in range(2):
        with pytest.raises(Exception, match="not valid TOML"):
            load_theme_file(theme)


def test_another_textual_reads_and_checks_every_theme_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache holds themes checked with this Textual's colour code: another install of it re-reads them."""
    from tui.ui import theme_cache

    theme = tmp_path / "t.toml"
    theme.write_text(THEME.format(colour="#112233"))
    store = tmp_path / "cache.marshal"
    first = ThemeDataCache(store)
    first.data(theme, _parse_counting([]))
    first.save()
    same = ThemeDataCache(store)
    same.data(theme, _parse_counting([]))
    assert same.parsed == 0
    monkeypatch.setattr(theme_cache, "_textual_stamp", lambda: (1, 2, 3, 4))
    upgraded = ThemeDataCache(store)
    upgraded.data(theme, _parse_counting([]))
    assert upgraded.parsed == 1


def test_a_cached_theme_is_not_generated_again_a_new_one_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each theme's colour system is generated (checked) when its file is parsed, not at every start (~0.6 ms each)."""
    from textual.design import ColorSystem

    from tui.ui import themes

    monkeypatch.setattr(themes, "_parsed", ThemeDataCache(tmp_path / "cache.marshal"))
    generated: list[object] = []
    real = ColorSystem.generate
    monkeypatch.setattr(ColorSystem, "generate", lambda self: generated.append(self) or real(self))
    theme = tmp_path / "t.toml"
    theme.write_text(THEME.format(colour="#112233"))
    assert load_theme_file(theme).primary == "#112233"
    assert len(generated) == 1
    themes._parsed.save()
    monkeypatch.setattr(themes, "_parsed", ThemeDataCache(tmp_path / "cache.marshal"))  # the next run
    assert load_theme_file(theme).primary == "#112233"
    assert len(generated) == 1
    theme.write_text(THEME.format(colour="#zzzzzz"))  # not a colour: still told, every run
    for _ in range(2):
        with pytest.raises(Exception, match="is not a colour"):
            load_theme_file(theme)


def test_no_toml_is_read_before_the_first_frame_once_the_themes_are_cached(tmp_path: Path) -> None:
    """The second start with unchanged theme files imports no TOML reader before the app's first frame."""
    code = (
        "import sys\n"
        "from tui.agent.options import AgentOptions\n"
        "from tui.ui.app import AgentApp\n"
        "class First(AgentApp):\n"
        "    def on_ready(self):\n"
        "        print(sorted(m for m in ('tomllib', 'json', 'tui.config.bounded_read') if m in sys.modules))\n"
        "        self.exit()\n"
        "First(AgentOptions(offline=True, interactive=True, project_dir=sys.argv[1])).run(headless=True)\n"
    )
    project = tmp_path / "project"
    project.mkdir()
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    runs = [
        subprocess.run(
            [sys.executable, "-c", code, str(project)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
        )
        for _ in range(2)
    ]
    assert all(run.returncode == 0 for run in runs), runs[-1].stderr
    assert "tomllib" in runs[0].stdout  # the first start reads the shipped themes
    assert runs[1].stdout.strip().splitlines()[-1] == "[]", runs[1].stdout
