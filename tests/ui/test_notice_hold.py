"""A notice never covers a dialog that asks: it waits until the answer, then shows (issue 35)."""

from __future__ import annotations

from textual import events
from textual.widgets._toast import Toast

from tui.ui.app import AgentApp
from tui.ui.screens.permission_dialog import PermissionDialog
from tui.ui.screens.trust_dialog import TrustDialog

from .conftest import wait_until
from .dialog_sizes import permission_event


def _toasts(app: AgentApp) -> list[Toast]:
    return [t for t in app.screen.query(Toast) if t.display and t.region.area]


async def test_a_toast_raised_while_a_dialog_asks_waits_and_never_covers_it(offline_options) -> None:
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        app.notify("shown before the dialog", timeout=30)
        await wait_until(pilot, lambda: len(_toasts(app)) == 1)
        dialog = PermissionDialog(permission_event("Edit"), grace_s=0)
        app.notify("shown just as the dialog opens", timeout=30)  # its message is still on its way
        app.push_screen(dialog)
        await wait_until(pilot, lambda: app.screen is dialog and dialog.armed)  # drawn: it takes the "1" below
        app.notify("a hook said something", title="Hook", severity="warning")
        app.notify("a hook said something", title="Hook", severity="warning")  # the same text waits once
        await pilot.pause(0.3)
        box = dialog.query_one("#permission-box").region
        assert not [t for t in _toasts(app) if t.region.overlaps(box)]
        assert not _toasts(app)
        await pilot.press("1")
        await wait_until(pilot, lambda: app.screen is not dialog)
        await wait_until(pilot, lambda: len(_toasts(app)) == 3)
        said = " ".join(str(t.render()) for t in _toasts(app))
        assert all(s in said for s in ("shown before the dialog", "just as the dialog opens", "a hook said something"))


async def test_the_trust_dialog_says_its_own_notice_on_its_own_line(offline_options, tmp_path) -> None:
    from tests.fixtures import copy_claude_setup

    from .dialog_sizes import fixed_inventory

    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        dialog = TrustDialog(fixed_inventory(copy_claude_setup(tmp_path)), grace_s=0)
        app.push_screen(dialog)
        await wait_until(pilot, lambda: app.screen is dialog and dialog.armed)
        app.post_message(events.Paste("1"))  # a paste, as a terminal sends it
        line = dialog.query_one("#trust-notice")
        await wait_until(pilot, lambda: line.display and "Pasted text is not an answer" in str(line.render()))
        assert not _toasts(app)
