"""/context in the app: the grid and the table after a turn."""

from __future__ import annotations

from tui.ui.app import AgentApp
from tui.ui.screens.context_screen import ContextScreen

from .conftest import SIZE, type_prompt, wait_until


async def test_context_shows_the_grid_and_the_table(offline_options) -> None:
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "list the python files")
        await wait_until(pilot, lambda: app.session.turn_count == 1 and not app.controller.busy, timeout=30)
        await type_prompt(pilot, "/context")
        await wait_until(pilot, lambda: isinstance(app.screen, ContextScreen))
        grid = str(app.screen.query_one("#context-grid").render())
        figures = app.screen.figures
        assert grid.count("■") == -(-figures["used"] * 200 // figures["window"]) >= 1
        assert grid.count("■") + grid.count("□") == 200
        from rich.console import Console

        from tui.ui.screens.context_screen import table

        console = Console(width=100, record=True)
        console.print(table(figures))
        text = console.export_text()
        for words in ("Tool definitions", "Compaction starts at", "Top consumers", "Cache breakpoints"):
            assert words in text
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, ContextScreen))


async def test_context_keeps_the_end_of_a_long_path_cutting_in_the_middle(offline_options, demo_project) -> None:
    deep = demo_project / "src" / "company_internal" / "services" / "billing" / "adapters" / "legacy"
    deep.mkdir(parents=True)
    (deep / "invoice_reconciliation_job.py").write_text("def reconcile():\n    return [] \n" * 40)
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        relative = (deep / "invoice_reconciliation_job.py").relative_to(demo_project)
        await type_prompt(pilot, f"explain {relative}")
        await wait_until(pilot, lambda: app.session.turn_count == 1 and not app.controller.busy, timeout=30)
        await type_prompt(pilot, "/context")
        await wait_until(pilot, lambda: isinstance(app.screen, ContextScreen))
        from rich.console import Console

        from tui.ui.screens.context_screen import table

        console = Console(width=140, record=True)
        console.print(table(app.screen.figures))
        lines = [line for line in console.export_text().splitlines() if "invoice_reconciliation_job.py" in line]
        assert lines and all("…" in line for line in lines)  # cut in the middle, the file name kept whole


def test_middle_cut_keeps_the_file_name() -> None:
    from tui.text.wording import middle_cut

    path = "Read /home/someone/projects/customer-portal/src/components/forms/AddressAutocompleteField.tsx"
    cut = middle_cut(path, 48)
    assert len(cut) == 48 and cut.endswith("/AddressAutocompleteField.tsx") and cut.startswith("Read /h")
    assert middle_cut("short", 48) == "short"
