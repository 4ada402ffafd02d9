"""Pilot tests: the app driven as a user would, on the real offline engine or the scripted fake."""

from __future__ import annotations

import time
from concurrent.futures import Future
from typing import Any

from textual import events
from textual.widgets import Markdown

from tui.agent import events as ev
from tui.agent.events.permission import PermissionReply
from tui.ui.app import AgentApp
from tui.ui.screens.help_screen import HelpScreen
from tui.ui.screens.permission_dialog import PermissionDialog
from tui.ui.widgets.blocks import MarkerLine, ToolCallBlock, UserPrompt
from tui.ui.widgets.conversation import TurnView
from tui.ui.widgets.reply_stream import LiveReply

from .conftest import SIZE, notices, type_prompt, wait_for_dialog, wait_until
from .fake_engine import FakeSession


def markers(app: AgentApp) -> list[str]:
    return [str(m.render()) for m in app.query(MarkerLine)]


async def test_offline_turn_streams_reply_and_enter_approves_the_edit(offline_options, demo_project) -> None:
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        assert app.focused is app.prompt_area
        await pilot.press(*"find the TODOs and fix one", "enter")
        assert app.query_one(UserPrompt)  # echoed at once, before the engine is ready
        await wait_for_dialog(pilot, PermissionDialog)
        assert "app.py" in str(app.screen.event.preview.get("text"))  # the diff is shown
        await pilot.press("enter")
        await wait_until(pilot, lambda: not app.controller.busy)
        assert "TODO: handle empty input" not in (demo_project / "app.py").read_text()
        assert any(m.startswith("tool_use → ") for m in markers(app))
        assert any(m.startswith("end_turn → ") for m in markers(app))
        assert not app.query(LiveReply)  # finished replies are frozen, not live Markdown
        assert app.query(ToolCallBlock)
        panel_tools = [t for b in app.tool_panel.batches for t in b.tools]
        assert panel_tools and all(t.state == "done" for t in panel_tools)
        assert app.status.state == "idle"
        assert app.status.usage.get("output_tokens", 0) > 0


async def test_reply_tokens_are_coalesced_into_few_markdown_writes(offline_options, monkeypatch) -> None:
    fake_session = FakeSession(offline_options(), delay=0.004)  # tokens spread out as from a real stream
    deltas: list[ev.BlockDelta] = []
    fake_session.bus.subscribe(lambda e: deltas.append(e) if isinstance(e, ev.BlockDelta) else None, inline=True)
    appends: list[str] = []
    original_append = Markdown.append

    def counting_append(self: Markdown, markdown: str):
        appends.append(markdown)
        return original_append(self, markdown)

    monkeypatch.setattr(Markdown, "append", counting_append)
    publish = fake_session._pub

    def publish_after_a_write(cls: type[ev.Event], **kw) -> None:
        # A text block's end freezes the reply without a Markdown write, so on a loaded machine (the UI handed
        # all of a block's deltas and its end in one batch, before its flush timer fired) a turn can make none:
        # the first text block ends only once a write was made, the state this test is about (bounded wait).
        if cls is ev.BlockFinished and kw["block"].get("type") == "text":
            deadline = time.monotonic() + 60
            while not appends and time.monotonic() < deadline:
                time.sleep(0.01)
        publish(cls, **kw)

    monkeypatch.setattr(fake_session, "_pub", publish_after_a_write)
    app = AgentApp(fake_session.options, session=fake_session, permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "hello")
        await wait_for_dialog(pilot, PermissionDialog)  # both text blocks have ended before the dialog opens
        assert len(deltas) > 30 and 0 < len(appends) < len(deltas) / 3  # one write per frame, not per token
        app.session.cancel()
        await wait_until(pilot, lambda: not app.controller.busy)


async def test_deny_with_a_reason_goes_back_to_the_engine(fake_session: FakeSession) -> None:
    app = AgentApp(fake_session.options, session=fake_session, permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "fix it")
        await wait_for_dialog(pilot, PermissionDialog)
        await pilot.press("4")
        await pilot.press(*"no")  # the reason box has the focus
        app.screen.query_one("#reason-input").insert_text_at_cursor(", use a guard clause")
        await pilot.press("enter")
        await wait_until(pilot, lambda: not app.controller.busy)
        assert fake_session.replies == [PermissionReply(False, reason="no, use a guard clause")]
        edit = next(t for b in app.tool_panel.batches for t in b.tools if t.name == "Edit")
        assert edit.state == "denied"


