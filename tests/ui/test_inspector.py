"""The inspector panel: call list, lazy views, structural diff, copy/save, big bodies."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from textual.app import App, ComposeResult
from textual.widgets import DataTable, Static, TextArea

from tui.ui.widgets.inspector import Inspector
from tui.ui.widgets.inspector.diff import diff_requests
from tui.ui.widgets.inspector.json_tree import PAGE, JsonTree, JsonView
from tui.ui.widgets.inspector.sample import body, call_events, two_call_session


class Host(App[None]):
    def __init__(self, project_dir: Path) -> None:
        super().__init__()
        self.project_dir = project_dir

    def compose(self) -> ComposeResult:
        yield Inspector(project_dir=self.project_dir)


def text_of(widget: Static) -> str:
    return str(widget.render())


async def test_two_calls_listed_selected_and_diffed(tmp_path: Path) -> None:
    app = Host(tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        inspector = app.query_one(Inspector)
        for event in two_call_session():
            inspector.record(event)
        await pilot.pause()
        table = app.query_one("#inspector-calls", DataTable)
        assert table.row_count == 2
        assert [str(v) for v in table.get_row_at(0)][3] == "tool_use"
        assert [str(v) for v in table.get_row_at(1)][3] == "end_turn"
        assert str(table.get_row_at(1)[6]) == "90%"  # cache hit share
        assert inspector.selected is not None and inspector.selected.number == 2  # follows the newest

        inspector.show_view("diff")
        await pilot.pause()
        diff = text_of(app.query_one("#inspector-diff", Static))
        assert "messages: +2 appended (assistant, user)" in diff and "nothing else changed" in diff

        inspector.show_view("response")
        await pilot.pause()
        assert "stop_reason end_turn" in text_of(app.query_one("#inspector-response-summary", Static))

        table.focus()
        await pilot.press("up")  # select call 1 from the list
        await pilot.pause()
        assert inspector.selected.number == 1
        assert "tool_use" in text_of(app.query_one("#inspector-response-summary", Static))

        inspector.show_view("sse")
        await pilot.pause()
        sse = app.query_one("#inspector-sse", DataTable)
        assert sse.row_count == 6 and [str(v) for v in sse.get_row_at(0)[:2]] == ["+0.301s", "message_start"]

        inspector.show_view("diff")
        await pilot.pause()
        assert "first request" in text_of(app.query_one("#inspector-diff", Static))


async def test_the_selected_call_names_its_max_tokens(tmp_path: Path) -> None:
    app = Host(tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        inspector = app.query_one(Inspector)
        for event in two_call_session():
            inspector.record(event)
        inspector.show_view("request")
        await pilot.pause()
        line = text_of(app.query_one("#inspector-selected", Static))
        assert "claude-sonnet-5-5 · max_tokens 128,000" in line  # the model's output limit


async def test_copy_and_save_write_valid_json(tmp_path: Path) -> None:
    app = Host(tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        inspector = app.query_one(Inspector)
        for event in two_call_session():
            inspector.record(event)
        await pilot.pause()
        inspector.focus()
        await pilot.press("c")  # copy the Request view
        assert json.loads(app.clipboard) == inspector.model.calls[1].body

        inspector.show_view("diff")
        await pilot.pause()
        await pilot.click("#inspector-save")
        await pilot.pause()
        saved = tmp_path / ".agent-tui" / "inspector" / "call-2-diff.json"
        data = json.loads(saved.read_text())
        assert data["previous_call"] == 1
        assert data["changes"][0] == {"kind": "appended", "text": "messages: +2 appended (assistant, user)"}


class HiddenHost(Host):
    CSS = "Inspector { display: none; }"  # how the app starts: hidden until F2


async def test_hidden_inspector_builds_nothing_until_shown(tmp_path: Path) -> None:
    app = HiddenHost(tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        inspector = app.query_one(Inspector)
        await pilot.pause()
        for event in two_call_session():
            inspector.record(event)
        await pilot.pause()
        assert app.query_one("#inspector-calls", DataTable).row_count == 0
        assert app.query_one("#inspector-request", JsonView).value is None
        inspector.display = True  # what F2 does
        for _ in range(40):  # bounded: the panel catches up on its first paint
            await pilot.pause(0.025)
            if app.query_one("#inspector-calls", DataTable).row_count:
                break
        assert app.query_one("#inspector-calls", DataTable).row_count == 2
        assert app.query_one("#inspector-request", JsonView).value is inspector.model.calls[1].body


async def test_two_megabyte_body_stays_lazy(tmp_path: Path) -> None:
    big_text = "x" * 4000
    messages = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": [{"type": "text", "text": f"{i} {big_text}"}]}
        for i in range(500)
    ]
    request = body(messages)
    assert len(json.dumps(request)) > 2_000_000
    reply = {
        "id": "msg_big",
        "role": "assistant",
        "stop_reason": "end_turn",
        "content": [{"type": "text", "text": "ok"}],
    }

    app = Host(tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        inspector = app.query_one(Inspector)
        for event in call_events(1, request, reply):
            inspector.record(event)
        await pilot.pause()
        tree = app.query_one("#inspector-request", JsonView).query_one(JsonTree)
        assert tree.node_total < 10  # root + top-level keys only

        messages_node = next(n for n in tree.root.children if n.data.path == "$.messages")
        messages_node.expand()
        await pilot.pause()
        assert len(messages_node.children) == PAGE + 1  # one page and a "… more" marker
        assert "300 more" in str(messages_node.children[-1].label)
        assert tree.node_total < PAGE + 20

        first = messages_node.children[0]
        first.expand()
        await pilot.pause()
        content = first.children[-1]
        content.expand()
        await pilot.pause()
        text_node = content.children[0]
        text_node.expand()
        await pilot.pause()
        long_leaf = next(n for n in text_node.children if n.data.path.endswith(".text"))
        assert len(str(long_leaf.label)) < 260  # shortened in the tree
        tree.move_cursor(long_leaf)
        tree.focus()
        await pilot.press("enter")  # the full string goes to the detail pane
        await pilot.pause()
        assert app.query_one("#inspector-request TextArea", TextArea).text == f"0 {big_text}"


def test_diff_lists_everything_that_is_not_an_append() -> None:
    old = body([{"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]}])
    new = copy.deepcopy(old)
    del new["messages"][0]["content"][0]["cache_control"]
    new["messages"].append({"role": "assistant", "content": "hello"})
    new["system"] = [{"type": "text", "text": "A different system prompt"}]
    new["tools"] = new["tools"][:1] + [{"name": "Bash", "input_schema": {}}]
    new["max_tokens"] = 8000
    texts = [c.text for c in diff_requests(old, new)]
    assert "system[0]: changed" in texts
    assert "tools: +Bash" in texts and "tools: -Grep" in texts
    assert "max_tokens: 128000 → 8000" in texts
    assert "messages[0] (user): cache_control moved (content unchanged)" in texts
    assert "messages: +1 appended (assistant)" in texts
    assert "nothing else changed" not in texts
    assert [c.text for c in diff_requests(old, copy.deepcopy(old))] == ["identical to the previous request (a retry)"]


def test_a_long_day_keeps_only_the_newest_request_bodies_in_memory(offline_options) -> None:
    """Each request body holds the whole history: the inspector (and its backlog before it is opened) keeps the
    newest KEEP_FULL_CALLS in full and a note for the older ones, whose bodies the transcript has."""
    from tui.agent import events as ev
    from tui.ui.app import AgentApp
    from tui.ui.widgets.inspector.model import KEEP_FULL_CALLS, InspectorModel

    model = InspectorModel()
    app = AgentApp(offline_options())
    for i in range(KEEP_FULL_CALLS + 3):
        request = ev.RequestSent(iteration=1, attempt=1, model="m", body={"messages": [i]})
        response = ev.ResponseFinished(
            iteration=1,
            message={"content": []},
            stop_reason="end_turn",
            usage={},
            request_id=None,
            ttfb_ms=1,
            duration_ms=2,
            cost_usd=0.0,
            raw_events=((0.0, "message_stop", {}),),
        )
        for event in (request, response):
            model.record(event)
            app.record_api_event(event)
    assert [c.body.get("messages") for c in model.calls[-KEEP_FULL_CALLS:]] == [
        [i] for i in range(3, KEEP_FULL_CALLS + 3)
    ]
    assert all("no longer held" in c.body["note"] and c.raw_events == () for c in model.calls[:3])
    assert model.calls[0].message == {"content": []}  # the response and its summary stay
    backlog = app._inspector_backlog.model.calls  # before it is opened: the same bounded model
    assert "Request #1 is no longer held" in backlog[0].body["note"] and backlog[0].raw_events == ()
    assert backlog[-1].body == {"messages": [KEEP_FULL_CALLS + 2]} and backlog[-1].raw_events


async def test_a_day_with_the_inspector_never_opened_keeps_only_the_newest_calls_and_bars(offline_options) -> None:
    """Before the inspector is first opened its events went to a list that grew all day; now they feed the same
    bounded models the panel keeps (N+k calls: N kept), and opening the panel shows them and says how many left."""
    from tui.ui.app import AgentApp
    from tui.ui.widgets.inspector.model import InspectorModel
    from tui.ui.widgets.inspector.timeline import TimelineModel

    app = AgentApp(offline_options())
    async with app.run_test(size=(140, 45)) as pilot:
        backlog = app._inspector_backlog
        backlog.model, backlog.timeline = InspectorModel(keep=3), TimelineModel(keep=4)
        user = {"role": "user", "content": "hi"}
        reply = {"id": "m", "role": "assistant", "stop_reason": "end_turn", "content": [{"type": "text", "text": "ok"}]}
        for n in range(5):
            for event in call_events(1, body([user] * (n + 1)), reply, ts=1_700_000_000.0 + n):
                app.record_api_event(event)
        assert [c.number for c in backlog.model.calls] == [3, 4, 5] and len(backlog.timeline.bars) == 4
        await pilot.press("f2")
        await pilot.pause()
        inspector = app.inspector
        assert inspector.selected.number == 5 and backlog.model is None
        table = inspector.query_one("#inspector-calls", DataTable)
        assert [k.value for k in table.rows] == ["3", "4", "5"]
        assert "2 older calls in the transcript file" in text_of(inspector.query_one("#inspector-title", Static))


async def test_the_inspector_keeps_the_newest_calls_and_says_how_many_are_only_in_the_transcript(
    tmp_path: Path,
) -> None:
    """N+k calls: the newest N stay with their numbers, the k oldest leave (model and list rows), the title says
    how many older calls are in the transcript file, and the views still work on the kept ones."""
    from tui.ui.widgets.inspector.model import InspectorModel

    app = Host(tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        inspector = app.query_one(Inspector)
        inspector.model = InspectorModel(keep=3)
        user = {"role": "user", "content": "hi"}
        reply = {"id": "m", "role": "assistant", "stop_reason": "end_turn", "content": [{"type": "text", "text": "ok"}]}
        for n in range(3):
            for event in call_events(1, body([user] * (n + 1)), reply, ts=1_700_000_000.0 + n):
                inspector.record(event)
        await pilot.pause()
        table = app.query_one("#inspector-calls", DataTable)
        assert [k.value for k in table.rows] == ["1", "2", "3"]
        for n in range(3, 5):
            for event in call_events(1, body([user] * (n + 1)), reply, ts=1_700_000_000.0 + n):
                inspector.record(event)
        await pilot.pause()
        model = inspector.model
        assert [c.number for c in model.calls] == [3, 4, 5] and model.dropped == 2 and model.count == 5
        assert model.get(2) is None and model.get(4) is model.calls[1]
        assert [k.value for k in table.rows] == ["3", "4", "5"]
        assert "2 older calls in the transcript file" in text_of(app.query_one("#inspector-title", Static))
        assert model.previous(model.calls[0]) is None and model.previous(model.calls[1]) is model.calls[0]
        inspector.select_call(1)  # dropped: nothing changes
        assert inspector.selected is model.calls[-1]
        inspector.select_call(4)
        inspector.show_view("diff")
        await pilot.pause()
        assert "call #4 vs call #3" in text_of(app.query_one("#inspector-diff", Static))


async def test_a_call_chosen_by_hand_is_shown_again_when_the_inspector_reopens(tmp_path: Path) -> None:
    """Closing keeps the models, the tab and a call chosen by hand (not the newest) in the app's backlog; the panel
    built on them shows that call on that tab again."""
    from tui.ui.inspector_backlog import InspectorBacklog

    user = {"role": "user", "content": "hi"}
    reply = {"id": "m", "role": "assistant", "stop_reason": "end_turn", "content": [{"type": "text", "text": "ok"}]}
    backlog = InspectorBacklog()
    for n in range(3):
        for event in call_events(1, body([user] * (n + 1)), reply, ts=1_700_000_000.0 + n):
            backlog.add(event)
    app = Host(tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        inspector = app.query_one(Inspector)
        inspector.adopt(*backlog.take())
        inspector.select_call(2)
        inspector.show_view("diff")
        await pilot.pause()
        backlog.keep(inspector)
        assert (backlog.view, backlog.selected) == ("diff", 2)
        await inspector.remove()
        fresh = Inspector(project_dir=tmp_path)
        await app.mount(fresh)
        fresh.adopt(*backlog.take())
        backlog.restore(fresh)
        await pilot.pause()
        assert fresh.selected is not None and fresh.selected.number == 2 and fresh.current_view == "diff"
        assert "call #2 vs call #1" in text_of(app.query_one("#inspector-diff", Static))
