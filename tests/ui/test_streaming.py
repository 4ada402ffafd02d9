"""Long replies on screen: the live Markdown stays small, the text is complete, shutdown mid-turn is clean."""

from __future__ import annotations

import threading

from textual.widgets import Markdown

from tui.agent import events as ev
from tui.ui.app import AgentApp
from tui.ui.events import coalesce_deltas
from tui.ui.widgets.blocks import FrozenMarkdown
from tui.ui.widgets.reply_stream import TAIL_CHARS, LiveReply, split_point

from .conftest import SIZE, wait_until
from .fake_engine import FakeSession

LAST = "ZENITHWORD"


def long_reply(paragraphs: int = 120) -> str:
    """Prose with a Python code fence (holding blank lines) every 10 paragraphs, ending in LAST."""
    parts = []
    for i in range(paragraphs):
        parts.append(" ".join(f"w{i}_{j}" for j in range(40)))
        if i % 10 == 5:
            parts.append(f"```python\ndef f_{i}():\n\n    return {i}\n```")
    parts.append(f"The end: {LAST}")
    return "\n\n".join(parts)


def publish_reply(session: FakeSession, text: str, *, stop: threading.Event | None = None) -> None:
    """Publish one turn streaming `text` in 3-character deltas (as the loop thread would)."""
    pub = session.bus.publish
    pub(ev.TurnStarted(turn_id=1, prompt="write a lot"))
    pub(ev.BlockStarted(iteration=1, index=0, block_type="text"))
    for i in range(0, len(text), 3):
        if stop is not None and stop.is_set():
            return
        pub(ev.BlockDelta(iteration=1, index=0, delta_type="text_delta", text=text[i : i + 3]))
    pub(ev.BlockFinished(iteration=1, index=0, block={"type": "text", "text": text}))
    pub(
        ev.TurnFinished(
            turn_id=1,
            stop_reason="end_turn",
            is_error=False,
            num_iterations=1,
            duration_ms=10,
            usage={"output_tokens": 5000},
            cost_usd=0.0,
            session_usage={},
            session_cost_usd=0.0,
        )
    )


def test_split_point_never_cuts_inside_a_fence_or_an_indented_line() -> None:
    text = "para one\n\n```\ncode\n\nmore code\n```\n\n    indented\n\npara two\n"
    cut = split_point(text)
    assert text[:cut] == "para one\n\n```\ncode\n\nmore code\n```\n\n    indented\n\n"
    assert split_point("```\na\n\nb\n") == 0  # an open fence: nowhere safe yet
    assert split_point("- item\n\n  continued\n") == 0


def test_consecutive_deltas_of_one_block_are_merged_in_order() -> None:
    d = [ev.BlockDelta(iteration=1, index=0, delta_type="text_delta", text=t) for t in "abc"]
    other = ev.BlockDelta(iteration=1, index=1, delta_type="input_json_delta", text="{")
    merged = coalesce_deltas([*d, other, d[0]])
    assert [(e.index, e.text) for e in merged] == [(0, "abc"), (1, "{"), (0, "a")]
    sub = ev.BlockDelta(iteration=1, index=0, delta_type="text_delta", text="x", loop_path="main/explore-1")
    assert [e.text for e in coalesce_deltas([d[0], sub, d[1]])] == ["a", "x", "b"]  # another loop's delta never merges


async def test_long_reply_with_code_fences_is_complete_and_the_live_markdown_stays_small(
    fake_session: FakeSession,
) -> None:
    text = long_reply()
    assert len(text) > 10 * TAIL_CHARS
    app = AgentApp(fake_session.options, session=fake_session)
    live_sizes: list[int] = []
    async with app.run_test(size=SIZE) as pilot:
        worker = threading.Thread(target=publish_reply, args=(fake_session, text))
        worker.start()
        while worker.is_alive() or app.controller.busy:
            for live in app.query(LiveReply):
                live_sizes.append(len(live.source))
            await pilot.pause(0.01)
        worker.join()
        assert not app.query(LiveReply)
        frozen = list(app.query(FrozenMarkdown))
        assert len(frozen) > 5  # frozen piece by piece while streaming, not in one go at the end
        assert "\n\n".join(f.source for f in frozen) == text.strip("\n")  # nothing lost or doubled
        assert LAST in frozen[-1].source
        # a fixed width: the last chunks may not have been laid out yet (size 0) when the turn ends
        lines = ["".join(seg.text for seg in line) for f in frozen for line in f._render_lines(SIZE[0] - 40)]
        start = next(i for i, line in enumerate(lines) if "def f_5():" in line)
        assert "```" not in "".join(lines)  # every fence rendered as a code block, none cut in half
        assert "return 5" in lines[start + 2]  # the blank line inside the fence is kept
        assert app.controller.turn is not None and app.controller.turn.blocks[-2].text == text
    assert max(live_sizes, default=0) < 3 * TAIL_CHARS


