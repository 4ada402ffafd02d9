"""The prompt's keys in the real app (Pilot, offline engine): Tab and /think, /effort, /vim, history, Ctrl+R, Ctrl+G, /add-dir."""

from __future__ import annotations

import os
import stat

from textual import events

from tui.agent.events import RequestSent
from tui.config.paths import user_settings_file
from tui.ui.app import AgentApp
from tui.ui.prompt_history import history_file
from tui.ui.widgets.blocks import MarkerLine

from .conftest import SIZE, wait_until


async def started(pilot) -> AgentApp:
    """The app once the prompt's keys are attached and the saved history and settings are read."""
    app = pilot.app
    await wait_until(pilot, lambda: app.prompt_area.keys is not None and app.prompt_area.keys.ready)
    return app


def burst(app: AgentApp, *keys: str) -> None:
    """Keys posted at once, as one read of the terminal delivers them (`<esc>`, `<tab>`, `<ctrl+r>` or a character)."""
    for key in keys:
        if key.startswith("<") and len(key) > 1:
            name, char = {"<esc>": ("escape", "\x1b"), "<tab>": ("tab", "\t"), "<ctrl+r>": ("ctrl+r", "\x12")}[key]
            app.post_message(events.Key(name, char))
            continue
        for char in key:
            app.post_message(events.Key({" ": "space", "$": "dollar_sign"}.get(char, char), char))


def saved_settings() -> str:
    path = user_settings_file()
    return path.read_text() if path.exists() else ""


def requests(app: AgentApp) -> list[dict]:
    sent: list[dict] = []
    app.session.bus.subscribe(lambda e: sent.append(e.body) if isinstance(e, RequestSent) else None, inline=True)
    return sent


async def send(pilot, text: str) -> None:
    """Send a prompt and wait for its turn to end (a slash command: for it to have run)."""
    app = pilot.app
    app.prompt_area.focus()
    app.prompt_area.load_text(text)
    turns = len(app.session.messages)
    await pilot.press("enter")
    if text.startswith("/"):  # the command runs on the app's queue behind the Submitted message
        await wait_until(pilot, lambda: app.prompt_area.text == "")
        await pilot.pause()
        await pilot.pause()
        return
    await wait_until(pilot, lambda: len(app.session.messages) > turns and not app.controller.busy)


