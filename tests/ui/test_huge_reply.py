"""A 5 MB reply (one delta, or many) stays cheap to show: a bounded number of widgets, a small live
Markdown, at most `MARKDOWN_REPLY_CHARS` rendered as Markdown, the rest in one plain `LongText`
that draws only its visible rows; nothing lost, and the end of the reply on screen.

Timings are in `python -m tests.bench.huge_reply`; this checks the work is bounded, not how fast.
"""

from __future__ import annotations

import re
import threading

import pytest

from tests.bench.huge_reply import LAST, huge_text, publish
from tui.ui.app import AgentApp
from tui.ui.widgets.blocks import FrozenMarkdown
from tui.ui.widgets.long_text import LongText
from tui.ui.widgets.reply_stream import MARKDOWN_REPLY_CHARS, TAIL_CHARS, LiveReply

from .conftest import SIZE
from .fake_engine import FakeSession

FIVE_MB = 5_000_000


def screen_text(app: AgentApp) -> str:
    from textual._compositor import LayoutUpdate  # Textual's full write, not the terminal model's diff

    update = app.screen._compositor.render_update(full=True)
    return "".join(LayoutUpdate.render_segments(update, app.console))


@pytest.mark.parametrize("deltas", [1, 1000])
async def test_a_5_mb_reply_is_shown_whole_with_bounded_work(fake_session: FakeSession, deltas: int) -> None:
    text = huge_text(FIVE_MB)
    app = AgentApp(fake_session.options, session=fake_session)
    live_sizes = [0]
    async with app.run_test(size=SIZE) as pilot:
        worker = threading.Thread(target=publish, args=(fake_session, text, deltas))
        worker.start()
        while worker.is_alive() or app.controller.busy:
            live_sizes.extend(len(live.source) for live in app.query(LiveReply))
            await pilot.pause(0.02)
        worker.join()
        await pilot.pause()

        assert len(app.conversation.query("*")) < 40  # not a widget per few KB (main: 752)
        shown = list(app.conversation.query(".assistant-text"))
        markdown = [w.source for w in shown if isinstance(w, FrozenMarkdown)]
        assert sum(map(len, markdown)) <= MARKDOWN_REPLY_CHARS + 3 * TAIL_CHARS
        assert len(app.query(LongText)) == 1
        whole = "".join(w.source for w in shown)  # type: ignore[attr-defined]
        assert re.sub(r"\s+", "", whole) == re.sub(r"\s+", "", text)  # nothing lost or doubled
        assert LAST in screen_text(app)  # the end of the reply is on screen
    assert max(live_sizes) < 3 * TAIL_CHARS


async def test_long_text_draws_wrapped_rows_and_grows_in_place() -> None:
    from textual.app import App, ComposeResult

    class One(App[None]):
        def compose(self) -> ComposeResult:
            yield LongText("a" * 25 + "\n\tb\x1b[2J\n日本語" * 2)

    app = One()
    async with app.run_test(size=(10, 20)) as pilot:
        await pilot.pause()
        widget = app.query_one(LongText)
        rows = ["".join(s.text for s in widget.render_line(y)).rstrip() for y in range(widget.size.height)]
        assert rows == ["a" * 10, "a" * 10, "a" * 5, "        b␛", "[2J", "日本語", "        b␛", "[2J", "日本語"]
        widget.append("x" * 5 + "\nend")
        await pilot.pause()
        rows = ["".join(s.text for s in widget.render_line(y)).rstrip() for y in range(widget.size.height)]
        assert rows[-4:] == ["[2J", "日本語xxxx", "x", "end"]  # wide characters are never cut in half
