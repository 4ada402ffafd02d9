"""The prompt's shortcuts in the real app (Pilot, offline engine): custom commands, `!`, `#`, `@`, `/init`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui.ui.app import AgentApp
from tui.ui.screens.memory_target_screen import MemoryTargetScreen
from tui.ui.screens.permission_dialog import PermissionDialog
from tui.ui.widgets.blocks import MarkerLine, ToolCallBlock, UserPrompt
from tui.ui.widgets.completion import CompletionMenu

from .conftest import SIZE, wait_for_dialog, wait_until


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def project(demo_project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-home"))
    _write(
        demo_project / ".claude/commands/greet.md",
        "---\ndescription: Say hello\nargument-hint: <name>\n---\nSay hello to $0.\n",
    )
    _write(demo_project / ".claude/commands/gitstate.md", "---\ndescription: git state\n---\nState: !`echo clean`\n")
    _write(demo_project / ".claude/commands/broken.md", "---\n  stray\ndescription: [x\n---\n")
    _write(demo_project / "docs/guide.md", "the guide\n")
    from tui.config.settings import decline_folder

    decline_folder(demo_project)  # asked once already and not trusted: no trust question takes the keys
    return demo_project


def _markers(app: AgentApp) -> list[str]:
    return [str(m.render()) for m in app.query(MarkerLine)]


def _options(offline_options, project: Path):
    return offline_options(project_dir=project)


async def _type(pilot, text: str) -> None:
    pilot.app.prompt_area.insert(text)
    await pilot.pause()


async def test_commands_completion_bash_mode_and_memory_in_one_session(offline_options, project) -> None:
    notes: list[str] = []
    app = AgentApp(_options(offline_options, project), permission_grace_s=0)
    original_notify = app.notify
    app.notify = lambda message, **kw: (notes.append(message), original_notify(message, **kw))  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: any("broken.md has frontmatter that is not YAML" in n for n in notes))
        menu = app.query_one(CompletionMenu)
        # `/` completes custom commands with their description and hint
        await _type(pilot, "/gre")
        assert menu.has_class("-open")
        assert "/greet  Say hello  <name>  (project command)" in str(menu.get_option_at_index(0).prompt)
        await pilot.press("tab")
        assert app.prompt_area.text == "/greet "
        await _type(pilot, "Ada")
        await pilot.press("enter")
        await wait_until(pilot, lambda: not app.controller.busy and app.session.messages)
        first = app.session.messages[0]["content"][0]["text"]
        assert first == "Say hello to Ada.\n"
        assert str(app.query(UserPrompt).first().render()).endswith("/greet Ada")  # shown as typed
        # a project `!` line in an untrusted folder: refused with one sentence, nothing sent
        sent = len(app.session.messages)
        await _type(pilot, "/gitstate")
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("not trusted" in n for n in notes))
        assert len(app.session.messages) == sent and not app.controller.busy
        # `!cmd`: a Bash call (read-only echo: no dialog), output shown, kept for the next request
        await _type(pilot, "!echo from-bash-mode")
        await pilot.press("enter")
        await wait_until(pilot, lambda: any(m.startswith("bash mode:") for m in _markers(app)))
        block = app.query(ToolCallBlock).last()
        assert not block.collapsed and "from-bash-mode" in block.tool.result_text
        context = app.session.messages[-1]["content"][-1]["text"]
        assert context.startswith("<bash-input>echo from-bash-mode</bash-input>\n<bash-stdout>from-bash-mode")
        # `@` completes files fuzzily and the file is attached to the prompt
        await _type(pilot, "read @gui")
        await wait_until(pilot, lambda: menu.has_class("-open"))
        assert "@docs/guide.md" in str(menu.get_option_at_index(0).prompt)
        await pilot.press("enter")
        assert app.prompt_area.text == "read @docs/guide.md "
        await pilot.press("enter")
        await wait_until(pilot, lambda: not app.controller.busy and "guide" in str(app.session.messages[-2:]))
        prompt_blocks = [
            b for m in app.session.messages if m["role"] == "user" for b in m["content"] if b.get("type") == "text"
        ]
        assert any('<file path="docs/guide.md">\nthe guide\n</file>' in b["text"] for b in prompt_blocks)
        assert any(b["text"].startswith("<bash-input>") for b in prompt_blocks)  # bash context went along
        # `#text` asks which file, then appends the line
        await _type(pilot, "#use tabs, not spaces")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, MemoryTargetScreen))
        await pilot.press("down", "enter")  # local memory
        await wait_until(pilot, lambda: (project / "AGENTS.local.md").exists())
        assert (project / "AGENTS.local.md").read_text() == "- use tabs, not spaces\n"
        assert "use tabs, not spaces" in app.session.system_blocks()[1]["text"]  # memory reloaded


async def test_init_writes_agents_md_through_the_write_permission(offline_options, project) -> None:
    from tui.config.paths import user_settings_file

    _write(project / "pyproject.toml", "[project]\nname='demo'\n")
    _write(user_settings_file(), 'status_line = "read json; echo \\"st:$json\\" | cut -c1-40"\n')
    from tui.config.settings import decline_folder

    decline_folder(project)  # the user settings were written anew: the folder's answer again
    app = AgentApp(_options(offline_options, project), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        # the statusLine command's first line shows in the footer (it got the JSON on stdin)
        await wait_until(pilot, lambda: app.status.custom.startswith('st:{"hook_event_name": "Status"'))
        assert app.status.custom in str(app.status.render())
        await _type(pilot, "/init")
        await pilot.press("enter")
        await wait_for_dialog(pilot, PermissionDialog)
        assert "AGENTS.md" in str(app.screen.event.preview.get("text"))
        await pilot.press("1")
        await wait_until(pilot, lambda: any(m.startswith("/init: wrote") for m in _markers(app)))
        await wait_until(pilot, lambda: app.status_command.runs >= 2)  # refreshed as the state changed
        text = (project / "AGENTS.md").read_text()
        assert text.startswith("# demo\n\n## Project overview (written by /init)")
        assert "Python (2 files)" in text and "`pyproject.toml`" in text


async def test_enter_matches_the_text_as_typed_not_a_stale_highlight(offline_options, project) -> None:
    app = AgentApp(_options(offline_options, project), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        menu = await _menu(pilot)
        await wait_until(pilot, lambda: app.trust_inventory is not None)  # read in a worker after the first frame
        await _type(pilot, "/")
        assert menu.has_class("-open") and str(menu.get_option_at_index(0).prompt).startswith(
            "/trust  folder not trusted"
        )
        assert str(menu.get_option_at_index(1).prompt).startswith("/add-dir")
        # "/rewind" + Enter sent in one write: Enter can come before the menu saw the letters
        app.prompt_area.insert("rewind")
        assert app.prompt_area.completer.key("enter") is False  # the typed name is sent, not "/add-dir"
        assert app.prompt_area.text == "/rewind"


async def _menu(pilot) -> CompletionMenu:
    await wait_until(pilot, lambda: pilot.app.query(CompletionMenu))
    return pilot.app.query_one(CompletionMenu)


async def test_keys_sent_in_one_burst_complete_nothing_and_run_the_command(offline_options, project) -> None:
    from textual import events

    app = AgentApp(_options(offline_options, project), permission_grace_s=0)
    async with app.run_test(size=SIZE) as pilot:
        menu = await _menu(pilot)
        await _type(pilot, "/con")
        await wait_until(pilot, lambda: menu.has_class("-open"))
        # "/context" + Enter written at once: Enter is a priority binding, matched by the app while the last
        # letters still wait in the prompt's queue
        prompt = app.prompt_area
        for char in "text":
            prompt.post_message(events.Key(char, char))
        prompt.action_submit()
        try:
            await wait_until(pilot, lambda: app.screen is not app.screen_stack[0], timeout=10)  # /context's screen
        except AssertionError:
            raise AssertionError(f"/context did not run; the prompt holds {prompt.text!r}") from None


async def test_an_outside_attachment_is_asked_and_a_secret_is_refused(
    offline_options, project, tmp_path, monkeypatch
) -> None:
    home = tmp_path / "home"
    _write(home / ".ssh/id_rsa", "SECRET-KEY-0123\n")
    _write(home / "notes.txt", "outside notes\n")
    monkeypatch.setenv("HOME", str(home))  # the default sandbox.deny_read holds ~/.ssh
    from tui.config.sandbox_settings import SandboxSettings
    from tui.sandbox import runtime

    monkeypatch.setattr(runtime, "_current", runtime.SandboxRuntime(SandboxSettings(), str(project)))
    notes: list[str] = []
    app = AgentApp(_options(offline_options, project), permission_grace_s=0)
    original_notify = app.notify
    app.notify = lambda message, **kw: (notes.append(message), original_notify(message, **kw))  # type: ignore[method-assign]

    def sent() -> str:
        return str([m for m in app.session.messages if m["role"] == "user"])

    async with app.run_test(size=SIZE) as pilot:
        await _type(pilot, "check @~/.ssh/id_rsa")
        await pilot.press("enter")  # refused without a question: one sentence in a toast
        await wait_until(pilot, lambda: any("@~/.ssh/id_rsa was not attached" in n for n in notes))
        await wait_until(pilot, lambda: not app.controller.busy)
        assert "sandbox.deny_read" in next(n for n in notes if "id_rsa" in n) and "SECRET" not in sent()
        for key, attached in (("escape", False), ("1", True)):
            await _type(pilot, "read @~/notes.txt")
            await pilot.press("enter")  # outside the project: the permission dialog asks
            await wait_for_dialog(pilot, PermissionDialog)
            assert app.screen.event.reason == f"{home / 'notes.txt'} is outside the project."
            await pilot.press(key)
            await wait_until(pilot, lambda: not app.controller.busy and not isinstance(app.screen, PermissionDialog))
            assert ("outside notes" in sent()) is attached
        assert any("@~/notes.txt was not attached" in n and "you did not allow it" in n for n in notes)
