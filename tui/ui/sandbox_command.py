"""`/sandbox`: show what the Bash sandbox enforces, toggle it for this run, or allow what it blocked."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui.sandbox import actions
from tui.sandbox.runtime import current

from .commands import slash_command

if TYPE_CHECKING:
    from .app import AgentApp


@slash_command(
    "sandbox", "Show or toggle the Bash sandbox; `allow PATH|HOST` lets it through", usage="[on|off|status|allow X]"
)
async def _sandbox(app: AgentApp, args: str) -> None:
    word, _, rest = args.strip().partition(" ")
    if word.lower() == "allow":
        if not rest.strip():
            app.notify("Usage: /sandbox allow PATH_OR_HOST", severity="warning")
            return
        await app.controller.add_marker(actions.allow(current(), rest.strip()), "info")
        return
    await app.controller.add_marker("\n".join(actions.toggle(current(), args)), "info")
