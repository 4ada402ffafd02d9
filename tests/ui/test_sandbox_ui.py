"""The sandbox on screen: `/sandbox` shows and toggles what is enforced; a SandboxBlocked row offers the allow action."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from rich.console import Console

from tui.agent import events as ev
from tui.config.sandbox_settings import SandboxSettings
from tui.sandbox import runtime
from tui.ui.app import AgentApp
from tui.ui.widgets.blocks import MarkerLine
from tui.ui.widgets.tool_panel import render_batch

from .conftest import SIZE, type_prompt, wait_until
from .fake_engine import FakeSession


@pytest.fixture
def sandbox(tmp_path) -> Iterator[runtime.SandboxRuntime]:  # type: ignore[no-untyped-def]
    previous = runtime.current()
    runtime._current = runtime.SandboxRuntime(SandboxSettings(), str(tmp_path))
    yield runtime._current
    runtime._current.close()
    runtime._current = previous


def markers(app: AgentApp) -> list[str]:
    return [str(m.render()) for m in app.query(MarkerLine)]


@pytest.mark.skipif(not runtime.SandboxRuntime().supported(), reason="no Landlock >= 4 / user namespaces here")
async def test_slash_sandbox_and_a_blocked_row(fake_session: FakeSession, sandbox: runtime.SandboxRuntime) -> None:
    app = AgentApp(fake_session.options, session=fake_session, permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "/sandbox status")
        await wait_until(pilot, lambda: any("Sandbox: on" in m for m in markers(app)))
        assert sandbox.enabled and any("Never writable: .git/hooks" in m for m in markers(app))
        await type_prompt(pilot, "/sandbox")
        await wait_until(pilot, lambda: any("off for this run" in m for m in markers(app)))
        assert not sandbox.enabled
        await type_prompt(pilot, "/sandbox on")
        await wait_until(pilot, lambda: sandbox.enabled)

        publish = fake_session.bus.publish
        publish(
            ev.ToolQueued(
                tool_use_id="b1",
                name="Bash",
                input={"command": "echo x > /etc/x"},
                label="Bash: echo x",
                batch=1,
                parallel=False,
            )
        )
        publish(ev.ToolStarted(tool_use_id="b1", name="Bash", batch=1, parallel=False))
        publish(
            ev.SandboxBlocked(
                tool_use_id="b1",
                command="echo x > /etc/x",
                blocked=(
                    "writing /etc/x (outside the writable folders)",
                    "connecting to evil.example (not in sandbox.network.allowed_domains)",
                ),
            )
        )
        publish(
            ev.ToolFinished(
                tool_use_id="b1",
                name="Bash",
                status="error",
                is_error=True,
                result_text="denied",
                duration_ms=5,
                batch=1,
                parallel=False,
            )
        )
        tools = lambda: [t for b in app.tool_panel.batches for t in b.tools]  # noqa: E731
        await wait_until(pilot, lambda: any(t.sandbox_blocked for t in tools()))
        console = Console(width=120, record=True)
        console.print(render_batch(app.tool_panel.batches[-1], 0.0))
        rendered = " ".join(console.export_text().split())
        assert "⛨ sandbox blocked write /etc/x → /sandbox allow /etc/x" in rendered
        assert "⛨ sandbox blocked host evil.example → /sandbox allow evil.example" in rendered
