"""Memory imports from outside the project in the app: asked once per trusted project, the answer kept."""

from __future__ import annotations

import json
from pathlib import Path

from tui.config.memory import external_imports_answer
from tui.config.settings import trust_folder
from tui.ui.app import AgentApp
from tui.ui.screens.external_imports_dialog import ExternalImportsDialog
from tui.ui.screens.trust_dialog import TrustDialog

from .conftest import SIZE, wait_until


def _outside_import(project: Path, tmp_path: Path) -> None:
    (tmp_path / "shared-style.md").write_text("SHARED-STYLE")
    (project / "CLAUDE.md").write_text("@../shared-style.md\n")


async def test_a_yes_loads_the_outside_import_and_is_not_asked_again(
    offline_options, demo_project: Path, tmp_path: Path
) -> None:
    _outside_import(demo_project, tmp_path)
    trust_folder(demo_project)
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ExternalImportsDialog) and app.screen.armed)
        assert "shared-style.md" in str(app.screen.query_one("#imports-files").render())
        assert "SHARED-STYLE" not in json.dumps(app.session.system_blocks())  # nothing before the answer
        await pilot.press("1")
        await wait_until(pilot, lambda: not isinstance(app.screen, ExternalImportsDialog))
        await wait_until(pilot, lambda: "SHARED-STYLE" in json.dumps(app.session.system_blocks()))
    assert external_imports_answer(demo_project) is True

    again = AgentApp(offline_options(), permission_grace_s=0)
    async with again.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "SHARED-STYLE" in json.dumps(again.session.system_blocks()))
        await pilot.pause(0.3)
        assert not isinstance(again.screen, ExternalImportsDialog)


async def test_an_untrusted_folder_is_not_asked_and_a_no_keeps_the_import_out(
    offline_options, demo_project: Path, tmp_path: Path
) -> None:
    _outside_import(demo_project, tmp_path)
    (demo_project / ".claude").mkdir()
    (demo_project / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"allow": ["Bash(ls)"]}}))
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TrustDialog) and app.screen.armed)
        assert "SHARED-STYLE" not in json.dumps(app.session.system_blocks())
        await pilot.press("1")  # trust: now the import is asked about
        await wait_until(pilot, lambda: isinstance(app.screen, ExternalImportsDialog) and app.screen.armed)
        await pilot.press("2")
        await wait_until(pilot, lambda: not isinstance(app.screen, ExternalImportsDialog))
        assert "SHARED-STYLE" not in json.dumps(app.session.system_blocks())
    assert external_imports_answer(demo_project) is False
