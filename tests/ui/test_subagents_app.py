"""Subagents in the app: the Agent call's block nests the subagent's live tool activity, the tool panel groups
by agent, the inspector filters by loop path, and a subagent's permission dialog names it."""

from __future__ import annotations

import io
from concurrent.futures import Future

from rich.console import Console

from tui.agent import events as ev
from tui.ui.app import AgentApp
from tui.ui.screens.permission_dialog import PermissionDialog
from tui.ui.widgets.blocks import ToolCallBlock
from tui.ui.widgets.tool_panel import render_batch

from .conftest import SIZE, wait_for_dialog, wait_until


async def test_an_agent_call_nests_its_subagents_activity(offline_options) -> None:
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"explore this project with subagents", "enter")
        await wait_until(
            pilot,
            lambda: not app.controller.busy and any(b.tool.agent_summary for b in app.query(ToolCallBlock)),
            timeout=30,
        )
        await pilot.pause()
        blocks = [b for b in app.query(ToolCallBlock) if b.tool.name == "Agent"]
        assert sorted(b.tool.agent_path or "" for b in blocks) == ["main/explore-1", "main/explore-2"]
        for block in blocks:
            names = [c.name for c in block.tool.children]
            assert "Glob" in names and all(c.state == "done" for c in block.tool.children), [
                (c.name, c.state, c.tool_use_id) for c in block.tool.children
            ]
            shown = str(block._result_renderable())
            assert block.tool.agent_path in shown and "Glob" in shown
            assert "tool calls" in block.tool.agent_summary and "tokens" in block.tool.agent_summary
        # the tool panel keeps each agent's batches apart, under its name
        paths = {b.key[2] for b in app.tool_panel.batches}
        assert {"main", "main/explore-1", "main/explore-2"} <= paths
        console = Console(width=60, record=True, file=io.StringIO())
        console.print(*[render_batch(b, 0.0) for b in app.tool_panel.batches if b.key[2] == "main/explore-1"])
        assert "explore-1" in console.export_text().splitlines()[0]
        # the inspector: every request with its loop path, filtered to one agent with a key
        await pilot.press("f2")
        await pilot.pause()
        inspector = app.inspector
        assert {c.loop_path for c in inspector.model.calls} == {"main", "main/explore-1", "main/explore-2"}
        inspector.query_one("#inspector-calls").focus()
        await pilot.press("l", "l")
        await pilot.pause()
        assert inspector.loop_filter == "main/explore-1"
        shown_calls = inspector.visible_calls()
        assert shown_calls and all(c.loop_path == "main/explore-1" for c in shown_calls)
        assert any(c is inspector.selected for c in shown_calls)
        # a subagent's permission request joins the dialog queue and says which agent asks
        reply: Future = Future()
        app.session.bus.publish(
            ev.PermissionRequested(
                tool_use_id="t-sub",
                tool_name="Bash",
                input={"command": "make"},
                label="Bash: make",
                preview={"kind": "command", "command": "make", "cwd": "/tmp"},
                suggested_rule="Bash(make)",
                reason="",
                reply=reply,
                loop_path="main/explore-1",
            )
        )
        await wait_for_dialog(pilot, PermissionDialog)
        title = str(app.screen.query_one("#permission-title").render())
        assert title.startswith("subagent main/explore-1 asks: Allow Bash: make?")
        from tui.ui.screens.permission_dialog import preview_renderable

        assert str(preview_renderable(app.screen.event)).startswith("$ make")  # Bash's preview shape: `command`
        await pilot.press("4", "enter")
        await wait_until(pilot, lambda: reply.done())
        assert reply.result().allowed is False