async def test_quitting_while_a_turn_still_streams_does_not_crash(fake_session: FakeSession) -> None:
    app = AgentApp(fake_session.options, session=fake_session)
    stop = threading.Event()
    text = long_reply(400)
    worker = threading.Thread(target=publish_reply, args=(fake_session, text), kwargs={"stop": stop})
    async with app.run_test(size=SIZE) as pilot:
        worker.start()
        await wait_until(pilot, lambda: app.query(LiveReply) or app.query(FrozenMarkdown))
        app.action_quit_now()  # events keep arriving while the DOM is torn down
        await pilot.pause()
    stop.set()
    worker.join()
    assert app.return_code == 0
    # an event delivered after shutdown is dropped, not raised
    await app.controller.handle(
        ev.TurnFinished(
            turn_id=1,
            stop_reason="end_turn",
            is_error=False,
            num_iterations=1,
            duration_ms=1,
            usage={},
            cost_usd=0.0,
            session_usage={},
            session_cost_usd=0.0,
        )
    )
    assert Markdown  # imported for type checkers of the helpers above


async def test_context_meter_compaction_file_notice_and_todos(fake_session: FakeSession) -> None:
    app = AgentApp(fake_session.options, session=fake_session)
    async with app.run_test(size=(100, 30)) as pilot:
        pub = fake_session.bus.publish
        pub(ev.ContextUsage(used_tokens=120_000, window_tokens=1_000_000, estimated=True))
        pub(ev.CompactionStarted(automatic=True, used_tokens=170_000))
        pub(ev.CompactionFinished(summary="s", messages_before=40, messages_after=3, ok=True))
        pub(ev.FileChangedOutside(path="app.py"))
        pub(
            ev.TodosUpdated(
                todos=(
                    {"content": "Fix app.py", "status": "completed", "activeForm": "Fixing app.py"},
                    {"content": "Run tests", "status": "in_progress", "activeForm": "Running tests"},
                )
            )
        )
        await wait_until(pilot, lambda: app.tool_panel.todos)
        await pilot.pause()
        status = app.status.render().plain
        assert "ctx ~12% of 1M" in status
        texts = [str(m.render()) for m in app.query("MarkerLine")]
        assert any("compacting the context automatically (170k tokens" in t for t in texts)
        assert any("context compacted: 40 messages → 3" in t for t in texts)
        assert any("app.py changed outside the agent" in t for t in texts)
        screen = app.export_screenshot()
        assert "1/2" in screen and "Running" in screen  # the todo list, the current item by its active form


async def test_status_line_fits_100_columns_by_dropping_low_priority_parts(fake_session: FakeSession) -> None:
    app = AgentApp(fake_session.options, session=fake_session)
    async with app.run_test(size=(100, 30)) as pilot:
        status = app.status
        status.usage = {
            "input_tokens": 12_345,
            "output_tokens": 6_789,
            "cache_read_input_tokens": 234_567,
            "cache_creation_input_tokens": 3_456,
        }
        status.cost_usd = 12.3456
        status.set_context(150_000, 200_000, False)
        status.set_state("running", "3 tools")
        await pilot.pause()
        text = status.render().plain
        assert len(text) <= status.content_size.width
        assert text.rstrip().endswith("$12.3456")  # the cost is kept, lower-priority parts go first
        assert "ctx 75% of 200k" in text and "cache" not in text
        status.set_state("waiting for approval", "(call 12)")  # a longer state pushes out more
        await pilot.pause()
        assert status.render().plain.rstrip().endswith("$12.3456") and "mode default" in status.render().plain
    wide = AgentApp(fake_session.options, session=fake_session)
    async with wide.run_test(size=(180, 30)) as pilot:
        wide.status.usage = status.usage
        wide.status.set_context(150_000, 200_000, False)
        await pilot.pause()
        assert "cache" in wide.status.render().plain  # nothing dropped when there is room


