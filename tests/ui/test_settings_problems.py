"""Settings problems in the app: the app starts, and each toast shows its `path:line:col` whole."""

from __future__ import annotations

from textual.geometry import Region
from textual.widgets._toast import Toast

from tui.ui.app import AgentApp

from .conftest import SIZE, wait_until


def toast_lines(app: AgentApp) -> list[str]:
    lines: list[str] = []
    for toast in app.screen.query(Toast):
        width, height = toast.size
        lines += [strip.text for strip in toast.render_lines(Region(0, 0, width, height))]
    return lines


async def test_settings_problems_show_the_location_unbroken_and_the_app_starts(offline_options, demo_project) -> None:
    settings = demo_project / ".agent-tui" / "settings.toml"
    settings.parent.mkdir()
    settings.write_text('model = "x"\nmax_tokens = "many"\n[oops\n')
    (demo_project / ".claude").mkdir()
    (demo_project / ".claude" / "settings.json").write_text('{"a":' * 10_000 + "1" + "}" * 10_000)
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_until(pilot, lambda: len(app.screen.query(Toast)) == 2)
        await pilot.pause()
        lines = toast_lines(app)
        # the token holding each location is a whole path (absolute, or from the project folder), not a piece
        tokens = [t for line in lines for t in line.split() if "settings.toml:3:6" in t or "settings.json" in t]
        assert len(tokens) == 2, lines
        for token in tokens:
            path = token.split(":")[0]
            assert path.startswith("/") or (demo_project / path).exists(), lines
        assert any("nested too deeply" in line for line in lines), lines
        assert app.session is not None  # started: the prompt works as usual