async def test_always_allow_sends_the_edited_rule(fake_session: FakeSession) -> None:
    app = AgentApp(fake_session.options, session=fake_session, permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "fix it")
        await wait_for_dialog(pilot, PermissionDialog)
        await pilot.press("3")
        rule_input = app.screen.query_one("#rule-input")
        assert rule_input.display and rule_input.value == "Edit(app.py)"
        rule_input.value = "Edit(*.py)"
        await pilot.press("enter")
        await wait_until(pilot, lambda: not app.controller.busy)
        assert fake_session.replies == [PermissionReply(True, scope="always", rule="Edit(*.py)")]


async def test_keys_in_the_grace_period_are_ignored_and_esc_denies(fake_session: FakeSession) -> None:
    app = AgentApp(fake_session.options, session=fake_session, permission_grace_s=30)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "fix it")
        await wait_until(pilot, lambda: isinstance(app.screen, PermissionDialog))
        dialog = app.screen
        assert isinstance(dialog, PermissionDialog)
        await wait_until(pilot, lambda: dialog.guard.shown_at is not None)  # drawn: the grace time runs
        await pilot.press("enter", "1", "escape")
        await pilot.pause()
        assert app.screen is dialog and not fake_session.replies
        dialog.guard.grace_s = 0  # the grace period is over
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.controller.busy)
        assert fake_session.replies == [PermissionReply(False, reason="")]


async def test_esc_interrupts_a_running_turn(offline_options) -> None:
    app = AgentApp(offline_options(offline_delay=0.05), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "find the TODOs and fix one")
        await wait_until(pilot, lambda: app.status.state in ("streaming", "thinking", "running"))
        assert app.query_one("#cancel").display
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.controller.busy)
        assert any("interrupted" in m for m in markers(app))
        assert not app.session.running