async def test_a_paragraph_streamed_past_keeps_its_blank_line_in_the_next_frame(fake_session: FakeSession) -> None:
    """The live reply's last block has no bottom margin; when a delta starts the next block, the one before gets
    its margin back within the same flush (Textual restyles it only when the live widget handles its next
    message, and a frame drawn in between, without the blank line, then one with it, would move every row below
    it on the terminal). The flush runs on the widget's own timer, as in the app."""
    from tui.ui.widgets.conversation_model import BlockRecord
    from tui.ui.widgets.reply_stream import ReplyStream

    app = AgentApp(fake_session.options, session=fake_session)
    async with app.run_test(size=SIZE) as pilot:
        live = LiveReply()
        await app.conversation.mount(live)
        margins: list[int] = []
        stream = ReplyStream(BlockRecord("text"), live, on_flush=lambda: margins.append(bottom_of_first()))
        live.stream = stream

        def bottom_of_first() -> int:
            return live.children[0].styles.margin.bottom if live.children else -1

        stream.feed("The first paragraph, still streaming")
        await wait_until(pilot, lambda: len(margins) == 1)
        assert margins == [0]  # the last block: no blank line under it
        stream.feed(".\n\nThe second paragraph starts")
        await wait_until(pilot, lambda: len(margins) == 2)
        assert len(live.children) == 2
        assert margins[1] == 1  # already when the flush ends, before anything else is handled
        await pilot.pause()
        assert bottom_of_first() == 1


async def test_a_reply_streamed_behind_a_dialog_is_written_and_drawn_while_the_dialog_is_up(
    fake_session: FakeSession,
) -> None:
    """The live reply's flush timer and repaint do not wait for its screen to be the active one again."""
    from textual.screen import ModalScreen
    from textual.widgets import Static

    class Dialog(ModalScreen[None]):
        def compose(self):
            yield Static("a dialog")

    app = AgentApp(fake_session.options, session=fake_session, permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        pub = fake_session.bus.publish
        pub(ev.TurnStarted(turn_id=1, prompt="write"))
        pub(ev.BlockStarted(iteration=1, index=0, block_type="text"))
        await wait_until(pilot, lambda: app.query(LiveReply))
        await app.push_screen(Dialog())
        for word in ("Words ", "behind ", "the ", LAST):
            pub(ev.BlockDelta(iteration=1, index=0, delta_type="text_delta", text=word))
        await wait_until(pilot, lambda: LAST in app.query_one(LiveReply).source)
        assert isinstance(app.screen, Dialog)
        await wait_until(pilot, lambda: LAST in app.export_screenshot())  # painted under the dialog
        assert isinstance(app.screen, Dialog)


async def test_a_flush_already_queued_when_the_reply_finishes_does_not_hold_up_its_end(
    fake_session: FakeSession,
) -> None:
    """Stopping the flush timer does not take back a tick it already posted to the live widget. That flush
    then waited for the finish's lock while the finish, holding it, waited for the live widget to be removed,
    which waits for the widget's pending message: neither went on (a turn that never ended, seen under load)."""
    import asyncio

    from tui.ui.widgets.conversation_model import BlockRecord
    from tui.ui.widgets.reply_stream import ReplyStream

    app = AgentApp(fake_session.options, session=fake_session)
    async with app.run_test(size=SIZE) as pilot:
        live = LiveReply()
        await app.conversation.mount(live)
        stream = ReplyStream(BlockRecord("text"), live)
        live.stream = stream
        stream.feed("Some words, still streaming")
        live.call_later(stream._timed_flush)  # the timer's tick, already queued on the widget
        await asyncio.wait_for(stream.finish("Some words, still streaming."), 20)
        await pilot.pause()
        assert not live.is_attached
        assert "still streaming." in app.conversation.query_one(FrozenMarkdown).source