async def test_slash_agents_lists_the_types_and_creates_one(offline_options, tmp_path, monkeypatch) -> None:
    from tui.ui.screens.agents_screen import AgentsScreen

    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # an untrusted folder: the new agent goes to ~/.claude/agents
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/agents", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, AgentsScreen))
        screen = app.screen
        table = screen.query_one("#agents-table")
        assert [str(k.value) for k in table.rows] == ["general-purpose", "Explore", "Plan"]
        await pilot.press(*"reviewer", "tab", *"Reviews diffs", "tab", *"Read, Grep", "tab", "tab", *"You review.")
        await pilot.press("ctrl+s")
        await pilot.pause()
        path = tmp_path / "home" / ".claude" / "agents" / "reviewer.md"
        assert (
            path.read_text()
            == "---\nname: reviewer\ndescription: Reviews diffs\ntools: Read, Grep\n---\n\nYou review.\n"
        )
        assert "reviewer" in [str(k.value) for k in table.rows]
        agent_tool = next(t for t in app.session.tools if t.name == "Agent")
        assert "- reviewer: Reviews diffs" in agent_tool.definition()["description"]
        await pilot.press("ctrl+s")  # the same name again: one sentence, nothing overwritten
        await pilot.pause()
        assert "Not created" in str(screen.query_one("#agents-status").render())
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, AgentsScreen))


async def test_an_agent_block_stays_folded_with_its_progress_on_the_title_and_keeps_the_users_fold(
    fake_session,
) -> None:
    """A working subagent's block is not unfolded for it: its title counts the calls so far and names the latest.
    A block the user opened stays open when the subagent finishes, and a re-created turn shows it open."""
    app = AgentApp(fake_session.options, session=fake_session, permission_grace_s=0)
    pub = fake_session.bus.publish
    async with app.run_test(size=SIZE) as pilot:
        pub(ev.TurnStarted(turn_id=1, prompt="use agents"))
        for i in (1, 2):
            pub(ev.BlockStarted(iteration=1, index=i, block_type="tool_use", tool_use_id=f"t{i}", tool_name="Agent"))
            pub(
                ev.ToolQueued(
                    tool_use_id=f"t{i}", name="Agent", input={}, label=f"Agent job {i}", batch=1, parallel=True
                )
            )
            pub(ev.ToolStarted(tool_use_id=f"t{i}", name="Agent", batch=1, parallel=True))
            pub(
                ev.SubagentStarted(
                    tool_use_id=f"t{i}",
                    agent_id=f"a{i}",
                    agent_path=f"main/job-{i}",
                    subagent_type="general-purpose",
                    description=f"job {i}",
                    model="m",
                )
            )
            pub(
                ev.ToolQueued(
                    tool_use_id="r1",
                    name="Read",
                    input={},
                    label="Read a.py",
                    batch=1,
                    parallel=False,
                    loop_path=f"main/job-{i}",
                )
            )
            pub(ev.ToolStarted(tool_use_id="r1", name="Read", batch=1, parallel=False, loop_path=f"main/job-{i}"))
        await wait_until(
            pilot,
            lambda: (
                len(app.query(ToolCallBlock)) == 2
                and all("1 tool call" in str(b.title_line) for b in app.query(ToolCallBlock))
            ),
        )
        first, second = app.query(ToolCallBlock)
        assert first.collapsed and second.collapsed  # folded while the subagents work
        assert "● Read a.py" in str(first.title_line)  # the latest call, on the title line
        first.collapsed = False  # the user opens one
        await pilot.pause()
        for i in (1, 2):
            pub(
                ev.SubagentFinished(
                    tool_use_id=f"t{i}",
                    agent_id=f"a{i}",
                    agent_path=f"main/job-{i}",
                    stop_reason="end_turn",
                    is_error=False,
                    duration_ms=10,
                    total_tokens=100,
                    tool_uses=1,
                )
            )
        await wait_until(pilot, lambda: all(b.tool.agent_summary for b in app.query(ToolCallBlock)))
        await pilot.pause()
        assert not first.collapsed and second.collapsed  # finishing changed nobody's fold
        assert first.tool.unfolded and not second.tool.unfolded
        assert not ToolCallBlock(first.tool).collapsed  # a re-created turn shows the fold the user chose
