"""MCP prompts in the prompt's `/` completion menu, in the real app (Pilot, offline engine) with a real server."""

from __future__ import annotations

import asyncio

from tests.integration.mcp_helpers import kitchen
from tui.ui.app import AgentApp
from tui.ui.widgets.completion import CompletionMenu

from .conftest import SIZE, wait_until


async def test_mcp_prompts_complete_after_slash_and_follow_the_server(offline_options) -> None:
    options = offline_options(mcp_servers=[kitchen("kitchen", "--slow-start", "1")])
    app = AgentApp(options, permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        menu = app.query_one(CompletionMenu)
        prompt = app.prompt_area
        runtime = app.session.mcp
        state = runtime.manager.states["kitchen"]
        offered = lambda: [v for v in prompt.completer.values if v.startswith("/mcp__")]  # noqa: E731

        prompt.insert("/mcp__kit")
        await pilot.pause()
        assert state.status == "pending" and offered() == []  # not connected yet: nothing to offer
        await wait_until(pilot, lambda: offered() == ["/mcp__kitchen__review"], timeout=30)  # it connected: offered
        assert str(menu.get_option_at_index(0).prompt) == (
            "/mcp__kitchen__review  Ask for a review of a topic.  <topic>  (MCP kitchen)"
        )
        await pilot.press("tab")
        assert prompt.text == "/mcp__kitchen__review "
        prompt.insert("the parser")
        await pilot.press("enter")  # runs as the palette does: the server's prompt becomes the turn
        await wait_until(pilot, lambda: not app.controller.busy and app.session.messages, timeout=30)
        first = [b.get("text") for b in app.session.messages[0]["content"] if b.get("type") == "text"]
        assert "Please review the parser carefully." in first

        # the server adds a prompt and says so (prompts/list_changed): offered without waiting for a turn
        manager = runtime.manager
        result = await asyncio.to_thread(manager.call, manager.connection("kitchen").call_tool("grow_prompt", {}))
        assert not result.get("isError")
        prompt.clear()
        prompt.insert("/mcp__kitchen__")
        await wait_until(pilot, lambda: "/mcp__kitchen__summary" in offered())
        assert any(
            "Summarise a file.  <path>  (MCP kitchen)" in str(menu.get_option_at_index(i).prompt)
            for i in range(menu.option_count)
        )

        # a disabled server's prompts leave the open menu
        await asyncio.to_thread(manager.set_enabled, "kitchen", False)
        await wait_until(pilot, lambda: offered() == [])


async def test_at_server_completes_its_resources_and_the_attachment_shows_as_a_chip(offline_options) -> None:
    from tui.ui.widgets.blocks import UserPrompt

    app = AgentApp(offline_options(mcp_servers=[kitchen("kitchen")]), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        menu = app.query_one(CompletionMenu)
        prompt = app.prompt_area
        await wait_until(
            pilot,
            lambda: (
                app._session is not None
                and app.session.mcp is not None
                and app.session.mcp.manager.states["kitchen"].status == "connected"
            ),
            timeout=30,
        )
        prompt.insert("summarise @kit")
        await wait_until(pilot, lambda: prompt.completer and "kitchen:" in prompt.completer.values)
        assert str(menu.get_option_at_index(0).prompt).startswith("@kitchen:  resources of the MCP server kitchen")
        await pilot.press("tab")
        assert prompt.text == "summarise @kitchen:"
        await wait_until(pilot, lambda: prompt.completer.values == ["kitchen:notes://today"])
        assert str(menu.get_option_at_index(0).prompt) == "@kitchen:notes://today  Today's notes.  (MCP kitchen)"
        await pilot.press("tab")
        assert prompt.text == "summarise @kitchen:notes://today "
        text = prompt.text + "and @README.md"
        prompt.clear()
        await app.submit_prompt(text)
        await wait_until(pilot, lambda: "MCP kitchen" in str(app.query(UserPrompt).last().render()))
        shown = str(app.query(UserPrompt).last().render())
        assert " MCP kitchen · notes://today " in shown and " file README.md · 7 B " in shown
        await wait_until(pilot, lambda: not app.controller.busy and app.session.messages, timeout=30)
        sent = str(app.session.messages[0]["content"])
        assert "buy milk" in sent  # the resource went with the prompt