async def test_parallel_permission_requests_queue_one_dialog_at_a_time(fake_session: FakeSession) -> None:
    app = AgentApp(fake_session.options, session=fake_session, permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        futures: list[Future] = [Future(), Future()]
        for n, future in enumerate(futures):
            fake_session.bus.publish(
                ev.PermissionRequested(
                    tool_use_id=f"t{n}",
                    tool_name="Bash",
                    input={},
                    label=f"Bash: step {n}",
                    preview={"kind": "command", "text": f"echo {n}", "cwd": "/tmp"},
                    suggested_rule="Bash(echo:*)",
                    reason="",
                    reply=future,
                )
            )
        # the second request may be handled a frame later (a burst of events is spread over frames)
        await wait_until(
            pilot, lambda: isinstance(app.screen, PermissionDialog) and app.screen.queued == 1 and app.screen.armed
        )
        assert app.screen.event.tool_use_id == "t0"
        await pilot.press("2")
        await wait_until(
            pilot, lambda: isinstance(app.screen, PermissionDialog) and app.screen.event.tool_use_id == "t1"
        )
        assert futures[0].result() == PermissionReply(True, scope="session")
        assert not futures[1].done()
        # the turn is interrupted meanwhile: the engine answers, the dialog closes, nothing is set twice
        futures[1].set_result(PermissionReply(False, reason="interrupted"))
        fake_session.bus.publish(
            ev.PermissionResolved(tool_use_id="t1", tool_name="Bash", allowed=False, scope="interrupted")
        )
        await wait_until(pilot, lambda: not isinstance(app.screen, PermissionDialog))
        assert futures[1].result().reason == "interrupted"


async def test_f2_toggles_the_inspector_and_it_records_calls(fake_session: FakeSession) -> None:
    app = AgentApp(fake_session.options, session=fake_session, permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        assert app.inspector is None  # built on first F2, not at start-up
        await type_prompt(pilot, "fix it")
        await wait_for_dialog(pilot, PermissionDialog)
        await pilot.press("1")
        await wait_until(pilot, lambda: not app.controller.busy)
        await pilot.press("f2")
        await pilot.pause()
        assert app.inspector is not None and app.inspector.display and app.has_class("-show-inspector")
        assert len(app.inspector.model.calls) == 3  # calls made before it existed were kept for it
        await type_prompt(pilot, "again")
        await wait_for_dialog(pilot, PermissionDialog)
        await pilot.press("1")
        await wait_until(pilot, lambda: not app.controller.busy)
        assert len(app.inspector.model.calls) == 6
        app.inspector.show_view("sse")
        await pilot.pause()
        await pilot.press("f2")
        await pilot.pause()
        assert app.inspector is None and not app.has_class("-show-inspector")


async def test_a_closed_inspector_leaves_the_screen_and_keeps_its_calls_and_tab(fake_session: FakeSession) -> None:
    """Closed, the panel is removed (a hidden one kept ~45 widgets and its tables' rows for the rest of the session,
    restyled and walked by every collection: issue 38's late frames); its models keep recording, and F2 shows the
    same calls on the same tab again."""
    from tui.ui.widgets.inspector import Inspector

    app = AgentApp(fake_session.options, session=fake_session, permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "fix it")
        await wait_for_dialog(pilot, PermissionDialog)
        await pilot.press("1")
        await wait_until(pilot, lambda: not app.controller.busy)
        before = len(list(app.screen.walk_children()))
        await pilot.press("f2")
        await wait_until(pilot, lambda: app.inspector is not None and app.inspector.model.calls)
        assert len(list(app.screen.walk_children())) > before + 20
        app.inspector.show_view("sse")
        await pilot.pause()
        await pilot.press("f2")
        await pilot.pause()
        assert app.inspector is None and not app.query(Inspector)
        assert len(list(app.screen.walk_children())) == before
        await type_prompt(pilot, "again")
        await wait_for_dialog(pilot, PermissionDialog)
        await pilot.press("1")
        await wait_until(pilot, lambda: not app.controller.busy)
        await pilot.press("f2")
        await wait_until(pilot, lambda: app.inspector is not None)
        inspector: Any = app.inspector
        assert len(inspector.model.calls) == 6  # recorded while closed
        assert inspector.current_view == "sse"
        assert inspector.selected is inspector.model.calls[-1]  # it followed the newest call, and still does


async def test_shift_tab_cycles_the_permission_mode(fake_session: FakeSession) -> None:
    app = AgentApp(fake_session.options, session=fake_session)
    async with app.run_test(size=SIZE) as pilot:
        seen = []
        for _ in range(3):
            await pilot.press("shift+tab")
            seen.append((fake_session.policy.mode, app.status.mode))
        assert seen == [("acceptEdits",) * 2, ("plan",) * 2, ("default",) * 2]


async def test_shift_tab_reaches_bypass_only_when_started_in_it(fake_session: FakeSession) -> None:
    fake_session.options.permission_mode = fake_session.policy.mode = "bypassPermissions"
    app = AgentApp(fake_session.options, session=fake_session)
    async with app.run_test(size=SIZE) as pilot:
        seen = []
        for _ in range(4):
            await pilot.press("shift+tab")
            seen.append(app.status.mode)
        assert seen == ["default", "acceptEdits", "plan", "bypassPermissions"]


async def test_a_mode_changed_by_the_engine_shows_in_the_status_line(fake_session: FakeSession) -> None:
    app = AgentApp(fake_session.options, session=fake_session)
    async with app.run_test(size=SIZE) as pilot:
        refusal = fake_session.set_permission_mode("bypassPermissions", "a PermissionRequest hook")
        assert refusal and "only in a session started in it" in refusal
        assert fake_session.set_permission_mode("plan", "a PermissionRequest hook") is None
        await wait_until(pilot, lambda: app.status.mode == "plan")
        await wait_until(
            pilot, lambda: any("set by a PermissionRequest hook" in str(m.render()) for m in app.query(MarkerLine))
        )


async def test_prompt_history_and_newline(fake_session: FakeSession) -> None:
    app = AgentApp(fake_session.options, session=fake_session)
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.prompt_area
        await type_prompt(pilot, "/cost")
        await type_prompt(pilot, "/copy")
        await pilot.press(*"draft")
        await pilot.press("up")
        assert prompt.text == "/copy"
        await pilot.press("up")
        assert prompt.text == "/cost"
        await pilot.press("down", "down")
        assert prompt.text == "draft"
        await pilot.press("ctrl+j", "x")
        assert prompt.text == "draft\nx"
        assert not fake_session.submitted  # slash commands never reach the engine


async def test_ctrl_c_twice_quits(fake_session: FakeSession) -> None:
    app = AgentApp(fake_session.options, session=fake_session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+c")
        assert app.is_running
        await pilot.press("ctrl+c")
        await pilot.pause()
    assert app.return_code == 0


async def test_f1_help_lists_every_binding_and_command(fake_session: FakeSession) -> None:
    app = AgentApp(fake_session.options, session=fake_session)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_clear_and_unknown_slash_commands(fake_session: FakeSession) -> None:
    app = AgentApp(fake_session.options, session=fake_session, permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await type_prompt(pilot, "/nonsense")
        await type_prompt(pilot, "/cost")
        assert any(m.startswith("session: ") for m in markers(app))
        await type_prompt(pilot, "/clear")
        await pilot.pause()
        assert fake_session.cleared == 1 and not app.query(TurnView)


async def test_old_turns_leave_the_dom_and_come_back(fake_session: FakeSession) -> None:
    app = AgentApp(fake_session.options, session=fake_session, permission_grace_s=0, max_mounted_turns=2)
    async with app.run_test(size=SIZE) as pilot:
        for n in range(3):
            await type_prompt(pilot, f"turn {n}")
            await wait_for_dialog(pilot, PermissionDialog)
            await pilot.press("1")
            await wait_until(pilot, lambda: not app.controller.busy)
        conversation = app.conversation
        assert len(conversation.turns) == 3 and len(conversation.mounted_views) == 2
        assert str(conversation.mounted_views[0].query_one(UserPrompt).render()) == "turn 1"
        assert await conversation.restore_earlier() == 1
        await pilot.pause()
        first = conversation.mounted_views[0]
        assert str(first.query_one(UserPrompt).render()) == "turn 0"
        assert first.query(ToolCallBlock)  # re-created from the records, tools included
        # the newest turn made room (the cap holds while reading old turns) and comes back below
        prompts = lambda: [str(v.query_one(UserPrompt).render()) for v in conversation.mounted_views]  # noqa: E731
        assert prompts() == ["turn 0", "turn 1"]
        assert await conversation.restore_later() == 1
        await pilot.pause()
        assert prompts() == ["turn 1", "turn 2"]
        await conversation.restore_earlier()
        await pilot.pause()
        await type_prompt(pilot, "turn 3")  # a new turn goes back to the newest turns first
        await wait_for_dialog(pilot, PermissionDialog)
        await pilot.press("1")
        await wait_until(pilot, lambda: not app.controller.busy)
        assert prompts() == ["turn 2", "turn 3"]


async def test_enter_typed_in_a_burst_submits_everything_before_it(fake_session: FakeSession) -> None:
    """Keys that arrive together ("hi" + Enter in one read) must not submit an empty prompt."""
    app = AgentApp(fake_session.options, session=fake_session, permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        for key, char in (("h", "h"), ("i", "i"), ("enter", "\r")):
            app.post_message(events.Key(key, char))
        await wait_until(pilot, lambda: fake_session.submitted)
        assert fake_session.submitted == ["hi"] and app.prompt_area.text == ""
        fake_session.cancel()
        await wait_until(pilot, lambda: not app.controller.busy)


async def test_editing_keys_in_a_burst_act_in_the_order_typed(fake_session: FakeSession) -> None:
    """Ctrl+A, Ctrl+K and text arriving together (one read: a fast typist over ssh, a macro, tmux send-keys)
    act in order: Textual matches a widget's own bindings only after the key bubbled up to the app, by which
    time the letters behind it were already typed (^A ^K "/rewind" on "first change" left "/rewind" and then
    deleted nothing, or deleted what had just been typed)."""
    app = AgentApp(fake_session.options, session=fake_session, permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.prompt_area
        prompt.load_text("first change")
        prompt.move_cursor(prompt.document.end)
        await pilot.pause()
        burst = [
            ("ctrl+a", "\x01"),
            ("ctrl+k", "\x0b"),
            *((c, c) for c in "rewind"),
            ("ctrl+a", "\x01"),
            ("ctrl+k", "\x0b"),
            *((c, c) for c in "done"),
        ]
        for key, char in burst:
            app.post_message(events.Key(key, char))
        try:
            await wait_until(pilot, lambda: prompt.text == "done", timeout=5)
        except AssertionError:
            raise AssertionError(f"the prompt holds {prompt.text!r}, not 'done'") from None


async def test_permissions_and_memory_commands_open_their_screens(offline_options) -> None:
    app = AgentApp(offline_options())
    async with app.run_test(size=SIZE) as pilot:
        for command, screen_name in (("/permissions", "PermissionsScreen"), ("/memory", "MemoryScreen")):
            await type_prompt(pilot, command)
            await wait_until(pilot, lambda name=screen_name: type(app.screen).__name__ == name)
            app.pop_screen()
            await pilot.pause()


async def test_the_status_line_counts_the_retries_while_each_one_connects(fake_session: FakeSession) -> None:
    app = AgentApp(fake_session.options, session=fake_session, permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        bus = fake_session.bus
        bus.publish(ev.TurnStarted(turn_id=1, prompt="hi"))
        bus.publish(ev.RequestSent(iteration=1, attempt=1, model="m", body={}))
        bus.publish(ev.RetryScheduled(iteration=1, attempt=2, max_attempts=5, delay_s=0.4, reason="cannot connect"))
        await wait_until(pilot, lambda: "(retry 2/5)" in str(app.status.render()))
        bus.publish(ev.RequestSent(iteration=1, attempt=2, model="m", body={}))  # the retry itself is under way
        await pilot.pause(0.1)
        assert "waiting for model (retry 2/5)" in str(app.status.render())
        bus.publish(ev.RequestSent(iteration=2, attempt=1, model="m", body={}))
        await wait_until(pilot, lambda: "(call 2)" in str(app.status.render()))
        assert "retry" not in str(app.status.render())


async def test_f1_help_scrolls_with_the_keys_at_once_and_says_how_to_open_a_tool_block(
    fake_session: FakeSession,
) -> None:
    app = AgentApp(fake_session.options, session=fake_session)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        box = app.screen.query_one("#help-body")
        await pilot.pause()
        await pilot.press("pagedown")
        await wait_until(pilot, lambda: box.scroll_y > 0)
        paged = box.scroll_y
        await pilot.press("down")
        await wait_until(pilot, lambda: box.scroll_y > paged)
        await pilot.press("pageup", "pageup", "pageup")
        await wait_until(pilot, lambda: box.scroll_y == 0)
        from tui.ui.screens.help_screen import TIPS, help_table

        text = " ".join(f"{tip} {what}" for tip, what in TIPS)
        assert "Open a tool block" in text and "Enter" in text and "Esc Esc" in text and "rewind" in text
        from rich.console import Console

        console = Console(width=200, record=True)
        console.print(help_table())
        shown = console.export_text()
        assert "textual keys" not in shown and "Open a tool block" in shown and "Esc Esc" in shown


async def test_an_unknown_command_names_the_projects_and_users_commands_and_skills(
    offline_options, demo_project
) -> None:
    (demo_project / ".claude/commands").mkdir(parents=True)
    (demo_project / ".claude/commands/fix issue.md").write_text("Fix issue $ARGUMENTS\n")
    (demo_project / ".claude/skills/release").mkdir(parents=True)
    (demo_project / ".claude/skills/release/SKILL.md").write_text("---\ndescription: cut a release\n---\nRelease.\n")
    app = AgentApp(offline_options(), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await app.submit_prompt("/fix issue 12")  # the file's name with its space: not a command one can type
        await wait_until(pilot, lambda: any("Unknown command /fix." in n for n in notices(app)))
        message = next(n for n in notices(app) if "Unknown command" in n)
        assert "Did you mean /fix-issue?" in message and "/help" in message
        assert "This project's and your commands and skills: /fix-issue, /release." in message
        app.prompt_area.insert("/fix")  # the menu completes to the name that runs
        await wait_until(
            pilot, lambda: "/fix-issue" in (app.prompt_area.completer.values if app.prompt_area.completer else [])
        )
        await pilot.press("tab")
        assert app.prompt_area.text == "/fix-issue "
        app.prompt_area.insert("12")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.session.messages)
        first = app.session.messages[0]["content"]
        assert "Fix issue 12" in (first if isinstance(first, str) else first[0]["text"])


async def test_quitting_at_the_first_frame_ends_cleanly(offline_options) -> None:
    """An exit asked for at the first frame (a script, the launch benchmark, Ctrl+C at once) ends the app without
    the after-first-frame work mounting into widgets that are going away (a MountError traceback)."""

    class QuitAtOnce(AgentApp):
        def on_ready(self) -> None:  # AgentApp.on_ready runs too: Textual calls the handlers along the MRO
            self.exit()

    app = QuitAtOnce(offline_options())
    await app.run_async(headless=True, size=(120, 40))
    assert app.return_code == 0
