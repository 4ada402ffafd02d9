"""A marketplace or plugin file that is a FIFO, /dev/zero, huge or nested 200,000 deep is one sentence.

Each kind of bad file in each plugin file (`.lsp.json` too), read as start reads it: in an untrusted folder the trust
question's inventory (which reads the marketplace and the plugin's parts), in a trusted folder the
install and load of the plugins the folder enables. Nothing blocks, nothing raises, the file is named.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.fixtures import copy_plugin_market
from tui.config.bounded_read import MAX_FILE_BYTES
from tui.config.settings import load_settings, trust_folder
from tui.plugins.active import resolve
from tui.plugins.trust_items import folder_plugin_items

FILES = {
    "marketplace.json": ("", ".claude-plugin/marketplace.json"),
    "plugin.json": ("guard", "plugins/guard/.claude-plugin/plugin.json"),
    "hooks.json": ("guard", "plugins/guard/hooks/hooks.json"),
    ".mcp.json": ("kitchen", "plugins/kitchen/.mcp.json"),
    ".lsp.json": ("kitchen", "plugins/kitchen/.lsp.json"),
}
#: what the sentence says about each kind of bad file
KINDS = {
    "fifo": ("FIFO", "named pipe"),
    "dev-zero": ("character device",),
    "huge": ("larger than",),
    "deep": ("nested too deeply",),
}


def spoil(path: Path, kind: str) -> None:
    """Replace `path` by a bad file of `kind`."""
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "huge":
        with path.open("wb") as out:  # 50 MB, sparse: cheap to make
            out.truncate(50 * 1024 * 1024)
        assert path.stat().st_size > MAX_FILE_BYTES
    else:
        path.write_text("[" * 200_000 + "]" * 200_000)


def _enable(project: Path, market: Path, plugin: str) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(
        json.dumps(
            {
                "enabledPlugins": {f"{plugin}@team-tools": True},
                "extraKnownMarketplaces": {"team-tools": {"source": {"source": "directory", "path": str(market)}}},
            }
        )
    )


@pytest.mark.parametrize("trusted", [False, True], ids=["untrusted", "trusted"])
@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("name", list(FILES))
def test_a_bad_plugin_file_is_one_sentence_naming_it(tmp_path: Path, name: str, kind: str, trusted: bool) -> None:
    market = copy_plugin_market(tmp_path)
    project = tmp_path / "project"
    project.mkdir()
    plugin, relative = FILES[name]
    _enable(project, market, plugin or "guard")
    bad = market / relative
    bad.touch()  # .lsp.json is the one file the fixture lacks; spoil() replaces it as it replaces the others
    spoil(bad, kind)
    if trusted:
        trust_folder(project)
        active = resolve(project, load_settings(project))
        problems = active.problems
        assert active.get(f"{plugin or 'guard'}@team-tools") is None or name in ("hooks.json", ".mcp.json", ".lsp.json")
    else:
        _, problems = folder_plugin_items(load_settings(project))
    naming = [p for p in problems if bad.name in p]
    assert len(naming) == 1, problems
    assert any(word in naming[0] for word in KINDS[kind]), naming[0]
    assert "\n" not in naming[0]
