"""Reading a long resumed history: paging up to the first turn, bounded widgets, no jumps, old tool blocks unfold."""

from __future__ import annotations

from pathlib import Path

from tests.bench.bench_app import synthetic_transcript
from tui.agent.session import AgentSession
from tui.ui.screens.resume_screen import resumed_app
from tui.ui.widgets.blocks import ToolCallBlock, UserPrompt
from tui.ui.widgets.conversation import TurnView

from .conftest import wait_until

TURNS = 120


def _prompt(view: TurnView) -> str:
    return str(view.query_one(UserPrompt).render())


async def _settled(pilot, conversation) -> None:
    await wait_until(pilot, lambda: not conversation._prefetching and not conversation._restoring)
    await pilot.pause()


async def test_paging_up_a_long_history_reaches_turn_one_without_jumps(offline_options, tmp_path: Path) -> None:
    session = AgentSession(offline_options())
    session.resume(synthetic_transcript(tmp_path / "long.jsonl", TURNS))
    app = resumed_app(session.options, None, session)
    async with app.run_test(size=(120, 40)) as pilot:
        conversation = app.conversation
        await wait_until(pilot, lambda: conversation.mounted_views)
        await _settled(pilot, conversation)
        assert len(conversation.turns) == TURNS
        page = conversation.scrollable_content_region.height - 1
        cap = conversation.max_mounted
        for _ in range(1000):
            if conversation.scroll_y == 0 and conversation._first_mounted == 0:
                break
            # a turn on screen now must move down by exactly one page, whatever is re-created above it
            top = conversation.scroll_y
            seen = next(v for v in conversation.mounted_views if v.virtual_region.bottom > top)
            before = seen.region.y
            conversation.scroll_relative(y=-page, animate=False)
            await _settled(pilot, conversation)
            moved = page if top >= page else round(top)
            if seen.is_attached and conversation._first_mounted:
                assert seen.region.y == before + moved
            assert len(conversation.mounted_views) <= cap
            assert len(list(app.screen.walk_children())) < 200
        else:
            raise AssertionError("never reached the first turn")
        first = conversation.mounted_views[0]
        assert _prompt(first).startswith("turn 0:")
        assert first.region.y < conversation.region.bottom  # on screen
        assert not conversation.query_one("#earlier-turns").display

        # an old turn's tool block still unfolds (its result is created on the first unfold)
        block = first.query_one(ToolCallBlock)
        assert block.collapsed
        await pilot.click(block)  # on its title line
        await pilot.pause()
        assert not block.collapsed
        await wait_until(pilot, lambda: block._result.is_attached and block._result.region.height > 0)
        assert "line 0" in str(block._result.render())

        # back to the bottom: the newest turn is shown again
        conversation.jump_to_bottom()
        await _settled(pilot, conversation)
        await wait_until(pilot, lambda: _prompt(conversation.mounted_views[-1]).startswith(f"turn {TURNS - 1}:"))


async def test_page_keys_scroll_the_conversation_while_the_prompt_has_focus(offline_options, tmp_path: Path) -> None:
    from tui.ui.bindings import key_spec
    from tui.ui.screens.help_screen import help_table

    session = AgentSession(offline_options())
    session.resume(synthetic_transcript(tmp_path / "long.jsonl", 60))
    app = resumed_app(session.options, None, session)
    async with app.run_test(size=(120, 40)) as pilot:
        conversation = app.conversation
        await wait_until(pilot, lambda: conversation.mounted_views)
        await _settled(pilot, conversation)
        app.prompt_area.focus()
        await pilot.press("a", "b")
        assert app.prompt_area.text == "ab" and app.prompt_area.has_focus
        bottom = conversation.scroll_y
        page = conversation.scrollable_content_region.height - 1
        await pilot.press("pageup")
        await _settled(pilot, conversation)
        assert conversation.scroll_y == bottom - page and not conversation.following
        assert app.prompt_area.has_focus and app.prompt_area.text == "ab"  # the prompt kept its text and focus
        await pilot.press("pageup", "pageup")
        await _settled(pilot, conversation)
        await pilot.press("pagedown")
        await _settled(pilot, conversation)
        top = _prompt(next(v for v in conversation.mounted_views if v.region.bottom > conversation.region.y))
        assert not top.startswith("turn 59:")
        await pilot.press("ctrl+home")
        await _settled(pilot, conversation)
        await wait_until(pilot, lambda: conversation._first_mounted == 0 and conversation.scroll_y == 0)
        assert _prompt(conversation.mounted_views[0]).startswith("turn 0:")
        await pilot.press("ctrl+end")
        await _settled(pilot, conversation)
        await wait_until(
            pilot,
            lambda: (
                _prompt(conversation.mounted_views[-1]).startswith("turn 59:")
                and conversation.scroll_y == conversation.max_scroll_y
            ),
        )
        assert conversation.following
        # the keys are in the registry, so F1 help lists them (the footer keeps to what fits 100 columns)
        assert key_spec("page_up").keys == "pageup"
        assert "PgUp" in str(list(help_table().columns[0].cells))
        footer_keys = [str(k.key_display) for k in app.query("FooterKey")]
        assert "PgUp" not in footer_keys and "esc" in footer_keys