async def test_tab_on_an_empty_prompt_and_slash_think_toggle_thinking(offline_options) -> None:
    app = AgentApp(offline_options(model="offline-demo"), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        sent = requests(app)
        assert "thinking" not in str(app.status.render())  # the model's default is not shown
        await pilot.press("tab")
        assert app.session.options.thinking is True and "thinking on" in str(app.status.render())
        await send(pilot, "list the python files")
        assert sent[0]["thinking"] == {"type": "adaptive", "display": "summarized"}
        await pilot.press("slash", "t", "h", "i", "n", "k", "enter")
        await wait_until(pilot, lambda: app.session.options.thinking is False)
        assert "thinking off" in str(app.status.render())
        app.prompt_area.load_text("text")
        await pilot.press("tab")  # with text in the prompt Tab is not the toggle: it moves the focus on
        assert app.session.options.thinking is False and not app.prompt_area.has_focus
        sent.clear()
        await send(pilot, "list the python files")
        assert "thinking" not in sent[0]
        app.prompt_area.focus()
        burst(app, "<tab>", "hi")  # in one burst: Tab on the still empty prompt, then the text
        await wait_until(pilot, lambda: app.prompt_area.text == "hi")
        assert app.session.options.thinking is True
        app.prompt_area.load_text("")
        burst(app, "hi", "<tab>")  # the text first: Tab is no toggle
        await wait_until(pilot, lambda: not app.prompt_area.has_focus)
        assert app.session.options.thinking is True and app.prompt_area.text == "hi"


async def test_effort_is_sent_where_the_model_takes_it_and_refused_where_not(offline_options) -> None:
    app = AgentApp(offline_options(model="offline-demo"), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        sent = requests(app)
        await send(pilot, "/effort max")
        assert "effort max" in str(app.status.render())
        await send(pilot, "list the python files")
        assert sent[0]["output_config"] == {"effort": "max"}
        await send(pilot, "/effort extreme")
        assert app.session.options.effort == "max"
        app.set_model("claude-haiku-4-5")
        assert "effort" not in str(app.status.render())  # Haiku 4.5 takes no effort: not shown, not sent
        await send(pilot, "/effort low")
        messages = [n.message for n in app._notifications]
        assert "Effort is one of low, medium, high, xhigh, max, not 'extreme'." in messages
        assert "claude-haiku-4-5 has no effort setting; nothing is sent for it." in messages
        assert app.session.options.effort == "max"


async def test_vim_keys_edit_in_order_and_the_mode_is_saved(offline_options) -> None:
    app = AgentApp(offline_options(model="offline-demo"), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await send(pilot, "/vim")
        assert "INSERT" in str(app.status.render())
        await wait_until(pilot, lambda: 'editor_mode = "vim"' in saved_settings())  # written on a thread
        prompt = app.prompt_area
        # one burst: typed text, Esc, then normal-mode commands, each acting in the order typed
        burst(app, "hello big world", "<esc>", "0dwwcwsmall", "<esc>", "$x")
        await wait_until(pilot, lambda: prompt.text == "big smal" and app.status.vi_mode == "normal")
        assert "NORMAL" in str(app.status.render())
        burst(app, "uu", "A", "!")
        await wait_until(pilot, lambda: prompt.text == "big world!")
        sent = requests(app)
        await pilot.press("escape", "enter")  # Enter in normal mode sends
        await wait_until(pilot, lambda: sent)
        assert sent[0]["messages"][-1]["content"][0]["text"] == "big world!"
        assert app.status.vi_mode == "insert"
        await send(pilot, "/vim")
        assert app.status.vi_mode == ""
        await wait_until(pilot, lambda: 'editor_mode = "normal"' in saved_settings())


async def test_editor_mode_vim_from_the_settings_starts_the_vi_keys(offline_options) -> None:
    user_settings_file().parent.mkdir(parents=True, exist_ok=True)
    user_settings_file().write_text('editor_mode = "vim"\n')
    app = AgentApp(offline_options(model="offline-demo"), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        burst(app, "ab", "<esc>", "x")
        await wait_until(pilot, lambda: app.prompt_area.text == "a")


async def test_the_history_is_kept_per_project_across_sessions_and_ctrl_r_searches_it(offline_options) -> None:
    first = AgentApp(offline_options(), permission_grace_s=0)
    async with first.run_test(size=SIZE) as pilot:
        await started(pilot)
        for prompt in ("list the python files", "explain README.md", "where is main defined"):
            await send(pilot, prompt)
    path = history_file(first.options.project_dir)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    second = AgentApp(offline_options(), permission_grace_s=0)
    async with second.run_test(size=SIZE) as pilot:
        await started(pilot)
        prompt = second.prompt_area
        await pilot.press("up")
        assert prompt.text == "where is main defined"
        prompt.load_text("draft")
        burst(second, "<ctrl+r>", "py")
        await wait_until(pilot, lambda: prompt.text == "list the python files")
        label = second.query_one("#prompt-search")
        assert label.display and "(reverse-i-search)`py'" in str(label.render())
        burst(second, "<ctrl+r>", "<esc>")  # no older match: it stays; Esc puts the draft back
        await wait_until(pilot, lambda: prompt.text == "draft" and not label.display)
        burst(second, "<ctrl+r>", "EXPL")
        await wait_until(pilot, lambda: prompt.text == "explain README.md")
        await pilot.press("enter")  # Enter keeps the match in the prompt to edit; a second Enter sends it
        assert prompt.text == "explain README.md" and not second.controller.busy


async def test_ctrl_g_without_a_terminal_to_hand_over_keeps_the_prompt(offline_options, monkeypatch) -> None:
    monkeypatch.setenv("EDITOR", "true")
    app = AgentApp(offline_options(model="offline-demo"), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        app.prompt_area.load_text("my draft")
        await pilot.press("ctrl+g")
        assert app.prompt_area.text == "my draft"
        assert "This terminal cannot hand the screen to an editor; the prompt is unchanged." in [
            n.message for n in app._notifications
        ]


async def test_add_dir_adds_a_working_directory_for_the_tools_and_the_system_prompt(offline_options, tmp_path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    app = AgentApp(offline_options(model="offline-demo"), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        await send(pilot, "/add-dir ../shared")
        assert app.session.options.add_dirs == [shared.resolve()]
        assert app.session.policy.extra_dirs == [shared.resolve()] and app.session.state.extra_dirs == [
            shared.resolve()
        ]
        assert any(f"working directory added: {shared.resolve()}" in str(m.render()) for m in app.query(MarkerLine))
        assert f"Additional working directories: {shared.resolve()}" in app.session.system_blocks()[-1]["text"]
        await send(pilot, "/add-dir nowhere")
        assert "nowhere is not a directory." in [n.message for n in app._notifications]
        assert len(app.session.options.add_dirs) == 1
