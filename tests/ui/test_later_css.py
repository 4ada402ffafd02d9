"""The turns' and the dialogs' rules (app_later.tcss) come after the first frame, and style nothing of it."""

from __future__ import annotations

import re

from textual.css.stylesheet import Stylesheet

from tui.ui import later_css
from tui.ui.app import AgentApp


def _later_selectors(app: AgentApp) -> list[str]:
    """Every selector of app_later.tcss (nested rules expanded), without pseudo-classes: a stricter test."""
    sheet = Stylesheet(variables=app.get_css_variables())
    sheet.read(later_css.LATER_CSS)
    sheet.parse()
    selectors = [s.strip() for rule in sheet.rules for s in rule.selectors.split(",")]
    return [re.sub(r":[a-z-]+", "", s) for s in selectors]


async def test_no_later_rule_matches_a_widget_of_the_first_screen(offline_options) -> None:
    """Added after the first frame without restyling anything: so none of its rules may style what is there."""
    app = AgentApp(offline_options())
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause()
        selectors = _later_selectors(app)
        assert len(selectors) > 30
        for selector in selectors:
            assert not app.screen.query(selector), f"{selector!r} matches a widget of the first screen"
        assert app.stylesheet.has_source(later_css._SOURCE)  # added at the first frame


async def test_the_later_rules_style_a_turn(offline_options) -> None:
    """A turn's blocks get the later rules' values."""
    app = AgentApp(offline_options())
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause()
        await app.submit_prompt("list the python files")
        for _ in range(100):
            await pilot.pause(0.05)
            if app.screen.query(".tool-call"):
                break
        prompt = app.screen.query_one(".user-prompt")
        assert prompt.styles.border_left[0] == "thick" and prompt.styles.text_style.bold
        assert app.screen.query_one(".turn").styles.margin.bottom == 1
        assert app.screen.query(".tool-call.-light").first().styles.padding.left == 1  # a folded block's title line
